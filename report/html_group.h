/* The HTML report's groups: what the plots average over, and the names of runs in plots. */
#ifndef RPT_HTML_GROUP_H
#define RPT_HTML_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "model/hist.h"
#include "model/hist_json.h"
#include "model/op.h"
#include "model/result_file.h"
#include "report/cmp.h"

/* Lines a page plots at most; runs of further lines are left out of the plots. */
#define MAX_GROUPS 32

/*
 * What the plots average over: the runs of one sample on one side, the sample being
 * compare's (model/run.h's sample key), so that a plot's lines are the verdict table's
 * rows. A 4 KiB small-file write and an 8 MiB streaming write share an op name and
 * nothing else, so workloads never share a group.
 */
struct group {
	char workload[64];
	char name[256];
	/*
	 * the side ("baseline", a file; "" when the page has none) and the line on it ("ext4",
	 * "ext4 t=2", ""), with what tells its sample apart from others of the same line
	 * ("ext4 mount_options=noatime")
	 */
	char side[64], line[192];
	/* its runs' sample key; on throughput lines, which span thread counts, less "threads" */
	json_t *key;
	/* on a line per cell: its runs' key under the comparison's --across, its sample's; else NULL */
	json_t *sample;
	struct hist *h[MDL_OP_COUNT]; /* per op, merged over the group's complete runs, or NULL */
	/* throughput by thread count (1..MDL_MAX_THREADS): [0] files/s, [1] MB/s */
	double tsum[2][MDL_MAX_THREADS + 1], tn[2][MDL_MAX_THREADS + 1];
	struct group_sample *samples; /* every run's throughput, in the order added */
	size_t nsamples;
	/* per op, every run's own percentiles of it, in the order added */
	struct group_pct *pcts[MDL_OP_COUNT];
	size_t npcts[MDL_OP_COUNT];
};

/* One run's throughput in a group: the plots draw each when a line has few. */
struct group_sample {
	int threads;
	bool bytes; /* MB/s, else files/s */
	double v;
};

/*
 * One run's percentiles of one operation: the percentile plots draw each when a line has
 * few. The run's stored p50_ns .. p99_99_ns (what compare judges), from its histogram
 * where a key is missing.
 */
struct group_pct {
	uint64_t count; /* the run's calls of the operation */
	double ns[MDL_NPERCENTILES]; /* at mdl_percentiles[]; NAN where the run has neither */
};

/* @g's samples at @threads in @bytes' unit into @ret (at most @max); how many there are. */
size_t rpt_html_group_samples(const struct group *g, bool bytes, int threads, double *ret,
			      size_t max);

/*
 * The complete runs of @docs in groups (one per side in @labels, or file, and sample key
 * less "threads"; named by the side and filesystem, then by what else tells the line's
 * samples apart), at most MAX_GROUPS: throughput by thread count and merged histograms.
 * 0 or -ENOMEM; free with rpt_html_groups_free() either way.
 */
int rpt_html_groups_build(struct group *g, int *ng, json_t *const *docs, const char *const *paths,
			  size_t ndocs, const char *const *labels);

/*
 * As rpt_html_groups_build(), with a line per compare sample: where a workload ran at
 * several thread counts, each count is a line of its own ("baseline: ext4 t=2"). Each
 * group's @sample is its runs' key under @across (the comparison's --across field, NULL:
 * none), which a sample of the comparison holds as its key. The latency plots use these;
 * throughput against threads needs the counts on one line.
 */
int rpt_html_groups_build_cells(struct group *g, int *ng, json_t *const *docs,
				const char *const *paths, size_t ndocs, const char *const *labels,
				const char *across);
void rpt_html_groups_free(struct group *g, int ng);

/*
 * Whether the runs of line @g (of rpt_html_groups_build_cells(), given the comparison's
 * --across) are of compare's sample @s: the same key, made by the same function.
 */
bool rpt_html_group_in_sample(const struct group *g, const struct rpt_cmp_sample *s);

/* Whether group @i is the first of its workload: the plots loop over workloads this way. */
bool rpt_html_workload_first(const struct group *g, int i);

/* Which run a plot or section shows: its side, suite cell and repetition, else its file. */
void rpt_html_run_label(const json_t *run, const char *path, const char *label, size_t index,
			char *buf, size_t len);

#endif
