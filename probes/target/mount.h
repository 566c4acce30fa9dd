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

/* A mount namespace that mounts a given device, and the processes seen in it. */
struct probe_mount_holder {
	pid_t pid; /* the lowest pid found in that namespace */
	char comm[32]; /* its /proc/PID/comm, "" when it ended meanwhile */
	unsigned nprocs; /* processes found in that namespace */
	bool own_ns; /* the caller's own namespace */
	char target[PATH_MAX]; /* where the device is mounted there (the first mount) */
};

/*
 * A scan of every process costs a readlink each, and a mountinfo parse per namespace not
 * seen before: bounded so that a host with a fork bomb or a namespace per container does
 * not stall an error message. Beyond either bound the scan stops and says it was cut.
 */
#define PROBE_MOUNT_SCAN_PROCS 65536
#define PROBE_MOUNT_SCAN_NS 256

/*
 * Finds the mount namespaces of running processes that mount device @devno: reads
 * <@root>/proc/PID/ns/mnt of each process (a process without one is its own namespace)
 * and, once per namespace, <@root>/proc/PID/mountinfo. Fills at most @max holders into
 * @ret, in /proc's order, and sets @ret_n; @ret_cut (may be NULL) says whether a bound
 * above, or @max, cut the scan. A namespace that no process is in (kept by a bind mount
 * of its nsfs file or an open descriptor) is not seen. 0 or -errno (no /proc).
 */
int probe_mount_holders(const char *root, dev_t devno, struct probe_mount_holder *ret, size_t max,
			size_t *ret_n, bool *ret_cut);

/*
 * Whether option @name is in @m->options ("barrier", "subvol"...): 0 with its value in
 * @ret ("" for a flag; @ret may be NULL), or -ENOENT.
 */
int probe_mount_option(const struct probe_mount *m, const char *name, char *ret, size_t len);

#endif
