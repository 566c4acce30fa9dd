/* Unit tests of report/stats: descriptive statistics, t quantiles, Welch and Mann-Whitney against published values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "report/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_near(double got, double want, double tol)
{
	if (fabs(got - want) > tol)
		fail_msg("got %.6g, want %.6g (+-%g)", got, want, tol);
}

/* Critical values of Student's t from any printed table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2), 3 decimals. */
static void t_quantiles_match_tables(void **state)
{
	static const struct {
		double p, df, t;
	} tab[] = {
		{ 0.975, 1, 12.706 }, { 0.975, 2, 4.303 },  { 0.975, 4, 2.776 },
		{ 0.975, 7, 2.365 },  { 0.975, 10, 2.228 }, { 0.975, 30, 2.042 },
		{ 0.95, 5, 2.015 },   { 0.995, 20, 2.845 }, { 0.975, 1e6, 1.960 },
	};

	(void)state;
	for (size_t i = 0; i < N(tab); i++)
		assert_near(rpt_t_quantile(tab[i].p, tab[i].df), tab[i].t, 0.0006);
}

/* The classic {2,4,4,4,5,5,7,9}: mean 5, sample variance 32/7, median 4.5; CI half width t(0.975,7)*s/sqrt(8). */
static void descriptive_statistics(void **state)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct rpt_stats s;
	double sd = sqrt(32.0 / 7), half = 2.365 * sd / sqrt(8);

	(void)state;
	assert_int_equal(rpt_stats_compute(x, N(x), &s), 0);
	assert_int_equal(s.n, 8);
	assert_near(s.mean, 5, 1e-12);
	assert_near(s.median, 4.5, 1e-12);
	assert_near(s.stddev, sd, 1e-12);
	assert_near(s.cov, sd / 5, 1e-12);
	assert_near(s.min, 2, 0);
	assert_near(s.max, 9, 0);
	assert_near(s.ci_lo, 5 - half, 0.001);
	assert_near(s.ci_hi, 5 + half, 0.001);
}

static void descriptive_edge_cases(void **state)
{
	static const double one[] = { 42 }, bad[] = { 1, NAN };
	struct rpt_stats s;

	(void)state;
	assert_int_equal(rpt_stats_compute(one, 0, &s), -EINVAL);
	assert_int_equal(rpt_stats_compute(bad, 2, &s), -EINVAL);
	assert_int_equal(rpt_stats_compute(one, 1, &s), 0);
	assert_near(s.mean, 42, 0);
	assert_near(s.stddev, 0, 0);
	assert_near(s.ci_lo, 42, 0);
	assert_near(s.ci_hi, 42, 0);
}

/*
 * The three worked examples of Welch's t-test in Wikipedia's "Welch's t-test" article
 * (Examples section), which reports t = -2.46, -1.57, -2.22 and df = 25.0, 9.9, 24.5. The
 * p values are to 4 places, from a Simpson integration of Student's t density written
 * separately in Python (0.02138, 0.14884, 0.03548, with t and df computed in full precision; the article rounds them to 0.021,
 * 0.149 and, from its rounded t and df, 0.036). Our statistic is the t of
 * mean(b) - mean(a), so a = A2, b = A1 gives the article's sign.
 */
static void welch_textbook_examples(void **state)
{
	static const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
				     21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	static const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
				     24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	static const double b1[] = { 17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8 };
	static const double b2[] = { 21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
				     20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8 };
	static const double c1[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
	static const double c2[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
				     23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	struct rpt_test t;

	(void)state;
	assert_int_equal(rpt_welch(a2, N(a2), a1, N(a1), &t), 0);
	assert_int_equal(t.kind, RPT_TEST_WELCH);
	assert_near(t.stat, -2.46, 0.005);
	assert_near(t.df, 25.0, 0.05);
	assert_near(t.p, 0.02138, 0.00002);

	assert_int_equal(rpt_welch(b2, N(b2), b1, N(b1), &t), 0);
	assert_near(t.stat, -1.57, 0.005);
	assert_near(t.df, 9.9, 0.05);
	assert_near(t.p, 0.14884, 0.00002);

	assert_int_equal(rpt_welch(c2, N(c2), c1, N(c1), &t), 0);
	assert_near(t.stat, -2.22, 0.01);
	assert_near(t.df, 24.5, 0.05);
	assert_near(t.p, 0.03548, 0.00002);
}

static void welch_degenerate(void **state)
{
	static const double same[] = { 5, 5, 5 }, other[] = { 6, 6, 6 };
	struct rpt_test t;

	(void)state;
	assert_int_equal(rpt_welch(same, 1, other, 3, &t), -EINVAL);
	assert_int_equal(rpt_welch(same, 3, same, 3, &t), 0);
	assert_near(t.p, 1, 0);
	assert_int_equal(rpt_welch(same, 3, other, 3, &t), 0);
	assert_near(t.p, 0, 0);
}

/*
 * Exact null distribution of U for 3 vs 3 has counts 1,1,2,3,3,3,3,2,1,1 over u = 0..9
 * (C(6,3) = 20 arrangements), so complete separation gives p = 2/20 and {1,3,5} vs
 * {2,4,6} (U = 3) gives 2 * 7/20. For 5 vs 5, complete separation gives 2/C(10,5) = 2/252.
 * These are also what R's wilcox.test(exact = TRUE) prints.
 */
/*
 * A rate that varied tenfold between 3 repetitions: the symmetric t interval of the mean
 * reaches -995.7, which a rate cannot; the log-scale one stays positive and keeps the mean
 * inside. Expected values: mean * exp(-/+ t(0.975, 2) * s / (mean * sqrt(3))), t = 4.302653.
 */
static void ci_positive_never_below_zero(void **state)
{
	const double x[] = { 100, 1000, 5 };
	struct rpt_stats st;
	double lo, hi;

	(void)state;
	assert_int_equal(rpt_stats_compute(x, 3, &st), 0);
	assert_true(st.ci_lo < 0); /* what exports used to publish */
	assert_int_equal(rpt_ci_positive(st.mean, st.stddev, st.n, &lo, &hi), 0);
	assert_near(lo, 9.0768523, 1e-4);
	assert_near(hi, 14946.750261, 0.1);
	assert_true(lo > 0 && lo < st.mean && st.mean < hi);
}

/* A small spread gives what the usual t interval gives, within a fraction of a percent. */
static void ci_positive_small_spread(void **state)
{
	const double x[] = { 1000, 1010, 990, 1005, 995 };
	struct rpt_stats st;
	double lo, hi;

	(void)state;
	assert_int_equal(rpt_stats_compute(x, 5, &st), 0);
	assert_int_equal(rpt_ci_positive(st.mean, st.stddev, st.n, &lo, &hi), 0);
	assert_near(lo, st.ci_lo, 0.1);
	assert_near(hi, st.ci_hi, 0.1);
}

static void ci_positive_edges(void **state)
{
	double lo = -1, hi = -1;

	(void)state;
	assert_int_equal(rpt_ci_positive(5, 0, 3, &lo, &hi), 0);
	assert_true(lo == 5 && hi == 5);
	assert_int_equal(rpt_ci_positive(7, 3, 1, &lo, &hi), 0);
	assert_true(lo == 7 && hi == 7);
	assert_int_equal(rpt_ci_positive(0, 0, 3, &lo, &hi), 0);
	assert_true(lo == 0 && hi == 0);
	assert_int_equal(rpt_ci_positive(0, 1, 3, &lo, &hi), -EINVAL);
	assert_int_equal(rpt_ci_positive(-2, 1, 3, &lo, &hi), -EINVAL);
	assert_int_equal(rpt_ci_positive(NAN, 1, 3, &lo, &hi), -EINVAL);
}

static void mann_whitney_exact(void **state)
{
	static const double lo[] = { 1, 2, 3 }, hi[] = { 4, 5, 6 }, odd[] = { 1, 3, 5 },
			    even[] = { 2, 4, 6 };
	static const double l5[] = { 1, 2, 3, 4, 5 }, h5[] = { 6, 7, 8, 9, 10 };
	struct rpt_test t;

	(void)state;
	assert_int_equal(rpt_mann_whitney(lo, 3, hi, 3, &t), 0);
	assert_int_equal(t.exact, 1);
	assert_near(t.stat, 0, 0);
	assert_near(t.p, 0.1, 1e-12);
	assert_int_equal(rpt_mann_whitney(hi, 3, lo, 3, &t), 0);
	assert_near(t.stat, 9, 0);
	assert_near(t.p, 0.1, 1e-12);
	assert_int_equal(rpt_mann_whitney(odd, 3, even, 3, &t), 0);
	assert_near(t.stat, 3, 0);
	assert_near(t.p, 0.7, 1e-12);
	assert_int_equal(rpt_mann_whitney(l5, 5, h5, 5, &t), 0);
	assert_near(t.p, 2.0 / 252, 1e-12);
}

/*
 * With ties the normal approximation applies: {1..5} vs {3..7} has U = 4.5, tie-corrected
 * variance 22.5, z = (|4.5 - 12.5| - 0.5) / sqrt(22.5) = 1.5811, p = 0.1138 (R:
 * wilcox.test(1:5, 3:7) prints W = 4.5, p-value = 0.1138).
 */
static void mann_whitney_ties(void **state)
{
	static const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 }, c[] = { 7, 7, 7 };
	struct rpt_test t;

	(void)state;
	assert_int_equal(rpt_mann_whitney(a, 5, b, 5, &t), 0);
	assert_int_equal(t.exact, 0);
	assert_near(t.stat, 4.5, 1e-12);
	assert_near(t.p, 0.1138, 0.0001);
	assert_int_equal(rpt_mann_whitney(c, 3, c, 3, &t), 0);
	assert_near(t.p, 1, 0);
	assert_int_equal(rpt_mann_whitney(a, 0, b, 5, &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_quantiles_match_tables),
		cmocka_unit_test(descriptive_statistics),
		cmocka_unit_test(descriptive_edge_cases),
		cmocka_unit_test(welch_textbook_examples),
		cmocka_unit_test(welch_degenerate),
		cmocka_unit_test(ci_positive_never_below_zero),
		cmocka_unit_test(ci_positive_small_spread),
		cmocka_unit_test(ci_positive_edges),
		cmocka_unit_test(mann_whitney_exact),
		cmocka_unit_test(mann_whitney_ties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
