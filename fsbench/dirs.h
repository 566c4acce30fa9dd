/* How a workload spreads its threads over the directories given with -d (fs_mark's rules). */
#ifndef FSB_DIRS_H
#define FSB_DIRS_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

/* fs_mark's rule for several -d: at least one thread per directory. */
int fsb_dirs_nthreads(const struct fsb_common *c, int64_t threads);

/* ...and more threads than directories must divide evenly. 0 or -EINVAL with @err set. */
int fsb_dirs_check_threads(const struct fsb_common *c, int64_t threads, const char *flag, char *err,
			   size_t errlen);

#endif
