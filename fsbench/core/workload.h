/* The workload interface: one file per workload, one const struct each, one ordered table. */
#ifndef FSB_WORKLOAD_H
#define FSB_WORKLOAD_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fsbench/core/clock.h"
#include "fsbench/core/opt.h"
#include "fsbench/core/run_state.h"
#include "fsbench/core/slowcall.h"
#include "model/hist.h"

struct fsb_workload {
	const char *name;
	const char *summary;
	const struct fsb_opt *opts;
	size_t cfg_size;
	enum mdl_unit unit; /* what progress counts: files or bytes */
	/*
	 * Optional, before anything else of the run: folds the workload's own spellings of
	 * common options into struct fsb_common (compilebench's -D is -d), so that the
	 * temporary directory, the extensions and the result all see one value.
	 */
	void (*adopt)(void *cfg);
	/* Validates the config and prepares the target; knows run->nthreads. */
	int (*init)(struct fsb_run *run, char *err, size_t errlen);
	/* Whether to run loop number @loop (0-based); NULL means exactly one loop. */
	bool (*want_loop)(struct fsb_run *run, int loop);
	/* One loop of one worker. Returns 0 or a negative errno with t->errmsg set. */
	int (*thread)(struct fsb_thread *t, int loop);
	/*
	 * Optional: the worker's work of the loop that lies outside its figures (smallfile's
	 * unlink). The runner starts it only once every worker's thread() has returned, also
	 * after a failure, so that it never competes with timed work. 0 or -errno as thread().
	 */
	int (*thread_after)(struct fsb_thread *t, int loop);
	/* Removes what the run created (unless kept); safe after a failed init or run. */
	void (*fini)(struct fsb_run *run);
	/* Workload-specific summary fields and text output (CLI layer). */
	void (*summary_json)(const struct fsb_run *run, json_t *summary);
	void (*print_header)(const struct fsb_run *run, FILE *out);
	void (*print_loop)(const struct fsb_run *run, int loop, FILE *out);
	void (*print_end)(const struct fsb_run *run, FILE *out);
	/*
	 * Optional: a line of live output once a second while the threads run (dbench's
	 * progress lines), called on the runner's monitor thread at @now (monotonic ns);
	 * only when the table is printed.
	 */
	void (*print_tick)(const struct fsb_run *run, uint64_t now, FILE *out);
	/* How full the target is after a loop (fs_mark's FSUse%), or -1. */
	int (*fs_use)(const struct fsb_run *run);
	/* The workload's number of threads, from its config (-t, --threads). */
	int (*nthreads)(const void *cfg);
	uint64_t ops; /* OP_BIT()s this workload records (MDL_OP_COUNT <= 64) */
	/*
	 * Optional, for drop-ins whose harnesses give it as an operand: the option that a
	 * command line's one operand sets (dbench's client count), wherever it stands.
	 */
	const char *operand;
	/*
	 * Optional: where a run without -d works (dbench's "."); NULL: a fresh temporary
	 * directory, removed afterwards.
	 */
	const char *default_dir;
	/* print_header() alone, without the "# command line" echo that fs_mark's table has */
	bool bare_header;
};

/*
 * Every timed call of every workload is recorded here, and only here: @t0 and @t1 are
 * the fsb_now_ns() reads right before and right after the call (FSB_TIME_CALL).
 * hist_record() allocates nothing, the exact latencies go into memory taken before the
 * run (up to its cap: past it the histogram alone holds them), and the slow-call capture
 * (fsb_slow_note) keeps fixed memory with no lock, so this stays on the measured loop's
 * fixed path. All of it runs after the second clock read.
 */
static inline void fsb_record(struct fsb_thread *t, enum fsb_op op, uint64_t t0, uint64_t t1)
{
	hist_record(t->hist[op], t1 - t0);
	if (t->exact[op] && t->nexact[op]++ < t->exact_cap)
		t->exact[op][t->nexact[op] - 1] = t1 - t0;
	if (t->slow)
		fsb_slow_note(&t->slow[op], t0, t1);
}

/*
 * Runs the statement @call between two clock reads, stored in @t0 and @t1, with nothing
 * else between them. CLOCK_MONOTONIC reads cannot fail, so errno after the macro is the
 * call's. Usage:
 *	FSB_TIME_CALL(t0, t1, fd = openat(dfd, name, flags, 0666));
 *	if (fd < 0)
 *		return error(errno);
 *	fsb_record(t, OP_CREATE, t0, t1);
 */
#define FSB_TIME_CALL(t0, t1, call)  \
	do {                         \
		(t0) = fsb_now_ns(); \
		call;                \
		(t1) = fsb_now_ns(); \
	} while (0)

#endif
