/* Descriptive statistics and two-sample tests for comparing benchmark samples (GSL underneath). */
#ifndef RPT_STATS_H
#define RPT_STATS_H

#include <stddef.h>

/* Confidence level of every interval this module reports. */
#define RPT_CI_LEVEL 0.95

struct rpt_stats {
	size_t n;
	double mean;
	double median;
	double min, max;
	double stddev; /* sample standard deviation (n - 1); 0 when n < 2 */
	double cov; /* stddev / |mean| as a fraction; 0 when the mean is 0 */
	double ci_lo; /* 95 % CI of the mean (Student t, n - 1 df); both = mean when n < 2 */
	double ci_hi;
};

/* Fills @ret from @n values (n >= 1). 0, or -EINVAL for n == 0 or a non-finite value. */
int rpt_stats_compute(const double *x, size_t n, struct rpt_stats *ret);

/*
 * 95 % confidence interval of the mean of a positive quantity, on the log scale: the
 * Student t interval of log(mean), whose standard error is CoV / sqrt(n) by the delta
 * method, i.e. mean * exp(-/+ t * stddev / (mean * sqrt(n))). Both bounds are positive,
 * the interval is skewed like the quantity (a rate cannot fall below 0, a latency can rise
 * without bound), and it matches mean -/+ t * stddev / sqrt(n) when the spread is small.
 * n < 2 or stddev 0: both bounds are the mean. -EINVAL when @mean <= 0 (a zero mean with
 * stddev 0 is the bounds [0, 0]) or a value is not finite.
 */
int rpt_ci_positive(double mean, double stddev, size_t n, double *ret_lo, double *ret_hi);

/* Quantile of Student's t with @df degrees of freedom: P(T <= q) = @p. */
double rpt_t_quantile(double p, double df);

enum rpt_test_kind {
	RPT_TEST_WELCH, /* Welch's unequal-variance t-test */
	RPT_TEST_MANN_WHITNEY, /* Wilcoxon-Mann-Whitney rank-sum test */
};

struct rpt_test {
	enum rpt_test_kind kind;
	double stat; /* Welch: t of (b - a); Mann-Whitney: U of @a */
	double df; /* Welch-Satterthwaite df; 0 for Mann-Whitney */
	double p; /* two-sided p value */
	int exact; /* Mann-Whitney: 1 when p comes from the exact null distribution */
};

/*
 * Welch's t-test of mean(b) - mean(a), two-sided. Needs n >= 2 on each side (-EINVAL).
 * When both variances are 0 the means are either equal (p = 1) or certainly apart (p = 0).
 */
int rpt_welch(const double *a, size_t na, const double *b, size_t nb, struct rpt_test *ret);

/*
 * Mann-Whitney U test, two-sided. Exact null distribution when there are no ties and
 * na + nb <= RPT_MW_EXACT_MAX; otherwise the normal approximation with tie correction and
 * continuity correction. Needs n >= 1 on each side (-EINVAL).
 */
#define RPT_MW_EXACT_MAX 40
int rpt_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct rpt_test *ret);

const char *rpt_test_name(enum rpt_test_kind k);

#endif
