/* Change points per series: E-Divisive means between kernels, with the boots' spread as floor. */
#include "fsbench/history/changes.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/mix64.h"
#include "report/stats.h"

void hist_cp_opts_init(struct hist_cp_opts *o)
{
	*o = (struct hist_cp_opts){ .alpha = HIST_CP_ALPHA,
				    .permutations = HIST_CP_PERMUTATIONS,
				    .floor_multiple = HIST_CP_FLOOR_MULTIPLE,
				    .seed = 38 };
}

/* Scratch for one segment's statistic: prefix and suffix sums of within distances. */
struct work {
	double *w0, *ws;
};

/*
 * Matteson and James's Q (alpha = 1) of splitting @x[0..n) at @t, for every allowed @t
 * (a kernel boundary, @cut[c] for c < ncut); the largest in *@ret_q at cut *@ret_c.
 * O(n^2): the within sums of each prefix and suffix are built once.
 */
static void q_max(const double *x, size_t n, const size_t *cut, size_t ncut, struct work *w,
		  double *ret_q, size_t *ret_c)
{
	w->w0[0] = 0;
	for (size_t t = 0; t < n; t++) {
		double s = 0;

		for (size_t i = 0; i < t; i++)
			s += fabs(x[i] - x[t]);
		w->w0[t + 1] = w->w0[t] + s;
	}
	w->ws[n] = 0;
	for (size_t t = n; t-- > 0;) {
		double s = 0;

		for (size_t j = t + 1; j < n; j++)
			s += fabs(x[j] - x[t]);
		w->ws[t] = w->ws[t + 1] + s;
	}
	*ret_q = -INFINITY;
	*ret_c = 0;
	for (size_t c = 0; c < ncut; c++) {
		double t = (double)cut[c], m = (double)n - t;
		double between = w->w0[n] - w->w0[cut[c]] - w->ws[cut[c]];
		double e = 2 * between / (t * m);
		double q;

		if (t >= 2)
			e -= w->w0[cut[c]] / (t * (t - 1) / 2);
		if (m >= 2)
			e -= w->ws[cut[c]] / (m * (m - 1) / 2);
		q = t * m / (t + m) * e;
		if (q > *ret_q) {
			*ret_q = q;
			*ret_c = c;
		}
	}
}

static double mean_of(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
}

static double var_of(const double *x, size_t n, double m)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return n > 1 ? s / (double)(n - 1) : 0;
}

struct ctx {
	const struct hist_cp_series *s;
	const struct hist_cp_opts *o;
	size_t *off; /* kernel i's first sample */
	double sw; /* pooled within-kernel standard deviation */
	double *perm; /* a segment's samples, shuffled */
	size_t *cut;
	struct work w;
	uint64_t rng;
	struct hist_cp_result *res;
};

static uint64_t next(struct ctx *c)
{
	c->rng = base_mix64(c->rng);
	return c->rng;
}

/* Judges the kernels [lo, hi): the best split, its p and floor; recurses on both halves. */
static int segment(struct ctx *c, size_t lo, size_t hi)
{
	const double *x = c->s->x + c->off[lo];
	size_t n = c->off[hi] - c->off[lo], ncut = 0, best, count = 0, t;
	double q, qp, mb, ma, vb, va, se, tq, df;
	struct hist_cp cp, *grown;
	size_t bc;

	if (hi - lo < 2 || n < 3)
		return 0;
	for (size_t k = lo + 1; k < hi; k++)
		c->cut[ncut++] = c->off[k] - c->off[lo];
	q_max(x, n, c->cut, ncut, &c->w, &q, &best);
	t = c->cut[best];
	memcpy(c->perm, x, n * sizeof(*x));
	for (int r = 0; r < c->o->permutations; r++) {
		/* Fisher-Yates: under no change, the samples are exchangeable across kernels */
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(next(c) % (i + 1));
			double tmp = c->perm[i];

			c->perm[i] = c->perm[j];
			c->perm[j] = tmp;
		}
		q_max(c->perm, n, c->cut, ncut, &c->w, &qp, &bc);
		count += qp >= q;
	}
	mb = mean_of(x, t);
	ma = mean_of(x + t, n - t);
	cp = (struct hist_cp){ .before = lo + best, .seg_lo = lo, .seg_hi = hi, .n_before = t,
			       .n_after = n - t, .mean_before = mb, .mean_after = ma,
			       .p = (double)(1 + count) / (double)(1 + c->o->permutations) };
	/* the floor: a few times how far boots of one kernel differ */
	if (cp.p >= c->o->alpha || fabs(ma - mb) <= c->o->floor_multiple * c->sw || mb == 0)
		return 0;
	/* the interval: Welch's, each side's variance at least the boots' own */
	vb = fmax(var_of(x, t, mb), c->sw * c->sw);
	va = fmax(var_of(x + t, n - t, ma), c->sw * c->sw);
	se = sqrt(vb / (double)t + va / (double)(n - t));
	df = n > 2 ? (double)n - 2 : 1;
	tq = rpt_t_quantile(0.975, df);
	cp.change_pct = 100 * (ma - mb) / fabs(mb);
	cp.lo_pct = 100 * (ma - mb - tq * se) / fabs(mb);
	cp.hi_pct = 100 * (ma - mb + tq * se) / fabs(mb);
	cp.floor_pct = 100 * c->o->floor_multiple * c->sw / fabs(mb);
	grown = realloc(c->res->cps, (c->res->ncps + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->res->cps = grown;
	c->res->cps[c->res->ncps++] = cp;
	if (segment(c, lo, lo + best + 1) < 0)
		return -ENOMEM;
	return segment(c, lo + best + 1, hi);
}

static int by_kernel(const void *a, const void *b)
{
	const struct hist_cp *x = a, *y = b;

	return (x->before > y->before) - (x->before < y->before);
}

int hist_cp_find(const struct hist_cp_series *s, const struct hist_cp_opts *o,
		 struct hist_cp_result *ret)
{
	struct ctx c = { .s = s, .o = o, .res = ret, .rng = o->seed };
	double ss = 0, sum = 0, mean;
	size_t df = 0, n;
	int e = -ENOMEM;

	*ret = (struct hist_cp_result){ .status = HIST_CP_SHORT };
	if (!s->nk)
		return 0;
	c.off = calloc(s->nk + 1, sizeof(*c.off));
	if (!c.off)
		return -ENOMEM;
	for (size_t k = 0; k < s->nk; k++)
		c.off[k + 1] = c.off[k] + s->n[k];
	n = c.off[s->nk];
	for (size_t k = 0; k < s->nk; k++) {
		double m = mean_of(s->x + c.off[k], s->n[k]);

		if (s->n[k] >= 2) {
			ss += var_of(s->x + c.off[k], s->n[k], m) * (double)(s->n[k] - 1);
			df += s->n[k] - 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(s->x[i])) {
			free(c.off);
			return -EINVAL;
		}
		sum += s->x[i];
	}
	mean = sum / (double)n;
	if (s->nk < 2 || !df) {
		free(c.off);
		return 0;
	}
	c.sw = sqrt(ss / (double)df);
	ret->spread_pct = mean ? 100 * c.sw / fabs(mean) : 0;
	if (ret->spread_pct > HIST_CP_NOISY_PCT) {
		ret->status = HIST_CP_NOISY;
		free(c.off);
		return 0;
	}
	ret->status = HIST_CP_JUDGED;
	c.perm = calloc(n, sizeof(*c.perm));
	c.cut = calloc(s->nk, sizeof(*c.cut));
	c.w.w0 = calloc(n + 1, sizeof(double));
	c.w.ws = calloc(n + 1, sizeof(double));
	if (c.perm && c.cut && c.w.w0 && c.w.ws)
		e = segment(&c, 0, s->nk);
	if (!e && ret->ncps > 1)
		qsort(ret->cps, ret->ncps, sizeof(*ret->cps), by_kernel);
	free(c.off);
	free(c.perm);
	free(c.cut);
	free(c.w.w0);
	free(c.w.ws);
	if (e) {
		free(ret->cps);
		*ret = (struct hist_cp_result){ .status = HIST_CP_SHORT };
	}
	return e;
}
