/* Compare and gate: runs lined up into samples, per-metric statistics and verdicts, as JSON. */
#include "compare.h"
#include "result.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

const char *const rpt_verdict_names[RPT_VERDICT_COUNT] = {
	[RPT_UNCHANGED] = "unchanged",	     [RPT_IMPROVEMENT] = "improvement",
	[RPT_REGRESSION] = "regression",     [RPT_NOISY] = "noisy",
	[RPT_INSUFFICIENT] = "insufficient",
};

/*
 * Run-level metrics, in the order tables show them. Only one throughput metric applies to a
 * run: files/s when its progress unit is files, MB/s when it is bytes (see run_has_metric).
 */
static const struct rpt_metric_def run_metrics[] = {
	{ "files_per_sec", "files/s", 1, RPT_HIGHER_IS_BETTER, RPT_KIND_THROUGHPUT, "summary",
	  "files_per_sec", "fsbench_files_per_second", 1 },
	{ "bytes_per_sec", "MB/s", 1e-6, RPT_HIGHER_IS_BETTER, RPT_KIND_THROUGHPUT, "summary",
	  "bytes_per_sec", "fsbench_bytes_per_second", 1e6 },
	{ "write_amplification", "x", 1, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL, "kernel",
	  "write_amplification", "fsbench_write_amplification_ratio", 1 },
	{ "dirty_max", "MiB", 1.0 / 1048576, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL, "kernel",
	  "dirty_max_bytes", "fsbench_dirty_max_bytes", 1048576 },
	{ "writeback_max", "MiB", 1.0 / 1048576, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL, "kernel",
	  "writeback_max_bytes", "fsbench_writeback_max_bytes", 1048576 },
	/* kernel histograms of the eBPF probes (probes/bpf/): device flushes and journal commits */
	{ "bpf.flush.p99", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
	  "probes/sources/block/hists/flush.q2c/percentiles", "p99",
	  "fsbench_bpf_flush_p99_seconds", 1e-6 },
	{ "bpf.write.p99", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
	  "probes/sources/block/hists/write.q2c/percentiles", "p99",
	  "fsbench_bpf_write_request_p99_seconds", 1e-6 },
	{ "bpf.commit.p99", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
	  "probes/sources/jbd2/hists/commit/percentiles", "p99",
	  "fsbench_bpf_jbd2_commit_p99_seconds", 1e-6 },
	{ "bpf.iclog.p99", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
	  "probes/sources/xfs/hists/iclog_write/percentiles", "p99",
	  "fsbench_bpf_xfs_iclog_write_p99_seconds", 1e-6 },
	{ "bpf.ordered_extent.p99", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
	  "probes/sources/btrfs/hists/ordered_extent/percentiles", "p99",
	  "fsbench_bpf_btrfs_ordered_extent_p99_seconds", 1e-6 },
};
#define N_RUN_METRICS (sizeof(run_metrics) / sizeof(run_metrics[0]))

/*
 * Latency percentiles compared per operation ("fsync.p99"): the median and two tails. p90
 * adds little between p50 and p99, and p99.99 of a few thousand calls is the maximum, one
 * sample, which no test can judge.
 */
static const struct rpt_metric_def latency_metrics[] = {
	{ "p50", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_LATENCY, NULL, "p50",
	  "fsbench_latency_seconds", 1e-6 },
	{ "p99", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_LATENCY, NULL, "p99",
	  "fsbench_latency_seconds", 1e-6 },
	{ "p99.9", "us", 1e-3, RPT_LOWER_IS_BETTER, RPT_KIND_LATENCY, NULL, "p99.9",
	  "fsbench_latency_seconds", 1e-6 },
};
#define N_LATENCY_METRICS (sizeof(latency_metrics) / sizeof(latency_metrics[0]))

/* Operation order in tables: the order of a small-file loop, then the streaming calls. */
static const char *const op_order[] = { "create",    "open",   "write",		  "fsync",
					"fdatasync", "sync",   "sync_file_range", "fadvise",
					"close",     "unlink", "victim",	  NULL };

const struct rpt_metric_def *rpt_metric_lookup(const char *name)
{
	const char *dot;

	for (size_t i = 0; i < N_RUN_METRICS; i++)
		if (!strcmp(run_metrics[i].name, name))
			return &run_metrics[i];
	dot = strchr(name, '.');
	if (!dot)
		return NULL;
	for (size_t i = 0; i < N_LATENCY_METRICS; i++)
		if (!strcmp(latency_metrics[i].key, dot + 1))
			return &latency_metrics[i];
	return NULL;
}

void rpt_compare_opts_init(struct rpt_compare_opts *o)
{
	*o = (struct rpt_compare_opts){ .alpha = RPT_DEFAULT_ALPHA,
					.threshold_pct = RPT_DEFAULT_THRESHOLD_PCT,
					.noise_cov_pct = RPT_DEFAULT_NOISE_COV_PCT,
					.test = RPT_TEST_AUTO };
}

int rpt_judge(const double *a, size_t na, const double *b, size_t nb, enum rpt_direction dir,
	      enum rpt_metric_kind kind, enum rpt_test_choice test, const struct rpt_rule *rule,
	      struct rpt_judgement *ret)
{
	struct rpt_judgement j = { .p_welch = NAN, .p_rank = NAN };
	struct rpt_test w, r;
	bool use_rank, worse;
	int e;

	e = rpt_stats_compute(a, na, &j.a);
	if (!e)
		e = rpt_stats_compute(b, nb, &j.b);
	if (e)
		return e;
	if (j.a.mean != 0)
		j.change_pct = (j.b.mean - j.a.mean) / fabs(j.a.mean) * 100;
	else
		j.change_pct = j.b.mean == 0 ? 0 : copysign(INFINITY, j.b.mean);
	if (na >= 2 && nb >= 2) {
		if (rpt_welch(a, na, b, nb, &w) == 0)
			j.p_welch = w.p;
		if (rpt_mann_whitney(a, na, b, nb, &r) == 0)
			j.p_rank = r.p;
		/*
		 * Latency percentiles are skewed and a single stall moves the mean: the rank
		 * test suits them, but with 3 a side its smallest p is 0.1, so it needs 4.
		 */
		use_rank =
			test == RPT_TEST_ONLY_RANK ||
			(test == RPT_TEST_AUTO && kind == RPT_KIND_LATENCY && na >= 4 && nb >= 4);
		j.test = use_rank ? r : w;
		j.tested = true;
	}
	worse = dir == RPT_HIGHER_IS_BETTER ? j.change_pct < 0 : j.change_pct > 0;
	if (na < RPT_MIN_SAMPLES || nb < RPT_MIN_SAMPLES)
		j.verdict = RPT_INSUFFICIENT;
	else if (j.test.p < rule->alpha && fabs(j.change_pct) > rule->threshold_pct)
		j.verdict = worse ? RPT_REGRESSION : RPT_IMPROVEMENT;
	else if (j.a.cov * 100 > rule->noise_cov_pct || j.b.cov * 100 > rule->noise_cov_pct)
		j.verdict = RPT_NOISY;
	else
		j.verdict = RPT_UNCHANGED;
	*ret = j;
	return 0;
}

/* ---- gate file ---- */

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

/* The CLI's values, then the gate file's defaults, then its entry for the exact name, else its first matching glob. */
static struct rpt_rule rule_for(const struct rpt_compare_opts *o, const char *metric)
{
	struct rpt_rule r = { o->alpha, o->threshold_pct, o->noise_cov_pct, true };
	const json_t *m, *hit = NULL;
	const char *k;
	json_t *v;
	char err[8];

	if (!o->gate)
		return r;
	rule_apply(o->gate, &r, true, "", err, sizeof(err));
	m = json_object_get(o->gate, "metrics");
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

/* ---- samples ---- */

struct sample {
	char *key; /* canonical JSON of the key object */
	json_t *keyobj;
	char *label;
	const json_t *first; /* a run of the sample, for workload, threads, coords */
	size_t **runs; /* per side: indices into the rpt_run_ref array */
	size_t *nruns;
};

struct samples {
	struct sample *v;
	size_t n;
	int nsides;
};

static void samples_free(struct samples *s)
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

/* Everything but the repetition (and the --across field) when the run has coords; else the command's own identity. */
static json_t *run_key(const json_t *run, const char *across)
{
	const json_t *coords = json_object_get(run, "coords");
	json_t *k, *params;

	if (json_is_object(coords)) {
		k = json_deep_copy(coords);
		json_object_del(k, "repetition");
		json_object_del(k, "cell");
		if (across)
			json_object_del(k, across);
		return k;
	}
	params = json_deep_copy(json_object_get(run, "params"));
	if (!params)
		params = json_object();
	/* where it ran and where it wrote differ between repetitions and say nothing about the load */
	json_object_del(params, "dir");
	json_object_del(params, "json");
	json_object_del(params, "quiet");
	json_object_del(params, "log");
	k = json_object();
	json_object_set(k, "workload", json_object_get(run, "workload"));
	json_object_set(k, "threads", json_object_get(run, "threads"));
	json_object_set_new(k, "params", params);
	return k;
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
		     str_or(json_string_value(json_object_get(run, "workload")), "?"),
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

/* Appends " name=value" for @key entries (top level and params) that differ from @other. */
static void append_diff(char **label, const json_t *key, const json_t *other, bool with_other)
{
	const json_t *objs[2] = { key, json_object_get(key, "params") };
	const json_t *oobjs[2] = { other, json_object_get(other, "params") };

	for (int o = 0; o < 2; o++) {
		const char *k;
		json_t *v;

		if (!json_is_object(objs[o]))
			continue;
		json_object_foreach((json_t *)objs[o], k, v)
		{
			const json_t *ov = json_object_get(oobjs[o], k);
			char *a, *b, *n = NULL;

			if (json_is_object(v) && o == 0 && !strcmp(k, "params"))
				continue;
			if (ov && json_equal(v, (json_t *)ov))
				continue;
			a = value_text(v);
			b = ov ? value_text(ov) : strdup("(none)");
			if (with_other)
				n = asprintf(&n, "%s%s%s=%s vs %s", *label, **label ? ", " : "", k,
					     a, b) < 0 ?
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
	}
}

static int samples_build(struct samples *s, const struct rpt_run_ref *runs, size_t nruns,
			 int nsides, const char *across)
{
	s->nsides = nsides;
	for (size_t i = 0; i < nruns; i++) {
		json_t *ko = run_key(runs[i].run, across);
		char *k = ko ? json_dumps(ko, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		struct sample *sm = NULL;
		size_t *grown;

		if (!k) {
			json_decref(ko);
			return -ENOMEM;
		}
		for (size_t j = 0; j < s->n; j++)
			if (!strcmp(s->v[j].key, k))
				sm = &s->v[j];
		if (sm) {
			free(k);
			json_decref(ko);
		} else {
			struct sample *nv = realloc(s->v, (s->n + 1) * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			s->v = nv;
			sm = &s->v[s->n++];
			*sm = (struct sample){ .key = k, .keyobj = ko, .first = runs[i].run };
			sm->runs = calloc((size_t)nsides, sizeof(*sm->runs));
			sm->nruns = calloc((size_t)nsides, sizeof(*sm->nruns));
			sm->label = base_label(runs[i].run, across);
			if (!sm->runs || !sm->nruns || !sm->label)
				return -ENOMEM;
		}
		grown = realloc(sm->runs[runs[i].side],
				(sm->nruns[runs[i].side] + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		grown[sm->nruns[runs[i].side]++] = i;
		sm->runs[runs[i].side] = grown;
	}
	/* same base label, different keys: say what differs so rows can be told apart */
	for (size_t i = 0; i < s->n; i++) {
		char *base = base_label(s->v[i].first, across);

		for (size_t j = 0; base && j < s->n; j++) {
			char *other = j == i ? NULL : base_label(s->v[j].first, across);

			if (other && !strcmp(base, other))
				append_diff(&s->v[i].label, s->v[i].keyobj, s->v[j].keyobj, false);
			free(other);
		}
		free(base);
	}
	return 0;
}

static bool run_complete(const json_t *run)
{
	return json_is_true(json_object_get(json_object_get(run, "summary"), "complete"));
}

/* The object at @path in @run: keys separated by '/' (keys may hold dots: "flush.q2c"). */
static const json_t *section_get(const json_t *run, const char *path)
{
	const json_t *o = run;
	char key[128];

	while (o && *path) {
		size_t n = strcspn(path, "/");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		o = json_object_get(o, key);
		path += n + (path[n] == '/');
	}
	return o;
}

/* Raw value of @def (or of latency percentile @pct of @op) in @run; false when absent. */
static bool run_value(const json_t *run, const struct rpt_metric_def *def, const char *op,
		      double *ret)
{
	const json_t *v;

	if (def->kind == RPT_KIND_LATENCY)
		v = json_object_get(
			json_object_get(json_object_get(json_object_get(run, "ops"), op),
					"percentiles"),
			def->key);
	else
		v = json_object_get(section_get(run, def->section), def->key);
	if (!json_is_number(v))
		return false;
	*ret = json_number_value(v);
	return isfinite(*ret);
}

static bool run_has_metric(const json_t *run, const struct rpt_metric_def *def, const char *op)
{
	const char *unit =
		json_string_value(json_object_get(json_object_get(run, "series"), "unit"));
	bool bytes = unit && !strcmp(unit, "bytes");
	double v;

	if (!strcmp(def->name, "files_per_sec") && bytes)
		return false;
	if (!strcmp(def->name, "bytes_per_sec") && !bytes)
		return false;
	return run_value(run, def, op, &v);
}

static json_t *stats_json(const char *side, const struct rpt_stats *st, const double *v, size_t n)
{
	json_t *o = json_object(), *vals = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(vals, json_real(v[i]));
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
	size_t nv[nsides];
	struct rpt_rule rule = rule_for(o, name);
	int e = 0;

	for (int k = 0; k < nsides; k++) {
		vals[k] = calloc(sm->nruns[k] + 1, sizeof(double));
		nv[k] = 0;
		if (!vals[k])
			e = -ENOMEM;
		for (size_t i = 0; !e && i < sm->nruns[k]; i++) {
			const json_t *run = runs[sm->runs[k][i]].run;
			double raw;

			if (run_complete(run) && run_value(run, def, op, &raw))
				vals[k][nv[k]++] = raw * def->scale;
		}
	}
	for (int k = 0; !e && k < nsides; k++) {
		struct rpt_stats st = { 0 };

		if (nv[k])
			rpt_stats_compute(vals[k], nv[k], &st);
		json_array_append_new(sides, stats_json(side_names[k], &st, vals[k], nv[k]));
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
	for (int k = 0; k < nsides; k++)
		free(vals[k]);
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

			if (!run_complete(run))
				continue;
			if (!run_has_metric(run, def, op))
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
	for (size_t i = 0; i < N_RUN_METRICS; i++) {
		if (!sample_has(sm, runs, nsides, &run_metrics[i], NULL))
			continue;
		e = metric_json(sm, runs, side_names, nsides, &run_metrics[i], NULL,
				run_metrics[i].name, o, &m);
		if (e)
			goto fail;
		json_array_append_new(metrics, m);
	}
	ops = json_object_get(sm->first, "ops");
	for (int op = 0; op_order[op]; op++) {
		if (!json_object_get(ops, op_order[op]))
			continue;
		for (size_t i = 0; i < N_LATENCY_METRICS; i++) {
			char name[64];

			if (!sample_has(sm, runs, nsides, &latency_metrics[i], op_order[op]))
				continue;
			snprintf(name, sizeof(name), "%s.%s", op_order[op], latency_metrics[i].key);
			e = metric_json(sm, runs, side_names, nsides, &latency_metrics[i],
					op_order[op], name, o, &m);
			if (e)
				goto fail;
			json_array_append_new(metrics, m);
		}
	}
	json_object_set_new(s, "metrics", metrics);
	*ret = s;
	return 0;
fail:
	json_decref(metrics);
	json_decref(s);
	return e;
}

/* The sample on side @side closest to @sm (same workload and threads), to say what differs. */
static const struct sample *nearest(const struct samples *s, const struct sample *sm, int side)
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

bool rpt_gate_blocks(const json_t *cmp, const json_t *c)
{
	const json_t *set = json_object_get(cmp, "settings");
	const char *v = json_string_value(json_object_get(c, "verdict"));

	if (!json_is_true(json_object_get(set, "strict")) ||
	    json_is_false(json_object_get(c, "gate")) || !v)
		return false;
	if (!strcmp(v, rpt_verdict_names[RPT_INSUFFICIENT]))
		return true;
	return !strcmp(v, rpt_verdict_names[RPT_NOISY]) &&
	       !json_is_true(json_object_get(set, "allow_noisy"));
}

/* Gated comparisons, and how many of them keep a strict gate from judging. */
static size_t count_gated(const json_t *cmp, size_t *ret_blocking)
{
	const json_t *s, *m, *c;
	size_t i, j, k, n = 0, blocking = 0;

	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		if (json_is_false(json_object_get(c, "gate")))
			continue;
		n++;
		blocking += rpt_gate_blocks(cmp, c);
	}
	*ret_blocking = blocking;
	return n;
}

static size_t count_blocking(const json_t *cmp)
{
	size_t blocking;

	count_gated(cmp, &blocking);
	return blocking;
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
	e = samples_build(&s, runs, nruns, nsides, o->across);
	if (e) {
		samples_free(&s);
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
			near = nearest(&s, sm, k);
			diff = strdup("");
			if (near && diff)
				append_diff(&diff, sm->keyobj, near->keyobj, true);
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
			samples_free(&s);
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

		if (run_complete(runs[i].run))
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
	json_object_set_new(doc, "unjudged", json_integer((json_int_t)count_blocking(doc)));
	samples_free(&s);
	*ret = doc;
	return 0;
fail:
	samples_free(&s);
	json_decref(doc);
	json_decref(samples);
	json_decref(sides);
	json_decref(excluded);
	json_decref(dropped);
	return e;
}

size_t rpt_compare_count(const json_t *cmp, enum rpt_verdict v, bool gating_only)
{
	const json_t *s, *m, *c;
	size_t i, j, k, n = 0;

	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		const char *name = json_string_value(json_object_get(c, "verdict"));

		if (name && !strcmp(name, rpt_verdict_names[v]) &&
		    (!gating_only || !json_is_false(json_object_get(c, "gate"))))
			n++;
	}
	return n;
}

enum rpt_gate_status rpt_gate_status(const json_t *cmp)
{
	size_t blocking, gated = count_gated(cmp, &blocking);

	if (rpt_compare_count(cmp, RPT_REGRESSION, true))
		return RPT_GATE_REGRESSED;
	if (json_is_true(json_object_get(json_object_get(cmp, "settings"), "strict")) &&
	    (blocking || !gated))
		return RPT_GATE_UNJUDGED;
	return RPT_GATE_PASS;
}

int rpt_compare_load(const char *path, json_t **ret, char *err, size_t errlen)
{
	int r = rpt_json_load(path, RPT_COMPARE_SCHEMA, ret, err, errlen);

	if (r == 0 && !json_is_array(json_object_get(*ret, "samples"))) {
		snprintf(err, errlen, "%s: no samples array, not a comparison", path);
		json_decref(*ret);
		*ret = NULL;
		return -EPROTO;
	}
	return r;
}

/* ---- text and markdown tables ---- */

#define CELL_MAX 96

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static void side_cell(char *buf, size_t len, const json_t *st)
{
	double mean = json_number_value(json_object_get(st, "mean"));
	const json_t *ci = json_object_get(st, "ci95");
	json_int_t n = json_integer_value(json_object_get(st, "n"));
	char m[32];

	if (!n) {
		snprintf(buf, len, "- (0)");
		return;
	}
	fmt_num(m, sizeof(m), mean);
	if (n >= 2 && mean != 0)
		snprintf(buf, len, "%s ±%.1f%% (%lld)", m,
			 (json_number_value(json_array_get(ci, 1)) - mean) / fabs(mean) * 100,
			 (long long)n);
	else
		snprintf(buf, len, "%s (%lld)", m, (long long)n);
}

static void cmp_cell(char *buf, size_t len, const json_t *c, bool markdown)
{
	const char *v = str_or(json_string_value(json_object_get(c, "verdict")), "?");
	const json_t *ch = json_object_get(c, "change_pct"), *p = json_object_get(c, "p");
	bool loud = !strcmp(v, "regression") || !strcmp(v, "improvement");
	char pt[32] = "";

	if (json_is_number(p))
		snprintf(pt, sizeof(pt), " p=%.3g", json_number_value(p));
	snprintf(buf, len, "%+.1f%% %s%s%s%s%s", json_is_number(ch) ? json_number_value(ch) : 0.0,
		 markdown && loud ? "**" : "", v, markdown && loud ? "**" : "",
		 json_is_false(json_object_get(c, "gate")) ? " (not gated)" : "", pt);
}

static void print_table(FILE *out, char (*cells)[CELL_MAX], size_t rows, size_t cols, size_t nleft,
			bool markdown)
{
	size_t w[cols];

	for (size_t c = 0; c < cols; c++) {
		w[c] = 0;
		for (size_t r = 0; r < rows; r++)
			if (strlen(cells[r * cols + c]) > w[c])
				w[c] = strlen(cells[r * cols + c]);
	}
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < cols; c++) {
			if (markdown)
				fprintf(out, "| %s ", cells[r * cols + c]);
			else
				fprintf(out, c < nleft ? "%s%-*s" : "%s%*s", c ? "  " : "",
					(int)w[c], cells[r * cols + c]);
		}
		fprintf(out, markdown ? "|\n" : "\n");
		if (markdown && r == 0) {
			for (size_t c = 0; c < cols; c++)
				fprintf(out, c < nleft ? "|:---" : "|---:");
			fprintf(out, "|\n");
		}
	}
}

/*
 * One table of @names: rows the samples (and, with @metric_col, the metric), columns the
 * sides' means with their 95 % CI and n, then each side against the baseline.
 */
static void print_metric_table(FILE *out, const json_t *cmp, const json_t *names, bool metric_col,
			       bool markdown)
{
	const json_t *samples = json_object_get(cmp, "samples"),
		     *sides = json_object_get(cmp, "sides"), *s, *m, *x;
	size_t nsides = json_array_size(sides), lead = metric_col ? 2 : 1,
	       cols = lead + nsides + (nsides - 1);
	size_t rows = 1, cap = 1, i, j, n;
	char(*cells)[CELL_MAX];

	json_array_foreach(samples, i, s) cap += json_array_size(json_object_get(s, "metrics"));
	cells = calloc(cap * cols, CELL_MAX);
	if (!cells)
		return;
	snprintf(cells[0], CELL_MAX, "sample");
	if (metric_col)
		snprintf(cells[1], CELL_MAX, "metric");
	for (size_t k = 0; k < nsides; k++)
		snprintf(cells[lead + k], CELL_MAX, "%s",
			 json_string_value(json_object_get(json_array_get(sides, k), "name")));
	for (size_t k = 1; k < nsides; k++)
		snprintf(cells[lead + nsides + k - 1], CELL_MAX, "%s vs %s", cells[lead + k],
			 cells[lead]);
	json_array_foreach(names, n, x) json_array_foreach(samples, i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
	{
		char(*row)[CELL_MAX] = &cells[rows * cols];

		if (strcmp(json_string_value(json_object_get(m, "name")), json_string_value(x)))
			continue;
		snprintf(row[0], CELL_MAX, "%s", json_string_value(json_object_get(s, "label")));
		if (metric_col)
			snprintf(row[1], CELL_MAX, "%s", json_string_value(x));
		for (size_t k = 0; k < nsides; k++)
			side_cell(row[lead + k], CELL_MAX,
				  json_array_get(json_object_get(m, "sides"), k));
		for (size_t k = 1; k < nsides; k++)
			cmp_cell(row[lead + nsides + k - 1], CELL_MAX,
				 json_array_get(json_object_get(m, "comparisons"), k - 1),
				 markdown);
		rows++;
	}
	print_table(out, cells, rows, cols, lead, markdown);
	fprintf(out, "\n");
	free(cells);
}

void rpt_compare_print(const json_t *cmp, FILE *out, bool markdown)
{
	const json_t *samples = json_object_get(cmp, "samples"), *m, *s, *x;
	size_t nsides = json_array_size(json_object_get(cmp, "sides")), i, j;
	json_t *seen = json_object(), *latency = json_array();

	if (markdown) {
		fprintf(out, "### fsbench compare:");
		for (int v = 0; v < RPT_VERDICT_COUNT; v++)
			fprintf(out, " %zu %s%s", rpt_compare_count(cmp, v, false),
				rpt_verdict_names[v], v + 1 < RPT_VERDICT_COUNT ? "," : "\n\n");
	}
	/* throughput and kernel metrics: a table each, rows the samples (the seed threads' layout) */
	json_array_foreach(samples, i, s) json_array_foreach(json_object_get(s, "metrics"), j, m)
	{
		const char *n = json_string_value(json_object_get(m, "name"));
		json_t *one;

		if (json_object_get(seen, n))
			continue;
		json_object_set_new(seen, n, json_true());
		if (!strcmp(str_or(json_string_value(json_object_get(m, "kind")), ""), "latency")) {
			json_array_append_new(latency, json_string(n));
			continue;
		}
		fprintf(out,
			markdown ? "#### %s (%s, %s is better)\n\n" : "%s (%s, %s is better)\n", n,
			json_string_value(json_object_get(m, "unit")),
			json_string_value(json_object_get(m, "direction")));
		one = json_pack("[s]", n);
		print_metric_table(out, cmp, one, false, markdown);
		json_decref(one);
	}
	/* latency percentiles: one table, a row per sample and percentile */
	if (json_array_size(latency)) {
		fprintf(out, markdown ? "#### latency (us, lower is better)\n\n" :
					"latency (us, lower is better)\n");
		print_metric_table(out, cmp, latency, true, markdown);
	}
	json_array_foreach(json_object_get(cmp, "excluded"), i, x)
		fprintf(out, "%sexcluded: %s run %lld: %s\n", markdown ? "- " : "",
			json_string_value(json_object_get(x, "file")),
			(long long)json_integer_value(json_object_get(x, "run")),
			json_string_value(json_object_get(x, "reason")));
	json_array_foreach(json_object_get(cmp, "unmatched"), i, x)
		fprintf(out, "%sunmatched: %s run %lld (%s): nothing on side '%s'\n",
			markdown ? "- " : "", json_string_value(json_object_get(x, "file")),
			(long long)json_integer_value(json_object_get(x, "run")),
			json_string_value(json_object_get(x, "label")),
			json_string_value(json_object_get(x, "missing_on")));
	if (!markdown && nsides > 1) {
		fprintf(out, "verdicts:");
		for (int v = 0; v < RPT_VERDICT_COUNT; v++)
			fprintf(out, " %zu %s%s", rpt_compare_count(cmp, v, false),
				rpt_verdict_names[v], v + 1 < RPT_VERDICT_COUNT ? "," : "\n");
	}
	json_decref(seen);
	json_decref(latency);
}
