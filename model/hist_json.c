/* The histogram's JSON codec: an op object of a result and back (see hist_json.h). */
#include "model/hist_json.h"

#include <errno.h>

const struct mdl_percentile mdl_percentiles[MDL_NPERCENTILES] = {
	{ .pct = 50, .key = "p50_ns", .v1_key = "p50" },
	{ .pct = 90, .key = "p90_ns", .v1_key = "p90" },
	{ .pct = 99, .key = "p99_ns", .v1_key = "p99" },
	{ .pct = 99.9, .key = "p99_9_ns", .v1_key = "p99.9" },
	{ .pct = 99.99, .key = "p99_99_ns", .v1_key = "p99.99" },
};

json_t *mdl_hist_to_json(const struct hist *h)
{
	json_t *o = json_object(), *lo_a = json_array(), *n_a = json_array();

	json_object_set_new(o, "count", json_integer((json_int_t)h->count));
	json_object_set_new(o, "min_ns", json_integer(h->count ? (json_int_t)h->min : 0));
	json_object_set_new(o, "max_ns", json_integer((json_int_t)h->max));
	json_object_set_new(o, "mean_ns", json_real(hist_mean(h)));
	json_object_set_new(o, "stddev_ns", json_real(hist_stddev(h)));
	json_object_set_new(o, "sum_ns", json_integer((json_int_t)h->sum));
	json_object_set_new(o, "overflow", json_integer((json_int_t)h->overflow));
	for (int i = 0; i < MDL_NPERCENTILES; i++)
		json_object_set_new(
			o, mdl_percentiles[i].key,
			json_integer((json_int_t)hist_percentile(h, mdl_percentiles[i].pct)));
	/*
	 * Columnar, the non-empty buckets only: {"sub_bits": 6, "index": [...], "count":
	 * [...]}, "index" the buckets' numbers in model/hist.h's layout, the first one as it
	 * is and each next one as the step from the one before (most steps are 1 or 2 digits);
	 * index HIST_NBINS is the overflow. An array of {lo_ns, hi_ns, count} objects, as
	 * results before issue 24 hold, was five times the size; "sub_bits" lets a reader
	 * refuse a layout it does not know.
	 */
	for (unsigned i = 0, prev = 0; i <= HIST_NBINS; i++) {
		uint64_t n = i < HIST_NBINS ? h->bins[i] : h->overflow;

		if (!n)
			continue;
		json_array_append_new(lo_a, json_integer((json_int_t)(i - prev)));
		json_array_append_new(n_a, json_integer((json_int_t)n));
		prev = i;
	}
	json_object_set_new(o, "bins",
			    json_pack("{s:i,s:o,s:o}", "sub_bits", HIST_SUB_BITS, "index", lo_a,
				      "count", n_a));
	return o;
}

json_t *mdl_hist_to_json_exact(const struct hist *h, const uint64_t *sorted, size_t n)
{
	json_t *o = mdl_hist_to_json(h);

	if (!o || !sorted || !n || n != h->count)
		return o;
	for (int i = 0; i < MDL_NPERCENTILES; i++)
		json_object_set_new(o, mdl_percentiles[i].key,
				    json_integer((json_int_t)hist_sorted_percentile(
					    sorted, n, mdl_percentiles[i].pct)));
	json_object_set_new(o, "exact", json_true());
	return o;
}

/* One bucket into @ret: 0, or -EINVAL for a negative bound or count. */
static int bin_add(struct hist *ret, json_int_t lo, json_int_t n)
{
	if (lo < 0 || n < 0)
		return -EINVAL;
	if ((uint64_t)lo >= HIST_RANGE_NS)
		ret->overflow += (uint64_t)n;
	else
		ret->bins[hist_index((uint64_t)lo)] += (uint64_t)n;
	return 0;
}

int mdl_hist_from_json(const json_t *op, struct hist *ret)
{
	const json_t *bins = json_object_get(op, "bins"), *b;
	size_t i;

	hist_init(ret);
	if (json_is_object(bins)) {
		const json_t *ix = json_object_get(bins, "index"),
			     *n_a = json_object_get(bins, "count");
		json_int_t at = 0;

		if (json_integer_value(json_object_get(bins, "sub_bits")) != HIST_SUB_BITS ||
		    !json_is_array(ix) || !json_is_array(n_a) ||
		    json_array_size(ix) != json_array_size(n_a))
			return -EINVAL;
		json_array_foreach(ix, i, b)
		{
			json_int_t step = json_integer_value(b);
			json_int_t n = json_integer_value(json_array_get(n_a, i));

			if (!json_is_integer(b) || step < 0 || step > (json_int_t)HIST_NBINS ||
			    (i && !step) || n < 0)
				return -EINVAL;
			at += step;
			if (at > (json_int_t)HIST_NBINS)
				return -EINVAL;
			if (at == (json_int_t)HIST_NBINS)
				ret->overflow += (uint64_t)n;
			else
				ret->bins[at] += (uint64_t)n;
		}
	} else if (json_is_array(bins)) {
		/* results written before the columnar layout */
		json_array_foreach(
			bins, i,
			b) if (bin_add(ret, json_integer_value(json_object_get(b, "lo_ns")),
				       json_integer_value(
					       json_object_get(b, "count")))) return -EINVAL;
	} else {
		return -EINVAL;
	}
	ret->count = (uint64_t)json_integer_value(json_object_get(op, "count"));
	ret->sum = (uint64_t)json_integer_value(json_object_get(op, "sum_ns"));
	ret->min = ret->count ? (uint64_t)json_integer_value(json_object_get(op, "min_ns")) :
				UINT64_MAX;
	ret->max = (uint64_t)json_integer_value(json_object_get(op, "max_ns"));
	{
		double mean = json_number_value(json_object_get(op, "mean_ns"));
		double sd = json_number_value(json_object_get(op, "stddev_ns"));

		ret->sumsq = ret->count > 1 ? sd * sd * (double)(ret->count - 1) +
						      (double)ret->count * mean * mean :
					      (double)ret->count * mean * mean;
	}
	return 0;
}
