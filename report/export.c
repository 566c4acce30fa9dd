/* Exporters: the registry and the walk over a compare document that every exporter shares. */
#include "report/export.h"
#include "report/runset.h"
#include "report/stats.h"
#include "model/schema.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Machine formats first (scrapers, time series, tables), then CI services, then lab
 * harnesses.
 *
 * Adding an exporter:
 *  1. report/export_<name>.c with `const struct rpt_exporter rpt_export_<name>` (export.h:
 *     name, summary, an optional check before any output, write): it reads the typed
 *     comparison, and rpt_export_foreach() walks its points.
 *  2. Its extern in report/export.h and one line below, in its group.
 *  3. The file in report/meson.build.
 *  4. Nothing else: `fsbench export --format`, its --help and man page list this table. Its
 *     tests: tests/unit/test-export.c, tests/integration/export-formats.sh.
 */
const struct rpt_exporter *const rpt_exporters[] = {
	&rpt_export_openmetrics,
	&rpt_export_prometheus,
	&rpt_export_influx,
	&rpt_export_csv,
	&rpt_export_bencher,
	&rpt_export_github_bigger,
	&rpt_export_github_smaller,
	&rpt_export_kcidb,
	&rpt_export_lava,
	&rpt_export_junit,
	NULL,
};

const struct rpt_exporter *rpt_exporter_find(const char *name)
{
	for (int i = 0; rpt_exporters[i]; i++)
		if (!strcmp(rpt_exporters[i]->name, name))
			return rpt_exporters[i];
	return NULL;
}

void rpt_slug(const char *in, char sep, char *out, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	for (; *in && o + 1 < len; in++) {
		char c = *in;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == sep;

		if (ok)
			out[o++] = c;
		else if (o && out[o - 1] != sep)
			out[o++] = sep;
	}
	while (o && out[o - 1] == sep)
		o--;
	out[o] = 0;
}

void rpt_slug_shorten(char *s, size_t len, char sep)
{
	uint32_t h = 2166136261u; /* FNV-1a of the whole name, before it is cut */
	size_t n = strlen(s), tail;
	char keep;

	if (n <= len)
		return;
	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	if (len < 10)
		len = 10;
	/* the end is kept too: it says which side ("side_candidate") or repetition it is */
	tail = (len - 9) / 3 < 24 ? (len - 9) / 3 : 24;
	memmove(s + len - tail, s + n - tail, tail + 1);
	keep = s[len - tail]; /* where snprintf puts its NUL */
	snprintf(s + len - tail - 9, 10, "%c%08x", sep, (unsigned)h);
	s[len - tail] = keep;
}

bool rpt_metric_wanted(const char *filter, const char *metric)
{
	char buf[512], *save = NULL, *tok;

	if (!filter || !*filter)
		return true;
	snprintf(buf, sizeof(buf), "%s", filter);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!fnmatch(tok, metric, 0))
			return true;
	return false;
}

int rpt_export_metrics_check(const struct rpt_cmp *cmp, const char *filter, char *err,
			     size_t errlen)
{
	size_t len;

	if (!filter)
		return 0;
	for (size_t i = 0; i < cmp->nsamples; i++)
		for (size_t j = 0; j < cmp->samples[i].nmetrics; j++)
			if (rpt_metric_wanted(filter, cmp->samples[i].metrics[j].name))
				return 0;
	snprintf(err, errlen, "--metrics '%s' matches no metric of the input; it has:", filter);
	for (size_t j = 0; cmp->nsamples && j < cmp->samples[0].nmetrics; j++) {
		const char *name = cmp->samples[0].metrics[j].name;

		len = strlen(err);
		if (len + strlen(name) + 8 < errlen)
			snprintf(err + len, errlen - len, " %s", name);
	}
	return -EINVAL;
}

int rpt_export_input(const char *const *paths, size_t n, struct rpt_cmp **ret, char *err,
		     size_t errlen)
{
	struct rpt_runset rs = { 0 };
	struct rpt_compare_opts o;
	const char *side[] = { "result" };
	int e;

	*ret = NULL;
	rpt_compare_opts_init(&o);
	e = rpt_runset_load(&rs, paths, NULL, n, err, errlen);
	if (!e && !rs.compare)
		e = rpt_runset_judge(&rs, side, 1, &o, ret, err, errlen);
	else if (!e) {
		/* the saved comparison's structs, read once by rpt_runset_load */
		*ret = rs.cmp;
		rs.cmp = NULL;
	}
	rpt_runset_free(&rs);
	return e;
}

const char *const rpt_label_names[] = {
	"workload", "threads", "fs", "mount_options", "knob_set", "device_model",
	"kernel",   "host",    NULL,
};

const char *rpt_point_label(const struct rpt_point *p, const char *name)
{
	const char *v;

	if (!strcmp(name, "workload"))
		v = p->workload;
	else if (!strcmp(name, "threads"))
		v = p->threads_str;
	else
		v = json_string_value(json_object_get(p->labels, name));
	/* mount options a suite left empty are the filesystem's defaults */
	if (v && !*v && !strcmp(name, "mount_options"))
		return "defaults";
	return v && *v ? v : "unknown";
}

void rpt_point_op(const struct rpt_point *p, char *buf, size_t len, double *ret_quantile)
{
	const char *dot = strchr(p->metric, '.');

	if (!dot) {
		snprintf(buf, len, "%s", p->metric);
		*ret_quantile = NAN;
		return;
	}
	snprintf(buf, len, "%.*s", (int)(dot - p->metric), p->metric);
	*ret_quantile = strtod(dot + 2, NULL) / 100;
}

double rpt_point_base(const struct rpt_point *p, double v)
{
	return rpt_metric_base(p->def, v);
}

const char *rpt_point_base_unit(const struct rpt_point *p)
{
	return rpt_metric_base_unit(p->def);
}

void rpt_point_series(const struct rpt_point *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s [fs=%s mount=%s knobs=%s", p->label,
			 rpt_point_label(p, "fs"), rpt_point_label(p, "mount_options"),
			 rpt_point_label(p, "knob_set"));

	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s%s]", p->nsides > 1 ? " side=" : "",
			 p->nsides > 1 ? p->side : "");
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	/* a separator, so ("ab", "c") and ("a", "bc") differ */
	h ^= 0xff;
	return h * 0x100000001b3ULL;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

uint64_t rpt_hash_str(const char *s)
{
	return fnv1a(FNV_OFFSET, s);
}

static uint64_t fnv1a_json(uint64_t h, const json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY |
					    JSON_REAL_PRECISION(17)) :
		      NULL;

	h = fnv1a(h, s ? s : "null");
	free(s);
	return h;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The values sorted, so the order the result files were given in does not matter. */
static uint64_t fnv1a_values(uint64_t h, const double *values, size_t n)
{
	double *v = calloc(n + 1, sizeof(*v));
	char buf[32];

	if (!v)
		return h;
	for (size_t i = 0; i < n; i++)
		v[i] = values[i];
	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%.17g", v[i]);
		h = fnv1a(h, buf);
	}
	free(v);
	return h;
}

uint64_t rpt_point_hash(const struct rpt_point *p)
{
	uint64_t h = FNV_OFFSET;

	h = fnv1a_json(h, p->sample->key);
	h = fnv1a(h, p->metric);
	h = fnv1a_json(h, p->labels);
	h = fnv1a(h, p->start_time);
	return fnv1a_values(h, p->values, (size_t)p->n);
}

long long rpt_time_parse(const char *rfc3339)
{
	struct tm tm = { 0 };
	const char *end;

	if (!rfc3339)
		return -1;
	end = strptime(rfc3339, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return -1;
	return (long long)timegm(&tm);
}

/* The context entry of side @k (by position, checked by name); NULL in older documents. */
static const json_t *side_context(const struct rpt_cmp_sample *sample, size_t k, const char *side)
{
	const json_t *c = json_array_get(sample->context, k);
	const char *name = json_string_value(json_object_get(c, "side"));

	return name && side && !strcmp(name, side) ? c : NULL;
}

/* @label as a standalone run's: a suite cell "FS/.../WORKLOAD/t=N" without FS, blanks for '/'. */
static void export_label(const char *label, const char *fs, char *buf, size_t len)
{
	size_t fl = fs ? strlen(fs) : 0;

	if (!strchr(label, '/') || strchr(label, ' ')) {
		snprintf(buf, len, "%s", label);
		return;
	}
	if (fl && !strncmp(label, fs, fl) && label[fl] == '/')
		label += fl + 1;
	snprintf(buf, len, "%s", label);
	for (char *c = buf; *c; c++)
		if (*c == '/')
			*c = ' ';
}

/* A side pooled from several result files: its own time and tag (rpt_point.merged). */
static void export_merged(struct rpt_point *p, const json_t *sc)
{
	const json_t *set = json_object_get(sc, "results"), *x;
	const char *last = json_string_value(json_object_get(sc, "last_start_time"));
	uint64_t h = FNV_OFFSET;
	size_t i;

	if (json_array_size(set) < 2)
		return;
	json_array_foreach(set, i, x) h = fnv1a(h, json_string_value(x));
	snprintf(p->merged_buf, sizeof(p->merged_buf), "%zu results, %08x", json_array_size(set),
		 (unsigned)(h >> 32));
	p->merged = p->merged_buf;
	if (last)
		p->start_time = last;
}

int rpt_export_foreach(const struct rpt_cmp *cmp, const struct rpt_export_opts *o,
		       int (*fn)(const struct rpt_point *p, void *ctx), void *ctx)
{
	for (size_t i = 0; i < cmp->nsamples; i++)
		for (size_t j = 0; j < cmp->samples[i].nmetrics; j++) {
			const struct rpt_cmp_sample *s = &cmp->samples[i];
			const struct rpt_cmp_metric *m = &s->metrics[j];

			if (!rpt_metric_wanted(o ? o->metrics : NULL, m->name))
				continue;
			for (int k = 0; k < cmp->nsides; k++) {
				const struct rpt_cmp_side *st = &m->sides[k];
				const char *side = cmp->side_names[k];
				const json_t *sc = side_context(s, (size_t)k, side);
				const char *start =
					json_string_value(json_object_get(sc, "start_time"));
				struct rpt_point p = {
					.sample = s,
					.label = s->label,
					.workload = json_string_value(s->workload),
					.threads = json_integer_value(s->threads),
					.metric = m->name,
					.unit = m->unit,
					.def = rpt_metric_lookup(m->name),
					.side = side,
					.nsides = cmp->nsides,
					.n = (long long)st->n,
					.mean = st->st.mean,
					.median = st->st.median,
					.stddev = st->st.stddev,
					.values = st->values,
					.reps = st->reps,
					.start_time = start ? start : cmp->created,
					.labels = json_object_get(sc, "labels"),
					.ops = json_object_get(sc, MDL_KEY_OPS),
				};
				int e;

				if (!p.n || !p.def || !p.label)
					continue;
				export_label(p.label, rpt_point_label(&p, "fs"), p.label_buf,
					     sizeof(p.label_buf));
				p.label = p.label_buf;
				export_merged(&p, sc);
				snprintf(p.threads_str, sizeof(p.threads_str), "%lld", p.threads);
				/*
				 * rates, latencies and sizes cannot be negative: the interval must
				 * not be either; one run has none (NAN), and a zero-width one in
				 * its place would read as certainty
				 */
				if (p.n < 2 || rpt_ci_positive(p.mean, p.stddev, (size_t)p.n,
							       &p.ci_lo, &p.ci_hi))
					p.ci_lo = p.ci_hi = NAN;
				if (k > 0) {
					const struct rpt_cmp_judged *c = &m->judged[k - 1];

					p.verdict = rpt_verdict_names[c->verdict];
					p.gated = c->rule.gate && !c->not_gated;
					/* no relative change (a zero baseline) exports as 0 */
					p.change_pct = c->stats && isfinite(c->change_pct) ?
							       c->change_pct :
							       0;
				}
				e = fn(&p, ctx);
				if (e)
					return e;
			}
		}
	return 0;
}
