/* Compare and gate: runs lined up into samples, per-metric statistics and verdicts, as JSON. */
#ifndef RPT_COMPARE_H
#define RPT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "model/runs.h"
#include "report/metric.h"
#include "report/stats.h"

/* Defaults of the CLI flags; a gate file may override each per metric. */
#define RPT_DEFAULT_ALPHA 0.05
#define RPT_DEFAULT_THRESHOLD_PCT 5.0
/*
 * A sample whose coefficient of variation exceeds this cannot be called unchanged: 10 %
 * is about three times the run-to-run CoV of files/s on a quiet machine, and the point
 * where a 5 % change hides inside one standard deviation.
 */
#define RPT_DEFAULT_NOISE_COV_PCT 10.0
/* Fewer samples than this on a side: "insufficient". */
#define RPT_MIN_SAMPLES 3

enum rpt_verdict {
	RPT_UNCHANGED,
	RPT_IMPROVEMENT,
	RPT_REGRESSION,
	RPT_NOISY,
	RPT_INSUFFICIENT,
	RPT_VERDICT_COUNT,
};

extern const char *const rpt_verdict_names[RPT_VERDICT_COUNT];

/* Which test decides significance. */
enum rpt_test_choice {
	RPT_TEST_AUTO, /* rank test for latency percentiles with >= 4 samples a side, else Welch */
	RPT_TEST_ONLY_WELCH,
	RPT_TEST_ONLY_RANK,
};

/* Thresholds for one metric. */
struct rpt_rule {
	double alpha;
	double threshold_pct;
	double noise_cov_pct;
	bool gate; /* false: reported, but a regression does not fail the gate */
};

struct rpt_judgement {
	struct rpt_stats a, b;
	double change_pct; /* (mean b - mean a) / |mean a| * 100 */
	bool tested; /* a test ran (n >= 2 a side) */
	struct rpt_test test; /* the deciding test */
	double p_welch, p_rank; /* NAN when not computed */
	enum rpt_verdict verdict;
};

/*
 * Judges side @b against baseline @a. Returns 0 or -EINVAL (empty side, non-finite value).
 * insufficient: fewer than RPT_MIN_SAMPLES on a side. regression/improvement: the test's
 * p < alpha AND |change| > threshold, in the metric's bad/good direction. noisy: otherwise,
 * when either side's CoV exceeds the noise limit. unchanged: otherwise.
 */
int rpt_judge(const double *a, size_t na, const double *b, size_t nb, enum rpt_direction dir,
	      enum rpt_metric_kind kind, enum rpt_test_choice test, const struct rpt_rule *rule,
	      struct rpt_judgement *ret);

struct rpt_compare_opts {
	double alpha;
	double threshold_pct;
	double noise_cov_pct;
	enum rpt_test_choice test;
	const json_t *
		gate; /* gate file: {alpha, threshold_pct, noise_cov_pct, metrics: {NAME|GLOB: {...}}} */
	const char *across; /* coords field the sides differ in (excluded from the key), or NULL */
	bool allow_unmatched; /* a sample missing on a side is dropped (and listed) instead of an error */
	/*
	 * A strict gate refuses to pass what it could not judge: a gated metric that is
	 * insufficient, or noisy unless allow_noisy. The gate file's "strict" and
	 * "allow_noisy" turn these on too.
	 */
	bool strict;
	bool allow_noisy;
};

void rpt_compare_opts_init(struct rpt_compare_opts *o);

/* Checks a gate file's shape. 0 or -EINVAL with @err saying what is wrong. */
int rpt_gate_check(const json_t *gate, char *err, size_t errlen);

/*
 * Builds the fsbench-compare/1 document from @nruns runs on @nsides sides (side 0 is the
 * baseline; with one side there are statistics and no comparisons). Returns 0, -ENOMEM, or
 * -EPROTO with @err naming the file and the reason (a run without the field --across
 * needs, a sample that exists on one side only).
 */
int rpt_compare_build(const char *const *side_names, int nsides, const struct rpt_run_ref *runs,
		      size_t nruns, const struct rpt_compare_opts *o, json_t **ret, char *err,
		      size_t errlen);

/* Number of metrics with @v whose rule gates; "regressed" of a compare document. */
size_t rpt_compare_count(const json_t *cmp, enum rpt_verdict v, bool gating_only);

/* What a gate makes of a compare document; the values are `compare --gate`'s exit statuses. */
enum rpt_gate_status {
	RPT_GATE_PASS = 0,
	RPT_GATE_REGRESSED = 1, /* a gated metric regressed: a finding, whatever else is unjudged */
	RPT_GATE_UNJUDGED = 2, /* strict, and a gated metric (or everything) could not be judged */
};

/*
 * Whether comparison @c keeps the strict gate of @cmp (its settings.strict/allow_noisy)
 * from judging: false when the gate is not strict or the metric is not gated.
 */
bool rpt_gate_blocks(const json_t *cmp, const json_t *c);

/* The gate's decision; a strict gate with no gated comparison at all is unjudged too. */
enum rpt_gate_status rpt_gate_status(const json_t *cmp);

/*
 * The A/A floor of one metric: the largest difference between two runs of one side that
 * share a repetition index (two boots' first repetitions, say), either side (@a the
 * baseline's statistics, @b the other's, as a compare document's "sides" entries), as a
 * percentage of the baseline's mean. NAN when the baseline's mean is 0 or no two runs of a
 * side share a repetition.
 */
double rpt_floor_pct(const json_t *a, const json_t *b);

/*
 * Re-decides every comparison of @cmp by the A/A floor instead of a test's p-value, for
 * runs as repeatable as an instruction count, where a handful of nearly equal samples
 * makes p-values meaningless: regression or improvement when |change| exceeds both the
 * comparison's threshold and @multiple times the floor; noisy when @multiple times the
 * floor exceeds the threshold (a change of the threshold's size could hide in the spread);
 * unchanged otherwise; insufficient with fewer than RPT_MIN_SAMPLES a side. Each judged
 * comparison gets "floor_pct" and "bar_pct"; settings get "decision": "aa_floor" and
 * "floor_multiple". 0, -EINVAL (a bad @multiple) or -EPROTO (a malformed document).
 */
int rpt_compare_floor(json_t *cmp, double multiple);

/* Text tables (rows the samples, columns the sides), or markdown for CI comments. */
void rpt_compare_print(const json_t *cmp, FILE *out, bool markdown);

/* Loads and checks a compare document. 0, -errno, or -EPROTO with @err set. */
int rpt_compare_load(const char *path, json_t **ret, char *err, size_t errlen);

#endif
