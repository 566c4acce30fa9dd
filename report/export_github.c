/*
 * github-action-benchmark "customBiggerIsBetter/customSmallerIsBetter" exporter: [{name, unit,
 * value, range, extra}]. That action takes one direction per file, so CI filters with --metrics.
 */
#include "export.h"

#include <errno.h>

static int github_point(const struct rpt_point *p, void *ctx)
{
	json_t *arr = ctx;
	char name[320], range[64], extra[160];

	if (p->nsides > 1)
		snprintf(name, sizeof(name), "%s %s [%s]", p->label, p->metric, p->side);
	else
		snprintf(name, sizeof(name), "%s %s", p->label, p->metric);
	snprintf(range, sizeof(range), "± %.4g", p->n >= 2 ? p->ci_hi - p->mean : 0.0);
	snprintf(extra, sizeof(extra), "n=%lld, median=%.6g, stddev=%.4g, %s is better%s%s", p->n,
		 p->median, p->stddev, p->def->dir == RPT_HIGHER_IS_BETTER ? "higher" : "lower",
		 p->verdict ? ", verdict " : "", p->verdict ? p->verdict : "");
	json_array_append_new(arr, json_pack("{s:s,s:s,s:f,s:s,s:s}", "name", name, "unit", p->unit,
					     "value", p->mean, "range", range, "extra", extra));
	return 0;
}

static int github_write(const json_t *cmp, const struct rpt_export_opts *o, FILE *out)
{
	json_t *arr = json_array();
	int e;

	rpt_export_foreach(cmp, o, github_point, arr);
	e = json_dumpf(arr, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(arr);
	return e || ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_github = {
	.name = "github-benchmark",
	.summary = "github-action-benchmark custom JSON (name, unit, value, range)",
	.write = github_write,
};
