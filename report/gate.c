/* Gate rules: a gate file's per-metric thresholds, and what a gate makes of a comparison. */
#include "report/gate.h"
#include "model/result_file.h"

#include <errno.h>
#include <fnmatch.h>
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
		if (!strcmp(k, "strict") || !strcmp(k, "allow_noisy")) {
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
				where, k, top ? ", strict, allow_noisy" : "");
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
	if (hit)
		rule_apply(hit, &r, false, "", err, sizeof(err));
	return r;
}

enum rpt_gate_status rpt_cmp_gate_status(const struct rpt_cmp *c)
{
	/* the whole comparison could not be judged (a busy host): no finding either way */
	if (c->cannot_judge)
		return RPT_GATE_UNJUDGED;
	if (rpt_cmp_count(c, RPT_REGRESSION, true))
		return RPT_GATE_REGRESSED;
	/* without strict, only a would-be regression on unequal conditions blocks (hostload.h) */
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

size_t rpt_gate_count_blocking(const json_t *cmp)
{
	struct rpt_cmp *c = typed(cmp);
	size_t n = c ? rpt_cmp_count_blocking(c) : 0;

	rpt_cmp_free(c);
	return n;
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
