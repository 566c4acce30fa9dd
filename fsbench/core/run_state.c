/* The run state's one shared verb (run_state.h): the first failure stops every worker. */
#include "fsbench/core/run_state.h"

#include <stdio.h>

void fsb_run_fail(struct fsb_run *run, int err, const char *msg)
{
	int cur = atomic_load(&run->stop);

	/*
	 * The first failure names the run's error; later ones are consequences. A runtime
	 * stop (FSB_STOP_END) is no failure: the final syncs that follow it can still fail
	 * the run.
	 */
	while (cur != FSB_STOP_FAILED)
		if (atomic_compare_exchange_weak(&run->stop, &cur, FSB_STOP_FAILED)) {
			run->err = err;
			snprintf(run->errmsg, sizeof(run->errmsg), "%s", msg);
			return;
		}
}
