/* A result file while the work goes on: on disk before it starts, rewritten after each step. */
#ifndef FSB_PARTIAL_H
#define FSB_PARTIAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fsb_run;

/*
 * What `fsbench <workload> --json` (after each loop) and a suite (after each cell) keep on
 * disk, so that a kill -9 leaves as much as was done, in a file that says it is incomplete.
 */
struct fsb_partial {
	json_t *doc; /* a fsb_result_new() document */
	const char *path;
	bool write_failed; /* the last write failed: the next failure is not said again */
	/* where fsb_partial_after_loop() says a failed write (it has no caller to return to) */
	void (*say)(void *arg, const char *msg);
	void *say_arg;
};

/*
 * Writes @p->doc to @p->path atomically, its "complete" set from its runs
 * (fsb_result_finish), false unless @final, and false without any run. 0 or -errno; on
 * a failure that follows a good write @err says so (a full disk is said once, not after
 * every loop), else @err is "".
 */
int fsb_partial_write(struct fsb_partial *p, bool final, char *err, size_t errlen);

/*
 * `fsbench <workload> --json @path`, before any work: @path checked (base_out_check: -errno,
 * @err "--json PATH: why"), then a fsb_result_new() document for @command and @argv written
 * there with no progress (fsb_partial_progress; on failure @p->doc is dropped again).
 */
int fsb_partial_begin(struct fsb_partial *p, const char *path, const char *command, int argc,
		      char **argv, char *err, size_t errlen);

/*
 * How far `fsbench <workload> --json`'s run got, as the document's "partial" (loops done,
 * files, bytes), written with fsb_partial_write() (not final): what a kill -9 leaves.
 */
int fsb_partial_progress(struct fsb_partial *p, int loops_done, uint64_t files, uint64_t bytes,
			 char *err, size_t errlen);

/* A job's after_loop (@arg the struct fsb_partial): the run's loops summed, then progress. */
void fsb_partial_after_loop(const struct fsb_run *run, int loop, void *arg);

/*
 * The run's end: "partial" dropped, @run (taken; NULL when none started) added with its
 * "params" in the config, else @why as the document's "error"; written final. As
 * fsb_partial_write().
 */
int fsb_partial_finish(struct fsb_partial *p, json_t *run, const char *why, char *err,
		       size_t errlen);

#endif
