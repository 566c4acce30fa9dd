/* OpenMetrics (Prometheus text) exporter: one gauge family per metric in base units, then "# EOF". */
#include "export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Families must be contiguous, so the document is walked once per family. */
struct om_ctx {
	FILE *out;
	const char *family;
	const char *families[64];
	int nfamilies;
	bool regression_pass;
};

static void om_label(FILE *out, const char *name, const char *v, bool first)
{
	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(out, "\\%c", *v);
		else if (*v == '\n')
			fprintf(out, "\\n");
		else
			fputc(*v, out);
	}
	fputc('"', out);
}

static void om_labels(FILE *out, const struct rpt_point *p)
{
	char t[32];

	snprintf(t, sizeof(t), "%lld", p->threads);
	fputc('{', out);
	om_label(out, "sample", p->label, true);
	om_label(out, "workload", p->workload, false);
	om_label(out, "threads", t, false);
	om_label(out, "side", p->side, false);
}

static int om_collect(const struct rpt_point *p, void *ctx)
{
	struct om_ctx *c = ctx;

	for (int i = 0; i < c->nfamilies; i++)
		if (!strcmp(c->families[i], p->def->om_name))
			return 0;
	if (c->nfamilies < 64)
		c->families[c->nfamilies++] = p->def->om_name;
	return 0;
}

static int om_point(const struct rpt_point *p, void *ctx)
{
	struct om_ctx *c = ctx;

	if (c->regression_pass) {
		if (!p->verdict)
			return 0;
		fprintf(c->out, "fsbench_regression");
		om_labels(c->out, p);
		om_label(c->out, "metric", p->metric, false);
		fprintf(c->out, "} %d\n", !strcmp(p->verdict, "regression"));
		return 0;
	}
	if (strcmp(p->def->om_name, c->family))
		return 0;
	fprintf(c->out, "%s", c->family);
	om_labels(c->out, p);
	if (p->def->kind == RPT_KIND_LATENCY) {
		char op[64], q[32];
		const char *dot = strchr(p->metric, '.');

		snprintf(op, sizeof(op), "%.*s", (int)(dot - p->metric), p->metric);
		snprintf(q, sizeof(q), "%g", strtod(dot + 2, NULL) / 100);
		om_label(c->out, "op", op, false);
		om_label(c->out, "quantile", q, false);
	}
	fprintf(c->out, "} %.10g\n", p->mean * p->def->om_scale);
	return 0;
}

static int om_write(const json_t *cmp, const struct rpt_export_opts *o, FILE *out)
{
	struct om_ctx c = { .out = out };
	bool compared = json_array_size(json_object_get(cmp, "sides")) > 1;

	rpt_export_foreach(cmp, o, om_collect, &c);
	for (int i = 0; i < c.nfamilies; i++) {
		c.family = c.families[i];
		fprintf(out, "# TYPE %s gauge\n", c.family);
		fprintf(out, "# HELP %s fsbench: mean over the sample's repetitions%s\n", c.family,
			strstr(c.family, "latency") ? " of the per-run percentile" : "");
		rpt_export_foreach(cmp, o, om_point, &c);
	}
	if (compared) {
		c.regression_pass = true;
		fprintf(out, "# TYPE fsbench_regression gauge\n");
		fprintf(out,
			"# HELP fsbench_regression 1 when the metric regressed against the baseline side\n");
		rpt_export_foreach(cmp, o, om_point, &c);
	}
	fprintf(out, "# EOF\n");
	return ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_openmetrics = {
	.name = "openmetrics",
	.summary = "OpenMetrics / Prometheus text exposition, ending in # EOF",
	.write = om_write,
};
