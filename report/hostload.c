/* The conditions rule (hostload.h): a busy or unequally loaded host, or a drifting canary, is no verdict. */
#include "report/hostload.h"
#include "report/metric.h"
#include "report/stats.h"
#include "model/schema.h"

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
			snprintf(
				reason, len,
				"canary fsync p50 moved %+.0f %% between sides (%.0f -> %.0f us, rank test p = %.2g), as much as the metric's %+.1f %%: the device drifted",
				moved, a->canary_p50_us, b->canary_p50_us, t.p, change_pct);
			return true;
		}
	}
	return false;
}

static json_t *side_json(const struct rpt_hostload_side *s)
{
	json_t *o = json_object();

	if (s->n_load) {
		json_object_set_new(o, "others_pct", json_real(s->others_pct));
		json_object_set_new(o, "steal_pct", json_real(s->steal_pct));
	}
	if (s->n_wait)
		json_object_set_new(o, "self_wait_pct", json_real(s->self_wait_pct));
	if (s->n_canary)
		json_object_set_new(o, "canary_p50_us", json_real(s->canary_p50_us));
	return o;
}

void rpt_hostload_mark(json_t *c, const struct mdl_run_ref *runs, const size_t *ia, size_t na,
		       const size_t *ib, size_t nb, int kind, bool higher_is_better,
		       double max_busy_pct)
{
	const char *v = json_string_value(json_object_get(c, "verdict"));
	const char *na_ = json_string_value(json_object_get(c, "baseline"));
	const char *nb_ = json_string_value(json_object_get(c, "side"));
	struct rpt_hostload_side a, b;
	char reason[400], text[420];
	bool changed;

	if (!v || !strcmp(v, "insufficient"))
		return;
	changed = !strcmp(v, "regression") || !strcmp(v, "improvement");
	rpt_hostload_side(runs, ia, na, &a);
	rpt_hostload_side(runs, ib, nb, &b);
	if (!na_)
		na_ = "baseline";
	if (!nb_)
		nb_ = "candidate";
	if (!rpt_hostload_unjudgeable(&a, &b, na_, nb_, max_busy_pct, kind != RPT_KIND_KERNEL,
				      higher_is_better, changed,
				      json_number_value(json_object_get(c, "change_pct")), reason,
				      sizeof(reason))) {
		if (rpt_hostload_busy(&a, &b, na_, nb_, RPT_HOSTLOAD_BUSY_PCT, reason,
				      sizeof(reason)))
			json_object_set_new(c, "host_note", json_string(reason));
		return;
	}
	snprintf(text, sizeof(text), "cannot judge: %s", reason);
	json_object_set_new(c, "conditions",
			    json_pack("{s:s,s:s,s:o,s:o}", "reason", reason, "verdict_if_judged", v,
				      "baseline", side_json(&a), "side", side_json(&b)));
	json_object_set_new(c, "verdict", json_string("insufficient"));
	json_object_set_new(c, "reason", json_string(text));
}

bool rpt_hostload_blocks(const json_t *c)
{
	const json_t *cond = json_object_get(c, "conditions");

	const char *v = json_string_value(json_object_get(cond, "verdict_if_judged"));

	return v && !strcmp(v, "regression") && !json_is_false(json_object_get(c, "gate"));
}

size_t rpt_hostload_count(const json_t *cmp, bool notes, const char **ret_first)
{
	const json_t *s, *m, *c;
	size_t i, j, k, n = 0;

	*ret_first = NULL;
	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		const json_t *why =
			notes ? json_object_get(c, "host_note") :
				json_object_get(json_object_get(c, "conditions"), "reason");

		if (!why)
			continue;
		if (!n++)
			*ret_first = json_string_value(why);
	}
	return n;
}
