/* Descriptive statistics and two-sample tests for comparing benchmark samples (GSL underneath). */
#include "report/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

const char *rpt_test_name(enum rpt_test_kind k)
{
	return k == RPT_TEST_WELCH ? "welch" : "mann-whitney";
}

double rpt_t_quantile(double p, double df)
{
	return gsl_cdf_tdist_Pinv(p, df);
}

int rpt_stats_compute(const double *x, size_t n, struct rpt_stats *ret)
{
	struct rpt_stats s = { .n = n };
	double *sorted;

	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	s.median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	s.min = sorted[0];
	s.max = sorted[n - 1];
	free(sorted);
	s.mean = gsl_stats_mean(x, 1, n);
	s.ci_lo = s.ci_hi = s.mean;
	if (n >= 2) {
		double half;

		s.stddev = gsl_stats_sd_m(x, 1, n, s.mean);
		half = rpt_t_quantile(1 - (1 - RPT_CI_LEVEL) / 2, (double)(n - 1)) * s.stddev /
		       sqrt((double)n);
		s.ci_lo = s.mean - half;
		s.ci_hi = s.mean + half;
	}
	s.cov = s.mean != 0 ? s.stddev / fabs(s.mean) : 0;
	*ret = s;
	return 0;
}

int rpt_ci_positive(double mean, double stddev, size_t n, double *ret_lo, double *ret_hi)
{
	double f;

	if (!isfinite(mean) || !isfinite(stddev) || stddev < 0)
		return -EINVAL;
	if (n < 2 || stddev == 0) {
		if (mean < 0)
			return -EINVAL;
		*ret_lo = *ret_hi = mean;
		return 0;
	}
	if (mean <= 0)
		return -EINVAL;
	f = exp(rpt_t_quantile(1 - (1 - RPT_CI_LEVEL) / 2, (double)(n - 1)) * stddev /
		(mean * sqrt((double)n)));
	*ret_lo = mean / f;
	*ret_hi = mean * f;
	return 0;
}

int rpt_welch(const double *a, size_t na, const double *b, size_t nb, struct rpt_test *ret)
{
	double ma, mb, va, vb, sa, sb, se2, t, df;

	if (na < 2 || nb < 2)
		return -EINVAL;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma);
	vb = gsl_stats_variance_m(b, 1, nb, mb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se2 = sa + sb;
	*ret = (struct rpt_test){ .kind = RPT_TEST_WELCH };
	if (se2 == 0) {
		/* no spread at all: identical means are indistinguishable, different ones are not */
		ret->stat = mb == ma ? 0 : copysign(INFINITY, mb - ma);
		ret->df = (double)(na + nb - 2);
		ret->p = mb == ma ? 1 : 0;
		return 0;
	}
	t = (mb - ma) / sqrt(se2);
	/* Welch-Satterthwaite */
	df = se2 * se2 / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	ret->stat = t;
	ret->df = df;
	ret->p = fmin(1, 2 * gsl_cdf_tdist_Q(fabs(t), df));
	return 0;
}

struct ranked {
	double v;
	int side;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return (a->v > b->v) - (a->v < b->v);
}

/*
 * Number of arrangements of m a's and n b's whose U (count of (a, b) pairs with b < a)
 * equals each u, by the recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u):
 * the largest element is either an a (beating all n b's) or a b.
 */
static double *mw_null_counts(size_t m, size_t n)
{
	size_t umax = m * n, stride = umax + 1;
	double *f = calloc((m + 1) * (n + 1) * stride, sizeof(*f)), *out;

	if (!f)
		return NULL;
#define F(i, j, u) f[((i) * (n + 1) + (j)) * stride + (u)]
	for (size_t i = 0; i <= m; i++)
		for (size_t j = 0; j <= n; j++)
			for (size_t u = 0; u <= i * j; u++) {
				if (!i || !j) {
					F(i, j, u) = u == 0;
					continue;
				}
				F(i, j, u) = (u >= j ? F(i - 1, j, u - j) : 0) + F(i, j - 1, u);
			}
	out = malloc(stride * sizeof(*out));
	if (out)
		for (size_t u = 0; u <= umax; u++)
			out[u] = F(m, n, u);
#undef F
	free(f);
	return out;
}

int rpt_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct rpt_test *ret)
{
	size_t n = na + nb;
	struct ranked *r;
	double ranksum = 0, ties = 0, u, mu, sigma2;
	int has_ties = 0;

	if (!na || !nb)
		return -EINVAL;
	r = malloc(n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++)
		r[i] = (struct ranked){ .v = a[i], .side = 0 };
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ .v = b[i], .side = 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double avg, t;

		while (j + 1 < n && r[j + 1].v == r[i].v)
			j++;
		avg = (double)(i + j) / 2 + 1; /* average of ranks i+1 .. j+1 */
		t = (double)(j - i + 1);
		if (t > 1) {
			has_ties = 1;
			ties += t * t * t - t;
		}
		for (size_t k = i; k <= j; k++)
			if (r[k].side == 0)
				ranksum += avg;
		i = j + 1;
	}
	free(r);
	u = ranksum - (double)na * (double)(na + 1) / 2;
	mu = (double)na * (double)nb / 2;
	*ret = (struct rpt_test){ .kind = RPT_TEST_MANN_WHITNEY, .stat = u };
	if (!has_ties && n <= RPT_MW_EXACT_MAX) {
		double *cnt = mw_null_counts(na, nb), total = 0, lo = 0, hi = 0;
		size_t ui = (size_t)llround(u);

		if (!cnt)
			return -ENOMEM;
		for (size_t k = 0; k <= na * nb; k++) {
			total += cnt[k];
			if (k <= ui)
				lo += cnt[k];
			if (k >= ui)
				hi += cnt[k];
		}
		free(cnt);
		ret->p = fmin(1, 2 * fmin(lo, hi) / total);
		ret->exact = 1;
		return 0;
	}
	sigma2 = (double)na * (double)nb / 12 *
		 ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (sigma2 <= 0) {
		ret->p = 1;
		return 0;
	}
	ret->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fmax(0, fabs(u - mu) - 0.5) / sqrt(sigma2)));
	return 0;
}
