/* The comparison document: samples' metrics, statistics per side and verdicts, as fsbench-compare/1. */
#include "report/compare_priv.h"
#include "report/context.h"
#include "model/result_file.h"

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

/* One metric of one sample: statistics per side, and each side judged against side 0. */
static int metric_json(const struct sample *sm, const struct rpt_run_ref *runs,
		       const char *const *side_names, int nsides, const struct rpt_metric_def *def,
		       const char *op, const char *name, const struct rpt_compare_opts *o,
		       json_t **ret)
{
	json_t *m = json_object(), *sides = json_array(), *cmps = json_array();
	double *vals[nsides];
	long long *reps[nsides];
	bool have_reps[nsides];
	size_t nv[nsides];
	struct rpt_rule rule = rpt_rule_for(o, name);
	int e = 0;

	for (int k = 0; k < nsides; k++) {
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
			double raw;

			if (rpt_run_complete(run) && rpt_metric_value(run, def, op, &raw)) {
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
		json_array_append_new(sides, stats_json(side_names[k], &st, vals[k],
							have_reps[k] ? reps[k] : NULL, nv[k]));
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
		e = rpt_judge(vals[0], nv[0], vals[k], nv[k], def->dir, def->kind, o->test, &rule,
			      &j);
		if (e)
			break;
		c = json_object();
		json_object_set_new(c, "side", json_string(side_names[k]));
		json_object_set_new(c, "baseline", json_string(side_names[0]));
		json_object_set_new(c, "change_pct", num_or_null(j.change_pct));
		json_object_set_new(c, "test",
				    j.tested ? json_string(rpt_test_name(j.test.kind)) :
					       json_null());
		json_object_set_new(c, "p", j.tested ? num_or_null(j.test.p) : json_null());
		json_object_set_new(c, "p_welch", num_or_null(j.p_welch));
		json_object_set_new(c, "p_rank", num_or_null(j.p_rank));
		json_object_set_new(c, "alpha", json_real(rule.alpha));
		json_object_set_new(c, "threshold_pct", json_real(rule.threshold_pct));
		json_object_set_new(c, "noise_cov_pct", json_real(rule.noise_cov_pct));
		json_object_set_new(c, "gate", json_boolean(rule.gate));
		json_object_set_new(c, "verdict", json_string(rpt_verdict_names[j.verdict]));
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
static bool sample_has(const struct sample *sm, const struct rpt_run_ref *runs, int nsides,
		       const struct rpt_metric_def *def, const char *op)
{
	bool any = false;

	for (int k = 0; k < nsides; k++)
		for (size_t i = 0; i < sm->nruns[k]; i++) {
			const json_t *run = runs[sm->runs[k][i]].run;

			if (!rpt_run_complete(run))
				continue;
			if (!rpt_metric_applies(run, def, op))
				return false;
			any = true;
		}
	return any;
}

static int sample_json(const struct sample *sm, const struct rpt_run_ref *runs,
		       const char *const *side_names, int nsides, const struct rpt_compare_opts *o,
		       json_t **ret)
{
	json_t *s = json_object(), *metrics = json_array(), *m, *ops;
	const json_t *coords = json_object_get(sm->first, "coords");
	int e;

	json_object_set_new(s, "label", json_string(sm->label));
	json_object_set(s, "workload", json_object_get(sm->first, "workload"));
	json_object_set(s, "threads", json_object_get(sm->first, "threads"));
	json_object_set(s, "key", sm->keyobj);
	if (json_is_object(coords)) {
		json_t *c = json_deep_copy(coords);

		json_object_del(c, "repetition");
		if (o->across)
			json_object_del(c, o->across);
		json_object_set_new(s, "coords", c);
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
	ops = json_object_get(sm->first, "ops");
	for (int rank = 0; rpt_op_name_at(rank); rank++) {
		const char *op = rpt_op_name_at(rank);

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

int rpt_compare_build(const char *const *side_names, int nsides, const struct rpt_run_ref *runs,
		      size_t nruns, const struct rpt_compare_opts *o, json_t **ret, char *err,
		      size_t errlen)
{
	struct samples s = { 0 };
	json_t *doc = NULL, *samples, *sides, *excluded, *dropped, *counts;
	char when[64];
	time_t now = time(NULL);
	int e;

	if (nsides < 1 || !nruns) {
		snprintf(err, errlen, "nothing to compare: no runs");
		return -EPROTO;
	}
	for (size_t i = 0; o->across && i < nruns; i++)
		if (!json_is_string(
			    json_object_get(json_object_get(runs[i].run, "coords"), o->across))) {
			snprintf(
				err, errlen,
				"%s: run %zu has no string coords.%s (--across needs suite results)",
				runs[i].file, runs[i].index, o->across);
			return -EPROTO;
		}
	e = rpt_samples_build(&s, runs, nruns, nsides, o->across);
	if (e) {
		rpt_samples_free(&s);
		return e;
	}
	dropped = json_array();
	for (size_t i = 0; i < s.n; i++)
		for (int k = 0; k < nsides; k++) {
			struct sample *sm = &s.v[i];
			const struct rpt_run_ref *r = NULL;
			const struct sample *near;
			char *diff;

			if (sm->nruns[k])
				continue;
			for (int j = 0; j < nsides; j++)
				if (sm->nruns[j]) {
					r = &runs[sm->runs[j][0]];
					break;
				}
			if (o->allow_unmatched) {
				json_array_append_new(dropped,
						      json_pack("{s:s,s:s,s:I,s:s}", "label",
								sm->label, "file", r->file, "run",
								(json_int_t)r->index, "missing_on",
								side_names[k]));
				continue;
			}
			near = rpt_sample_nearest(&s, sm, k);
			diff = strdup("");
			if (near && diff)
				rpt_label_append_diff(&diff, sm->keyobj, near->keyobj, true);
			snprintf(
				err, errlen,
				"%s: run %zu (%s) has no match on side '%s': no run there has the same %s%s%s",
				r->file, r->index, sm->label, side_names[k],
				json_object_get(r->run, "coords") ?
					"coordinates" :
					"workload, threads and parameters",
				diff && *diff ? "; nearest differs in " : "", diff ? diff : "");
			free(diff);
			json_decref(dropped);
			rpt_samples_free(&s);
			return -EPROTO;
		}

	doc = json_object();
	samples = json_array();
	sides = json_array();
	excluded = json_array();
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
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
	for (size_t i = 0; i < nruns; i++) {
		const json_t *sum = json_object_get(runs[i].run, "summary");

		if (rpt_run_complete(runs[i].run))
			continue;
		json_array_append_new(
			excluded, json_pack("{s:s,s:I,s:s,s:s}", "file", runs[i].file, "run",
					    (json_int_t)runs[i].index, "side",
					    side_names[runs[i].side], "reason",
					    str_or(json_string_value(json_object_get(sum, "error")),
						   "incomplete")));
	}
	for (size_t i = 0; i < s.n; i++) {
		json_t *sj;
		bool everywhere = true;

		for (int k = 0; k < nsides; k++)
			everywhere &= s.v[i].nruns[k] > 0;
		if (!everywhere)
			continue;
		e = sample_json(&s.v[i], runs, side_names, nsides, o, &sj);
		if (e)
			goto fail;
		json_array_append_new(samples, sj);
	}
	json_object_set_new(doc, "schema", json_string(RPT_COMPARE_SCHEMA));
	json_object_set_new(doc, "tool", json_pack("{s:s}", "name", "fsbench"));
	json_object_set_new(doc, "created", json_string(when));
	json_object_set_new(doc, "settings",
			    json_pack("{s:f,s:f,s:f,s:s,s:s?,s:O?}", "alpha", o->alpha,
				      "threshold_pct", o->threshold_pct, "noise_cov_pct",
				      o->noise_cov_pct, "test",
				      o->test == RPT_TEST_AUTO	     ? "auto" :
				      o->test == RPT_TEST_ONLY_WELCH ? "welch" :
								       "mann-whitney",
				      "across", o->across, "gate", o->gate));
	json_object_set_new(json_object_get(doc, "settings"), "strict",
			    json_boolean(o->strict ||
					 json_is_true(json_object_get(o->gate, "strict"))));
	json_object_set_new(json_object_get(doc, "settings"), "allow_noisy",
			    json_boolean(o->allow_noisy ||
					 json_is_true(json_object_get(o->gate, "allow_noisy"))));
	json_object_set_new(doc, "sides", sides);
	json_object_set_new(doc, "excluded", excluded);
	json_object_set_new(doc, "unmatched", dropped);
	json_object_set_new(doc, "samples", samples);
	counts = json_object();
	for (int v = 0; v < RPT_VERDICT_COUNT; v++)
		json_object_set_new(counts, rpt_verdict_names[v],
				    json_integer((json_int_t)rpt_compare_count(doc, v, false)));
	json_object_set_new(doc, "verdicts", counts);
	json_object_set_new(doc, "regressed",
			    json_boolean(rpt_compare_count(doc, RPT_REGRESSION, true) > 0));
	json_object_set_new(doc, "unjudged",
			    json_integer((json_int_t)rpt_gate_count_blocking(doc)));
	rpt_samples_free(&s);
	*ret = doc;
	return 0;
fail:
	rpt_samples_free(&s);
	json_decref(doc);
	json_decref(samples);
	json_decref(sides);
	json_decref(excluded);
	json_decref(dropped);
	return e;
}

/* Whether every element of @a is an object whose @key (if given) is a string. */
static bool objects_named(const json_t *a, const char *key)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i,
			   e) if (!json_is_object(e) ||
				  (key && !json_is_string(json_object_get(e, key)))) return false;
	return true;
}

/*
 * What the printers and exporters index without checking again: a compare document comes
 * from a file anyone may have written, so its shape is checked once, here.
 */
static const char *compare_shape(const json_t *cmp, size_t *ret_sample)
{
	const json_t *sample, *m;
	size_t i, j;

	if (!objects_named(json_object_get(cmp, "sides"), "name") ||
	    !json_array_size(json_object_get(cmp, "sides")))
		return "no sides[] of named objects";
	if (!objects_named(json_object_get(cmp, "samples"), "label"))
		return "no samples[] of labelled objects";
	json_array_foreach(json_object_get(cmp, "samples"), i, sample)
	{
		*ret_sample = i;
		if (!objects_named(json_object_get(sample, "metrics"), "name"))
			return "a sample without metrics[] of named objects";
		json_array_foreach(json_object_get(sample, "metrics"), j, m)
		{
			if (!json_is_string(json_object_get(m, "unit")) ||
			    !json_is_string(json_object_get(m, "direction")))
				return "a metric without a unit or direction";
			if (!objects_named(json_object_get(m, "sides"), "side") ||
			    !objects_named(json_object_get(m, "comparisons"), NULL))
				return "a metric without sides[] and comparisons[] of objects";
		}
	}
	return NULL;
}

int rpt_compare_load(const char *path, json_t **ret, char *err, size_t errlen)
{
	int r = rpt_json_load(path, RPT_COMPARE_SCHEMA, ret, err, errlen);
	size_t sample = 0;
	const char *bad;

	if (r)
		return r;
	bad = compare_shape(*ret, &sample);
	if (bad) {
		snprintf(err, errlen, "%s: %s (sample %zu): not a usable comparison", path, bad,
			 sample);
		json_decref(*ret);
		*ret = NULL;
		return -EPROTO;
	}
	return 0;
}
