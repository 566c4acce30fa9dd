/* Verdicts: one metric's two sides judged by the statistics and a rule (see verdict.h). */
#include "report/verdict.h"

#include <math.h>

const char *const rpt_verdict_names[RPT_VERDICT_COUNT] = {
	[RPT_UNCHANGED] = "unchanged",	     [RPT_IMPROVEMENT] = "improvement",
	[RPT_REGRESSION] = "regression",     [RPT_NOISY] = "noisy",
	[RPT_INSUFFICIENT] = "insufficient",
};

int rpt_judge(const double *a, size_t na, const double *b, size_t nb, enum rpt_direction dir,
	      enum rpt_metric_kind kind, enum rpt_test_choice test, const struct rpt_rule *rule,
	      struct rpt_judgement *ret)
{
	struct rpt_judgement j = { .p_welch = NAN, .p_rank = NAN };
	struct rpt_test w, r;
	bool use_rank, worse;
	int e;

	e = rpt_stats_compute(a, na, &j.a);
	if (!e)
		e = rpt_stats_compute(b, nb, &j.b);
	if (e)
		return e;
	if (j.a.mean != 0)
		j.change_pct = (j.b.mean - j.a.mean) / fabs(j.a.mean) * 100;
	else
		j.change_pct = j.b.mean == 0 ? 0 : copysign(INFINITY, j.b.mean);
	if (na >= 2 && nb >= 2) {
		if (rpt_welch(a, na, b, nb, &w) == 0)
			j.p_welch = w.p;
		if (rpt_mann_whitney(a, na, b, nb, &r) == 0)
			j.p_rank = r.p;
		/*
		 * Latency percentiles are skewed and a single stall moves the mean: the rank
		 * test suits them, but with 3 a side its smallest p is 0.1, so it needs 4.
		 */
		use_rank =
			test == RPT_TEST_ONLY_RANK ||
			(test == RPT_TEST_AUTO && kind == RPT_KIND_LATENCY && na >= 4 && nb >= 4);
		j.test = use_rank ? r : w;
		j.tested = true;
	}
	worse = dir == RPT_HIGHER_IS_BETTER ? j.change_pct < 0 : j.change_pct > 0;
	if (na < RPT_MIN_SAMPLES || nb < RPT_MIN_SAMPLES)
		j.verdict = RPT_INSUFFICIENT;
	else if (j.test.p < rule->alpha && fabs(j.change_pct) > rule->threshold_pct)
		j.verdict = worse ? RPT_REGRESSION : RPT_IMPROVEMENT;
	else if (j.a.cov * 100 > rule->noise_cov_pct || j.b.cov * 100 > rule->noise_cov_pct)
		j.verdict = RPT_NOISY;
	else
		j.verdict = RPT_UNCHANGED;
	*ret = j;
	return 0;
}
