/* Gate rules: a gate file's per-metric thresholds, and what a gate makes of a comparison. */
#include "report/gate.h"
#include "model/result_file.h"
#include "report/hostload_rule.h"

#include <errno.h>
#include <fnmatch.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @top: the gate file's top level, where the gate-wide "strict" and "allow_noisy" live. */
static int rule_apply(const json_t *o, struct rpt_rule *r, bool top, const char *where, char *err,
		      size_t errlen)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: expected an object", where);
		return -EINVAL;
	}
	json_object_foreach((json_t *)o, k, v)
	{
		double *dst = !strcmp(k, "alpha")	  ? &r->alpha :
			      !strcmp(k, "threshold_pct") ? &r->threshold_pct :
			      !strcmp(k, "noise_cov_pct") ? &r->noise_cov_pct :
							    NULL;

		if (!strcmp(k, "metrics") || !strcmp(k, "schema") || !strcmp(k, "comment"))
			continue;
		if (!strcmp(k, "strict") || !strcmp(k, "allow_noisy") ||
		    !strcmp(k, "allow_unproven")) {
			if (!top) {
				snprintf(
					err, errlen,
					"%s: %s applies to the whole gate: set it at the top level "
					"(per metric: gate, noise_cov_pct)",
					where, k);
				return -EINVAL;
			}
			if (!json_is_boolean(v)) {
				snprintf(err, errlen, "%s: %s must be true or false", where, k);
				return -EINVAL;
			}
			continue;
		}
		if (!strcmp(k, "gate")) {
			if (!json_is_boolean(v)) {
				snprintf(err, errlen, "%s: gate must be true or false", where);
				return -EINVAL;
			}
			r->gate = json_is_true(v);
			continue;
		}
		if (!dst) {
			snprintf(
				err, errlen,
				"%s: unknown key '%s' (alpha, threshold_pct, noise_cov_pct, gate%s)",
				where, k, top ? ", strict, allow_noisy, allow_unproven" : "");
			return -EINVAL;
		}
		if (!json_is_number(v) || json_number_value(v) < 0 ||
		    (dst == &r->alpha &&
		     (json_number_value(v) <= 0 || json_number_value(v) >= 1))) {
			snprintf(err, errlen, "%s: %s must be a number%s", where, k,
				 dst == &r->alpha ? " between 0 and 1" : " >= 0");
			return -EINVAL;
		}
		*dst = json_number_value(v);
	}
	return 0;
}

int rpt_gate_check(const json_t *gate, char *err, size_t errlen)
{
	struct rpt_rule r = { 0 };
	const json_t *m;
	const char *k;
	json_t *v;
	int e;

	e = rule_apply(gate, &r, true, "gate file", err, errlen);
	if (e)
		return e;
	m = json_object_get(gate, "metrics");
	if (!m)
		return 0;
	if (!json_is_object(m)) {
		snprintf(err, errlen,
			 "gate file: metrics must be an object of NAME or GLOB: {...}");
		return -EINVAL;
	}
	json_object_foreach((json_t *)m, k, v)
	{
		char where[256];

		snprintf(where, sizeof(where), "gate file: metrics.%s", k);
		e = rule_apply(v, &r, false, where, err, errlen);
		if (e)
			return e;
	}
	return 0;
}

int rpt_gate_load(const char *path, json_t **ret, char *err, size_t errlen)
{
	char why[1024];
	json_t *gate = mdl_json_file(path, why, sizeof(why));
	int e;

	if (!gate) {
		snprintf(err, errlen, "gate file %s", why);
		return -EPROTO;
	}
	e = rpt_gate_check(gate, why, sizeof(why));
	if (e) {
		snprintf(err, errlen, "%s: %s", path, why);
		json_decref(gate);
		return e;
	}
	*ret = gate;
	return 0;
}

struct rpt_rule rpt_rule_for(const json_t *gate, const struct rpt_rule *base, const char *metric)
{
	struct rpt_rule r = *base;
	const json_t *m, *hit = NULL;
	const char *k;
	json_t *v;
	char err[8];

	if (!gate)
		return r;
	rule_apply(gate, &r, true, "", err, sizeof(err));
	m = json_object_get(gate, "metrics");
	hit = json_object_get(m, metric);
	if (!hit)
		json_object_foreach((json_t *)m, k, v) if (!fnmatch(k, metric, 0))
		{
			hit = v;
			break;
		}
	if (hit) { /* a metric the gate file names gates, unless it says "gate": false */
		r.gate = true;
		rule_apply(hit, &r, false, "", err, sizeof(err));
	}
	return r;
}

int rpt_gate_exit_status(enum rpt_gate_status st)
{
	return st == RPT_GATE_REGRESSED ? 1 : st == RPT_GATE_UNJUDGED ? 125 : 0;
}

enum rpt_gate_status rpt_cmp_gate_status(const struct rpt_cmp *c)
{
	/* the whole comparison could not be judged (a busy host): no finding either way */
	if (c->cannot_judge)
		return RPT_GATE_UNJUDGED;
	if (rpt_cmp_count(c, RPT_REGRESSION, true))
		return RPT_GATE_REGRESSED;
	/* without strict, only a would-be regression on unequal conditions blocks (hostload_rule.h) */
	if (rpt_cmp_count_blocking(c) || (c->set.strict && !rpt_cmp_count_gated(c)))
		return RPT_GATE_UNJUDGED;
	return RPT_GATE_PASS;
}

/* The structs of @cmp for the document-taking wrappers below; NULL when it is no comparison. */
static struct rpt_cmp *typed(const json_t *cmp)
{
	struct rpt_cmp *c = NULL;
	char err[8];

	if (rpt_cmp_from_json(cmp, "", &c, err, sizeof(err)))
		return NULL;
	return c;
}

size_t rpt_compare_count(const json_t *cmp, enum rpt_verdict v, bool gating_only)
{
	struct rpt_cmp *c = typed(cmp);
	size_t n = c ? rpt_cmp_count(c, v, gating_only) : 0;

	rpt_cmp_free(c);
	return n;
}

enum rpt_gate_status rpt_gate_status(const json_t *cmp)
{
	struct rpt_cmp *c = typed(cmp);
	enum rpt_gate_status st = c ? rpt_cmp_gate_status(c) : RPT_GATE_UNJUDGED;

	rpt_cmp_free(c);
	return st;
}

int rpt_gate_opts_load(const char *path, struct rpt_compare_opts *o, json_t **ret, char *err,
		       size_t errlen)
{
	json_t *gate;
	int e = rpt_gate_load(path, &gate, err, errlen);

	if (e)
		return e;
	*ret = gate;
	o->gate = gate;
	if (json_is_true(json_object_get(gate, "strict")))
		o->strict = true;
	if (json_is_true(json_object_get(gate, "allow_noisy")))
		o->allow_noisy = true;
	if (json_is_true(json_object_get(gate, "allow_unproven")))
		o->allow_unproven = true;
	return 0;
}

/* One line to @say, formatted; nothing when it cannot be (out of memory). */
__attribute__((format(printf, 3, 4))) static void sayf(void (*say)(void *, const char *), void *arg,
						       const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	say(arg, line);
	free(line);
}

/*
 * A strict gate's complaint about sample @s: which of its metrics it could not judge and
 * what would fix that. Returns the number of blocking comparisons.
 */
static size_t strict_sample_why(const struct rpt_cmp *cmp, const struct rpt_cmp_sample *s,
				void (*say)(void *, const char *), void *arg)
{
	const struct rpt_cmp_metric *few = NULL;
	char *noisy = NULL, *counts = NULL;
	size_t nlen = 0, clen = 0, n = 0;
	FILE *nf = open_memstream(&noisy, &nlen);
	double limit = NAN;

	if (!nf)
		return 0;
	for (size_t j = 0; j < s->nmetrics; j++)
		for (int k = 0; k + 1 < cmp->nsides; k++) {
			const struct rpt_cmp_metric *m = &s->metrics[j];
			const struct rpt_cmp_judged *c = &m->judged[k];

			if (!rpt_cmp_blocks(cmp, m, c))
				continue;
			n++;
			/* said once, by rpt_gate_explain (unequal conditions; unproven_say) */
			if (c->conditions || c->verdict == RPT_NOT_PROVEN)
				continue;
			if (c->verdict == RPT_INSUFFICIENT) {
				if (!few)
					few = m;
				continue;
			}
			limit = c->rule.noise_cov_pct;
			fprintf(nf, "%s%s (CoV %s %.1f%%, %s %.1f%%)", ftell(nf) ? ", " : "",
				m->name, cmp->side_names[0], m->sides[0].st.cov * 100,
				cmp->side_names[c->side], m->sides[c->side].st.cov * 100);
		}
	fclose(nf);
	if (few) {
		/* "SIDE N, SIDE N": its complete runs per side */
		FILE *cf = open_memstream(&counts, &clen);

		for (int k = 0; cf && k < cmp->nsides; k++)
			fprintf(cf, "%s%s %zu", k ? ", " : "", cmp->side_names[k], few->sides[k].n);
		if (cf && !fclose(cf))
			sayf(say, arg,
			     "gate --strict: sample '%s': complete runs %s; %d a side are needed to judge it (repeat each side's runs, or suite --repetitions %d)",
			     s->label, counts, RPT_MIN_SAMPLES, RPT_MIN_SAMPLES);
		free(counts);
	}
	if (noisy && *noisy)
		sayf(say, arg,
		     "gate --strict: sample '%s': noisy, CoV above %g%% and no proven change: %s "
		     "(more repetitions or a quieter machine; --allow-noisy lets them pass)",
		     s->label, limit, noisy);
	free(noisy);
	return n;
}

/*
 * Runs a side that would likely prove a change of @m's size, from its spread: a two-sided
 * t-test at the smallest alpha the correction asks of a lone call (alpha / family) with
 * 80 % power, n = 2 ((t_a + t_b) s / d)^2 with t on 2n - 2 degrees of freedom (solved by
 * iteration: with 3 runs a side the t's are far above the normal's), s the pooled standard
 * deviation. 0 when unknown.
 */
static size_t runs_needed(const struct rpt_cmp *cmp, const struct rpt_cmp_metric *m,
			  const struct rpt_cmp_judged *j)
{
	const struct rpt_stats *a = &m->sides[0].st, *b = &m->sides[j->side].st;
	double d = fabs(b->mean - a->mean);
	double s = sqrt((a->stddev * a->stddev + b->stddev * b->stddev) / 2);
	double alpha = j->rule.alpha / (double)(cmp->set.family ? cmp->set.family : 1);
	double n = (double)a->n + 1;

	if (!(d > 0) || !(s > 0) || !(alpha > 0))
		return 0;
	for (int it = 0; it < 50; it++) {
		double df = 2 * n - 2;
		double t = gsl_cdf_tdist_Qinv(alpha / 2, df) + gsl_cdf_tdist_Qinv(0.2, df);
		double next = ceil(2 * (t * s / d) * (t * s / d));

		if (!isfinite(next))
			return 0;
		next = fmax(next, (double)a->n + 1);
		if (next >= 1e6)
			return 1000000;
		if (next == n)
			break;
		n = next;
	}
	return (size_t)n;
}

/* The first few unproven changes said, a line each (the counts: rpt_cmp_unproven_count). */
struct unproven_say {
	const struct rpt_cmp *cmp;
	void (*say)(void *, const char *);
	void *arg;
	size_t said;
};

static int unproven_one(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
			const struct rpt_cmp_judged *j, void *arg)
{
	struct unproven_say *u = arg;
	bool blocks;
	size_t need;
	char q[64] = "", more[96] = "";

	/* the first few say what the rest are */
	if (j->verdict != RPT_NOT_PROVEN || !j->rule.gate || u->said >= 8)
		return 0;
	u->said++;
	blocks = rpt_cmp_blocks(u->cmp, m, j);
	if (isfinite(j->q))
		snprintf(q, sizeof(q), ", q %.3g over %zu metrics", j->q, u->cmp->set.family);
	need = runs_needed(u->cmp, m, j);
	if (need)
		snprintf(more, sizeof(more), "; about %zu runs a side would likely decide it",
			 need);
	sayf(u->say, u->arg,
	     "%s: sample '%s': %s %+.1f%% is beyond the %g%% threshold but not proven: p %.3g%s, "
	     "spread %.1f%%%s",
	     blocks ? "gate: cannot judge" : "warning", s->label, m->name, j->change_pct,
	     j->rule.threshold_pct, j->p, q, j->spread_pct, more);
	return 0;
}

enum rpt_gate_status rpt_gate_explain(const struct rpt_cmp *cmp,
				      void (*say)(void *arg, const char *line), void *arg)
{
	bool strict = cmp->set.strict;
	enum rpt_gate_status st = rpt_cmp_gate_status(cmp);
	size_t reg = rpt_cmp_count(cmp, RPT_REGRESSION, true);
	size_t few = rpt_cmp_count(cmp, RPT_INSUFFICIENT, true);
	size_t noisy = rpt_cmp_count(cmp, RPT_NOISY, true);
	const char *cond_why, *busy_why;
	size_t cond = rpt_hostload_count(cmp, false, &cond_why);
	size_t busy = rpt_hostload_count(cmp, true, &busy_why);
	size_t blocking = 0, samples = 0;

	struct unproven_say us = { .cmp = cmp, .say = say, .arg = arg };
	struct rpt_cmp_unproven u;

	few -= cond < few ? cond : few; /* said below, not as too few samples */
	rpt_cmp_unproven_count(cmp, &u);
	rpt_cmp_foreach(cmp, unproven_one, &us);
	if (u.n > us.said)
		sayf(say, arg, "... and %zu more change(s) beyond the threshold, not proven",
		     u.n - us.said);
	for (size_t i = 0; strict && i < cmp->nsamples; i++) {
		size_t b = strict_sample_why(cmp, &cmp->samples[i], say, arg);

		blocking += b;
		samples += b > 0;
	}
	if (few && !strict)
		sayf(say, arg,
		     "%zu metric(s) had fewer than %d samples a side and were not judged (--strict fails the gate on them)",
		     few, RPT_MIN_SAMPLES);
	if (noisy && (!strict || cmp->set.allow_noisy))
		sayf(say, arg,
		     "%zu metric(s) were noisy (CoV above the noise limit, no proven change) and were not judged%s",
		     noisy, strict ? " (--allow-noisy)" : " (--strict fails the gate on them)");
	if (cond)
		sayf(say, arg,
		     "%zu metric(s) not judged: the host was busy or the sides ran under unequal conditions; first: %s",
		     cond, cond_why);
	if (busy)
		sayf(say, arg,
		     "warning: %zu metric(s) judged on a busy host (--max-host-load makes them 'cannot judge'); first: %s",
		     busy, busy_why);
	if (reg)
		sayf(say, arg, "gate: %zu regression(s)", reg);
	if (cmp->cannot_judge)
		sayf(say, arg, "gate: cannot judge: %s", cmp->cannot_judge_reason);
	else if (st == RPT_GATE_UNJUDGED && u.blocking)
		sayf(say, arg,
		     "gate: cannot judge: %zu headline change(s) beyond the threshold could not be told "
		     "from noise: no proven regression, and no pass (--allow-unproven passes them)",
		     u.blocking);
	else if (st == RPT_GATE_UNJUDGED && !strict)
		sayf(say, arg,
		     "gate: cannot judge: a gated metric would have regressed, but its sides ran under different conditions");
	else if (st == RPT_GATE_UNJUDGED && blocking)
		sayf(say, arg, "gate --strict: %zu metric(s) in %zu sample(s) could not be judged",
		     blocking, samples);
	else if (st == RPT_GATE_UNJUDGED)
		sayf(say, arg, "gate --strict: no gated metric was compared, nothing was judged");
	return st;
}
