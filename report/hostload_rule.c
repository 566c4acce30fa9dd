/* The conditions rule (hostload_rule.h): a busy or unequally loaded host, or a drifting canary, is no verdict. */
#include "report/hostload_rule.h"
#include "report/metric.h"
#include "report/stats.h"
#include "model/schema.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static bool canary_p50(const json_t *run, const char *when, double *ret)
{
	const json_t *v =
		json_object_get(json_object_get(json_object_get(run, "canary"), when), "p50_us");

	*ret = json_number_value(v);
	return json_is_number(v) && isfinite(*ret) && *ret > 0;
}

/* The kernel a result ran on, as one string: release, build and command line. */
static void kernel_of(const json_t *doc, char *buf, size_t len)
{
	const json_t *h = json_object_get(doc, "host");

	snprintf(buf, len, "%s|%s|%s", mdl_json_str(h, "kernel", ""),
		 mdl_json_str(h, "kernel_version", ""), mdl_json_str(h, "cmdline", ""));
}

void rpt_hostload_side(const struct mdl_run_ref *runs, const size_t *idx, size_t n,
		       struct rpt_hostload_side *ret)
{
	struct rpt_hostload_side s = { 0 };
	static const char *const when[] = { "before", "after" };
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		const json_t *run = runs[idx[i]].run, *hl = json_object_get(run, "host_load");
		const json_t *o = json_object_get(hl, "others_pct");
		const json_t *st = json_object_get(hl, "steal_pct");

		char k[sizeof(s.kernel)];

		if (!mdl_run_complete(run))
			continue;
		kernel_of(runs[idx[i]].doc, k, sizeof(k));
		if (first)
			snprintf(s.kernel, sizeof(s.kernel), "%s", k);
		else if (strcmp(s.kernel, k))
			s.kernel_mixed = true;
		first = false;
		if (json_is_number(o) && json_is_number(st)) {
			s.others_pct += json_number_value(o);
			s.steal_pct += json_number_value(st);
			s.n_load++;
		}
		if (json_is_number(json_object_get(hl, "self_wait_pct"))) {
			s.self_wait_pct += json_number_value(json_object_get(hl, "self_wait_pct"));
			s.n_wait++;
		}
		for (int w = 0; w < 2 && s.n_canary < RPT_HOSTLOAD_MAX_CANARY; w++)
			if (canary_p50(run, when[w], &s.canary[s.n_canary]))
				s.n_canary++;
	}
	if (s.n_load) {
		s.others_pct /= (double)s.n_load;
		s.steal_pct /= (double)s.n_load;
	}
	if (s.n_wait)
		s.self_wait_pct /= (double)s.n_wait;
	if (s.n_canary) {
		size_t h = s.n_canary / 2;

		qsort(s.canary, s.n_canary, sizeof(double), cmp_double);
		s.canary_p50_us = s.n_canary % 2 ? s.canary[h] :
						   (s.canary[h - 1] + s.canary[h]) / 2;
	}
	*ret = s;
}

/* Others' share of the CPU, the hypervisor's steal included: both are time fsbench waited for. */
static double taken(const struct rpt_hostload_side *s)
{
	return s->others_pct + s->steal_pct;
}

bool rpt_hostload_busy(const struct rpt_hostload_side *a, const struct rpt_hostload_side *b,
		       const char *name_a, const char *name_b, double limit_pct, char *note,
		       size_t len)
{
	const struct rpt_hostload_side *busy = taken(b) >= taken(a) ? b : a;
	const struct rpt_hostload_side *other = busy == b ? a : b;

	if (!a->n_load || !b->n_load || !(limit_pct > 0) || taken(busy) < limit_pct)
		return false;
	snprintf(
		note, len,
		"host busy on side '%s': others used %.0f %% of the CPU time (side '%s' %.0f %%; %.0f %% or more is busy)",
		busy == b ? name_b : name_a, taken(busy), busy == b ? name_a : name_b, taken(other),
		limit_pct);
	return true;
}

bool rpt_hostload_unjudgeable(const struct rpt_hostload_side *a, const struct rpt_hostload_side *b,
			      const char *name_a, const char *name_b, double max_busy_pct,
			      bool canary_applies, bool higher_is_better, bool changed,
			      double change_pct, char *reason, size_t len)
{
	if (rpt_hostload_busy(a, b, name_a, name_b, max_busy_pct, reason, len))
		return true;
	if (a->n_load && b->n_load && fabs(taken(b) - taken(a)) >= RPT_HOSTLOAD_DIFF_PCT) {
		snprintf(
			reason, len,
			"host load differs: others used %.0f %% of the CPU time on side '%s', %.0f %% on side '%s' (%.0f points or more differ)",
			taken(a), name_a, taken(b), name_b, RPT_HOSTLOAD_DIFF_PCT);
		return true;
	}
	if (a->n_wait && b->n_wait &&
	    fabs(b->self_wait_pct - a->self_wait_pct) >= RPT_HOSTLOAD_WAIT_DIFF_PCT) {
		snprintf(
			reason, len,
			"host load differs: fsbench's threads waited for a CPU %.0f %% of their runnable time on side '%s', %.0f %% on side '%s' (%.0f points or more differ)",
			a->self_wait_pct, name_a, b->self_wait_pct, name_b,
			RPT_HOSTLOAD_WAIT_DIFF_PCT);
		return true;
	}
	if (canary_applies && changed && a->n_canary && b->n_canary && isfinite(change_pct) &&
	    !a->kernel_mixed && !b->kernel_mixed && !strcmp(a->kernel, b->kernel)) {
		double moved = (b->canary_p50_us - a->canary_p50_us) / a->canary_p50_us * 100;
		/* a slower device makes latency longer and throughput lower */
		double worse = higher_is_better ? -change_pct : change_pct;

		struct rpt_test t;

		if (moved * worse > 0 && fabs(moved) >= RPT_HOSTLOAD_CANARY_MIN_PCT &&
		    fabs(moved) >= RPT_HOSTLOAD_CANARY_SHARE * fabs(change_pct) &&
		    rpt_mann_whitney(a->canary, a->n_canary, b->canary, b->n_canary, &t) == 0 &&
		    t.p < RPT_HOSTLOAD_CANARY_ALPHA) {
			/* in ms, spelt alike in the text and on the page (where µs is not "us") */
			snprintf(
				reason, len,
				"canary fsync p50 moved %+.0f %% between sides (%.2f -> %.2f ms, rank test p = %.2g), as much as the metric's %+.1f %%: the device drifted",
				moved, a->canary_p50_us / 1000, b->canary_p50_us / 1000, t.p,
				change_pct);
			return true;
		}
	}
	return false;
}

static void cond_side(const struct rpt_hostload_side *s, struct rpt_cmp_cond_side *ret)
{
	*ret = (struct rpt_cmp_cond_side){ .load = s->n_load > 0,
					   .wait = s->n_wait > 0,
					   .canary = s->n_canary > 0,
					   .others_pct = s->others_pct,
					   .steal_pct = s->steal_pct,
					   .self_wait_pct = s->self_wait_pct,
					   .canary_p50_us = s->canary_p50_us };
}

int rpt_hostload_judge(struct rpt_cmp_judged *j, const struct mdl_run_ref *runs, const size_t *ia,
		       size_t na, const size_t *ib, size_t nb, const char *name_a,
		       const char *name_b, int kind, bool higher_is_better, double max_busy_pct)
{
	struct rpt_hostload_side a, b;
	struct rpt_cmp_conditions *cd;
	char reason[400], text[420];
	enum rpt_verdict v = j->verdict;
	int e;

	if (!j->stats || j->cannot_judge || v == RPT_INSUFFICIENT)
		return 0;
	rpt_hostload_side(runs, ia, na, &a);
	rpt_hostload_side(runs, ib, nb, &b);
	if (!rpt_hostload_unjudgeable(&a, &b, name_a, name_b, max_busy_pct, kind != RPT_KIND_KERNEL,
				      higher_is_better, v == RPT_REGRESSION || v == RPT_IMPROVEMENT,
				      j->change_pct, reason, sizeof(reason))) {
		if (rpt_hostload_busy(&a, &b, name_a, name_b, RPT_HOSTLOAD_BUSY_PCT, reason,
				      sizeof(reason)) &&
		    !(j->host_note = strdup(reason)))
			return -ENOMEM;
		return 0;
	}
	cd = calloc(1, sizeof(*cd));
	if (!cd || !(cd->reason = strdup(reason))) {
		free(cd);
		return -ENOMEM;
	}
	cd->verdict_if_judged = v;
	cond_side(&a, &cd->baseline);
	cond_side(&b, &cd->side);
	snprintf(text, sizeof(text), "cannot judge: %s", reason);
	e = rpt_cmp_judged_cannot_judge(j, text);
	if (e) {
		free(cd->reason);
		free(cd);
		return e;
	}
	j->conditions = cd;
	return 0;
}

struct host_count {
	bool notes;
	size_t n;
	const char *first;
};

static int count_one(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
		     const struct rpt_cmp_judged *j, void *arg)
{
	struct host_count *h = arg;
	const char *why = h->notes ? j->host_note : j->conditions ? j->conditions->reason : NULL;

	(void)s;
	(void)m;
	if (why && !h->n++)
		h->first = why;
	return 0;
}

size_t rpt_hostload_count(const struct rpt_cmp *c, bool notes, const char **ret_first)
{
	struct host_count h = { .notes = notes };

	rpt_cmp_foreach(c, count_one, &h);
	*ret_first = h.first;
	return h.n;
}
