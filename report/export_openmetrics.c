/*
 * OpenMetrics (Prometheus text) exporters, in base units: a gauge family per run-level metric,
 * latency as one summary family (quantiles, _sum, _count per operation), and
 * fsbench_regression (judged metrics only) and fsbench_verdict when there are sides to
 * compare. Families and each summary's samples are contiguous, as the format requires.
 *
 * Two dialects, because their consumers refuse each other's: "openmetrics" is OpenMetrics
 * 1.0 (# UNIT for every family whose name ends in a unit, fsbench_verdict a stateset, # EOF),
 * which Prometheus scrapes and backfills and prometheus_client parses; "prometheus" is the
 * text format 0.0.4 that node_exporter's textfile collector and `promtool check metrics`
 * read, which has no stateset type: there fsbench_verdict is a gauge with a verdict label.
 */
#include "report/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct om_points {
	struct rpt_point *v;
	size_t n;
};

static int om_collect(const struct rpt_point *p, void *ctx)
{
	struct om_points *c = ctx;
	struct rpt_point *nv = realloc(c->v, (c->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	c->v = nv;
	c->v[c->n++] = *p;
	return 0;
}

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

/* "{sample=...,side=...,<rpt_label_names>...": the caller adds its own labels and the brace. */
static void om_labels(FILE *out, const struct rpt_point *p)
{
	fputc('{', out);
	om_label(out, "sample", p->label, true);
	om_label(out, "side", p->side, false);
	for (int i = 0; rpt_label_names[i]; i++)
		om_label(out, rpt_label_names[i], rpt_point_label(p, rpt_label_names[i]), false);
	if (p->merged)
		om_label(out, "merged", p->merged, false);
}

/* Whether @verdict is a judgement (regression or not) rather than "not judged". */
static bool om_judged(const char *verdict)
{
	return !strcmp(verdict, "regression") || !strcmp(verdict, "improvement") ||
	       !strcmp(verdict, "unchanged");
}

/* " VALUE[ TIMESTAMP]\n" closing a sample line: seconds since the epoch, as OpenMetrics has it. */
static void om_value(FILE *out, const char *fmt_value, double v, const struct rpt_point *p,
		     const struct rpt_export_opts *o)
{
	long long ts = o->timestamps ? rpt_time_parse(p->start_time) : -1;

	fprintf(out, fmt_value, v);
	if (ts >= 0)
		fprintf(out, " %lld", ts);
	fputc('\n', out);
}

static bool same_op(const struct rpt_point *a, const struct rpt_point *b)
{
	char oa[64], ob[64];
	double q;

	rpt_point_op(a, oa, sizeof(oa), &q);
	rpt_point_op(b, ob, sizeof(ob), &q);
	return a->sample == b->sample && !strcmp(a->side, b->side) && !strcmp(oa, ob);
}

/* Every quantile of one (sample, side, op), then its _sum and _count; marks them @done. */
static void om_summary(FILE *out, const struct om_points *c, size_t first, bool *done,
		       const struct rpt_export_opts *o)
{
	const struct rpt_point *p = &c->v[first];
	const char *fam = p->def->om_name;
	const json_t *calls;
	char op[64];
	double q;

	rpt_point_op(p, op, sizeof(op), &q);
	for (size_t j = first; j < c->n; j++) {
		const struct rpt_point *x = &c->v[j];
		char qs[32];

		if (done[j] || x->def->kind != RPT_KIND_LATENCY || !same_op(p, x))
			continue;
		done[j] = true;
		rpt_point_op(x, op, sizeof(op), &q);
		snprintf(qs, sizeof(qs), "%g", q);
		fprintf(out, "%s", fam);
		om_labels(out, x);
		om_label(out, "op", op, false);
		om_label(out, "quantile", qs, false);
		om_value(out, "} %.10g", rpt_point_base(x, x->mean), x, o);
	}
	calls = json_object_get(p->ops, op);
	if (!json_is_object(calls))
		return;
	fprintf(out, "%s_sum", fam);
	om_labels(out, p);
	om_label(out, "op", op, false);
	om_value(out, "} %.10g",
		 (double)json_integer_value(json_object_get(calls, "sum_ns")) * 1e-9, p, o);
	fprintf(out, "%s_count", fam);
	om_labels(out, p);
	om_label(out, "op", op, false);
	om_value(out, "} %.0f", (double)json_integer_value(json_object_get(calls, "count")), p, o);
}

/* A family's metadata; @unit (OpenMetrics only, NULL: none) must be the name's suffix. */
static void om_help(FILE *out, const char *fam, const char *type, const char *unit,
		    const char *help)
{
	fprintf(out, "# TYPE %s %s\n", fam, type);
	if (unit)
		fprintf(out, "# UNIT %s %s\n", fam, unit);
	fprintf(out, "# HELP %s %s\n", fam, help);
}

/*
 * fsbench_verdict as an OpenMetrics stateset: per compared metric one sample per verdict,
 * labelled with the family's own name as the format requires, 1 for the judge's and 0 for
 * every other; so a dashboard can count "not judged" as readily as "regression".
 */
static void om_verdict_stateset(FILE *out, const struct om_points *c,
				const struct rpt_export_opts *o)
{
	om_help(out, "fsbench_verdict", "stateset", NULL,
		"the judge's verdict of the metric against the baseline side: regression, improvement, unchanged, or one that is no judgement (noisy, insufficient, not_proven)");
	for (size_t j = 0; j < c->n; j++) {
		const struct rpt_point *p = &c->v[j];

		if (!p->verdict)
			continue;
		for (int v = 0; v < RPT_VERDICT_COUNT; v++) {
			fprintf(out, "fsbench_verdict");
			om_labels(out, p);
			om_label(out, "metric", p->metric, false);
			om_label(out, "fsbench_verdict", rpt_verdict_names[v], false);
			om_value(out, "} %.0f",
				 strcmp(p->verdict, rpt_verdict_names[v]) ? 0.0 : 1.0, p, o);
		}
	}
}

/* fsbench_verdict for text format 0.0.4, which has no stateset: a gauge, 1 per verdict. */
static void om_verdict_gauge(FILE *out, const struct om_points *c, const struct rpt_export_opts *o)
{
	om_help(out, "fsbench_verdict", "gauge", NULL,
		"1 for the judge's verdict of the metric against the baseline side (label verdict: regression, improvement, unchanged, or one that is not a judgement: insufficient, noisy, ...)");
	for (size_t j = 0; j < c->n; j++) {
		const struct rpt_point *p = &c->v[j];

		if (!p->verdict)
			continue;
		fprintf(out, "fsbench_verdict");
		om_labels(out, p);
		om_label(out, "metric", p->metric, false);
		om_label(out, "verdict", p->verdict, false);
		om_value(out, "} %.0f", 1.0, p, o);
	}
}

/* @strict: OpenMetrics 1.0 (# UNIT, a stateset verdict); else text format 0.0.4. */
static int om_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out,
		    bool strict)
{
	struct om_points c = { 0 };
	bool compared = cmp->nsides > 1, *done;
	int e = rpt_export_foreach(cmp, o, om_collect, &c);

	/* the copies' strings that lived in the points' own buffers: point them at the copies' */
	for (size_t i = 0; i < c.n; i++) {
		c.v[i].label = c.v[i].label_buf;
		if (c.v[i].merged)
			c.v[i].merged = c.v[i].merged_buf;
	}
	done = calloc(c.n + 1, sizeof(*done));
	if (e || !done) {
		free(c.v);
		free(done);
		return e ? e : -ENOMEM;
	}
	/* one family at a time, in the order the document first mentions them */
	for (size_t i = 0; i < c.n; i++) {
		const char *fam = c.v[i].def->om_name;
		const char *unit = strict ? rpt_metric_om_unit(c.v[i].def) : NULL;
		bool latency = c.v[i].def->kind == RPT_KIND_LATENCY;

		if (done[i])
			continue;
		if (latency)
			om_help(out, fam, "summary", unit,
				"fsbench: per operation, each quantile is the mean over the sample's repetitions of the run's percentile; _sum and _count cover every call of those runs");
		else
			om_help(out, fam, "gauge", unit,
				"fsbench: mean over the sample's repetitions");
		for (size_t j = i; j < c.n; j++) {
			const struct rpt_point *p = &c.v[j];

			if (done[j] || strcmp(p->def->om_name, fam))
				continue;
			if (latency) {
				om_summary(out, &c, j, done, o);
				continue;
			}
			done[j] = true;
			fprintf(out, "%s", fam);
			om_labels(out, p);
			om_value(out, "} %.10g", rpt_point_base(p, p->mean), p, o);
		}
	}
	if (compared) {
		/*
		 * "Not judged" (insufficient, noisy, cannot judge) is no answer, and a 0 would
		 * read as "no regression": fsbench_regression has only judged metrics, and
		 * fsbench_verdict says for every compared metric what the judge said.
		 */
		om_help(out, "fsbench_regression", "gauge", NULL,
			"1 when the metric regressed against the baseline side, 0 when judged not to; absent when not judged (see fsbench_verdict)");
		for (size_t j = 0; j < c.n; j++) {
			const struct rpt_point *p = &c.v[j];

			if (!p->verdict || !om_judged(p->verdict))
				continue;
			fprintf(out, "fsbench_regression");
			om_labels(out, p);
			om_label(out, "metric", p->metric, false);
			om_value(out, "} %.0f", !strcmp(p->verdict, "regression") ? 1.0 : 0.0, p,
				 o);
		}
		if (strict)
			om_verdict_stateset(out, &c, o);
		else
			om_verdict_gauge(out, &c, o);
	}
	fprintf(out, "# EOF\n");
	free(c.v);
	free(done);
	return ferror(out) ? -EIO : 0;
}

static int om_write_strict(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	return om_write(cmp, o, out, true);
}

static int om_write_text(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	return om_write(cmp, o, out, false);
}

const struct rpt_exporter rpt_export_openmetrics = {
	.name = "openmetrics",
	.summary = "OpenMetrics 1.0: gauges and latency summaries with # UNIT, the verdict as a "
		   "stateset, # EOF (Prometheus scrape and backfill)",
	.write = om_write_strict,
};

const struct rpt_exporter rpt_export_prometheus = {
	.name = "prometheus",
	.summary = "Prometheus text 0.0.4 for node_exporter's textfile collector: as openmetrics, "
		   "the verdict a gauge with a verdict label",
	.write = om_write_text,
};
