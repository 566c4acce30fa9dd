/* The comparison document: samples' metrics, statistics per side and verdicts, as fsbench-compare/1. */
#include "report/compare.h"
#include "report/cmp.h"
#include "report/context.h"
#include "report/gate.h"
#include "report/hostload_rule.h"
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

/* What the judge needs beside the runs: their samples' sides and the options. */
struct judge_ctx {
	const struct mdl_run_ref *runs;
	const char *const *side_names;
	int nsides;
	const struct rpt_compare_opts *o;
};

/* Side @k's judgement against side 0, with why it moved. */
static void judged_fill(const struct judge_ctx *x, const struct sample *sm, int k, const char *op,
			const char *name, const struct rpt_judgement *j, struct rpt_cmp_judged *c)
{
	c->stats = true;
	c->change_pct = j->change_pct;
	c->tested = j->tested;
	c->test = j->test.kind;
	c->p = j->tested ? j->test.p : NAN;
	c->p_welch = j->p_welch;
	c->p_rank = j->p_rank;
	c->spread_pct = j->spread_pct;
	c->verdict = j->verdict;
	/*
	 * Why it moved, from the probes: for what changed, and for what moved past the
	 * threshold without enough samples to be judged (explain's two single runs).
	 */
	if (j->verdict == RPT_REGRESSION || j->verdict == RPT_IMPROVEMENT ||
	    (isfinite(j->change_pct) && fabs(j->change_pct) > c->rule.threshold_pct))
		c->why = rpt_why_build(x->runs, sm->runs[0], sm->nruns[0], sm->runs[k],
				       sm->nruns[k], op, name, j->change_pct);
}

/* Side @k's values of metric @def: from every complete run that has it. */
static int side_fill(const struct judge_ctx *x, const struct sample *sm, int k,
		     const struct rpt_metric_def *def, const char *op, struct rpt_cmp_side *sd)
{
	bool have_reps = true, exact = def->kind == RPT_KIND_LATENCY;

	sd->calls_min = INFINITY;
	sd->values = calloc(sm->nruns[k] + 1, sizeof(double));
	sd->reps = calloc(sm->nruns[k] + 1, sizeof(long long));
	if (!sd->values || !sd->reps)
		return -ENOMEM;
	for (size_t i = 0; i < sm->nruns[k]; i++) {
		const json_t *run = x->runs[sm->runs[k][i]].run;
		const json_t *rep = json_object_get(json_object_get(run, "coords"), "repetition");
		double raw, cnt;

		if (!mdl_run_complete(run) || !rpt_metric_value(run, def, op, &raw))
			continue;
		/* the fewest calls behind a run's percentile: the floor's few_tail_calls */
		if (rpt_metric_count(run, def, op, &cnt))
			sd->calls_min = fmin(sd->calls_min, cnt);
		exact &= rpt_metric_exact(run, def, op);
		/* which repetition of its boot or invocation: rpt_floor_pct pairs them */
		have_reps &= json_is_integer(rep);
		sd->reps[sd->n] = json_integer_value(rep);
		sd->values[sd->n++] = raw * def->scale;
	}
	if (!isfinite(sd->calls_min))
		sd->calls_min = NAN;
	sd->exact = exact && sd->n;
	if (!have_reps) {
		free(sd->reps);
		sd->reps = NULL;
	}
	if (sd->n)
		rpt_stats_compute(sd->values, sd->n, &sd->st);
	return 0;
}

/* One metric of one sample: statistics per side, and each side judged against side 0. */
static int metric_fill(const struct judge_ctx *x, const struct sample *sm,
		       const struct rpt_metric_def *def, const char *op, const char *name,
		       struct rpt_cmp_metric *m)
{
	const struct rpt_compare_opts *o = x->o;
	/*
	 * The seeds' figures (rpt_metric_headline) gate; every other metric, a host-wide
	 * figure (the neighbours' writes are in it) among them, is reported, and gates only
	 * when a gate file names it (rpt_rule_for).
	 */
	const struct rpt_rule cli = { .alpha = o->alpha,
				      .threshold_pct = o->threshold_pct,
				      .noise_cov_pct = o->noise_cov_pct,
				      .gate = !def->host_wide && rpt_metric_headline(name) };
	struct rpt_rule rule = rpt_rule_for(o->gate, &cli, name);
	char why_src[512];
	int e = 0;

	m->name = strdup(name);
	m->unit = strdup(def->unit);
	m->dir = def->dir;
	m->kind = def->kind;
	m->sides = calloc((size_t)x->nsides, sizeof(*m->sides));
	m->judged = calloc((size_t)x->nsides, sizeof(*m->judged));
	if (!m->name || !m->unit || !m->sides || !m->judged)
		return -ENOMEM;
	for (int k = 0; !e && k < x->nsides; k++)
		e = side_fill(x, sm, k, def, op, &m->sides[k]);
	for (int k = 1; !e && k < x->nsides; k++) {
		struct rpt_cmp_judged *c = &m->judged[k - 1];
		struct rpt_judgement j;

		*c = (struct rpt_cmp_judged){ .side = k,
					      .verdict = RPT_INSUFFICIENT,
					      .rule = rule,
					      .change_pct = NAN,
					      .p = NAN,
					      .p_welch = NAN,
					      .p_rank = NAN,
					      .q = NAN,
					      .spread_pct = NAN,
					      .floor_pct = NAN,
					      .bar_pct = NAN,
					      .resolution_pct = NAN };
		if (!m->sides[0].n || !m->sides[k].n)
			continue;
		/*
		 * Per-call latencies of sides that ran different probes differ partly by what
		 * the probes cost: not judged, and the sources named (issue 21, item 2).
		 */
		if (def->kind == RPT_KIND_LATENCY &&
		    instrumentation_differs(sm, x->runs, x->side_names, k, why_src,
					    sizeof(why_src))) {
			char reason[600];

			snprintf(reason, sizeof(reason), "cannot judge: %s", why_src);
			e = rpt_cmp_judged_cannot_judge(c, reason);
			continue;
		}
		e = rpt_judge(m->sides[0].values, m->sides[0].n, m->sides[k].values, m->sides[k].n,
			      def->dir, def->kind, o->test, &rule, &j);
		if (!e)
			judged_fill(x, sm, k, op, name, &j, c);
		/*
		 * Before the many-metrics correction and the floor: a comparison whose sides ran
		 * under unequal conditions is cannot judge, and out of the family.
		 */
		if (!e)
			e = rpt_hostload_judge(c, x->runs, sm->runs[0], sm->nruns[0], sm->runs[k],
					       sm->nruns[k], x->side_names[0], x->side_names[k],
					       def->kind, def->dir == RPT_HIGHER_IS_BETTER,
					       o->max_host_load_pct);
	}
	return e;
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

static int sample_fill(const struct judge_ctx *x, const struct sample *sm, struct rpt_cmp_sample *s)
{
	const json_t *coords = json_object_get(sm->first, MDL_KEY_COORDS), *ops;
	size_t cap = rpt_n_run_metrics + (size_t)MDL_OP_COUNT * rpt_n_latency_metrics;
	int e;

	s->label = strdup(sm->label);
	s->workload = json_incref(json_object_get(sm->first, MDL_KEY_WORKLOAD));
	s->threads = json_incref(json_object_get(sm->first, MDL_KEY_THREADS));
	s->key = json_incref(sm->keyobj);
	s->metrics = calloc(cap + 1, sizeof(*s->metrics));
	s->instr = calloc((size_t)x->nsides, sizeof(*s->instr));
	s->context = json_array();
	if (!s->label || !s->metrics || !s->instr || !s->context)
		return -ENOMEM;
	if (json_is_object(coords)) {
		s->coords = json_deep_copy(coords);
		json_object_del(s->coords, "repetition");
		if (x->o->across)
			json_object_del(s->coords, x->o->across);
	}
	for (size_t i = 0; i < rpt_n_run_metrics; i++) {
		if (!sample_has(sm, x->runs, x->nsides, &rpt_run_metrics[i], NULL))
			continue;
		e = metric_fill(x, sm, &rpt_run_metrics[i], NULL, rpt_run_metrics[i].name,
				&s->metrics[s->nmetrics++]);
		if (e)
			return e;
	}
	ops = mdl_run_ops(sm->first);
	for (int rank = 0; mdl_op_name_at(rank); rank++) {
		const char *op = mdl_op_name_at(rank);

		if (!json_object_get(ops, op))
			continue;
		for (size_t i = 0; i < rpt_n_latency_metrics && s->nmetrics < cap; i++) {
			char name[64];

			if (!sample_has(sm, x->runs, x->nsides, &rpt_latency_metrics[i], op))
				continue;
			snprintf(name, sizeof(name), "%s.%s", op, rpt_latency_metrics[i].name);
			e = metric_fill(x, sm, &rpt_latency_metrics[i], op, name,
					&s->metrics[s->nmetrics++]);
			if (e)
				return e;
		}
	}
	/* which sources loaded on one side only: the verdict says so (issue 21, item 2) */
	for (int k = 1; k < x->nsides; k++) {
		char why_src[512];

		if (!instrumentation_differs(sm, x->runs, x->side_names, k, why_src,
					     sizeof(why_src)))
			continue;
		s->instr[s->ninstr].side = k;
		s->instr[s->ninstr].differs = strdup(why_src);
		if (!s->instr[s->ninstr++].differs)
			return -ENOMEM;
	}
	/* what exporters label and stamp the sample's values with, per side */
	for (int k = 0; k < x->nsides; k++)
		json_array_append_new(s->context, rpt_side_context(x->side_names[k], x->runs,
								   sm->runs[k], sm->nruns[k]));
	return 0;
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
		     struct rpt_cmp *c, char *err, size_t errlen)
{
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
				if (rpt_cmp_note_add(&c->unmatched, &c->nunmatched, r->file,
						     (long long)r->index, k, sm->label))
					return -ENOMEM;
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
			return -EPROTO;
		}
	return 0;
}

/* Each side's name and the files its runs came from. */
static int sides_fill(struct rpt_cmp *c, const struct mdl_run_ref *runs, size_t nruns,
		      const char *const *side_names)
{
	c->side_names = calloc((size_t)c->nsides, sizeof(char *));
	c->side_files = calloc((size_t)c->nsides, sizeof(json_t *));
	if (!c->side_names || !c->side_files)
		return -ENOMEM;
	for (int k = 0; k < c->nsides; k++) {
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
		c->side_files[k] = files;
		c->side_names[k] = strdup(side_names[k]);
		if (!c->side_names[k] || !files)
			return -ENOMEM;
	}
	return 0;
}

/* The incomplete runs, left out of every sample, and why. */
static int excluded_fill(struct rpt_cmp *c, const struct mdl_run_ref *runs, size_t nruns)
{
	for (size_t i = 0; i < nruns; i++)
		if (!mdl_run_complete(runs[i].run) &&
		    rpt_cmp_note_add(&c->excluded, &c->nexcluded, runs[i].file,
				     (long long)runs[i].index, runs[i].side,
				     mdl_run_error(runs[i].run, "incomplete")))
			return -ENOMEM;
	return 0;
}

/* What the comparison is judged with, the gate file's strictness included. */
static int settings_fill(struct rpt_cmp_settings *set, const struct rpt_compare_opts *o)
{
	*set = (struct rpt_cmp_settings){
		.alpha = o->alpha,
		.threshold_pct = o->threshold_pct,
		.noise_cov_pct = o->noise_cov_pct,
		.test = o->test,
		.across = o->across ? strdup(o->across) : NULL,
		.gate = json_incref((json_t *)o->gate),
		.strict = o->strict || json_is_true(json_object_get(o->gate, "strict")),
		.allow_noisy = o->allow_noisy ||
			       json_is_true(json_object_get(o->gate, "allow_noisy")),
		.allow_unproven = o->allow_unproven ||
				  json_is_true(json_object_get(o->gate, "allow_unproven")),
		.decide = o->floor_multiple > 0 ? RPT_DECIDE_FLOOR : RPT_DECIDE_TEST,
		.floor_multiple = o->floor_multiple,
		.max_host_load_pct = o->max_host_load_pct,
	};
	return o->across && !set->across ? -ENOMEM : 0;
}

/*
 * Many metrics are many chances: a comparison tests about 20 metrics a cell, 140 in a
 * small suite, and at alpha 0.05 each, several pure-noise "regressions" are expected in
 * every A/A. Two families are corrected apart: the seeds' metrics (rpt_metric_headline:
 * files/s, MB/s, write amplification, fsync's and fdatasync's p50 and p99), which gate,
 * and every other tested metric, gated only where a gate file names it. A call stands
 * only when its Benjamini-Hochberg q within its family is below its alpha
 * (docs/compare.md says why FDR and not family-wise, and why two). What the correction
 * takes back is "not proven": beyond the threshold (a call needs that), but not shown
 * among this many metrics. @headline: which family; returns its size in *@ret_n.
 */
static int correct_family(struct rpt_cmp *c, bool headline, size_t *ret_n)
{
	size_t cap = 0, n = 0;
	struct rpt_cmp_judged **fam;
	double *p, *q;
	int e = -ENOMEM;

	for (size_t i = 0; i < c->nsamples; i++)
		cap += c->samples[i].nmetrics * (size_t)c->nsides;
	fam = calloc(cap + 1, sizeof(*fam));
	p = calloc(cap + 1, sizeof(*p));
	q = calloc(cap + 1, sizeof(*q));
	if (!fam || !p || !q)
		goto out;
	for (size_t i = 0; i < c->nsamples; i++)
		for (size_t m = 0; m < c->samples[i].nmetrics; m++) {
			const struct rpt_cmp_metric *mm = &c->samples[i].metrics[m];

			for (int k = 0; k + 1 < c->nsides; k++) {
				struct rpt_cmp_judged *j = &mm->judged[k];

				/* the first family: the seeds' gated metrics; the second: the rest */
				if ((rpt_metric_headline(mm->name) && j->rule.gate) != headline)
					continue;
				/* cannot judge (unequal conditions, say): no call to correct */
				if (!j->stats || j->cannot_judge || !j->tested || !isfinite(j->p))
					continue;
				p[n] = j->p;
				fam[n++] = j;
			}
		}
	e = rpt_bh_adjust(p, n, q);
	for (size_t i = 0; !e && i < n; i++) {
		struct rpt_cmp_judged *j = fam[i];

		j->q = q[i];
		/* beyond the threshold (a call needs that), but not shown among @n metrics */
		if ((j->verdict == RPT_REGRESSION || j->verdict == RPT_IMPROVEMENT) &&
		    !(j->q < j->rule.alpha))
			j->verdict = RPT_NOT_PROVEN;
	}
	*ret_n = n;
out:
	free(fam);
	free(p);
	free(q);
	return e;
}

static int correct_many(struct rpt_cmp *c)
{
	int e = correct_family(c, true, &c->set.family);

	return e ? e : correct_family(c, false, &c->set.family_other);
}

/* Every sample present on every side, judged: the structs the verdicts live in. */
static int samples_fill(struct rpt_cmp *c, const struct judge_ctx *x, const struct samples *s)
{
	c->samples = calloc(s->n + 1, sizeof(*c->samples));
	if (!c->samples)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		bool everywhere = true;
		int e;

		for (int k = 0; k < x->nsides; k++)
			everywhere &= s->v[i].nruns[k] > 0;
		if (!everywhere)
			continue;
		e = sample_fill(x, &s->v[i], &c->samples[c->nsamples++]);
		if (e)
			return e;
	}
	return 0;
}

int rpt_compare_judge(const char *const *side_names, int nsides, const struct mdl_run_ref *runs,
		      size_t nruns, const struct rpt_compare_opts *o, struct rpt_cmp **ret,
		      char *err, size_t errlen)
{
	const struct judge_ctx x = {
		.runs = runs, .side_names = side_names, .nsides = nsides, .o = o
	};
	struct samples s = { 0 };
	struct rpt_cmp *c;
	char when[64];
	time_t now = time(NULL);
	int e;

	if (nsides < 1 || !nruns) {
		snprintf(err, errlen, "nothing to compare: no runs");
		return -EPROTO;
	}
	if (o->floor_multiple < 0 || !isfinite(o->floor_multiple)) {
		snprintf(err, errlen, "judging by the A/A floor: %s", strerror(EINVAL));
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->nsides = nsides;
	e = across_check(runs, nruns, o->across, err, errlen);
	if (!e)
		e = rpt_samples_build(&s, runs, nruns, nsides, o->across);
	if (!e)
		e = unmatched(&s, runs, side_names, nsides, o, c, err, errlen);
	if (!e)
		e = excluded_fill(c, runs, nruns);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	c->created = strdup(when);
	if (!e)
		e = settings_fill(&c->set, o);
	if (!e)
		e = sides_fill(c, runs, nruns, side_names);
	if (!e && !c->created)
		e = -ENOMEM;
	if (!e)
		e = samples_fill(c, &x, &s);
	rpt_samples_free(&s);
	if (!e && c->set.decide == RPT_DECIDE_FLOOR)
		e = rpt_cmp_decide_floor(c, c->set.floor_multiple);
	else if (!e)
		e = correct_many(c);
	if (e) {
		if (e == -ENOMEM || e == -EINVAL)
			snprintf(err, errlen, "judging the comparison: %s", strerror(-e));
		rpt_cmp_free(c);
		return e;
	}
	*ret = c;
	return 0;
}
