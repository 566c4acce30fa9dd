/* Verdicts: one metric's two sides judged by Welch's or the rank test and a rule. */
#ifndef RPT_VERDICT_H
#define RPT_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

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
	/*
	 * beyond the threshold, and not shown: the test (or the correction for many metrics)
	 * could not tell it from noise. Never "unchanged": a -50 % that could not be proven
	 * is a -50 % nobody may call good (a headline metric's makes the gate cannot judge).
	 */
	RPT_NOT_PROVEN,
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
	/*
	 * The larger side's own spread (max - min of its repetitions) in % of the baseline's
	 * mean: a change must exceed it to be called. NAN when the baseline's mean is 0.
	 */
	double spread_pct;
	enum rpt_verdict verdict;
};

/*
 * Judges side @b against baseline @a. Returns 0 or -EINVAL (empty side, non-finite value).
 * insufficient: fewer than RPT_MIN_SAMPLES on a side. regression/improvement: the test's
 * p < alpha AND |change| > threshold AND |change| > spread_pct (beyond what each side
 * varies between its own repetitions), in the metric's bad/good direction. noisy: p <
 * alpha and past the threshold but inside that spread. not_proven: past the threshold
 * with p >= alpha. Within the threshold: noisy when either side's CoV exceeds the noise
 * limit, else unchanged. The comparison's judge then corrects the
 * p-values for many metrics (rpt_bh_adjust) and takes back what the correction rejects.
 */
int rpt_judge(const double *a, size_t na, const double *b, size_t nb, enum rpt_direction dir,
	      enum rpt_metric_kind kind, enum rpt_test_choice test, const struct rpt_rule *rule,
	      struct rpt_judgement *ret);

/*
 * Benjamini-Hochberg adjusted p-values ("q") of @p[0..@n): q_(i) = min over j >= i of
 * p_(j) * n / j in ascending order, at most 1. A comparison whose q < alpha is a discovery
 * with the false discovery rate among all discoveries held at alpha. 0 or -ENOMEM.
 */
int rpt_bh_adjust(const double *p, size_t n, double *ret_q);

/*
 * What a verdict becomes when the correction for many metrics takes it back: what a
 * p >= alpha would have made of it (noisy when a side's CoV exceeds @rule's limit, else
 * unchanged). @cov_a and @cov_b as fractions.
 */
enum rpt_verdict rpt_verdict_unproven(double cov_a, double cov_b, const struct rpt_rule *rule);

#endif
