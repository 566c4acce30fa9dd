/* Exporters: the registry and the walk over a compare document that every exporter shares. */
#include "export.h"

#include <errno.h>
#include <fnmatch.h>
#include <string.h>

/* Machine formats first (scrapers, time series), then CI services, then lab harnesses. */
const struct rpt_exporter *const rpt_exporters[] = {
	&rpt_export_openmetrics,
	&rpt_export_influx,
	&rpt_export_bencher,
	&rpt_export_github,
	&rpt_export_kcidb,
	&rpt_export_lava,
	NULL,
};

const struct rpt_exporter *rpt_exporter_find(const char *name)
{
	for (int i = 0; rpt_exporters[i]; i++)
		if (!strcmp(rpt_exporters[i]->name, name))
			return rpt_exporters[i];
	return NULL;
}

void rpt_slug(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 1 < len; in++) {
		char c = *in;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-';

		if (ok)
			out[o++] = c;
		else if (o && out[o - 1] != '_')
			out[o++] = '_';
	}
	while (o && out[o - 1] == '_')
		o--;
	out[o] = 0;
}

static bool wanted(const char *filter, const char *metric)
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

		if (!name || !wanted(o ? o->metrics : NULL, name))
			continue;
		json_array_foreach(json_object_get(m, "sides"), k, st)
		{
			const json_t *c = NULL, *ci = json_object_get(st, "ci95");
			struct rpt_point p = {
				.sample = s,
				.label = json_string_value(json_object_get(s, "label")),
				.workload = json_string_value(json_object_get(s, "workload")),
				.threads = json_integer_value(json_object_get(s, "threads")),
				.metric = name,
				.unit = json_string_value(json_object_get(m, "unit")),
				.def = rpt_metric_lookup(name),
				.side = json_string_value(json_object_get(st, "side")),
				.nsides = nsides,
				.n = json_integer_value(json_object_get(st, "n")),
				.mean = json_number_value(json_object_get(st, "mean")),
				.median = json_number_value(json_object_get(st, "median")),
				.stddev = json_number_value(json_object_get(st, "stddev")),
				.ci_lo = json_number_value(json_array_get(ci, 0)),
				.ci_hi = json_number_value(json_array_get(ci, 1)),
				.created = json_string_value(json_object_get(cmp, "created")),
			};
			int e;

			if (!p.n || !p.def || !p.label || !p.side)
				continue;
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
