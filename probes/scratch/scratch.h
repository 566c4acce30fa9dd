/* Scratch filesystems: a sparse image on a loop device or a user's device, mkfs, mount, undo. */
#ifndef PROBE_SCRATCH_H
#define PROBE_SCRATCH_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct journal;

#define PROBE_SCRATCH_ARGV_MAX 48

/*
 * One scratch target for a whole suite: the device (or loop device over an image) is
 * attached once and made again for every repetition. Everything here that is set up is
 * undone by probe_scratch_release(), which is safe to call at any stage.
 */
struct probe_scratch {
	char image[PATH_MAX]; /* the image file, or "" for a user's device */
	bool image_created; /* fsbench made it: it may remove it */
	bool keep_image;
	char device[PATH_MAX]; /* /dev/loopN or the user's device */
	int loop_fd; /* held open while attached, so that AUTOCLEAR waits for us; -1 */
	bool loop_direct_io; /* what the kernel reports after attaching */
	char loop_note[256]; /* why direct I/O is off, in plain words */
	char mountpoint[PATH_MAX];
	bool mountpoint_created;
	bool mounted;
	char fstype[32]; /* last mkfs */
	char *mkfs_argv[PROBE_SCRATCH_ARGV_MAX]; /* last mkfs, NULL-terminated, owned */
	char mount_options[1024]; /* as requested for the last mount */
	char mount_options_read[1024]; /* as libmount read them back */
	char blkid_type[64]; /* libblkid on the device after mkfs */
	/*
	 * Where each thing is recorded as it is made (the mount just before it is made), so
	 * that `fsbench restore` can undo them after a kill -9; NULL records nothing. Not
	 * owned: the caller opens it, and removes it once probe_scratch_release() succeeded.
	 */
	struct journal *journal;
	bool mount_journalled; /* the mount point is the same for every mount: one entry */
	/* a user's device (probe_scratch_device) is locked until probe_scratch_release */
	char device_lock[64];
	int device_lock_fd;
};

/* Sets every field to "nothing set up". */
void probe_scratch_init(struct probe_scratch *s);

/*
 * Records in s->journal a directory @path that the caller made for the scratch target
 * (emptied by probe_scratch_release, removed by the caller), so that restore removes it
 * too when it is empty. 0 (also without a journal) or -errno with @err set.
 */
int probe_scratch_journal_dir(struct probe_scratch *s, const char *path, char *err, size_t errlen);

/*
 * The same for a file the caller made (a disk image it removes itself, as kernel-gate's
 * scratch and results disks): restore unlinks it if it is still that file.
 */
int probe_scratch_journal_file(struct probe_scratch *s, const char *path, char *err, size_t errlen);

/*
 * Records directory @path, just made and still empty, as a tree that `fsbench restore` may
 * remove whole: only a directory named .extract.* (a kernel package being extracted into
 * the cache), still the same inode, owned by root and closed to others, is removed.
 */
int probe_scratch_journal_tree(struct probe_scratch *s, const char *path, char *err, size_t errlen);

/*
 * Undoes the scratch entries ("kind": "scratch") of a dead run's journal @entries, newest
 * first: unmounts a mount only if the device mounted there is still the one recorded
 * (major:minor, diskseq), detaches a loop device only if it is still the recorded one
 * and its backing file the recorded image (device and inode), removes an image or an
 * empty directory only if it is still the file fsbench made (device and inode). What is
 * already gone counts as undone. One result per entry is appended to @results (may be
 * NULL): {what, path, status: "undone"|"refused"|"failed", message | error}. Returns 0,
 * or the first failure's -errno (-ESTALE: refused, something else is there now).
 */
int probe_scratch_entries_restore(json_t *entries, json_t *results);

/*
 * Creates a sparse file of @size bytes at @path (refused when it exists) and attaches it
 * to a free loop device with LO_FLAGS_AUTOCLEAR and, where the kernel and the backing
 * filesystem allow, LO_FLAGS_DIRECT_IO (loop_direct_io and loop_note say which). 0 or
 * -errno with @err set.
 */
int probe_scratch_image(struct probe_scratch *s, const char *path, uint64_t size, char *err,
			size_t errlen);

/*
 * Takes a user's block device: refused with -EBUSY when it is mounted or another fsbench
 * holds its lock (taken here, released by probe_scratch_release), and with -EEXIST
 * when libblkid finds a filesystem, RAID or swap signature or a partition table on it,
 * unless @force. 0 or -errno with @err set.
 */
int probe_scratch_device(struct probe_scratch *s, const char *dev, bool force, char *err,
			 size_t errlen);

/* Drops the device's lock (probe_scratch_release does, once nothing is mounted). */
void probe_scratch_device_unlock(struct probe_scratch *s);

/*
 * Runs mkfs.@fstype on the device (fork/exec, no shell) with fsbench's defaults (-F/-f,
 * lazy init off for ext4) and @opts (NULL-terminated extra arguments, may be NULL), then
 * reads the new filesystem's type back with libblkid. 0 or -errno with @err set to the
 * tool's first line of output.
 */
int probe_scratch_mkfs(struct probe_scratch *s, const char *fstype, const char *const *opts,
		       char *err, size_t errlen);

/*
 * Why device @devno is busy, into @ret as one phrase for an error message: what
 * <@root>/sys/dev/block/MAJ:MIN/holders lists (device-mapper, md), and the mount namespaces
 * of running processes that mount it, each with a process in it, its comm and the mount
 * point there (probe_mount_holders); or that none was found. @root NULL is the system;
 * tests pass a fixture tree. probe_scratch_mkfs adds it to a failure when the device is
 * busy (an O_EXCL open fails with EBUSY, or mkfs says so).
 */
void probe_scratch_busy_why(const char *root, dev_t devno, char *ret, size_t len);

/* The mkfs command line that would run, for dry runs and tests; same ownership as above. */
int probe_scratch_mkfs_argv(const char *fstype, const char *device, const char *const *opts,
			    char **ret_argv, size_t max);

/*
 * Mounts the device on a fresh directory under @dir (made once and reused) through
 * libmount with @options (may be NULL), and reads the options back. 0 or -errno with @err.
 */
int probe_scratch_mount(struct probe_scratch *s, const char *dir, const char *options, char *err,
			size_t errlen);

/* Unmounts what probe_scratch_mount() mounted, through libmount. 0 or -errno with @err. */
int probe_scratch_umount(struct probe_scratch *s, char *err, size_t errlen);

/*
 * Undoes everything: unmounts, detaches the loop device, removes the mount directory and,
 * unless keep_image, the image. Returns the first error (-errno, @err set) but goes on.
 */
int probe_scratch_release(struct probe_scratch *s, char *err, size_t errlen);

/*
 * What the scratch target is now: device, blkid_type, fstype, mount options requested and
 * read back, mkfs argv, and the loop's backing file and flags. A new object.
 */
json_t *probe_scratch_json(const struct probe_scratch *s);

#endif
