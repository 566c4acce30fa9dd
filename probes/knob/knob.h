/* Block-queue, drive-cache, vm and barrier knobs: read, validate, apply in batches, restore. */
#ifndef PROBE_KNOB_H
#define PROBE_KNOB_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "probes/knob/journal.h"

enum knob_scope {
	KNOB_SCOPE_QUEUE, /* <disk>/queue/<file> */
	KNOB_SCOPE_IOSCHED, /* <disk>/queue/iosched/<file> of the active scheduler */
	KNOB_SCOPE_DRIVE, /* <disk>/device/scsi_disk/<h:c:t:l>/<file> */
	KNOB_SCOPE_VM, /* /proc/sys/vm/<file> */
	KNOB_SCOPE_MOUNT, /* a mount option, changed by remount */
};

/* What a change really changes: the kernel's behaviour, the drive's own setting, a mount. */
enum knob_touch {
	KNOB_TOUCH_KERNEL,
	KNOB_TOUCH_DRIVE,
	KNOB_TOUCH_MOUNT,
};

enum knob_type {
	KNOB_INT, /* decimal in [min, max] */
	KNOB_SELECT, /* one of the words the file lists, the active one in [brackets] */
	KNOB_CACHE, /* "write back" | "write through" (aliases on/off, 1/0, wb/wt) */
	KNOB_BOOL, /* 0 | 1 (aliases on/off, true/false) */
};

struct knob_def {
	const char *name; /* what users type; iosched knobs are "iosched/<file>" */
	enum knob_scope scope;
	const char *file;
	enum knob_type type;
	long long min, max;
	/*
	 * KNOB_INT: the queue file that holds the device's own upper bound, read in place of
	 * @max when the knob is set on a device (max_sectors_kb: max_hw_sectors_kb); NULL: @max.
	 */
	const char *max_file;
	enum knob_touch touch;
	/*
	 * The knob whose write zeroes this one (dirty_bytes <-> dirty_ratio): the journal
	 * records whichever of the two is in force, since writing that one restores both.
	 */
	const char *pair;
	const char *help;
};

/* NULL-terminated, in the order `info` shows them; one generic entry stands for iosched/. */
extern const struct knob_def knob_defs[];

/* The definition for @name ("iosched/fifo_batch" finds the generic one), or NULL. */
const struct knob_def *knob_def_find(const char *name);

/* "kernel", "drive", "mount". */
const char *knob_touch_name(enum knob_touch touch);

/* Why a change of @d matters, as `info` and `knobs` say it next to its value. */
const char *knob_touch_words(const struct knob_def *d);

/* What each known knob of @values (name -> value) touches: name -> knob_touch_name(). */
json_t *knob_touches_json(const json_t *values);

#define KNOB_MAX_SLAVES 16
#define KNOB_VALUE_MAX 128

/*
 * The device and mount whose knobs are read and changed. Paths are relative to @root
 * ("" is the real system; tests pass a fixture tree): the caller resolves a path to its
 * mount and whole disk (probes/target/target.h) and passes the results in.
 */
struct knob_target {
	char root[1024];
	char disk[64]; /* top whole-disk device ("sda", "loop3", "dm-0"), "" if none */
	char disk_dir[PATH_MAX]; /* "/sys/block/<disk>" */
	unsigned major, minor; /* of @disk */
	long long diskseq; /* -1 where the kernel has none */
	char scsi_dir[PATH_MAX]; /* "/sys/block/<disk>/device/scsi_disk/<h:c:t:l>", "" if not SCSI */
	char slaves[KNOB_MAX_SLAVES][64]; /* devices below a stacked @disk (dm, md) */
	int nslaves;
	char backing_file[PATH_MAX]; /* what a loop device reads and writes, "" otherwise */
	char mountpoint[PATH_MAX]; /* "" if not known */
	char fstype[64];
	char mnt_dev[32]; /* "maj:min" of the mount from mountinfo */
	char mnt_source[PATH_MAX];
	char mnt_options[1024]; /* VFS and fs options together, as mount(8) shows them */
};

/*
 * Fills @ret for whole disk @disk (may be NULL or "" for a target without a block device)
 * and the mount at @mountpoint with @fstype (either may be NULL). Reads the disk's dev,
 * diskseq, slaves/, loop backing file, SCSI disk, and the mount's line in
 * <root>/proc/self/mountinfo. Returns 0, -ENOENT when @disk is not in <root>/sys/block,
 * or -errno.
 */
int knob_target_init(const char *root, const char *disk, const char *mountpoint, const char *fstype,
		     struct knob_target *ret);

/*
 * The current value of knob @name in canonical form (the active scheduler's name, "write
 * back", "0"/"1" for barriers). -ENOENT when this target has no such knob (no device, no
 * SCSI disk, a queue file this kernel lacks), -EOPNOTSUPP for barriers on a filesystem
 * without a barrier option, or -errno.
 */
int knob_read(const struct knob_target *t, const char *name, char *ret, size_t len);

/*
 * What can be checked of @value for knob @name without a device (a suite file, before any
 * target exists): integers against the knob's range, 0/1 knobs. Values that depend on the
 * device (a scheduler it lists, max_sectors_kb's limit) pass here and are checked by
 * knob_validate() when applied. 0, -ENOENT (no such knob) or -EINVAL with @err set.
 */
int knob_check_value(const char *name, const char *value, char *err, size_t errlen);

/*
 * Checks @value for knob @name on @t without changing anything, and writes its canonical
 * form to @ret. -EINVAL (bad value: @err says the accepted ones), -ENOENT (no such knob
 * here), -EOPNOTSUPP; @err is one line naming the knob.
 */
int knob_validate(const struct knob_target *t, const char *name, const char *value, char *ret,
		  size_t len, char *err, size_t errlen);

/* Every knob this target has, name -> current value (integers as numbers). */
json_t *knob_values_json(const struct knob_target *t);

/* The device facts `info` shows: disk, dev, diskseq, rotational, block sizes, slaves... */
json_t *knob_target_json(const struct knob_target *t);

#define KNOB_BATCH_MAX 64

struct knob_change {
	const struct knob_def *def;
	char name[80];
	char value[KNOB_VALUE_MAX]; /* validated, canonical */
	char before[KNOB_VALUE_MAX]; /* when the batch was validated */
	char applied[KNOB_VALUE_MAX]; /* read back after writing (the kernel may round) */
	bool written; /* differed from @before, so it was written */
};

/* A set of changes validated together and applied all or none. */
struct knob_batch {
	const struct knob_target *t;
	int n;
	struct knob_change ch[KNOB_BATCH_MAX];
	size_t journal_from; /* first journal entry this batch appended */
};

/* Splits "NAME=VALUE" into @b (not yet validated). -EINVAL/-E2BIG with @err set. */
int knob_batch_add(struct knob_batch *b, const char *assignment, char *err, size_t errlen);

/*
 * Validates every change against @b->t and records each one's current value; nothing is
 * written. iosched/ knobs are checked against the scheduler the batch selects, if any.
 */
int knob_batch_validate(struct knob_batch *b, char *err, size_t errlen);

/*
 * Applies a validated batch, the scheduler first (a scheduler switch resets nr_requests
 * and the iosched/ files). Before each write the value to restore goes into @j. When
 * the kernel refuses a value, every change already made by this batch is restored and
 * the errno is returned with @err naming the knob and value.
 */
int knob_batch_apply(struct knob_batch *b, struct journal *j, char *err, size_t errlen);

/* The changes as JSON: which ones were applied with what values, and what each touches. */
json_t *knob_batch_applied_json(const struct knob_batch *b);
json_t *knob_batch_touched_json(const struct knob_batch *b);

/*
 * The owners of knobs, each with its lock (journal.h): a device (major:minor and diskseq:
 * its queue, iosched/ and drive cache), a mounted filesystem (major:minor of the
 * superblock, which a remount of any of its mounts changes: its barrier), and the vm
 * dirty knobs, one for the machine. Whoever changes or restores a knob holds its owner's
 * lock from before it reads the value to keep until after it has put it back.
 */
#define KNOB_OWNERS_MAX 8

struct knob_owner {
	char lock[JOURNAL_LOCK_NAME_MAX]; /* "dev-7:3-seq12", "mnt-7:3", "vm" */
	char desc[PATH_MAX + 64]; /* "the knobs of loop3 (7:3)", "the barrier of /mnt (7:3)" */
	bool plural; /* desc takes "are" */
	char first[KNOB_VALUE_MAX + 80]; /* the first change of this owner: "nr_requests=64" */
	int fd; /* -1 unless taken */
};

/* Owners in the order their locks are taken (devices, mounts, vm), so waiters never deadlock. */
struct knob_locks {
	int n;
	int busy; /* index of the owner another holder had, -1 */
	struct knob_owner o[KNOB_OWNERS_MAX];
};

/* The owners of the knobs batch @b changes (none taken yet). */
int knob_batch_owners(const struct knob_batch *b, struct knob_locks *ret);

/*
 * The owners of journal @entries (none taken yet). An entry that names no owner fsbench
 * knows is skipped here: knob_entries_restore() refuses it and says why.
 */
int knob_entries_owners(json_t *entries, struct knob_locks *ret);

/*
 * Takes every lock of @l in @dir for this process doing @what (journal_lock_take, waiting
 * up to @wait_ms for each), all or none. -EBUSY when another holder has one: @l->busy is
 * its index and @err says "the knobs of loop3 (7:3) are held by another fsbench run
 * (pid 1234)". Other -errno with @err naming the lock.
 */
int knob_locks_take(struct knob_locks *l, const char *dir, const char *what, int wait_ms, char *err,
		    size_t errlen);

/*
 * Takes the locks of every owner whose knobs @b (validated) changes and validates @b
 * again under them, so that its "before" values are not those of a run that was just
 * ending. Never waits: -EBUSY with @err = "nr_requests=64: the knobs of loop3 (7:3) are
 * held by another fsbench run (pid 1234); runs that change the same knobs cannot
 * overlap". Returns 0 with the locks in @ret, or -errno with @err set and none held.
 */
int knob_batch_lock(struct knob_batch *b, const char *dir, const char *what, struct knob_locks *ret,
		    char *err, size_t errlen);

/* Releases the locks taken (those with fd >= 0), the last first. */
void knob_locks_release(struct knob_locks *l, const char *dir);

/*
 * Restores journal @entries from index @from on, treating them as untrusted input:
 * an entry must name a knob of knob_defs[], a value of its type and its owner's identity
 * (a device's major:minor and diskseq, a mount's mount point, major:minor and fstype);
 * the file written is rebuilt from the knob and the device found by that identity, and
 * a mount entry only ever remounts with the barrier option of the filesystem found
 * there. Of several entries of one knob only the oldest is written (it holds the value
 * from before); schedulers go first, the rest newest first. A knob already at its value
 * counts as restored. One result per knob is appended to @results (may be NULL):
 * {knob, value, dev?, status: "restored"|"refused"|"failed", error}. Returns 0 when
 * every knob was restored, else the first failure's -errno (-ESTALE: the device or mount
 * changed identity; -EBADMSG: an entry that is not fsbench's to replay).
 */
int knob_entries_restore(const char *root, json_t *entries, size_t from, json_t *results);

#endif
