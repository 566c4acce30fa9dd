/* Filesystem internals where the kernel offers them: jbd2 journal, xfs log, btrfs commits. */
#ifndef PROBE_FSSTATS_H
#define PROBE_FSSTATS_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "probes/target/target.h"

#define PROBE_FS_MAX_VALUES 32

/*
 * One snapshot of the one statistics source a filesystem type has:
 *   ext3, ext4  jbd2   <root>/proc/fs/jbd2/<device>-<journal inode>/info
 *   xfs         xfs    <root>/sys/fs/xfs/<device>/stats/stats (log, push_ail, xpc lines)
 *   btrfs       btrfs  <root>/sys/fs/btrfs/<uuid>/commit_stats (Linux 6.0 and later)
 * Anything else has kind = its fs type and available = false with a reason.
 */
struct probe_fs_snap {
	char kind[64];
	char source[PATH_MAX]; /* the file read, or empty */
	bool available;
	char reason[256]; /* why not available */
	int n;
	const char *name[PROBE_FS_MAX_VALUES]; /* static strings */
	uint64_t v[PROBE_FS_MAX_VALUES];
};

/* Takes a snapshot for @t's filesystem. An absent source is not an error: 0, or -EINVAL. */
int probe_fsstats_read(const char *root, const struct probe_target *t, struct probe_fs_snap *ret);

/* The value called @name in @s, or -ENOENT. */
int probe_fs_snap_get(const struct probe_fs_snap *s, const char *name, uint64_t *ret);

/*
 * The run's `kernel.fs_stats` object: { "<kind>": { "source", "available", "reason" or the
 * figures over the run, "before", "after" } }. Figures per kind:
 *   jbd2:  transactions, requested_transactions (deltas); handles_per_transaction,
 *          blocks_per_transaction, logged_blocks_per_transaction over the run's
 *          transactions, rebuilt from the kernel's means since mount, whose integer
 *          division leaves at most per_transaction_uncertainty of error;
 *          average_commit_time_ns (the kernel's own moving average, 3/4 weight on the past,
 *          at the end of the run)
 *   xfs:   log_writes, log_bytes, log_forces, log_force_sleeps, log_noiclogs, push_ail_*,
 *          write_bytes (deltas)
 *   btrfs: commits, total_commit_ns, mean_commit_ns (over the run), last_commit_ns,
 *          max_commit_ns_since_mount
 * NULL on allocation failure.
 */
json_t *probe_fsstats_json(const struct probe_fs_snap *before, const struct probe_fs_snap *after);

#endif
