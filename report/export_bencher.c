/*
 * Bencher Metric Format exporter: {benchmark: {measure: {value, lower_value, upper_value}}}.
 * BMF has no units, so each metric goes to a measure whose slug names its unit (the README
 * lists the measures to create); latency percentiles use Bencher's built-in "latency"
 * measure (nanoseconds), one benchmark per operation and percentile, so one threshold
 * covers them all. Bounds are the log-scale 95 % CI (rpt_ci_positive): never below zero.
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Run-level metrics and their measures; values are in the result's own units (1 / def->scale). */
static const struct {
	const char *metric, *measure;
} measures[] = {
	{ .metric = "files_per_sec", .measure = "files-per-second" },
	{ .metric = "bytes_per_sec", .measure = "bytes-per-second" },
	{ .metric = "write_amplification", .measure = "write-amplification" },
	{ .metric = "dirty_max", .measure = "dirty-max-bytes" },
	{ .metric = "writeback_max", .measure = "writeback-max-bytes" },
};

static int bencher_point(const struct rpt_point *p, void *ctx)
{
	json_t *root = ctx, *bench, *m;
	char series[1024], name[1200];
	const char *measure = NULL;
	double scale = 1 / p->def->scale; /* display unit back to the result's: ns, B, B/s */

	rpt_point_series(p, series, sizeof(series));
	if (p->def->kind == RPT_KIND_LATENCY) {
		/* "fsync.p99" in us: benchmark "<series> fsync p99", measure latency in ns */
		char op[64];
		double q;

		rpt_point_op(p, op, sizeof(op), &q);
		snprintf(name, sizeof(name), "%s %s %s", series, op, strchr(p->metric, '.') + 1);
		measure = "latency";
	} else {
		snprintf(name, sizeof(name), "%s", series);
		for (size_t i = 0; i < sizeof(measures) / sizeof(measures[0]); i++)
			if (!strcmp(measures[i].metric, p->metric))
				measure = measures[i].measure;
	}
	if (!measure)
		return 0;
	bench = json_object_get(root, name);
	if (!bench) {
		bench = json_object();
		json_object_set_new(root, name, bench);
	}
	m = json_pack("{s:f}", "value", p->mean * scale);
	if (isfinite(p->ci_lo)) {
		json_object_set_new(m, "lower_value", json_real(p->ci_lo * scale));
		json_object_set_new(m, "upper_value", json_real(p->ci_hi * scale));
	}
	json_object_set_new(bench, measure, m);
	return 0;
}

static int bencher_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	json_t *root = json_object();
	int e;

	rpt_export_foreach(cmp, o, bencher_point, root);
	e = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return e || ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_bencher = {
	.name = "bencher",
	.summary = "Bencher Metric Format (BMF) JSON; bounds are the 95 % CI (log scale)",
	.write = bencher_write,
};
