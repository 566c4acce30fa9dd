/* Grouping: runs that differ only in repetition (and the --across field) form one sample. */
#include "report/sample.h"
#include "model/run.h"
#include "model/schema.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void rpt_samples_free(struct samples *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		json_decref(s->v[i].keyobj);
		free(s->v[i].label);
		for (int k = 0; k < s->nsides; k++)
			free(s->v[i].runs[k]);
		free(s->v[i].runs);
		free(s->v[i].nruns);
	}
	free(s->v);
}

static char *base_label(const json_t *run, const char *across)
{
	const json_t *coords = json_object_get(run, "coords");
	const char *cell = json_string_value(json_object_get(coords, "cell"));
	const char *skip = across ? json_string_value(json_object_get(coords, across)) : NULL;
	char *out = NULL;

	if (cell) {
		char *copy = strdup(cell), *save = NULL, *tok;
		size_t len = strlen(cell) + 1, used = 0;
		bool skipped = false;

		out = calloc(1, len);
		if (!copy || !out) {
			free(copy);
			free(out);
			return NULL;
		}
		for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
			if (skip && !skipped && !strcmp(tok, skip)) {
				skipped = true;
				continue;
			}
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "/" : "",
						 tok);
		}
		free(copy);
		return out;
	}
	if (asprintf(&out, "%s t=%lld",
		     mdl_str_or(json_string_value(json_object_get(run, "workload")), "?"),
		     (long long)json_integer_value(json_object_get(run, "threads"))) < 0)
		return NULL;
	return out;
}

static char *value_text(const json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
}

/* Appends " name=value" (or ", name=value vs other") for entry @k of value @v, @ov the other's. */
static void label_append(char **label, const char *k, const json_t *v, const json_t *ov,
			 bool with_other)
{
	char *a = value_text(v), *b = ov ? value_text(ov) : strdup("(none)"), *n = NULL;

	if (with_other)
		n = asprintf(&n, "%s%s%s=%s vs %s", *label, **label ? ", " : "", k, a, b) < 0 ?
			    NULL :
			    n;
	else
		n = asprintf(&n, "%s %s=%s", *label, k, a) < 0 ? NULL : n;
	free(a);
	free(b);
	if (n) {
		free(*label);
		*label = n;
	}
}

/* The same entry as @k of @key's object @o (0 the top level, 1 its params) in @other, or NULL. */
static const json_t *entry_in(const json_t *other, int o, const char *k)
{
	return json_object_get(o ? json_object_get(other, "params") : other, k);
}

/*
 * Appends " name=value" (or "name=a vs b") for @key entries (top level and params) that
 * differ from @other, or, with @others (@nothers of them) instead, from any of those.
 */
static void append_diff(char **label, const json_t *key, const json_t *other,
			const json_t *const *others, size_t nothers, bool with_other)
{
	const json_t *objs[2] = { key, json_object_get(key, "params") };

	for (int o = 0; o < 2; o++) {
		const char *k;
		json_t *v;

		if (!json_is_object(objs[o]))
			continue;
		json_object_foreach((json_t *)objs[o], k, v)
		{
			const json_t *ov = NULL;
			bool differs = false;

			if (json_is_object(v) && o == 0 && !strcmp(k, "params"))
				continue;
			for (size_t i = 0; i < (others ? nothers : 1) && !differs; i++) {
				ov = entry_in(others ? others[i] : other, o, k);
				differs = !ov || !json_equal(v, (json_t *)ov);
			}
			if (differs)
				label_append(label, k, v, ov, with_other);
		}
	}
}

void rpt_label_append_diff(char **label, const json_t *key, const json_t *other, bool with_other)
{
	append_diff(label, key, other, NULL, 0, with_other);
}

void rpt_label_append_differing(char **label, const json_t *key, const json_t *const *others,
				size_t n)
{
	append_diff(label, key, NULL, others, n, false);
}

int rpt_samples_build(struct samples *s, const struct mdl_run_ref *runs, size_t nruns, int nsides,
		      const char *across)
{
	s->nsides = nsides;
	for (size_t i = 0; i < nruns; i++) {
		/* the typed run's key, made once when the run was added; another --across key here */
		char *own = runs[i].r.key && !across ? NULL :
						       mdl_run_sample_key(runs[i].run, across);
		const char *k = own ? own : runs[i].r.key;
		struct sample *sm = NULL;
		size_t *grown;

		if (!k)
			return -ENOMEM;
		for (size_t j = 0; j < s->n && !sm; j++)
			if (!strcmp(s->v[j].key, k))
				sm = &s->v[j];
		if (!sm) {
			struct sample *nv = realloc(s->v, (s->n + 1) * sizeof(*nv));

			if (!nv) {
				free(own);
				return -ENOMEM;
			}
			s->v = nv;
			sm = &s->v[s->n++];
			*sm = (struct sample){ .key = own ? own : strdup(k),
					       .keyobj = mdl_run_sample_keyobj(runs[i].run, across),
					       .first = runs[i].run };
			own = NULL;
			sm->runs = calloc((size_t)nsides, sizeof(*sm->runs));
			sm->nruns = calloc((size_t)nsides, sizeof(*sm->nruns));
			sm->label = base_label(runs[i].run, across);
			if (!sm->key || !sm->keyobj || !sm->runs || !sm->nruns || !sm->label)
				return -ENOMEM;
		}
		free(own);
		grown = realloc(sm->runs[runs[i].side],
				(sm->nruns[runs[i].side] + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		grown[sm->nruns[runs[i].side]++] = i;
		sm->runs[runs[i].side] = grown;
	}
	/*
	 * same base label, different keys: say once what differs from any of the others, so
	 * rows can be told apart (one call per other sample named a field once per other)
	 */
	for (size_t i = 0; i < s->n; i++) {
		char *base = base_label(s->v[i].first, across);
		const json_t **others = calloc(s->n, sizeof(*others));
		size_t nothers = 0;

		if (!base || !others) {
			free(base);
			free(others);
			return -ENOMEM;
		}
		for (size_t j = 0; j < s->n; j++) {
			char *other = j == i ? NULL : base_label(s->v[j].first, across);

			if (other && !strcmp(base, other))
				others[nothers++] = s->v[j].keyobj;
			free(other);
		}
		if (nothers)
			rpt_label_append_differing(&s->v[i].label, s->v[i].keyobj, others, nothers);
		free(others);
		free(base);
	}
	return 0;
}

/* The sample on side @side closest to @sm (same workload and threads), to say what differs. */
const struct sample *rpt_sample_nearest(const struct samples *s, const struct sample *sm, int side)
{
	const struct sample *best = NULL;

	for (size_t i = 0; i < s->n; i++) {
		const struct sample *o = &s->v[i];

		if (!o->nruns[side])
			continue;
		if (!best)
			best = o;
		if (json_equal(json_object_get(o->keyobj, "workload"),
			       json_object_get(sm->keyobj, "workload")) &&
		    json_equal(json_object_get(o->keyobj, "threads"),
			       json_object_get(sm->keyobj, "threads")))
			return o;
	}
	return best;
}
