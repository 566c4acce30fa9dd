/* Verdicts: one metric's two sides judged by the statistics and a rule (see verdict.h). */
#include "report/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

const char *const rpt_verdict_names[RPT_VERDICT_COUNT] = {
	[RPT_UNCHANGED] = "unchanged",	     [RPT_IMPROVEMENT] = "improvement",
	[RPT_REGRESSION] = "regression",     [RPT_NOISY] = "noisy",
	[RPT_INSUFFICIENT] = "insufficient", [RPT_NOT_PROVEN] = "not_proven",
};

int rpt_judge(const double *a, size_t na, const double *b, size_t nb, enum rpt_direction dir,
	      enum rpt_metric_kind kind, enum rpt_test_choice test, const struct rpt_rule *rule,
	      struct rpt_judgement *ret)
{
	struct rpt_judgement j = { .p_welch = NAN, .p_rank = NAN, .spread_pct = NAN };
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
	/*
	 * A p-value alone calls a shift of a few percent between two tight blocks of runs, which
	 * a host that changed between the blocks makes as easily as a kernel: the change must
	 * also clear what each side varies between its own repetitions (the A/A floor's idea).
	 */
	if (j.a.mean != 0)
		j.spread_pct = fmax(j.a.max - j.a.min, j.b.max - j.b.min) / fabs(j.a.mean) * 100;
	worse = dir == RPT_HIGHER_IS_BETTER ? j.change_pct < 0 : j.change_pct > 0;
	if (na < RPT_MIN_SAMPLES || nb < RPT_MIN_SAMPLES)
		j.verdict = RPT_INSUFFICIENT;
	else if (j.test.p < rule->alpha && fabs(j.change_pct) > rule->threshold_pct)
		j.verdict = isfinite(j.spread_pct) && fabs(j.change_pct) <= j.spread_pct ?
				    RPT_NOISY :
			    worse ? RPT_REGRESSION :
				    RPT_IMPROVEMENT;
	else if (fabs(j.change_pct) > rule->threshold_pct)
		j.verdict = RPT_NOT_PROVEN; /* a change of this size is not "unchanged" */
	else
		j.verdict = rpt_verdict_unproven(j.a.cov, j.b.cov, rule);
	*ret = j;
	return 0;
}

enum rpt_verdict rpt_verdict_unproven(double cov_a, double cov_b, const struct rpt_rule *rule)
{
	return cov_a * 100 > rule->noise_cov_pct || cov_b * 100 > rule->noise_cov_pct ?
		       RPT_NOISY :
		       RPT_UNCHANGED;
}

static int p_order(const void *x, const void *y)
{
	double a = **(const double *const *)x, b = **(const double *const *)y;

	return (a > b) - (a < b);
}

int rpt_bh_adjust(const double *p, size_t n, double *ret_q)
{
	const double **by_p = calloc(n + 1, sizeof(*by_p));
	double run = 1;

	if (!by_p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by_p[i] = &p[i];
	qsort(by_p, n, sizeof(*by_p), p_order);
	/* from the largest p down: the running minimum keeps q monotone in p */
	for (size_t i = n; i-- > 0;) {
		run = fmin(run, *by_p[i] * (double)n / (double)(i + 1));
		ret_q[by_p[i] - p] = run;
	}
	free(by_p);
	return 0;
}
