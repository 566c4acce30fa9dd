/* The typed comparison: ownership, the "cannot judge" states, and counts over its verdicts. */
#include "report/cmp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void metric_free(struct rpt_cmp_metric *m, int nsides)
{
	for (int k = 0; m->sides && k < nsides; k++) {
		free(m->sides[k].values);
		free(m->sides[k].reps);
	}
	for (int k = 0; m->judged && k + 1 < nsides; k++) {
		free(m->judged[k].reason);
		free(m->judged[k].not_gated);
		free(m->judged[k].host_note);
		if (m->judged[k].conditions)
			free(m->judged[k].conditions->reason);
		free(m->judged[k].conditions);
		json_decref(m->judged[k].why);
	}
	free(m->sides);
	free(m->judged);
	free(m->name);
	free(m->unit);
}

static void sample_free(struct rpt_cmp_sample *s, int nsides)
{
	for (size_t i = 0; s->metrics && i < s->nmetrics; i++)
		metric_free(&s->metrics[i], nsides);
	for (size_t i = 0; s->instr && i < s->ninstr; i++)
		free(s->instr[i].differs);
	free(s->metrics);
	free(s->instr);
	free(s->label);
	json_decref(s->workload);
	json_decref(s->threads);
	json_decref(s->key);
	json_decref(s->coords);
	json_decref(s->context);
}

static void notes_free(struct rpt_cmp_run_note *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].file);
		free(v[i].what);
	}
	free(v);
}

int rpt_cmp_note_add(struct rpt_cmp_run_note **v, size_t *n, const char *file, long long run,
		     int side, const char *what)
{
	struct rpt_cmp_run_note *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = (struct rpt_cmp_run_note){
		.file = strdup(file), .run = run, .side = side, .what = strdup(what)
	};
	if (!nv[*n].file || !nv[*n].what) {
		free(nv[*n].file);
		free(nv[*n].what);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

void rpt_cmp_free(struct rpt_cmp *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->samples && i < c->nsamples; i++)
		sample_free(&c->samples[i], c->nsides);
	for (int k = 0; k < c->nsides; k++) {
		if (c->side_names)
			free(c->side_names[k]);
		if (c->side_files)
			json_decref(c->side_files[k]);
	}
	free(c->samples);
	free(c->side_names);
	free(c->side_files);
	free(c->created);
	free(c->set.across);
	json_decref(c->set.gate);
	notes_free(c->excluded, c->nexcluded);
	notes_free(c->unmatched, c->nunmatched);
	free(c->cannot_judge_reason);
	free(c);
}

/* *@dst replaced by a copy of @reason; 0 or -ENOMEM (*@dst kept). */
static int reason_set(char **dst, const char *reason)
{
	char *r = strdup(reason);

	if (!r)
		return -ENOMEM;
	free(*dst);
	*dst = r;
	return 0;
}

int rpt_cmp_set_cannot_judge(struct rpt_cmp *c, const char *reason)
{
	int e = reason_set(&c->cannot_judge_reason, reason);

	c->cannot_judge |= !e;
	return e;
}

int rpt_cmp_judged_cannot_judge(struct rpt_cmp_judged *j, const char *reason)
{
	int e = reason_set(&j->reason, reason);

	if (!e) {
		j->cannot_judge = true;
		j->verdict = RPT_INSUFFICIENT;
	}
	return e;
}

int rpt_cmp_foreach(const struct rpt_cmp *c,
		    int (*fn)(const struct rpt_cmp_sample *, const struct rpt_cmp_metric *,
			      const struct rpt_cmp_judged *, void *),
		    void *arg)
{
	for (size_t i = 0; i < c->nsamples; i++)
		for (size_t j = 0; j < c->samples[i].nmetrics; j++)
			for (int k = 0; k + 1 < c->nsides; k++) {
				const struct rpt_cmp_metric *m = &c->samples[i].metrics[j];
				int r = fn(&c->samples[i], m, &m->judged[k], arg);

				if (r)
					return r;
			}
	return 0;
}

struct count {
	const struct rpt_cmp *c;
	int verdict; /* -1: the gated comparisons */
	bool gating_only, blocking;
	size_t n;
};

static int count_one(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
		     const struct rpt_cmp_judged *j, void *arg)
{
	struct count *n = arg;

	(void)s;
	if (n->blocking)
		n->n += rpt_cmp_blocks(n->c, m, j);
	else if (n->verdict < 0)
		n->n += j->rule.gate;
	else if ((int)j->verdict == n->verdict && (!n->gating_only || j->rule.gate))
		n->n++;
	return 0;
}

size_t rpt_cmp_count(const struct rpt_cmp *c, enum rpt_verdict v, bool gating_only)
{
	struct count n = { .c = c, .verdict = (int)v, .gating_only = gating_only };

	rpt_cmp_foreach(c, count_one, &n);
	return n.n;
}

bool rpt_cmp_blocks(const struct rpt_cmp *c, const struct rpt_cmp_metric *m,
		    const struct rpt_cmp_judged *j)
{
	/* no gate passes what would have regressed had its conditions been comparable */
	if (j->conditions && j->conditions->verdict_if_judged == RPT_REGRESSION && j->rule.gate)
		return true;
	/* a seed's metric moved beyond its threshold and nobody could tell why: not a pass */
	if (j->verdict == RPT_NOT_PROVEN && j->rule.gate && !c->set.allow_unproven &&
	    rpt_metric_headline(m->name))
		return true;
	if (!c->set.strict || !j->rule.gate)
		return false;
	if (j->verdict == RPT_INSUFFICIENT)
		return true;
	return j->verdict == RPT_NOISY && !c->set.allow_noisy;
}

struct unproven_ctx {
	const struct rpt_cmp *c;
	struct rpt_cmp_unproven *u;
};

static int unproven_one(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
			const struct rpt_cmp_judged *j, void *arg)
{
	struct unproven_ctx *x = arg;

	(void)s;
	if (j->verdict != RPT_NOT_PROVEN || !j->rule.gate)
		return 0;
	x->u->n++;
	x->u->blocking += rpt_cmp_blocks(x->c, m, j);
	if (fabs(j->change_pct) > fabs(x->u->worst))
		x->u->worst = j->change_pct;
	return 0;
}

void rpt_cmp_unproven_count(const struct rpt_cmp *c, struct rpt_cmp_unproven *ret)
{
	struct unproven_ctx x = { .c = c, .u = ret };

	*ret = (struct rpt_cmp_unproven){ 0 };
	rpt_cmp_foreach(c, unproven_one, &x);
}

size_t rpt_cmp_count_blocking(const struct rpt_cmp *c)
{
	struct count n = { .c = c, .blocking = true };

	rpt_cmp_foreach(c, count_one, &n);
	return n.n;
}

size_t rpt_cmp_count_gated(const struct rpt_cmp *c)
{
	struct count n = { .c = c, .verdict = -1 };

	rpt_cmp_foreach(c, count_one, &n);
	return n.n;
}

const struct rpt_cmp_metric *rpt_cmp_metric_find(const struct rpt_cmp_sample *s, const char *name)
{
	for (size_t i = 0; i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].name, name))
			return &s->metrics[i];
	return NULL;
}
