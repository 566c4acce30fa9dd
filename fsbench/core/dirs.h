/* How a workload spreads its threads over the directories given with -d (fs_mark's rules). */
#ifndef FSB_DIRS_H
#define FSB_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsbench/core/common.h"

/* fs_mark's rule for several -d: at least one thread per directory. */
int fsb_dirs_nthreads(const struct fsb_common *c, int64_t threads);

/* ...and more threads than directories must divide evenly. 0 or -EINVAL with @err set. */
int fsb_dirs_check_threads(const struct fsb_common *c, int64_t threads, const char *flag, char *err,
			   size_t errlen);

/* The -d directories of a run, open: one descriptor each, however many subdirectories. */
struct fsb_dirs {
	int n;
	int *fd; /* [n], -1 when not open */
	bool *made; /* [n]: this run created the directory (fsb_dirs_close may remove it) */
};

/*
 * Opens every -d directory of @c into @ret, each checked writable. A missing directory is
 * created (its last component only, as fs_mark does; a missing parent is an error). On
 * failure @err names the directory and the reason, and whatever was opened or created is
 * left in @ret for fsb_dirs_close(). 0 or -errno.
 */
int fsb_dirs_open(struct fsb_dirs *ret, const struct fsb_common *c, char *err, size_t errlen);

/*
 * Closes @d and removes the directories it created, when they are empty again (rmdir never
 * removes a file: with -k the directory and the files stay). Safe on a zeroed @d.
 */
void fsb_dirs_close(struct fsb_dirs *d, const struct fsb_common *c);

/*
 * As root, a workload's directory @dir (open as *@fd) must be reachable from "/" through
 * directories no other user can change (base_dir_open_trusted, the directory itself may be
 * shared and sticky as /tmp): else another user could swap it, or a directory above it, for
 * a symlink to where root would then write. *@fd is replaced by the descriptor of that walk
 * when it is the same directory. 0 (also when not root), or -errno with @err naming @flag.
 */
int fsb_dir_trusted(const char *flag, const char *dir, int *fd, char *err, size_t errlen);

#endif
