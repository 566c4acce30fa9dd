/*
 * Running a suite: the target (an image or device made into each cell's filesystem, or
 * a directory), the cell loop, and the result file after every cell. Nothing here prints:
 * the caller sees the run go by through a progress observer.
 */
#ifndef FSB_SUITE_RUN_H
#define FSB_SUITE_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "fsbench/core/partial.h"
#include "fsbench/suite/suite.h"
#include "probes/scratch/scratch.h"

struct suite_run;

/* What the caller (the CLI) learns as the suite runs; any member may be NULL. */
struct suite_observer {
	/* Something worth saying that changes nothing (the loop device's caching). */
	void (*note)(void *arg, const char *msg);
	/* A failure that does not stop the suite (an unmount, a result write): one line. */
	void (*warn)(void *arg, const char *msg);
	void (*skipped)(void *arg, const struct suite_cell *c);
	/* Before repetition @rep (1-based) of @c: @done of the suite's runs took @elapsed_s. */
	void (*cell_start)(void *arg, const struct suite_run *x, const struct suite_cell *c,
			   int rep, double elapsed_s);
	/* After it, with its run object (summary.complete says whether it worked). */
	void (*cell_done)(void *arg, const struct suite_run *x, const struct suite_cell *c, int rep,
			  const json_t *run);
};

struct suite_run {
	/* set by the caller: the suite loaded, selected and expanded */
	struct suite s;
	struct suite_cell *cells;
	int ncells, nrun; /* cells and cell-repetitions to run */
	const char *dir; /* run in this directory: no mkfs, no mount (suite_use_dir()) */
	const char *image, *device; /* else the image to make or the device to mkfs */
	int64_t size; /* of the image; 0: the suite's image_size */
	bool force, keep_image, fail_fast, quiet;
	bool no_canary; /* no canary around each run (probes/sampler/canary.h) */
	const char *json; /* --json as given, or NULL for a default name */
	const struct suite_observer *obs;
	void *obs_arg;

	/* the run's own */
	char json_path[4096];
	struct fsb_partial result;
	struct probe_scratch scratch;
	struct journal *journal; /* what scratch makes, for `fsbench restore` after a kill -9 */
	char tmpdir[4096]; /* made by fsbench: holds the default image and the mount point */
	char dir_fstype[64]; /* dir: the directory's filesystem */
	int done; /* cell-repetitions run */
	int signal; /* the signal that interrupted the suite, or 0 */
	bool failed, interrupted, drop_caches_failed;
};

/* What a caller asks of a suite (the suite command's flags); NULL and 0: the suite's own. */
struct suite_request {
	const char *file; /* a suite file, or a name suite_find() looks up */
	char *fs, *threads, *workloads; /* comma lists that narrow the suite */
	char *json, *image, *device, *dir; /* the result file and the target */
	int64_t repetitions, size;
	bool fail_fast, force, keep_image, quiet;
	bool no_canary; /* suite --no-canary */
	/* the workloads when @workloads does not say (the default run's "smallfile") */
	const char *only_workloads;
};

/* Zeroes @x and readies its scratch; the caller then fills in the first block. */
void suite_run_init(struct suite_run *x);

/*
 * Fills @x (after suite_run_init()) as @q asks: the suite found and loaded, narrowed, the
 * target's options checked, the cells expanded and counted. @x points into @q's strings.
 * 0, or -errno with @err set (-EINVAL: what @q asks is refused).
 */
int suite_run_prepare(struct suite_run *x, const struct suite_request *q, char *err, size_t errlen);

/*
 * Cell @c of @x as a dry run shows it: *@ret_mkfs the mkfs command line on "DEVICE" (NULL
 * in a directory, or when there is none) and *@ret_cmd the workload's, its parameters and
 * knobs as options; the caller frees both. 0 or -ENOMEM.
 */
int suite_cell_lines(const struct suite_run *x, const struct suite_cell *c, char **ret_mkfs,
		     char **ret_cmd);

/* --dir: the filesystem dimension collapses into @x->dir's own filesystem. 0 or -EINVAL. */
int suite_use_dir(struct suite_run *x, char *err, size_t errlen);

/* The image must hold the largest filesystem of the suite: refused before any mkfs. */
int suite_check_image_size(const struct suite_run *x, char *err, size_t errlen);

/*
 * --json FILE checked, or a default name taken: fsbench-suite-NAME-DATE.json, made with
 * O_EXCL so that two suites started in the same second in one directory never share one
 * (the second gets -2, -3...). 0, or -errno with @err set.
 */
int suite_result_path(struct suite_run *x, char *err, size_t errlen);

/*
 * The result document (@argv recorded in its config), on disk before any work and marked
 * incomplete until the last cell is in. 0, or -errno with @err set (and a default-named
 * file that suite_result_path() reserved removed again).
 */
int suite_run_begin(struct suite_run *x, int argc, char **argv, char *err, size_t errlen);

/*
 * Makes the target and runs every cell's repetitions, writing the result after each,
 * then releases the target. 0 when every cell ran and the result is on disk; -EINTR with
 * @x->signal set when a signal stopped it; -EIO when some cells failed (recorded in the
 * result); another -errno with @err set when the target could not be made or the last
 * write failed.
 */
int suite_run(struct suite_run *x, char *err, size_t errlen);

void suite_run_free(struct suite_run *x);

/* The closing table's figures (progress_table.c): the rate a workload's runs are judged by, "MB/s"
 * or "files/s", and a run's rate in it from its summary. */
const char *suite_rate_unit(const struct suite_workload *w);
double suite_run_rate(const struct suite_workload *w, const json_t *run);
/* The part of a cell's name left of its workload and threads: the table's column. */
void suite_cell_column(const struct suite_run *x, const struct suite_cell *c, char *out,
		       size_t len);
/*
 * When the run should end, as "M:SS" or "H:MM:SS" from now into @out: the runs left at the
 * pace of those done in @elapsed seconds; "?" before the first is done.
 */
void suite_eta(const struct suite_run *x, double elapsed, char *out, size_t len);

/* A workload's part of the closing table: its columns and its rows' thread counts. */
struct suite_table {
	char cols[64][256]; /* suite_cell_column() of its cells that run, in cell order */
	int ncols;
	int th[SUITE_MAX_THREADS * 4]; /* thread counts, in cell order */
	int nth;
	int width; /* of every column: its longest name + 2, at least 10 */
};

/* The columns and rows of workload @w's table into *@ret (ncols 0: no cell of it runs). */
void suite_table_axes(const struct suite_run *x, int w, struct suite_table *ret);

/*
 * The mean rate of the result's complete runs of workload @w with @threads threads in
 * column @col; *@ret_n of them (0: none, and 0 returned).
 */
double suite_column_mean(const struct suite_run *x, int w, int threads, const char *col,
			 int *ret_n);

#endif
