/*
 * Reading the store back: kernels in version order, what the store holds, and series (one
 * metric of one cell over kernels, each kernel's complete runs its samples) judged for
 * change points. Below the CLI: nothing here prints.
 */
#ifndef FSB_HIST_SERIES_H
#define FSB_HIST_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "fsbench/history/changes.h"
#include "fsbench/history/db.h"
#include "fsbench/history/ident.h"

/* A kernel of the store, with what it holds. */
struct hist_kernel_row {
	long long id;
	struct hist_kernel k;
	long long runs, files;
	size_t place; /* hist_order_git(): its commit's place in the tree's order (1...); 0 none */
};

/* What a store holds: its kernels in version order and its counts. */
struct hist_summary {
	struct hist_kernel_row *kernels;
	size_t nkernels;
	long long files, runs, incomplete, series, values;
};

/*
 * Kernel order: the package version in dpkg's order where both kernels have one, else the
 * upstream release order; the same kernel's builds by release then commit. For qsort().
 */
int hist_kernel_cmp(const void *a, const void *b);

/*
 * Puts @sum's kernels in the order of their commits in `git -C @tree rev-list --topo-order
 * --reverse @rev` (a commit abbreviated to 7 hex digits or more, as a -gHASH release has it).
 * Kernels without a commit there are taken out of @sum (*@dropped of them): no series has a
 * point for them. 0, or -errno with @err saying why (git's own message when it failed).
 */
int hist_order_git(struct hist_summary *sum, const char *tree, const char *rev, size_t *dropped,
		   char *err, size_t errlen);

/* Fills @ret (the caller frees it with hist_summary_free()). 0 or a store's -errno. */
int hist_summary_load(struct hist_db *db, struct hist_summary *ret, char *err, size_t errlen);
void hist_summary_free(struct hist_summary *s);

/* One series as judged: its points (kernel by kernel) and what the judge found. */
struct hist_series {
	char *key, *sample_key, metric[64];
	size_t nk;
	size_t *kernel; /* each point's kernel: an index into hist_summary.kernels */
	size_t *n; /* each point's samples */
	double *x; /* every sample, point by point (the result's raw unit) */
	int *rep; /* each sample's repetition in its suite */
	struct hist_cp_result res;
};

/* One change point, with its series. */
struct hist_change {
	const struct hist_series *s;
	const struct hist_cp *cp;
	bool regression; /* in the metric's bad direction (report/metric.h) */
};

/* A series that could not be judged, and why. */
struct hist_unjudged {
	char *key, *sample_key;
	char metric[64];
	enum hist_cp_status status; /* HIST_CP_SHORT or HIST_CP_NOISY */
	double spread_pct; /* with HIST_CP_NOISY: the spread between boots */
};

struct hist_findings {
	struct hist_series *series; /* the series with a change point (the page draws them) */
	size_t nseries;
	struct hist_unjudged *unjudged; /* in the order met */
	size_t nunjudged;
	struct hist_change *changes; /* regressions first, then by the size of the change */
	size_t nchanges, nregressions;
	size_t judged, short_, noisy; /* every series, by how it was judged */
};

/*
 * Judges every series of @db (or only those of @metric, e.g. "files_per_sec", "fsync.p50")
 * over the kernels of @sum. 0 with @ret filled, or a store's -errno.
 */
int hist_findings_load(struct hist_db *db, const struct hist_summary *sum, const char *metric,
		       const struct hist_cp_opts *o, struct hist_findings *ret, char *err,
		       size_t errlen);
void hist_findings_free(struct hist_findings *f);

/*
 * The result files (paths as they were added) holding complete runs of the cell
 * @sample_key on the kernel of store id @kernel_id, in the order they were added: what a
 * pair page of a change compares. 0 with *@ret (each and the array freed by the caller)
 * and *@n set, or a store's -errno.
 */
int hist_cell_files(struct hist_db *db, long long kernel_id, const char *sample_key, char ***ret,
		    size_t *n, char *err, size_t errlen);

/* A short label of a sample key ("fs=ext4 threads=1 workload=smallfile"); the caller frees it. */
char *hist_sample_label(const char *sample_key);

#endif
