/* The A/A floor: a judging mode that decides verdicts by the spread of each side's own runs. */
#include "report/cmp.h"
#include "report/compare.h"
#include "report/metric.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The largest difference between two values of side @s that share a repetition index, or
 * that are both later repetitions: the first repetition of a boot differs from the later
 * ones in the same way on every boot (a cold page cache, a fresh journal), so it is set
 * only against the other boots' first; the later ones are the same run again, so any two
 * of them, in one boot or two, are alike. A metric whose later repetitions fall into two
 * modes (smallfile write.p99 at 17.5 or 24.4 us, whichever repetition flips) thus shows
 * its spread on every boot of either side, not only when two boots flip at one repetition
 * of different sides. Without repetitions, the side's range. NAN when no two values share
 * a repetition (one boot a side: nothing to measure).
 */
static double side_spread(const struct rpt_cmp_side *s)
{
	double spread = 0;
	bool boots = false; /* two runs of one repetition: two boots, so their spread is known */

	if (!s->reps)
		return s->n >= 2 ? s->st.max - s->st.min : NAN;
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = i + 1; j < s->n; j++) {
			bool like = s->reps[i] == s->reps[j];

			if (!like && (s->reps[i] < 1 || s->reps[j] < 1))
				continue;
			boots |= like;
			spread = fmax(spread, fabs(s->values[i] - s->values[j]));
		}
	/* one boot's later repetitions alone do not show how far two boots differ */
	return boots ? spread : NAN;
}

double rpt_cmp_floor_pct(const struct rpt_cmp_side *a, const struct rpt_cmp_side *b)
{
	double mean = a->n ? a->st.mean : NAN, ra = side_spread(a), rb = side_spread(b);

	if (!isfinite(mean) || mean == 0 || (isnan(ra) && isnan(rb)))
		return NAN;
	return fmax(isnan(ra) ? 0 : ra, isnan(rb) ? 0 : rb) / fabs(mean) * 100;
}

/*
 * Percentile @p above the median with fewer than RPT_TAIL_CALLS calls of a run at or above
 * it is the few slowest calls themselves (p99 of 400 fsyncs is the 4th slowest): which
 * calls those are is a boot's state (where the journal timer falls), so two boots a side
 * agree by chance and a third disagrees. Pooled A/A gates of 2 boots a side raised their
 * false alarms there (write.p99 of 400 writes, a stream's one commit). Such a comparison is
 * shown but not gated; @buf says why. 0 when it may be gated.
 */
static int few_tail_calls(double p, const struct rpt_cmp_side *a, const struct rpt_cmp_side *b,
			  char *buf, size_t len)
{
	double calls = fmin(a->calls_min, b->calls_min);

	if (p <= 50 || !isfinite(calls) || calls * (100 - p) / 100 >= RPT_TAIL_CALLS)
		return 0;
	snprintf(buf, len, "p%g of %.0f calls a run: fewer than %d at or above it", p, calls,
		 RPT_TAIL_CALLS);
	return 1;
}

/* One comparison of metric @m decided by the floor; @multiple as rpt_cmp_decide_floor's. */
static int judge_one(const struct rpt_cmp_metric *m, struct rpt_cmp_judged *c, double multiple)
{
	const struct rpt_cmp_side *a = &m->sides[0], *b = &m->sides[c->side];
	double change = c->change_pct, thr = c->rule.threshold_pct, floor, bar, res, pct;
	char tail[128];
	enum rpt_verdict v;

	if (c->cannot_judge)
		return 0;
	c->q = NAN; /* no test decides here, and no correction */
	if (a->n < RPT_MIN_SAMPLES || b->n < RPT_MIN_SAMPLES) {
		c->verdict = RPT_INSUFFICIENT;
		return 0;
	}
	if (!c->stats || !isfinite(thr))
		return c->stats ? -EPROTO : 0;
	/* a zero baseline has no relative change nor spread: the test's verdict stays */
	if (!isfinite(change) || !isfinite(a->st.mean) || a->st.mean == 0)
		return 0;
	floor = rpt_cmp_floor_pct(a, b);
	if (!isfinite(floor)) { /* one run of each repetition a side: no spread to decide by */
		c->verdict = RPT_INSUFFICIENT;
		return 0;
	}
	pct = rpt_metric_percentile(m->name);
	if (few_tail_calls(pct, a, b, tail, sizeof(tail))) {
		char *t = strdup(tail);

		if (!t)
			return -ENOMEM;
		free(c->not_gated);
		c->not_gated = t;
		c->rule.gate = false;
	}
	bar = fmax(thr, multiple * floor);
	/*
	 * A step of one histogram bucket is no evidence of a change: at least two are. Exact
	 * percentiles on both sides (every latency kept) have no bucket to step over.
	 */
	res = a->exact && b->exact ? NAN : rpt_metric_resolution_pct(m->name, a->st.mean);
	if (isfinite(res)) {
		res *= 1.0001; /* the step itself, computed at a mean, is not beyond it */
		bar = fmax(bar, res);
		c->resolution_pct = res;
	}
	if (fabs(change) > bar)
		v = (m->dir == RPT_HIGHER_IS_BETTER ? change < 0 : change > 0) ? RPT_REGRESSION :
										 RPT_IMPROVEMENT;
	else if (multiple * floor > thr)
		v = RPT_NOISY; /* a change of the threshold's size would hide in the spread */
	else
		v = RPT_UNCHANGED;
	c->floor_pct = floor;
	c->bar_pct = bar;
	c->verdict = v;
	return 0;
}

int rpt_cmp_decide_floor(struct rpt_cmp *c, double multiple)
{
	if (!isfinite(multiple) || multiple < 0)
		return -EINVAL;
	for (size_t i = 0; i < c->nsamples; i++)
		for (size_t j = 0; j < c->samples[i].nmetrics; j++)
			for (int k = 0; k + 1 < c->nsides; k++) {
				struct rpt_cmp_metric *m = &c->samples[i].metrics[j];
				int r = judge_one(m, &m->judged[k], multiple);

				if (r)
					return r;
			}
	c->set.decide = RPT_DECIDE_FLOOR;
	c->set.floor_multiple = multiple;
	return 0;
}
