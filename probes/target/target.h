/* What lies under a path: mount, fs type and options, block device, whole disk, loop backing. */
#ifndef PROBE_TARGET_H
#define PROBE_TARGET_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

struct probe_target {
	char path[PATH_MAX]; /* as given, made absolute */
	char mountpoint[PATH_MAX];
	char fstype[64]; /* as mountinfo says */
	char mount_options[1024]; /* VFS + fs options, as libmount reads them back */
	char source[PATH_MAX]; /* mount source: /dev/loop3, tmpfs, overlay... */
	char fsroot[PATH_MAX]; /* root of the mount inside the fs: bind mounts, btrfs subvolumes */
	bool bind; /* fsroot is not "/" (and not a btrfs subvolume root) */
	char subvol[256]; /* btrfs subvol= when present */
	unsigned major, minor; /* of the filesystem (mountinfo), 0:0 if unknown */
	bool has_block_device; /* false for tmpfs, overlay, fuse... */
	char device[64]; /* kernel name: loop3, sda2, nvme0n1p1 */
	unsigned dev_major, dev_minor; /* of the block device (differs from major:minor on btrfs) */
	char disk[64]; /* whole disk: sda, loop3 */
	char disk_sysfs[PATH_MAX]; /* <root>/sys/block/<disk> */
	bool partition;
	char loop_backing_file[PATH_MAX]; /* loop devices: loop/backing_file */
	bool loop_direct_io; /* loop/dio */
	char blkid_type[64], uuid[64]; /* libblkid on the device, when readable */
	char note[256]; /* plain words: "tmpfs has no block device", "bind mount of /x" */
};

/*
 * Resolves @path under @root ("" or NULL: the live system; tests pass a fixture directory
 * holding proc/self/mountinfo and a fake sys/ tree). Live, the path must exist: it is made
 * canonical and checked against the mount's device number; in a fixture it is only made
 * absolute and matched by the longest mount point prefix. Returns 0, -ENOENT when no mount
 * covers the path (or it does not exist), or another -errno; @ret is filled only on success.
 */
int probe_target_resolve(const char *root, const char *path, struct probe_target *ret);

/* Every field, empty strings as null. Returns a new object, or NULL on allocation failure. */
json_t *probe_target_json(const struct probe_target *t);

/*
 * The short target record of a run in a directory the user chose (suite --dir): {path
 * as given, mountpoint, fstype, source, mount_options} of the mount holding @path under
 * @root (NULL or "" is the live system, where @path is canonicalised first). Without a
 * mount only "path". @ret_fstype (may be NULL) gets the fstype, "" if unknown. Never NULL
 * unless out of memory.
 */
json_t *probe_target_dir_json(const char *root, const char *path, char *ret_fstype, size_t len);

#endif
