/* Exporters: the registry and the walk over a compare document that every exporter shares. */
#include "report/export.h"
#include "report/stats.h"
#include "model/schema.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Machine formats first (scrapers, time series), then CI services, then lab harnesses. */
const struct rpt_exporter *const rpt_exporters[] = {
	&rpt_export_openmetrics,    &rpt_export_influx,
	&rpt_export_bencher,	    &rpt_export_github_bigger,
	&rpt_export_github_smaller, &rpt_export_kcidb,
	&rpt_export_lava,	    NULL,
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
	return v * p->def->om_scale;
}

const char *rpt_point_base_unit(const struct rpt_point *p)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{ .suffix = "_seconds", .unit = "s" },
		{ .suffix = "_files_per_second", .unit = "files/s" },
		{ .suffix = "_bytes_per_second", .unit = "B/s" },
		{ .suffix = "_bytes", .unit = "B" },
		{ .suffix = "_ratio", .unit = "x" },
	};
	size_t len = strlen(p->def->om_name);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t sl = strlen(units[i].suffix);

		if (len >= sl && !strcmp(p->def->om_name + len - sl, units[i].suffix))
			return units[i].unit;
	}
	return p->unit;
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
static uint64_t fnv1a_values(uint64_t h, const json_t *values)
{
	size_t n = json_array_size(values);
	double *v = calloc(n + 1, sizeof(*v));
	char buf[32];

	if (!v)
		return fnv1a_json(h, values);
	for (size_t i = 0; i < n; i++)
		v[i] = json_number_value(json_array_get(values, i));
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

	h = fnv1a_json(h, json_object_get(p->sample, "key"));
	h = fnv1a(h, p->metric);
	h = fnv1a_json(h, p->labels);
	h = fnv1a(h, p->start_time);
	return fnv1a_values(h, p->values);
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
static const json_t *side_context(const json_t *sample, size_t k, const char *side)
{
	const json_t *c = json_array_get(json_object_get(sample, "context"), k);
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

int rpt_export_foreach(const json_t *cmp, const struct rpt_export_opts *o,
		       int (*fn)(const struct rpt_point *p, void *ctx), void *ctx)
{
	const json_t *s, *m, *st;
	size_t i, j, k;
	int nsides = (int)json_array_size(json_object_get(cmp, "sides"));

	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
	{
		const char *name = json_string_value(json_object_get(m, "name"));

		if (!name || !rpt_metric_wanted(o ? o->metrics : NULL, name))
			continue;
		json_array_foreach(json_object_get(m, "sides"), k, st)
		{
			const char *side = json_string_value(json_object_get(st, "side"));
			const json_t *c = NULL, *sc = side_context(s, k, side);
			const char *start = json_string_value(json_object_get(sc, "start_time"));
			struct rpt_point p = {
				.sample = s,
				.label = json_string_value(json_object_get(s, "label")),
				.workload = json_string_value(json_object_get(s, "workload")),
				.threads = json_integer_value(json_object_get(s, "threads")),
				.metric = name,
				.unit = json_string_value(json_object_get(m, "unit")),
				.def = rpt_metric_lookup(name),
				.side = side,
				.nsides = nsides,
				.n = json_integer_value(json_object_get(st, "n")),
				.mean = json_number_value(json_object_get(st, "mean")),
				.median = json_number_value(json_object_get(st, "median")),
				.stddev = json_number_value(json_object_get(st, "stddev")),
				.values = json_object_get(st, "values"),
				.start_time =
					start ? start :
						json_string_value(json_object_get(cmp, "created")),
				.labels = json_object_get(sc, "labels"),
				.ops = json_object_get(sc, MDL_KEY_OPS),
			};
			int e;

			if (!p.n || !p.def || !p.label || !p.side)
				continue;
			export_label(p.label, rpt_point_label(&p, "fs"), p.label_buf,
				     sizeof(p.label_buf));
			p.label = p.label_buf;
			export_merged(&p, sc);
			snprintf(p.threads_str, sizeof(p.threads_str), "%lld", p.threads);
			/* rates, latencies and sizes cannot be negative: the interval must not be either */
			if (rpt_ci_positive(p.mean, p.stddev, (size_t)p.n, &p.ci_lo, &p.ci_hi))
				p.ci_lo = p.ci_hi = p.mean;
			if (k > 0)
				c = json_array_get(json_object_get(m, "comparisons"), k - 1);
			if (c) {
				p.verdict = json_string_value(json_object_get(c, "verdict"));
				p.change_pct = json_number_value(json_object_get(c, "change_pct"));
			}
			e = fn(&p, ctx);
			if (e)
				return e;
		}
	}
	return 0;
}
