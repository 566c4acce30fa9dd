/* Compare: runs lined up into samples, per-metric statistics and verdicts, as fsbench-compare/1. */
#ifndef RPT_COMPARE_H
#define RPT_COMPARE_H

#include <stdbool.h>
#include <jansson.h>

#include "model/runs.h"
#include "report/cmp.h"
#include "report/verdict.h"

struct rpt_compare_opts {
	double alpha;
	double threshold_pct;
	double noise_cov_pct;
	enum rpt_test_choice test;
	const json_t *gate; /* gate file (rpt_gate_load), or NULL */
	const char *across; /* coords field the sides differ in (excluded from the key), or NULL */
	bool allow_unmatched; /* a sample missing on a side is dropped (and listed) instead of an error */
	/*
	 * A strict gate refuses to pass what it could not judge: a gated metric that is
	 * insufficient, or noisy unless allow_noisy. The gate file's "strict" and
	 * "allow_noisy" turn these on too.
	 */
	bool strict;
	bool allow_noisy;
	/* a headline metric (rpt_metric_headline) beyond the threshold but not proven passes */
	bool allow_unproven;
	/*
	 * > 0: decide by the A/A floor (rpt_cmp_decide_floor) with this multiple of it, for
	 * runs as repeatable as an instruction count; 0: by the tests.
	 */
	double floor_multiple;
	/* a side whose others took this share of the CPU or more cannot be judged (report/hostload_rule.h); 0: off */
	double max_host_load_pct;
};

void rpt_compare_opts_init(struct rpt_compare_opts *o);

/*
 * The judge: lines @nruns runs on @nsides sides up into samples (side 0 is the baseline;
 * with one side there are statistics and no comparisons), computes each metric's
 * statistics and decides each comparison's one verdict, by the tests or, with
 * o->floor_multiple, by the A/A floor. Returns 0 with *@ret the caller's (rpt_cmp_free),
 * -ENOMEM, -EINVAL (a bad floor multiple), or -EPROTO with @err naming the file and the
 * reason (a run without the field --across needs, a sample that exists on one side only).
 */
int rpt_compare_judge(const char *const *side_names, int nsides, const struct mdl_run_ref *runs,
		      size_t nruns, const struct rpt_compare_opts *o, struct rpt_cmp **ret,
		      char *err, size_t errlen);

/*
 * The A/A floor of one metric: the largest difference between two runs of one side that
 * share a repetition index (two boots' first repetitions, say), either side (@a the
 * baseline's, @b the other's), as a percentage of the baseline's mean. NAN when the
 * baseline's mean is 0 or no two runs of a side share a repetition.
 */
double rpt_cmp_floor_pct(const struct rpt_cmp_side *a, const struct rpt_cmp_side *b);

/* rpt_cmp_decide_floor gates a percentile above the median only with this many calls above it. */
#define RPT_TAIL_CALLS 10

/*
 * The A/A floor as the judging mode of @c (the judge calls it when o->floor_multiple > 0):
 * every comparison decided by the floor instead of a test's p-value, for runs as
 * repeatable as an instruction count, where a handful of nearly equal samples makes
 * p-values meaningless: regression or improvement when |change| exceeds both the
 * comparison's threshold and @multiple times the floor; noisy when @multiple times the
 * floor exceeds the threshold (a change of the threshold's size could hide in the spread);
 * unchanged otherwise; insufficient with fewer than RPT_MIN_SAMPLES a side. Each judged
 * comparison gets floor_pct and bar_pct; the settings say decision "aa_floor" and the
 * multiple. 0, -EINVAL (a bad @multiple), -ENOMEM or -EPROTO (a comparison without its rule).
 */
int rpt_cmp_decide_floor(struct rpt_cmp *c, double multiple);

#endif
