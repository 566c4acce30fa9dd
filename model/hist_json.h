/* The histogram's JSON codec, beside the histogram: an op object of a result file and back. */
#ifndef MDL_HIST_JSON_H
#define MDL_HIST_JSON_H

#include <jansson.h>

#include "model/hist.h"

/* Percentiles every op object carries, in this order. */
#define MDL_NPERCENTILES 5
struct mdl_percentile {
	double pct; /* 99.9 */
	const char *key; /* "p99_9_ns", the key in an op object (ops and per_thread) */
	const char *v1_key; /* "p99.9", its key in a version 1 op's "percentiles" */
};
extern const struct mdl_percentile mdl_percentiles[MDL_NPERCENTILES];

/* count, min_ns, max_ns, mean_ns, stddev_ns, sum_ns, overflow, p50_ns .. p99_99_ns, bins. */
json_t *mdl_hist_to_json(const struct hist *h);

/*
 * The same, with the percentiles of @sorted (@n samples, ascending) when they are every
 * sample of @h (@n == h->count): exact, and marked "exact": true. Otherwise (none kept,
 * or not all) as mdl_hist_to_json(). NULL on failure.
 */
json_t *mdl_hist_to_json_exact(const struct hist *h, const uint64_t *sorted, size_t n);

/* Rebuilds a histogram from an op object's bins (exact for fsbench's own bins). 0 or -EINVAL. */
int mdl_hist_from_json(const json_t *op, struct hist *ret);

#endif
