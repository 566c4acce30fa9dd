/* Log-linear latency histogram over nanoseconds: fixed memory, lock-free per-thread recording. */
#ifndef MDL_HIST_H
#define MDL_HIST_H

#include <stdint.h>
#include <stddef.h>

/*
 * Buckets: values below 2^HIST_SUB_BITS nanoseconds each get a bucket of width 1
 * (exact). Above that, every power of two [2^e, 2^(e+1)) is split into
 * 2^HIST_SUB_BITS equal buckets of width 2^(e - HIST_SUB_BITS).
 *
 * Error: a percentile is reported as the midpoint of the bucket holding the exact
 * nearest-rank sample, clamped to the exact min and max. The bucket width is at most
 * 1/64 of its lower bound, so the midpoint is within 1/128 = 0.78 % of any value in
 * the bucket, which meets the 1 % requirement with margin.
 *
 * Range: HIST_MAX_EXP = 42 covers up to 2^42 ns = 4398 s (73 minutes), beyond the
 * one hour required. Larger values are counted in @overflow (and still enter count,
 * sum, min and max exactly), never clamped into the last bucket.
 *
 * Memory: (HIST_MAX_EXP - HIST_SUB_BITS + 1) groups of 64 buckets = 2368 buckets of
 * 8 bytes = 18944 bytes, plus a 48-byte header: under the 32 KiB budget.
 */
#define HIST_SUB_BITS 6
#define HIST_SUB_COUNT (1u << HIST_SUB_BITS)
#define HIST_MAX_EXP 42
#define HIST_NBINS ((HIST_MAX_EXP - HIST_SUB_BITS + 1) * HIST_SUB_COUNT)
#define HIST_RANGE_NS (UINT64_C(1) << HIST_MAX_EXP)

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t overflow;
	double sumsq;
	uint64_t bins[HIST_NBINS];
};

void hist_init(struct hist *h);

static inline unsigned hist_index(uint64_t ns)
{
	unsigned e;

	if (ns < HIST_SUB_COUNT)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) +
	       (unsigned)((ns >> (e - HIST_SUB_BITS)) & (HIST_SUB_COUNT - 1));
}

/* The hot path: no allocation, no locking, no atomics; one histogram per thread. */
static inline void hist_record(struct hist *h, uint64_t ns)
{
	h->count++;
	h->sum += ns;
	h->sumsq += (double)ns * (double)ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	if (ns >= HIST_RANGE_NS)
		h->overflow++;
	else
		h->bins[hist_index(ns)]++;
}

/* Bounds of bucket @i: values v with *ret_lo <= v < *ret_hi. */
void hist_bin_bounds(unsigned i, uint64_t *ret_lo, uint64_t *ret_hi);

/* Adds @src into @dst (both stay valid); merging is exact. */
void hist_add(struct hist *dst, const struct hist *src);

/* Nearest-rank percentile estimate (0 < @p <= 100); 0 for an empty histogram. */
uint64_t hist_percentile(const struct hist *h, double p);

/*
 * The exact nearest-rank percentile of @n samples sorted in ascending order, by the same
 * rank as hist_percentile(): the bucket's error (up to 0.78 %) is gone, which a gate
 * judging a 1 % change needs (on the model disk an fsync median crossing a bucket's edge
 * moved 1.04 % between two boots of one kernel). 0 when @n is 0.
 */
uint64_t hist_sorted_percentile(const uint64_t *sorted, size_t n, double p);

/* Sorts @n latencies in ascending order, for hist_sorted_percentile(). */
void hist_samples_sort(uint64_t *v, size_t n);

double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);

#endif
