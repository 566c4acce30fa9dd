/* The typed comparison as fsbench-compare/1: written once from the structs, and read back. */
#include "report/cmp.h"
#include "model/doc.h"
#include "model/schema.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *const test_choice_names[] = {
	[RPT_TEST_AUTO] = "auto",
	[RPT_TEST_ONLY_WELCH] = "welch",
	[RPT_TEST_ONLY_RANK] = "mann-whitney",
};

static const char *const kind_names[] = {
	[RPT_KIND_THROUGHPUT] = "throughput",
	[RPT_KIND_LATENCY] = "latency",
	[RPT_KIND_KERNEL] = "kernel",
};

static json_t *side_json(const char *name, const struct rpt_cmp_side *sd)
{
	json_t *o = json_object(), *vals = json_array(), *rv = sd->reps ? json_array() : NULL;
	const struct rpt_stats *st = &sd->st;

	for (size_t i = 0; i < sd->n; i++) {
		json_array_append_new(vals, json_real(sd->values[i]));
		if (rv)
			json_array_append_new(rv, json_integer(sd->reps[i]));
	}
	if (rv)
		json_object_set_new(o, "repetitions", rv);
	json_object_set_new(o, "side", json_string(name));
	json_object_set_new(o, "n", json_integer((json_int_t)sd->n));
	json_object_set_new(o, "values", vals);
	if (sd->n) {
		json_object_set_new(o, "mean", json_real(st->mean));
		json_object_set_new(o, "median", json_real(st->median));
		json_object_set_new(o, "min", json_real(st->min));
		json_object_set_new(o, "max", json_real(st->max));
		json_object_set_new(o, "stddev", json_real(st->stddev));
		json_object_set_new(o, "cov_pct", json_real(st->cov * 100));
		json_object_set_new(o, "ci95", json_pack("[f,f]", st->ci_lo, st->ci_hi));
	}
	if (isfinite(sd->calls_min))
		json_object_set_new(o, "calls_min", json_real(sd->calls_min));
	if (sd->exact)
		json_object_set_new(o, "exact", json_true());
	return o;
}

static json_t *cond_side_json(const struct rpt_cmp_cond_side *s)
{
	json_t *o = json_object();

	if (s->load) {
		json_object_set_new(o, "others_pct", json_real(s->others_pct));
		json_object_set_new(o, "steal_pct", json_real(s->steal_pct));
	}
	if (s->wait)
		json_object_set_new(o, "self_wait_pct", json_real(s->self_wait_pct));
	if (s->canary)
		json_object_set_new(o, "canary_p50_us", json_real(s->canary_p50_us));
	return o;
}

/* conditions: why the host rule left it unjudged (report/hostload_rule.h), and host_note. */
static void host_json(json_t *o, const struct rpt_cmp_judged *j)
{
	const struct rpt_cmp_conditions *cd = j->conditions;

	if (cd)
		json_object_set_new(o, "conditions",
				    json_pack("{s:s,s:s,s:o,s:o}", "reason", cd->reason,
					      "verdict_if_judged",
					      rpt_verdict_names[cd->verdict_if_judged], "baseline",
					      cond_side_json(&cd->baseline), "side",
					      cond_side_json(&cd->side)));
	if (j->host_note)
		json_object_set_new(o, "host_note", json_string(j->host_note));
}

static json_t *judged_json(const struct rpt_cmp *c, const struct rpt_cmp_judged *j)
{
	json_t *o = json_object();

	json_object_set_new(o, "side", json_string(c->side_names[j->side]));
	json_object_set_new(o, "baseline", json_string(c->side_names[0]));
	json_object_set_new(o, "verdict", json_string(rpt_verdict_names[j->verdict]));
	json_object_set_new(o, "gate", json_boolean(j->rule.gate));
	if (j->reason)
		json_object_set_new(o, "reason", json_string(j->reason));
	host_json(o, j);
	if (!j->stats)
		return o;
	json_object_set_new(o, "change_pct", num_or_null(j->change_pct));
	json_object_set_new(o, "test",
			    j->tested ? json_string(rpt_test_name(j->test)) : json_null());
	json_object_set_new(o, "p", j->tested ? num_or_null(j->p) : json_null());
	json_object_set_new(o, "p_welch", num_or_null(j->p_welch));
	json_object_set_new(o, "p_rank", num_or_null(j->p_rank));
	if (isfinite(j->q))
		json_object_set_new(o, "q", json_real(j->q));
	json_object_set_new(o, "spread_pct", num_or_null(j->spread_pct));
	json_object_set_new(o, "alpha", num_or_null(j->rule.alpha));
	json_object_set_new(o, "threshold_pct", num_or_null(j->rule.threshold_pct));
	json_object_set_new(o, "noise_cov_pct", num_or_null(j->rule.noise_cov_pct));
	if (j->why)
		json_object_set(o, "why", j->why);
	if (j->not_gated)
		json_object_set_new(o, "not_gated", json_string(j->not_gated));
	if (isfinite(j->resolution_pct))
		json_object_set_new(o, "resolution_pct", json_real(j->resolution_pct));
	if (isfinite(j->floor_pct))
		json_object_set_new(o, "floor_pct", json_real(j->floor_pct));
	if (isfinite(j->bar_pct))
		json_object_set_new(o, "bar_pct", json_real(j->bar_pct));
	return o;
}

static json_t *metric_json(const struct rpt_cmp *c, const struct rpt_cmp_metric *m)
{
	json_t *o = json_object(), *sides = json_array(), *cmps = json_array();

	for (int k = 0; k < c->nsides; k++)
		json_array_append_new(sides, side_json(c->side_names[k], &m->sides[k]));
	for (int k = 0; k + 1 < c->nsides; k++)
		json_array_append_new(cmps, judged_json(c, &m->judged[k]));
	json_object_set_new(o, "name", json_string(m->name));
	json_object_set_new(o, "unit", json_string(m->unit));
	json_object_set_new(o, "direction",
			    json_string(m->dir == RPT_HIGHER_IS_BETTER ? "higher" : "lower"));
	json_object_set_new(o, "kind", json_string(kind_names[m->kind]));
	json_object_set_new(o, "sides", sides);
	json_object_set_new(o, "comparisons", cmps);
	return o;
}

static json_t *sample_json(const struct rpt_cmp *c, const struct rpt_cmp_sample *s)
{
	json_t *o = json_object(), *metrics = json_array();

	json_object_set_new(o, "label", json_string(s->label));
	json_object_set(o, MDL_KEY_WORKLOAD, s->workload);
	json_object_set(o, MDL_KEY_THREADS, s->threads);
	json_object_set(o, "key", s->key);
	if (s->coords)
		json_object_set(o, MDL_KEY_COORDS, s->coords);
	for (size_t i = 0; i < s->nmetrics; i++)
		json_array_append_new(metrics, metric_json(c, &s->metrics[i]));
	json_object_set_new(o, "metrics", metrics);
	if (s->ninstr) {
		json_t *in = json_array();

		for (size_t i = 0; i < s->ninstr; i++)
			json_array_append_new(in, json_pack("{s:s,s:s}", "side",
							    c->side_names[s->instr[i].side],
							    "differs", s->instr[i].differs));
		json_object_set_new(o, "instrumentation", in);
	}
	if (s->context)
		json_object_set(o, "context", s->context);
	return o;
}

static json_t *settings_json(const struct rpt_cmp_settings *set)
{
	json_t *o = json_pack("{s:s,s:s?,s:O?}", "test", test_choice_names[set->test], "across",
			      set->across, "gate", set->gate);

	/* a document read back may lack them: null, not a hole in the settings */
	json_object_set_new(o, "alpha", num_or_null(set->alpha));
	json_object_set_new(o, "threshold_pct", num_or_null(set->threshold_pct));
	json_object_set_new(o, "noise_cov_pct", num_or_null(set->noise_cov_pct));
	json_object_set_new(o, "strict", json_boolean(set->strict));
	json_object_set_new(o, "allow_noisy", json_boolean(set->allow_noisy));
	json_object_set_new(o, "allow_unproven", json_boolean(set->allow_unproven));
	if (set->family)
		json_object_set_new(o, "family", json_integer((json_int_t)set->family));
	if (set->family_other)
		json_object_set_new(o, "family_other", json_integer((json_int_t)set->family_other));
	json_object_set_new(o, "max_host_load_pct", json_real(set->max_host_load_pct));
	if (set->decide == RPT_DECIDE_TEST)
		json_object_set_new(o, "correction", json_string("benjamini-hochberg"));
	if (set->decide == RPT_DECIDE_FLOOR) {
		json_object_set_new(o, "decision", json_string("aa_floor"));
		json_object_set_new(o, "floor_multiple", json_real(set->floor_multiple));
	}
	return o;
}

/* excluded[] ({file, run, side, reason}) or, @unmatched, unmatched[] ({label, file, run, missing_on}). */
static json_t *notes_json(const struct rpt_cmp *c, const struct rpt_cmp_run_note *v, size_t n,
			  bool unmatched)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:I,s:s,s:s}", "file", v[i].file, "run",
						   (json_int_t)v[i].run,
						   unmatched ? "missing_on" : "side",
						   c->side_names[v[i].side],
						   unmatched ? "label" : "reason", v[i].what));
	return a;
}

json_t *rpt_cmp_to_json(const struct rpt_cmp *c)
{
	json_t *doc = json_object(), *sides = json_array(), *samples = json_array(),
	       *counts = json_object();

	for (int k = 0; k < c->nsides; k++)
		json_array_append_new(sides, json_pack("{s:s,s:O}", "name", c->side_names[k],
						       "files", c->side_files[k]));
	for (size_t i = 0; i < c->nsamples; i++)
		json_array_append_new(samples, sample_json(c, &c->samples[i]));
	for (int v = 0; v < RPT_VERDICT_COUNT; v++)
		json_object_set_new(counts, rpt_verdict_names[v],
				    json_integer((json_int_t)rpt_cmp_count(c, v, false)));
	json_object_set_new(doc, MDL_KEY_SCHEMA, json_string(MDL_COMPARE_SCHEMA));
	json_object_set_new(doc, "tool", json_pack("{s:s}", "name", "fsbench"));
	json_object_set_new(doc, "created", json_string(c->created));
	json_object_set_new(doc, "settings", settings_json(&c->set));
	json_object_set_new(doc, "sides", sides);
	json_object_set_new(doc, "excluded", notes_json(c, c->excluded, c->nexcluded, false));
	json_object_set_new(doc, "unmatched", notes_json(c, c->unmatched, c->nunmatched, true));
	json_object_set_new(doc, "samples", samples);
	json_object_set_new(doc, "verdicts", counts);
	json_object_set_new(doc, "regressed",
			    json_boolean(!c->cannot_judge &&
					 rpt_cmp_count(c, RPT_REGRESSION, true) > 0));
	json_object_set_new(doc, "unjudged", json_integer((json_int_t)rpt_cmp_count_blocking(c)));
	if (c->cannot_judge)
		json_object_set_new(doc, "cannot_judge",
				    json_pack("{s:s}", "reason", c->cannot_judge_reason));
	return doc;
}

/* ---- reading back ---- */

struct parse {
	const char *path;
	char *err;
	size_t errlen;
	const struct rpt_cmp *c;
};

static int bad(struct parse *p, const char *what, size_t sample)
{
	snprintf(p->err, p->errlen, "%s: %s (sample %zu): not a usable comparison", p->path, what,
		 sample);
	return -EPROTO;
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static char *str_dup(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? strdup(s) : NULL;
}

static int side_index(const struct rpt_cmp *c, const char *name)
{
	for (int k = 0; name && k < c->nsides; k++)
		if (!strcmp(c->side_names[k], name))
			return k;
	return -1;
}

static int side_parse(const json_t *o, struct rpt_cmp_side *sd)
{
	const json_t *vals = json_object_get(o, "values"),
		     *reps = json_object_get(o, "repetitions"), *ci = json_object_get(o, "ci95");
	size_t n = json_array_size(vals);

	sd->calls_min = num(o, "calls_min");
	sd->exact = json_is_true(json_object_get(o, "exact"));
	sd->n = n;
	sd->values = calloc(n + 1, sizeof(double));
	if (!sd->values)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		sd->values[i] = json_number_value(json_array_get(vals, i));
	if (json_is_array(reps) && json_array_size(reps) == n) {
		sd->reps = calloc(n + 1, sizeof(long long));
		if (!sd->reps)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			sd->reps[i] = json_integer_value(json_array_get(reps, i));
	}
	sd->st = (struct rpt_stats){ .n = n,
				     .mean = num(o, "mean"),
				     .median = num(o, "median"),
				     .min = num(o, "min"),
				     .max = num(o, "max"),
				     .stddev = num(o, "stddev"),
				     .cov = num(o, "cov_pct") / 100,
				     .ci_lo = json_number_value(json_array_get(ci, 0)),
				     .ci_hi = json_number_value(json_array_get(ci, 1)) };
	return 0;
}

static void cond_side_parse(const json_t *o, struct rpt_cmp_cond_side *s)
{
	*s = (struct rpt_cmp_cond_side){
		.load = json_is_number(json_object_get(o, "others_pct")),
		.wait = json_is_number(json_object_get(o, "self_wait_pct")),
		.canary = json_is_number(json_object_get(o, "canary_p50_us")),
		.others_pct = num(o, "others_pct"),
		.steal_pct = json_is_number(json_object_get(o, "steal_pct")) ? num(o, "steal_pct") :
									       0,
		.self_wait_pct = num(o, "self_wait_pct"),
		.canary_p50_us = num(o, "canary_p50_us"),
	};
}

/* conditions and host_note read back: 0, -ENOMEM, or -EPROTO for an unknown verdict_if_judged. */
static int host_parse(const json_t *o, struct rpt_cmp_judged *j)
{
	const json_t *cd = json_object_get(o, "conditions");
	const char *v = mdl_json_str(cd, "verdict_if_judged", "");

	if (json_object_get(o, "host_note") && !(j->host_note = str_dup(o, "host_note")))
		return -ENOMEM;
	if (!json_is_object(cd))
		return 0;
	j->conditions = calloc(1, sizeof(*j->conditions));
	if (!j->conditions)
		return -ENOMEM;
	j->conditions->verdict_if_judged = RPT_VERDICT_COUNT;
	for (int k = 0; k < RPT_VERDICT_COUNT; k++)
		if (!strcmp(v, rpt_verdict_names[k]))
			j->conditions->verdict_if_judged = k;
	cond_side_parse(json_object_get(cd, "baseline"), &j->conditions->baseline);
	cond_side_parse(json_object_get(cd, "side"), &j->conditions->side);
	j->conditions->reason = str_dup(cd, "reason");
	if (!j->conditions->reason)
		return json_is_string(json_object_get(cd, "reason")) ? -ENOMEM : -EPROTO;
	return j->conditions->verdict_if_judged == RPT_VERDICT_COUNT ? -EPROTO : 0;
}

static int judged_parse(struct parse *p, const json_t *o, struct rpt_cmp_judged *j)
{
	const char *v = json_string_value(json_object_get(o, "verdict")),
		   *test = json_string_value(json_object_get(o, "test"));
	int e;

	*j = (struct rpt_cmp_judged){ .side = side_index(p->c, mdl_json_str(o, "side", NULL)),
				      .change_pct = num(o, "change_pct"),
				      .p = num(o, "p"),
				      .p_welch = num(o, "p_welch"),
				      .p_rank = num(o, "p_rank"),
				      .q = num(o, "q"),
				      .spread_pct = num(o, "spread_pct"),
				      .floor_pct = num(o, "floor_pct"),
				      .bar_pct = num(o, "bar_pct"),
				      .resolution_pct = num(o, "resolution_pct"),
				      .rule = { .alpha = num(o, "alpha"),
						.threshold_pct = num(o, "threshold_pct"),
						.noise_cov_pct = num(o, "noise_cov_pct"),
						.gate = !json_is_false(
							json_object_get(o, "gate")) } };
	if (j->side < 1)
		return -EPROTO;
	j->verdict = RPT_VERDICT_COUNT;
	for (int k = 0; v && k < RPT_VERDICT_COUNT; k++)
		if (!strcmp(v, rpt_verdict_names[k]))
			j->verdict = k;
	if (j->verdict == RPT_VERDICT_COUNT)
		return -EPROTO;
	j->stats = json_object_get(o, "change_pct") != NULL;
	j->tested = test != NULL;
	j->test = test && !strcmp(test, rpt_test_name(RPT_TEST_MANN_WHITNEY)) ?
			  RPT_TEST_MANN_WHITNEY :
			  RPT_TEST_WELCH;
	j->reason = str_dup(o, "reason");
	j->not_gated = str_dup(o, "not_gated");
	j->cannot_judge = j->reason != NULL;
	e = host_parse(o, j);
	if (e)
		return e;
	if (json_is_object(json_object_get(o, "why")))
		j->why = json_incref(json_object_get(o, "why"));
	return 0;
}

static int metric_parse(struct parse *p, const json_t *o, struct rpt_cmp_metric *m)
{
	const json_t *sides = json_object_get(o, "sides"),
		     *cmps = json_object_get(o, "comparisons");
	const char *kind = mdl_json_str(o, "kind", "");
	int nsides = p->c->nsides, e;

	m->name = str_dup(o, "name");
	m->unit = str_dup(o, "unit");
	m->dir = !strcmp(mdl_json_str(o, "direction", ""), "higher") ? RPT_HIGHER_IS_BETTER :
								       RPT_LOWER_IS_BETTER;
	m->kind = !strcmp(kind, "latency") ? RPT_KIND_LATENCY :
		  !strcmp(kind, "kernel")  ? RPT_KIND_KERNEL :
					     RPT_KIND_THROUGHPUT;
	m->sides = calloc((size_t)nsides, sizeof(*m->sides));
	m->judged = calloc((size_t)nsides, sizeof(*m->judged));
	if (!m->name || !m->unit || !m->sides || !m->judged)
		return -ENOMEM;
	if (json_array_size(sides) != (size_t)nsides || json_array_size(cmps) != (size_t)nsides - 1)
		return -EPROTO;
	for (int k = 0; k < nsides; k++) {
		e = side_parse(json_array_get(sides, (size_t)k), &m->sides[k]);
		if (e)
			return e;
	}
	for (int k = 0; k + 1 < nsides; k++) {
		e = judged_parse(p, json_array_get(cmps, (size_t)k), &m->judged[k]);
		if (e)
			return e;
	}
	return 0;
}

static int sample_parse(struct parse *p, const json_t *o, struct rpt_cmp_sample *s)
{
	const json_t *metrics = json_object_get(o, "metrics"),
		     *in = json_object_get(o, "instrumentation"), *x;
	size_t i;
	int e;

	s->label = str_dup(o, "label");
	s->workload = json_incref(json_object_get(o, MDL_KEY_WORKLOAD));
	s->threads = json_incref(json_object_get(o, MDL_KEY_THREADS));
	s->key = json_incref(json_object_get(o, "key"));
	s->coords = json_incref(json_object_get(o, MDL_KEY_COORDS));
	s->context = json_incref(json_object_get(o, "context"));
	s->metrics = calloc(json_array_size(metrics) + 1, sizeof(*s->metrics));
	s->instr = calloc(json_array_size(in) + 1, sizeof(*s->instr));
	if (!s->label || !s->metrics || !s->instr)
		return -ENOMEM;
	json_array_foreach(metrics, i, x)
	{
		s->nmetrics = i + 1;
		e = metric_parse(p, x, &s->metrics[i]);
		if (e)
			return e;
	}
	json_array_foreach(in, i, x)
	{
		s->instr[i].side = side_index(p->c, mdl_json_str(x, "side", NULL));
		s->instr[i].differs = str_dup(x, "differs");
		s->ninstr = i + 1;
		if (s->instr[i].side < 1 || !s->instr[i].differs)
			return -EPROTO;
	}
	return 0;
}

static int settings_parse(const json_t *o, struct rpt_cmp_settings *set)
{
	const char *test = mdl_json_str(o, "test", "auto");

	set->alpha = num(o, "alpha");
	set->threshold_pct = num(o, "threshold_pct");
	set->noise_cov_pct = num(o, "noise_cov_pct");
	set->test = !strcmp(test, "welch")	  ? RPT_TEST_ONLY_WELCH :
		    !strcmp(test, "mann-whitney") ? RPT_TEST_ONLY_RANK :
						    RPT_TEST_AUTO;
	set->across = str_dup(o, "across");
	set->gate = json_incref(json_object_get(o, "gate"));
	set->strict = json_is_true(json_object_get(o, "strict"));
	set->allow_noisy = json_is_true(json_object_get(o, "allow_noisy"));
	set->allow_unproven = json_is_true(json_object_get(o, "allow_unproven"));
	set->family =
		(size_t)(json_is_integer(json_object_get(o, "family")) &&
					 json_integer_value(json_object_get(o, "family")) > 0 ?
				 json_integer_value(json_object_get(o, "family")) :
				 0);
	set->family_other =
		(size_t)(json_integer_value(json_object_get(o, "family_other")) > 0 ?
				 json_integer_value(json_object_get(o, "family_other")) :
				 0);
	set->decide = !strcmp(mdl_json_str(o, "decision", ""), "aa_floor") ? RPT_DECIDE_FLOOR :
									     RPT_DECIDE_TEST;
	set->floor_multiple = num(o, "floor_multiple");
	set->max_host_load_pct = json_is_number(json_object_get(o, "max_host_load_pct")) ?
					 num(o, "max_host_load_pct") :
					 0;
	return json_is_string(json_object_get(o, "across")) && !set->across ? -ENOMEM : 0;
}

static int sides_parse(const json_t *doc, struct rpt_cmp *c)
{
	const json_t *sides = json_object_get(doc, "sides"), *x;
	size_t k;

	c->nsides = (int)json_array_size(sides);
	c->side_names = calloc((size_t)c->nsides + 1, sizeof(char *));
	c->side_files = calloc((size_t)c->nsides + 1, sizeof(json_t *));
	if (!c->side_names || !c->side_files) {
		c->nsides = 0;
		return -ENOMEM;
	}
	json_array_foreach(sides, k, x)
	{
		const json_t *files = json_object_get(x, "files");

		c->side_names[k] = str_dup(x, "name");
		c->side_files[k] = json_is_array(files) ? json_incref((json_t *)files) :
							  json_array();
		if (!c->side_names[k])
			return -ENOMEM;
	}
	return 0;
}

/* excluded[] or, @unmatched, unmatched[] read back: every entry's strings and side. */
static int notes_parse(struct rpt_cmp *c, const json_t *list, bool unmatched)
{
	const json_t *x;
	size_t i;

	json_array_foreach(list, i, x)
	{
		const char *file = mdl_json_str(x, "file", NULL),
			   *what = mdl_json_str(x, unmatched ? "label" : "reason", NULL);
		int side = side_index(c, mdl_json_str(x, unmatched ? "missing_on" : "side", NULL));
		int e;

		if (!file || !what || side < 0)
			return -EPROTO;
		e = rpt_cmp_note_add(unmatched ? &c->unmatched : &c->excluded,
				     unmatched ? &c->nunmatched : &c->nexcluded, file,
				     json_integer_value(json_object_get(x, "run")), side, what);
		if (e)
			return e;
	}
	return 0;
}

int rpt_cmp_from_json(const json_t *doc, const char *path, struct rpt_cmp **ret, char *err,
		      size_t errlen)
{
	struct rpt_cmp *c = calloc(1, sizeof(*c));
	const json_t *samples = json_object_get(doc, "samples"),
		     *cj = json_object_get(doc, "cannot_judge");
	struct parse p = { .path = path, .err = err, .errlen = errlen, .c = c };
	size_t i = 0;
	const json_t *s;
	int e;

	if (!c)
		return -ENOMEM;
	e = mdl_compare_check(doc, path, err, errlen);
	if (!e)
		e = sides_parse(doc, c);
	if (!e)
		e = settings_parse(json_object_get(doc, "settings"), &c->set);
	c->created = str_dup(doc, "created");
	if (!e)
		e = notes_parse(c, json_object_get(doc, "excluded"), false);
	if (!e)
		e = notes_parse(c, json_object_get(doc, "unmatched"), true);
	if (cj)
		c->cannot_judge_reason = str_dup(cj, "reason");
	c->cannot_judge = c->cannot_judge_reason != NULL;
	c->samples = calloc(json_array_size(samples) + 1, sizeof(*c->samples));
	if (!e && !c->samples)
		e = -ENOMEM;
	if (!e)
		json_array_foreach(samples, i, s)
		{
			c->nsamples = i + 1;
			e = sample_parse(&p, s, &c->samples[i]);
			if (e)
				break;
		}
	if (e) {
		if (e == -ENOMEM)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		else if (e == -EPROTO && c->nsides)
			bad(&p, "a side, verdict or statistic that does not fit its sides[]", i);
		rpt_cmp_free(c);
		return e;
	}
	*ret = c;
	return 0;
}
