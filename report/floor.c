/* The A/A floor: a compare document's verdicts decided by the spread of each kernel's own runs. */
#include "report/compare.h"
#include "report/metric.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* The named side's statistics in metric @m's "sides". */
static const json_t *side_stats(const json_t *m, const char *name)
{
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(m, "sides"), i, s)
	{
		const char *n = json_string_value(json_object_get(s, "side"));

		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * The largest difference between two values of side @s that share a repetition index: the
 * first repetition of a boot differs from the later ones in the same way on every boot (a
 * cold page cache, a fresh journal), so only like is set against like. Without repetitions,
 * the side's range. NAN when no two values share one (one boot a side: nothing to measure).
 */
static double side_spread(const json_t *s)
{
	const json_t *vals = json_object_get(s, "values"),
		     *reps = json_object_get(s, "repetitions");
	size_t n = json_array_size(vals);
	double spread = NAN;

	if (!json_is_array(reps) || json_array_size(reps) != n)
		return n >= 2 ? num(s, "max") - num(s, "min") : NAN;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double d;

			if (json_integer_value(json_array_get(reps, i)) !=
			    json_integer_value(json_array_get(reps, j)))
				continue;
			d = fabs(json_number_value(json_array_get(vals, i)) -
				 json_number_value(json_array_get(vals, j)));
			spread = isnan(spread) ? d : fmax(spread, d);
		}
	return spread;
}

double rpt_floor_pct(const json_t *a, const json_t *b)
{
	double mean = num(a, "mean"), ra = side_spread(a), rb = side_spread(b);

	if (!isfinite(mean) || mean == 0 || (isnan(ra) && isnan(rb)))
		return NAN;
	return fmax(isnan(ra) ? 0 : ra, isnan(rb) ? 0 : rb) / fabs(mean) * 100;
}

/* Which latency percentile metric @m is (50, 99, 99.9), with its catalog entry; 0 for none. */
static double metric_percentile(const json_t *m, const struct rpt_metric_def **ret_def)
{
	const char *name = json_string_value(json_object_get(m, "name"));
	const struct rpt_metric_def *def = name ? rpt_metric_lookup(name) : NULL;

	*ret_def = def;
	if (!def || !def->key)
		return 0;
	return !strcmp(def->key, "p50_ns")   ? 50 :
	       !strcmp(def->key, "p99_ns")   ? 99 :
	       !strcmp(def->key, "p99_9_ns") ? 99.9 :
					       0;
}

/*
 * The histogram's resolution at the baseline's @mean, in percent of it, for percentile @p
 * (metric_percentile; a bucket's midpoint, 64 buckets to each power of two: model/hist.h,
 * the probes' the same) of metric @def; NAN when @p is 0, not a percentile. Two sides whose true values lie a
 * hair apart across a bucket boundary report a whole bucket's step, about 0.8-1.6 %: beyond
 * a 1 % threshold with a floor of 0 when every boot of a side lands in the same bucket.
 */
static double resolution_pct(double p, const struct rpt_metric_def *def, double mean)
{
	double ns;
	int e;

	if (!p || !def->scale)
		return NAN;
	ns = fabs(mean) / def->scale;
	if (ns < 64) /* buckets of 1 ns below 64 ns */
		return ns >= 1 ? 100 / ns : NAN;
	frexp(ns, &e); /* ns = f * 2^e, 0.5 <= f < 1: its bucket group is 2^(e-1) */
	return ldexp(1, e - 1 - 6) / ns * 100;
}

/*
 * Percentile @p above the median with fewer than RPT_TAIL_CALLS calls of a run at or above
 * it is the few slowest calls themselves (p99 of 400 fsyncs is the 4th slowest): which
 * calls those are is a boot's state (where the journal timer falls), so two boots a side
 * agree by chance and a third disagrees. Pooled A/A gates of 2 boots a side raised their
 * false alarms there (write.p99 of 400 writes, a stream's one commit). Such a comparison is
 * shown but not gated; @buf says why. 0 when it may be gated.
 */
static int few_tail_calls(double p, const json_t *a, const json_t *b, char *buf, size_t len)
{
	double calls = fmin(num(a, "calls_min"), num(b, "calls_min"));

	if (p <= 50 || !isfinite(calls) || calls * (100 - p) / 100 >= RPT_TAIL_CALLS)
		return 0;
	snprintf(buf, len, "p%g of %.0f calls a run: fewer than %d at or above it", p, calls,
		 RPT_TAIL_CALLS);
	return 1;
}

/* One comparison of metric @m re-decided; @multiple as rpt_compare_floor's. */
static int judge_one(const json_t *m, json_t *c, double multiple)
{
	const json_t *a = side_stats(m, json_string_value(json_object_get(c, "baseline"))),
		     *b = side_stats(m, json_string_value(json_object_get(c, "side")));
	const char *dir = json_string_value(json_object_get(m, "direction"));
	double change = num(c, "change_pct"), thr = num(c, "threshold_pct"), floor, bar, res, pct;
	const struct rpt_metric_def *def;
	char tail[128];
	enum rpt_verdict v;
	bool worse;

	if (!a || !b || !dir || !isfinite(thr))
		return -EPROTO;
	if (num(a, "n") < RPT_MIN_SAMPLES || num(b, "n") < RPT_MIN_SAMPLES) {
		json_object_set_new(c, "verdict", json_string(rpt_verdict_names[RPT_INSUFFICIENT]));
		return 0;
	}
	/* a zero baseline has no relative change nor spread: the test's verdict stays */
	if (!isfinite(change) || !isfinite(num(a, "mean")) || num(a, "mean") == 0)
		return 0;
	floor = rpt_floor_pct(a, b);
	if (!isfinite(floor)) { /* one run of each repetition a side: no spread to decide by */
		json_object_set_new(c, "verdict", json_string(rpt_verdict_names[RPT_INSUFFICIENT]));
		return 0;
	}
	pct = metric_percentile(m, &def);
	if (few_tail_calls(pct, a, b, tail, sizeof(tail))) {
		json_object_set_new(c, "gate", json_false());
		json_object_set_new(c, "not_gated", json_string(tail));
	}
	bar = fmax(thr, multiple * floor);
	/* a step of one histogram bucket is no evidence of a change: at least two are */
	res = resolution_pct(pct, def, num(a, "mean"));
	if (isfinite(res)) {
		res *= 1.0001; /* the step itself, computed at a mean, is not beyond it */
		bar = fmax(bar, res);
		json_object_set_new(c, "resolution_pct", json_real(res));
	}
	worse = !strcmp(dir, "higher") ? change < 0 : change > 0;
	if (fabs(change) > bar)
		v = worse ? RPT_REGRESSION : RPT_IMPROVEMENT;
	else if (multiple * floor > thr)
		v = RPT_NOISY; /* a change of the threshold's size would hide in the spread */
	else
		v = RPT_UNCHANGED;
	json_object_set_new(c, "floor_pct", json_real(floor));
	json_object_set_new(c, "bar_pct", json_real(bar));
	json_object_set_new(c, "verdict", json_string(rpt_verdict_names[v]));
	return 0;
}

int rpt_compare_floor(json_t *cmp, double multiple)
{
	json_t *s, *m, *c, *set;
	size_t i, j, k;
	int r = 0;

	if (!isfinite(multiple) || multiple < 0)
		return -EINVAL;
	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		if (!r)
			r = judge_one(m, c, multiple);
	}
	set = json_object_get(cmp, "settings");
	if (!r && json_is_object(set)) {
		json_object_set_new(set, "decision", json_string("aa_floor"));
		json_object_set_new(set, "floor_multiple", json_real(multiple));
	}
	return r;
}
