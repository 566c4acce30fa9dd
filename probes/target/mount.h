/* The one mount lookup: a line of <root>/proc/self/mountinfo, read through libmount. */
#ifndef PROBE_MOUNT_H
#define PROBE_MOUNT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One mount, copied out of libmount's table (fields cut to their size, never overrun). */
struct probe_mount {
	char target[PATH_MAX]; /* the mount point */
	char fstype[64];
	char source[PATH_MAX];
	char fsroot[PATH_MAX]; /* the directory of the filesystem mounted there ("/" mostly) */
	char options[1024]; /* VFS and filesystem options together, as mount(8) shows them */
	unsigned major, minor; /* st_dev of the mount's superblock */
	bool netfs; /* libmount counts its fstype as a network filesystem */
};

enum probe_mount_match {
	/* the mount on directory @path exactly; of mounts stacked there, the top one */
	PROBE_MOUNT_TARGET,
	/*
	 * the mount holding absolute @path: the longest mount point that covers it by whole
	 * components, the top one of a stack. Matched by name alone, so fixture paths that
	 * do not exist work and the caller canonicalises (realpath) a live path first.
	 */
	PROBE_MOUNT_PATH,
	/* the first mount of device @devno, in mountinfo's order */
	PROBE_MOUNT_DEVNO,
};

/*
 * Finds a mount in <@root>/proc/self/mountinfo (@root NULL or "" is the real system;
 * tests pass a fixture tree) by @how: @path for TARGET and PATH, @devno for DEVNO.
 * Returns 0 with @ret filled, -ENOENT when no mount matches (or no mountinfo), or -errno
 * (-ENOMEM; -EINVAL for a mountinfo libmount cannot parse, -EIO for other read errors).
 * @ret is untouched on failure.
 */
int probe_mount_find(const char *root, enum probe_mount_match how, const char *path, dev_t devno,
		     struct probe_mount *ret);

/*
 * Whether option @name is in @m->options ("barrier", "subvol"...): 0 with its value in
 * @ret ("" for a flag; @ret may be NULL), or -ENOENT.
 */
int probe_mount_option(const struct probe_mount *m, const char *name, char *ret, size_t len);

#endif
