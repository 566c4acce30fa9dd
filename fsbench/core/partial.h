/* A result file while the work goes on: on disk before it starts, rewritten after each step. */
#ifndef FSB_PARTIAL_H
#define FSB_PARTIAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * What `fsbench <workload> --json` (after each loop) and a suite (after each cell) keep on
 * disk, so that a kill -9 leaves as much as was done, in a file that says it is incomplete.
 */
struct fsb_partial {
	json_t *doc; /* a fsb_result_new() document */
	const char *path;
	bool write_failed; /* the last write failed: the next failure is not said again */
};

/*
 * Writes @p->doc to @p->path atomically, its "complete" set from its runs
 * (fsb_result_finish), false unless @final, and false without any run. 0 or -errno; on
 * a failure that follows a good write @err says so (a full disk is said once, not after
 * every loop), else @err is "".
 */
int fsb_partial_write(struct fsb_partial *p, bool final, char *err, size_t errlen);

#endif
