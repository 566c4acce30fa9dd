/* Runs a workload's threads: start barrier, loops, runtime bound, progress, merge. */
#ifndef FSB_RUNNER_H
#define FSB_RUNNER_H

#include "base/signal.h"
#include "fsbench/core/workload.h"

/*
 * Allocates threads and histograms for @run (wl, cfg, nthreads set by the caller).
 * Returns 0 or -errno.
 */
int runner_prepare(struct fsb_run *run);

/*
 * Runs every loop the workload wants; on return the run's totals are merged and
 * run->err / run->signal say how it ended. Returns 0 when the run completed.
 */
int runner_run(struct fsb_run *run);

void runner_free(struct fsb_run *run);

#endif
