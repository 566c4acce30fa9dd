/* The comparison document: samples' metrics, statistics per side and verdicts, as fsbench-compare/1. */
#include "report/compare.h"
#include "report/context.h"
#include "report/gate.h"
#include "report/hostload.h"
#include "report/sample.h"
#include "report/why.h"
#include "model/doc.h"
#include "model/schema.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void rpt_compare_opts_init(struct rpt_compare_opts *o)
{
	*o = (struct rpt_compare_opts){ .alpha = RPT_DEFAULT_ALPHA,
					.threshold_pct = RPT_DEFAULT_THRESHOLD_PCT,
					.noise_cov_pct = RPT_DEFAULT_NOISE_COV_PCT,
					.test = RPT_TEST_AUTO };
}

/* @reps: each value's repetition, or NULL when a run did not say (then none are listed). */
static json_t *stats_json(const char *side, const struct rpt_stats *st, const double *v,
			  const long long *reps, size_t n)
{
	json_t *o = json_object(), *vals = json_array(), *rv = reps ? json_array() : NULL;

	for (size_t i = 0; i < n; i++) {
		json_array_append_new(vals, json_real(v[i]));
		if (rv)
			json_array_append_new(rv, json_integer(reps[i]));
	}
	if (rv)
		json_object_set_new(o, "repetitions", rv);
	json_object_set_new(o, "side", json_string(side));
	json_object_set_new(o, "n", json_integer((json_int_t)n));
	json_object_set_new(o, "values", vals);
	if (n) {
		json_object_set_new(o, "mean", json_real(st->mean));
		json_object_set_new(o, "median", json_real(st->median));
		json_object_set_new(o, "min", json_real(st->min));
		json_object_set_new(o, "max", json_real(st->max));
		json_object_set_new(o, "stddev", json_real(st->stddev));
		json_object_set_new(o, "cov_pct", json_real(st->cov * 100));
		json_object_set_new(o, "ci95", json_pack("[f,f]", st->ci_lo, st->ci_hi));
	}
	return o;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * Whether the sources that loaded on side @k's runs of @sm differ from the baseline's; @buf
 * then says which ("source jbd2 loaded on the candidate only").
 */
static bool instrumentation_differs(const struct sample *sm, const struct mdl_run_ref *runs,
				    const char *const *side_names, int k, char *buf, size_t len)
{
	json_t *a = rpt_why_sources(runs, sm->runs[0], sm->nruns[0]);
	json_t *b = rpt_why_sources(runs, sm->runs[k], sm->nruns[k]);
	size_t n = a && b ? rpt_why_sources_diff(a, b, side_names[0], side_names[k], buf, len) : 0;

	json_decref(a);
	json_decref(b);
	return n > 0;
}

/* Side @k's judgement against side 0 as a comparison object, with why it moved. */
static json_t *judged_json(const struct sample *sm, const struct mdl_run_ref *runs,
			   const char *const *side_names, int k, const char *op, const char *name,
			   const struct rpt_rule *rule, const struct rpt_judgement *jp)
{
	const struct rpt_judgement j = *jp;
	json_t *c = json_object();

	json_object_set_new(c, "side", json_string(side_names[k]));
	json_object_set_new(c, "baseline", json_string(side_names[0]));
	json_object_set_new(c, "change_pct", num_or_null(j.change_pct));
	json_object_set_new(c, "test",
			    j.tested ? json_string(rpt_test_name(j.test.kind)) : json_null());
	json_object_set_new(c, "p", j.tested ? num_or_null(j.test.p) : json_null());
	json_object_set_new(c, "p_welch", num_or_null(j.p_welch));
	json_object_set_new(c, "p_rank", num_or_null(j.p_rank));
	json_object_set_new(c, "alpha", json_real(rule->alpha));
	json_object_set_new(c, "threshold_pct", json_real(rule->threshold_pct));
	json_object_set_new(c, "noise_cov_pct", json_real(rule->noise_cov_pct));
	json_object_set_new(c, "gate", json_boolean(rule->gate));
	json_object_set_new(c, "verdict", json_string(rpt_verdict_names[j.verdict]));
	/*
	 * Why it moved, from the probes: for what changed, and for what moved past the
	 * threshold without enough samples to be judged (explain's two single runs).
	 */
	if (j.verdict == RPT_REGRESSION || j.verdict == RPT_IMPROVEMENT ||
	    (isfinite(j.change_pct) && fabs(j.change_pct) > rule->threshold_pct)) {
		json_t *why = rpt_why_build(runs, sm->runs[0], sm->nruns[0], sm->runs[k],
					    sm->nruns[k], op, name, j.change_pct);

		if (why)
			json_object_set_new(c, "why", why);
	}
	return c;
}

/* One metric of one sample: statistics per side, and each side judged against side 0. */
static int metric_json(const struct sample *sm, const struct mdl_run_ref *runs,
		       const char *const *side_names, int nsides, const struct rpt_metric_def *def,
		       const char *op, const char *name, const struct rpt_compare_opts *o,
		       json_t **ret)
{
	json_t *m = json_object(), *sides = json_array(), *cmps = json_array();
	double *vals[nsides];
	long long *reps[nsides];
	bool have_reps[nsides];
	size_t nv[nsides];
	const struct rpt_rule cli = { .alpha = o->alpha,
				      .threshold_pct = o->threshold_pct,
				      .noise_cov_pct = o->noise_cov_pct,
				      .gate = true };
	struct rpt_rule rule = rpt_rule_for(o->gate, &cli, name);
	char why_src[512];
	int e = 0;

	double calls_min[nsides];

	for (int k = 0; k < nsides; k++) {
		calls_min[k] = INFINITY;
		vals[k] = calloc(sm->nruns[k] + 1, sizeof(double));
		reps[k] = calloc(sm->nruns[k] + 1, sizeof(long long));
		nv[k] = 0;
		have_reps[k] = true;
		if (!vals[k] || !reps[k])
			e = -ENOMEM;
		for (size_t i = 0; !e && i < sm->nruns[k]; i++) {
			const json_t *run = runs[sm->runs[k][i]].run;
			const json_t *rep =
				json_object_get(json_object_get(run, "coords"), "repetition");
			double raw, cnt;

			if (mdl_run_complete(run) && rpt_metric_value(run, def, op, &raw)) {
				/* the fewest calls behind a run's percentile: rpt_compare_floor */
				if (rpt_metric_count(run, def, op, &cnt))
					calls_min[k] = fmin(calls_min[k], cnt);
				/* which repetition of its boot or invocation: rpt_floor_pct pairs them */
				have_reps[k] &= json_is_integer(rep);
				reps[k][nv[k]] = json_integer_value(rep);
				vals[k][nv[k]++] = raw * def->scale;
			}
		}
	}
	for (int k = 0; !e && k < nsides; k++) {
		struct rpt_stats st = { 0 };

		if (nv[k])
			rpt_stats_compute(vals[k], nv[k], &st);
		json_t *so = stats_json(side_names[k], &st, vals[k], have_reps[k] ? reps[k] : NULL,
					nv[k]);

		if (isfinite(calls_min[k]))
			json_object_set_new(so, "calls_min", json_real(calls_min[k]));
		json_array_append_new(sides, so);
	}
	for (int k = 1; !e && k < nsides; k++) {
		struct rpt_judgement j;
		json_t *c;

		if (!nv[0] || !nv[k]) {
			json_array_append_new(cmps,
					      json_pack("{s:s,s:s,s:s,s:b}", "side", side_names[k],
							"baseline", side_names[0], "verdict",
							"insufficient", "gate", rule.gate));
			continue;
		}
		/*
		 * Per-call latencies of sides that ran different probes differ partly by what
		 * the probes cost: not judged, and the sources named (issue 21, item 2).
		 */
		if (def->kind == RPT_KIND_LATENCY &&
		    instrumentation_differs(sm, runs, side_names, k, why_src, sizeof(why_src))) {
			char reason[600];

			snprintf(reason, sizeof(reason), "cannot judge: %s", why_src);
			json_array_append_new(cmps,
					      json_pack("{s:s,s:s,s:s,s:b,s:s}", "side",
							side_names[k], "baseline", side_names[0],
							"verdict", "insufficient", "gate",
							rule.gate, "reason", reason));
			continue;
		}
		e = rpt_judge(vals[0], nv[0], vals[k], nv[k], def->dir, def->kind, o->test, &rule,
			      &j);
		if (e)
			break;
		c = judged_json(sm, runs, side_names, k, op, name, &rule, &j);
		rpt_hostload_mark(c, runs, sm->runs[0], sm->nruns[0], sm->runs[k], sm->nruns[k],
				  def->kind, def->dir == RPT_HIGHER_IS_BETTER,
				  o->max_host_load_pct);
		json_array_append_new(cmps, c);
	}
	for (int k = 0; k < nsides; k++) {
		free(vals[k]);
		free(reps[k]);
	}
	if (e) {
		json_decref(m);
		json_decref(sides);
		json_decref(cmps);
		return e;
	}
	json_object_set_new(m, "name", json_string(name));
	json_object_set_new(m, "unit", json_string(def->unit));
	json_object_set_new(m, "direction",
			    json_string(def->dir == RPT_HIGHER_IS_BETTER ? "higher" : "lower"));
	json_object_set_new(m, "kind",
			    json_string(def->kind == RPT_KIND_THROUGHPUT ? "throughput" :
					def->kind == RPT_KIND_LATENCY	 ? "latency" :
									   "kernel"));
	json_object_set_new(m, "sides", sides);
	json_object_set_new(m, "comparisons", cmps);
	*ret = m;
	return 0;
}

/* A metric is compared when every complete run of the sample, on every side, has it. */
static bool sample_has(const struct sample *sm, const struct mdl_run_ref *runs, int nsides,
		       const struct rpt_metric_def *def, const char *op)
{
	bool any = false;

	for (int k = 0; k < nsides; k++)
		for (size_t i = 0; i < sm->nruns[k]; i++) {
			const json_t *run = runs[sm->runs[k][i]].run;

			if (!mdl_run_complete(run))
				continue;
			if (!rpt_metric_applies(run, def, op))
				return false;
			any = true;
		}
	return any;
}

static int sample_json(const struct sample *sm, const struct mdl_run_ref *runs,
		       const char *const *side_names, int nsides, const struct rpt_compare_opts *o,
		       json_t **ret)
{
	json_t *s = json_object(), *metrics = json_array(), *m;
	const json_t *ops;
	const json_t *coords = json_object_get(sm->first, MDL_KEY_COORDS);
	int e;

	json_object_set_new(s, "label", json_string(sm->label));
	json_object_set(s, MDL_KEY_WORKLOAD, json_object_get(sm->first, MDL_KEY_WORKLOAD));
	json_object_set(s, MDL_KEY_THREADS, json_object_get(sm->first, MDL_KEY_THREADS));
	json_object_set(s, "key", sm->keyobj);
	if (json_is_object(coords)) {
		json_t *c = json_deep_copy(coords);

		json_object_del(c, "repetition");
		if (o->across)
			json_object_del(c, o->across);
		json_object_set_new(s, MDL_KEY_COORDS, c);
	}
	for (size_t i = 0; i < rpt_n_run_metrics; i++) {
		if (!sample_has(sm, runs, nsides, &rpt_run_metrics[i], NULL))
			continue;
		e = metric_json(sm, runs, side_names, nsides, &rpt_run_metrics[i], NULL,
				rpt_run_metrics[i].name, o, &m);
		if (e)
			goto fail;
		json_array_append_new(metrics, m);
	}
	ops = mdl_run_ops(sm->first);
	for (int rank = 0; mdl_op_name_at(rank); rank++) {
		const char *op = mdl_op_name_at(rank);

		if (!json_object_get(ops, op))
			continue;
		for (size_t i = 0; i < rpt_n_latency_metrics; i++) {
			char name[64];

			if (!sample_has(sm, runs, nsides, &rpt_latency_metrics[i], op))
				continue;
			snprintf(name, sizeof(name), "%s.%s", op, rpt_latency_metrics[i].name);
			e = metric_json(sm, runs, side_names, nsides, &rpt_latency_metrics[i], op,
					name, o, &m);
			if (e)
				goto fail;
			json_array_append_new(metrics, m);
		}
	}
	json_object_set_new(s, "metrics", metrics);
	/* which sources loaded on one side only: the verdict says so (issue 21, item 2) */
	for (int k = 1; k < nsides; k++) {
		char why_src[512];

		if (!instrumentation_differs(sm, runs, side_names, k, why_src, sizeof(why_src)))
			continue;
		if (!json_object_get(s, "instrumentation"))
			json_object_set_new(s, "instrumentation", json_array());
		json_array_append_new(json_object_get(s, "instrumentation"),
				      json_pack("{s:s,s:s}", "side", side_names[k], "differs",
						why_src));
	}
	/* what exporters label and stamp the sample's values with, per side */
	json_object_set_new(s, "context", json_array());
	for (int k = 0; k < nsides; k++)
		json_array_append_new(json_object_get(s, "context"),
				      rpt_side_context(side_names[k], runs, sm->runs[k],
						       sm->nruns[k]));
	*ret = s;
	return 0;
fail:
	json_decref(metrics);
	json_decref(s);
	return e;
}

/* Every run has the string coords.@across the sides are told apart by: 0, or -EPROTO. */
static int across_check(const struct mdl_run_ref *runs, size_t nruns, const char *across, char *err,
			size_t errlen)
{
	for (size_t i = 0; across && i < nruns; i++)
		if (!json_is_string(json_object_get(json_object_get(runs[i].run, MDL_KEY_COORDS),
						    across))) {
			snprintf(
				err, errlen,
				"%s: run %zu has no string coords.%s (--across needs suite results)",
				runs[i].file, runs[i].index, across);
			return -EPROTO;
		}
	return 0;
}

/*
 * Samples missing on a side: listed in *@ret_dropped with allow_unmatched, else -EPROTO
 * with @err naming the run and what its nearest sample on that side differs in.
 */
static int unmatched(const struct samples *s, const struct mdl_run_ref *runs,
		     const char *const *side_names, int nsides, const struct rpt_compare_opts *o,
		     json_t **ret_dropped, char *err, size_t errlen)
{
	json_t *dropped = json_array();

	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < nsides; k++) {
			const struct sample *sm = &s->v[i], *near;
			const struct mdl_run_ref *r = NULL;
			char *diff;

			if (sm->nruns[k])
				continue;
			for (int j = 0; j < nsides && !r; j++)
				if (sm->nruns[j])
					r = &runs[sm->runs[j][0]];
			if (o->allow_unmatched) {
				json_array_append_new(dropped,
						      json_pack("{s:s,s:s,s:I,s:s}", "label",
								sm->label, "file", r->file, "run",
								(json_int_t)r->index, "missing_on",
								side_names[k]));
				continue;
			}
			near = rpt_sample_nearest(s, sm, k);
			diff = strdup("");
			if (near && diff)
				rpt_label_append_diff(&diff, sm->keyobj, near->keyobj, true);
			snprintf(
				err, errlen,
				"%s: run %zu (%s) has no match on side '%s': no run there has the same %s%s%s",
				r->file, r->index, sm->label, side_names[k],
				json_object_get(r->run, MDL_KEY_COORDS) ?
					"coordinates" :
					"workload, threads and parameters",
				diff && *diff ? "; nearest differs in " : "", diff ? diff : "");
			free(diff);
			json_decref(dropped);
			return -EPROTO;
		}
	*ret_dropped = dropped;
	return 0;
}

/* sides[]: each side's name and the files its runs came from. */
static json_t *sides_json(const struct mdl_run_ref *runs, size_t nruns,
			  const char *const *side_names, int nsides)
{
	json_t *sides = json_array();

	for (int k = 0; k < nsides; k++) {
		json_t *files = json_array();

		for (size_t i = 0; i < nruns; i++) {
			bool seen = false;
			size_t n;
			json_t *f;

			if (runs[i].side != k)
				continue;
			json_array_foreach(files, n, f)
				seen |= !strcmp(json_string_value(f), runs[i].file);
			if (!seen)
				json_array_append_new(files, json_string(runs[i].file));
		}
		json_array_append_new(sides, json_pack("{s:s,s:o}", "name", side_names[k], "files",
						       files));
	}
	return sides;
}

/* excluded[]: the incomplete runs, left out of every sample, and why. */
static json_t *excluded_json(const struct mdl_run_ref *runs, size_t nruns,
			     const char *const *side_names)
{
	json_t *excluded = json_array();

	for (size_t i = 0; i < nruns; i++) {
		if (mdl_run_complete(runs[i].run))
			continue;
		json_array_append_new(excluded,
				      json_pack("{s:s,s:I,s:s,s:s}", "file", runs[i].file, "run",
						(json_int_t)runs[i].index, "side",
						side_names[runs[i].side], "reason",
						mdl_run_error(runs[i].run, "incomplete")));
	}
	return excluded;
}

/* settings: what the comparison was judged with, the gate file's strictness included. */
static json_t *settings_json(const struct rpt_compare_opts *o)
{
	json_t *set = json_pack("{s:f,s:f,s:f,s:s,s:s?,s:O?}", "alpha", o->alpha, "threshold_pct",
				o->threshold_pct, "noise_cov_pct", o->noise_cov_pct, "test",
				o->test == RPT_TEST_AUTO       ? "auto" :
				o->test == RPT_TEST_ONLY_WELCH ? "welch" :
								 "mann-whitney",
				"across", o->across, "gate", o->gate);

	json_object_set_new(set, "strict",
			    json_boolean(o->strict ||
					 json_is_true(json_object_get(o->gate, "strict"))));
	json_object_set_new(set, "max_host_load_pct", json_real(o->max_host_load_pct));
	json_object_set_new(set, "allow_noisy",
			    json_boolean(o->allow_noisy ||
					 json_is_true(json_object_get(o->gate, "allow_noisy"))));
	return set;
}

/* The document's totals: verdict counts, whether the gate regressed, what it could not judge. */
static void tally(json_t *doc)
{
	json_t *counts = json_object();

	for (int v = 0; v < RPT_VERDICT_COUNT; v++)
		json_object_set_new(counts, rpt_verdict_names[v],
				    json_integer((json_int_t)rpt_compare_count(doc, v, false)));
	json_object_set_new(doc, "verdicts", counts);
	json_object_set_new(doc, "regressed",
			    json_boolean(rpt_compare_count(doc, RPT_REGRESSION, true) > 0));
	json_object_set_new(doc, "unjudged",
			    json_integer((json_int_t)rpt_gate_count_blocking(doc)));
}

int rpt_compare_build(const char *const *side_names, int nsides, const struct mdl_run_ref *runs,
		      size_t nruns, const struct rpt_compare_opts *o, json_t **ret, char *err,
		      size_t errlen)
{
	struct samples s = { 0 };
	json_t *doc, *samples, *dropped = NULL;
	char when[64];
	time_t now = time(NULL);
	int e;

	if (nsides < 1 || !nruns) {
		snprintf(err, errlen, "nothing to compare: no runs");
		return -EPROTO;
	}
	e = across_check(runs, nruns, o->across, err, errlen);
	if (!e)
		e = rpt_samples_build(&s, runs, nruns, nsides, o->across);
	if (!e)
		e = unmatched(&s, runs, side_names, nsides, o, &dropped, err, errlen);
	if (e) {
		rpt_samples_free(&s);
		return e;
	}
	samples = json_array();
	for (size_t i = 0; i < s.n; i++) {
		json_t *sj;
		bool everywhere = true;

		for (int k = 0; k < nsides; k++)
			everywhere &= s.v[i].nruns[k] > 0;
		if (!everywhere)
			continue;
		e = sample_json(&s.v[i], runs, side_names, nsides, o, &sj);
		if (e) {
			rpt_samples_free(&s);
			json_decref(samples);
			json_decref(dropped);
			return e;
		}
		json_array_append_new(samples, sj);
	}
	rpt_samples_free(&s);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	doc = json_object();
	json_object_set_new(doc, MDL_KEY_SCHEMA, json_string(MDL_COMPARE_SCHEMA));
	json_object_set_new(doc, "tool", json_pack("{s:s}", "name", "fsbench"));
	json_object_set_new(doc, "created", json_string(when));
	json_object_set_new(doc, "settings", settings_json(o));
	json_object_set_new(doc, "sides", sides_json(runs, nruns, side_names, nsides));
	json_object_set_new(doc, "excluded", excluded_json(runs, nruns, side_names));
	json_object_set_new(doc, "unmatched", dropped);
	json_object_set_new(doc, "samples", samples);
	tally(doc);
	*ret = doc;
	return 0;
}
