/* Change points per series: E-Divisive means between kernels, with the boots' spread as floor. */
#include "fsbench/history/changes.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/mix64.h"
#include "report/metric.h"
#include "report/stats.h"

void hist_cp_opts_init(struct hist_cp_opts *o)
{
	*o = (struct hist_cp_opts){ .alpha = HIST_CP_ALPHA,
				    .permutations = HIST_CP_PERMUTATIONS,
				    .floor_multiple = HIST_CP_FLOOR_MULTIPLE,
				    .scale = 1,
				    .seed = 38 };
}

/*
 * Scratch for one segment's statistic: prefix and suffix sums of within distances, and two
 * Fenwick trees over the samples' ranks (count and sum of the values seen so far).
 */
struct work {
	double *w0, *ws;
	double *fsum;
	size_t *fcnt;
};

/* One pass's sums of |x[t] - x[i]| over the samples seen before t, in w[t + 1] - w[t]. */
static void within_sums(const double *x, const size_t *rank, size_t n, bool backwards,
			struct work *wk, double *w)
{
	double total = 0;

	memset(wk->fsum, 0, (n + 1) * sizeof(*wk->fsum));
	memset(wk->fcnt, 0, (n + 1) * sizeof(*wk->fcnt));
	w[backwards ? n : 0] = 0;
	for (size_t s = 0; s < n; s++) {
		size_t t = backwards ? n - 1 - s : s, cl = 0;
		double sl = 0, d;

		/* the seen values of lower rank: count and sum (ranks are 1...n) */
		for (size_t i = rank[t] - 1; i > 0; i -= i & -i) {
			cl += wk->fcnt[i];
			sl += wk->fsum[i];
		}
		d = x[t] * (double)cl - sl + (total - sl) - x[t] * (double)(s - cl);
		if (backwards)
			w[t] = w[t + 1] + d;
		else
			w[t + 1] = w[t] + d;
		total += x[t];
		for (size_t i = rank[t]; i <= n; i += i & -i) {
			wk->fcnt[i]++;
			wk->fsum[i] += x[t];
		}
	}
}

/*
 * Matteson and James's Q (alpha = 1) of splitting @x[0..n) at @t, for every allowed @t
 * (a kernel boundary, @cut[c] for c < ncut); the largest in *@ret_q at cut *@ret_c. The
 * within sums of every prefix and suffix come from one pass each over Fenwick trees of
 * the ranks (@rank[i] of @x[i], 1...n): O(n log n) rather than O(n^2) a permutation.
 */
static void q_max(const double *x, const size_t *rank, size_t n, const size_t *cut, size_t ncut,
		  struct work *w, double *ret_q, size_t *ret_c)
{
	within_sums(x, rank, n, false, w, w->w0);
	within_sums(x, rank, n, true, w, w->ws);
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
	size_t *rank, *prank; /* their ranks in the segment, and shuffled alike */
	size_t *order;
	size_t *cut;
	struct work w;
	uint64_t rng;
	struct hist_cp_result *res;
};

static int by_value(const void *a, const void *b, void *arg)
{
	const double *x = arg;
	double u = x[*(const size_t *)a], v = x[*(const size_t *)b];

	return (u > v) - (u < v);
}

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
	double q, qp, mb, ma, vb, va, se, tq, df, res;
	struct hist_cp cp, *grown;
	size_t bc;

	if (hi - lo < 2 || n < 3)
		return 0;
	for (size_t k = lo + 1; k < hi; k++)
		c->cut[ncut++] = c->off[k] - c->off[lo];
	for (size_t i = 0; i < n; i++)
		c->order[i] = i;
	qsort_r(c->order, n, sizeof(*c->order), by_value, (void *)x);
	for (size_t i = 0; i < n; i++)
		c->rank[c->order[i]] = i + 1;
	q_max(x, c->rank, n, c->cut, ncut, &c->w, &q, &best);
	t = c->cut[best];
	memcpy(c->perm, x, n * sizeof(*x));
	memcpy(c->prank, c->rank, n * sizeof(*c->rank));
	for (int r = 0; r < c->o->permutations; r++) {
		/* Fisher-Yates: under no change, the samples are exchangeable across kernels */
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(next(c) % (i + 1)), tr = c->prank[i];
			double tmp = c->perm[i];

			c->perm[i] = c->perm[j];
			c->perm[j] = tmp;
			c->prank[i] = c->prank[j];
			c->prank[j] = tr;
		}
		q_max(c->perm, c->prank, n, c->cut, ncut, &c->w, &qp, &bc);
		count += qp >= q;
		/* p can no longer fall below alpha: not a change, whatever the rest would say */
		if ((double)(1 + count) / (double)(1 + c->o->permutations) >= c->o->alpha)
			return 0;
	}
	mb = mean_of(x, t);
	ma = mean_of(x + t, n - t);
	cp = (struct hist_cp){ .before = lo + best,
			       .seg_lo = lo,
			       .seg_hi = hi,
			       .n_before = t,
			       .n_after = n - t,
			       .mean_before = mb,
			       .mean_after = ma,
			       .p = (double)(1 + count) / (double)(1 + c->o->permutations) };
	/* the floor: a few times how far boots of one kernel differ */
	if (cp.p >= c->o->alpha || fabs(ma - mb) <= c->o->floor_multiple * c->sw || mb == 0)
		return 0;
	/* equal values whose means differ in the last bits (a sum's rounding) are no change */
	if (fabs(ma - mb) <= 1e-9 * fabs(mb))
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
	/* a step of one histogram bucket, or below the user's least change, is none */
	res = c->o->metric ? rpt_metric_resolution_pct(c->o->metric, mb * c->o->scale) : NAN;
	cp.bar_pct =
		fmax(fmax(cp.floor_pct, c->o->min_change_pct), isfinite(res) ? res * 1.0001 : 0);
	if (fabs(cp.change_pct) <= cp.bar_pct)
		return 0;
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

/* A sample by its repetition, for grouping one kernel's samples. */
struct rep_value {
	int rep;
	double x;
};

static int by_rep(const void *a, const void *b)
{
	const struct rep_value *x = a, *y = b;

	return (x->rep > y->rep) - (x->rep < y->rep);
}

/*
 * The within sum of squares of one kernel's @n samples from @off, and its degrees of
 * freedom, added to *@ss and *@df: about each repetition's own mean when @rep is given.
 */
static void within(const struct hist_cp_series *s, size_t off, size_t n, const int *rep, double *ss,
		   size_t *df)
{
	const double *x = s->x + off;
	struct rep_value *v;

	if (!rep) {
		if (n >= 2) {
			*ss += var_of(x, n, mean_of(x, n)) * (double)(n - 1);
			*df += n - 1;
		}
		return;
	}
	/* grouped by repetition (sorted: a kernel of many runs costs n log n, not n^2) */
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v) { /* then the repetitions' spread, as without them: a bound, not a failure */
		within(s, off, n, NULL, ss, df);
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct rep_value){ rep[off + i], x[i] };
	qsort(v, n, sizeof(*v), by_rep);
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		double sum = 0, m, sq = 0;

		for (hi = lo; hi < n && v[hi].rep == v[lo].rep; hi++)
			sum += v[hi].x;
		if (hi - lo < 2)
			continue;
		m = sum / (double)(hi - lo);
		for (size_t j = lo; j < hi; j++)
			sq += (v[j].x - m) * (v[j].x - m);
		*ss += sq;
		*df += hi - lo - 1;
	}
	free(v);
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
	for (size_t k = 0; k < s->nk; k++)
		within(s, c.off[k], s->n[k], s->rep, &ss, &df);
	/* one boot a kernel: no two runs share a repetition, the repetitions are the spread */
	if (!df && s->rep)
		for (size_t k = 0; k < s->nk; k++)
			within(s, c.off[k], s->n[k], NULL, &ss, &df);
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
	c.w.fsum = calloc(n + 1, sizeof(double));
	c.w.fcnt = calloc(n + 1, sizeof(size_t));
	c.rank = calloc(n, sizeof(size_t));
	c.prank = calloc(n, sizeof(size_t));
	c.order = calloc(n, sizeof(size_t));
	if (c.perm && c.cut && c.w.w0 && c.w.ws && c.w.fsum && c.w.fcnt && c.rank && c.prank &&
	    c.order)
		e = segment(&c, 0, s->nk);
	if (!e && ret->ncps > 1)
		qsort(ret->cps, ret->ncps, sizeof(*ret->cps), by_kernel);
	free(c.off);
	free(c.perm);
	free(c.cut);
	free(c.w.w0);
	free(c.w.ws);
	free(c.w.fsum);
	free(c.w.fcnt);
	free(c.rank);
	free(c.prank);
	free(c.order);
	if (e) {
		free(ret->cps);
		*ret = (struct hist_cp_result){ .status = HIST_CP_SHORT };
	}
	return e;
}
