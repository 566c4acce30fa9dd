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
	/*
	 * How mountinfo shows barriers off, as "name" or "name=value": ext4 prints "nobarrier"
	 * after a barrier=0 mount (and older kernels "barrier=0"). Empty where off cannot be.
	 */
	const char *barrier_off_shown[3];
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

/*
 * Whether the options of a mount of @fstype say barriers are off: @has(name, value, arg)
 * answers whether the mount has option @name with @value (NULL: a flag), so that the
 * spellings stay here and the option parser with the caller. False for unknown types.
 */
bool fs_traits_barrier_off(const char *fstype,
			   bool (*has)(const char *name, const char *value, void *arg), void *arg);

#endif
