/* Latency histogram: bucket arithmetic, merging and percentiles (see hist.h for error and range). */
#include "model/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_bin_bounds(unsigned i, uint64_t *ret_lo, uint64_t *ret_hi)
{
	unsigned g = i >> HIST_SUB_BITS, sub = i & (HIST_SUB_COUNT - 1);

	if (g == 0) {
		*ret_lo = sub;
		*ret_hi = (uint64_t)sub + 1;
		return;
	}
	*ret_lo = (uint64_t)(HIST_SUB_COUNT + sub) << (g - 1);
	*ret_hi = *ret_lo + (UINT64_C(1) << (g - 1));
}

void hist_add(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	dst->overflow += src->overflow;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned i = 0; i < HIST_NBINS; i++)
		dst->bins[i] += src->bins[i];
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, mid;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	/* nearest rank: the smallest sample with at least p % of samples at or below it */
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_NBINS; i++) {
		seen += h->bins[i];
		if (seen < rank)
			continue;
		hist_bin_bounds(i, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	/* the rank lies among samples beyond the range: the exact max is the best bound */
	return h->max;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void hist_samples_sort(uint64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), u64_cmp);
}

uint64_t hist_sorted_percentile(const uint64_t *sorted, size_t n, double p)
{
	uint64_t rank;

	if (!n)
		return 0;
	if (p <= 0)
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	rank = (uint64_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double hist_stddev(const struct hist *h)
{
	double mean, var;

	if (h->count < 2)
		return 0.0;
	mean = hist_mean(h);
	var = (h->sumsq - (double)h->count * mean * mean) / (double)(h->count - 1);
	return var > 0 ? sqrt(var) : 0.0;
}
