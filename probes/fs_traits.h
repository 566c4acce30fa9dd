/* What fsbench knows about each filesystem type: how it spells barriers, how to mkfs it. */
#ifndef PROBE_FS_TRAITS_H
#define PROBE_FS_TRAITS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * One filesystem type. Knobs (the barrier knob), scratch (mkfs) and suites (the barrier
 * dimension) all read this table: a filesystem's spelling lives nowhere else.
 */
struct fs_traits {
	const char *fstype; /* as mountinfo and mkfs.<fstype> name it */
	/*
	 * The mount option that turns write barriers (cache flushes, FUA) on and the one that
	 * turns them off. "" where the state needs no option; NULL where the kernel has no
	 * way to reach it (then @barrier_why says why, for the user).
	 */
	const char *barrier_on;
	const char *barrier_off;
	const char *barrier_why;
	/* mkfs arguments: overwrite without asking (an image or a whole device), and quiet */
	const char *mkfs_force;
	const char *mkfs_quiet;
	/*
	 * The -E value that makes mkfs write the inode tables and journal now instead of in
	 * the background during the measurement; NULL where mkfs has no lazy init.
	 */
	const char *mkfs_eager_init;
	/* A file mkfs reads besides its arguments (mke2fs.conf), or NULL. */
	const char *mkfs_config;
	/*
	 * The kernel module that serves the type when the kernel does not build it in (ext4
	 * serves ext2 and ext3): what a guest kernel must load before mkfs and mount.
	 */
	const char *kmod;
	/*
	 * The smallest device mkfs takes with its defaults, as mkfs says itself: mkfs.xfs 6.1
	 * "Filesystem must be larger than 300MB", mkfs.btrfs "minimum size for each btrfs
	 * device is 114294784"; ext* need room for the default journal.
	 */
	int64_t mkfs_min_bytes;
};

/* The traits of @fstype, or NULL for a type fsbench knows nothing special about. */
const struct fs_traits *fs_traits_find(const char *fstype);

/*
 * The mount option that sets barriers to @on on @fstype ("" when none is needed), or NULL
 * when that state cannot be set there (unknown type, or the kernel dropped the option).
 */
const char *fs_traits_barrier_option(const char *fstype, bool on);

#endif
