/*
 * github-action-benchmark exporters: [{name, unit, value, range, extra}], values in base units
 * (rpt_point_base_unit). The action reads one direction per file (tool customBiggerIsBetter
 * or customSmallerIsBetter), so github-bigger and github-smaller each keep the metrics of
 * their direction. (A github-benchmark format holding both refused every result, since
 * every result has both directions: it is gone.)
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <string.h>

enum gh_dir { GH_BIGGER, GH_SMALLER };

struct gh_ctx {
	json_t *arr;
	enum gh_dir dir;
};

static bool gh_keeps(enum gh_dir dir, const struct rpt_point *p)
{
	if (dir == GH_BIGGER)
		return p->def->dir == RPT_HIGHER_IS_BETTER;
	return p->def->dir == RPT_LOWER_IS_BETTER;
}

static int gh_point(const struct rpt_point *p, void *ctx)
{
	struct gh_ctx *c = ctx;
	char series[1024], name[1200], range[96], extra[2048];
	size_t n;

	if (!gh_keeps(c->dir, p))
		return 0;
	rpt_point_series(p, series, sizeof(series));
	snprintf(name, sizeof(name), "%s %s", series, p->metric);
	if (isfinite(p->ci_lo))
		snprintf(range, sizeof(range), "95%% CI %.6g .. %.6g", rpt_point_base(p, p->ci_lo),
			 rpt_point_base(p, p->ci_hi));
	else /* no interval (one run): say why there is no range */
		snprintf(range, sizeof(range), "n=%lld", p->n);
	/* the chart's tooltip: every label, so a point can be told apart without the JSON */
	n = (size_t)snprintf(extra, sizeof(extra), "n=%lld, median=%.6g, stddev=%.4g, %s is better",
			     p->n, rpt_point_base(p, p->median), rpt_point_base(p, p->stddev),
			     p->def->dir == RPT_HIGHER_IS_BETTER ? "higher" : "lower");
	for (int i = 0; rpt_label_names[i] && n < sizeof(extra); i++)
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, "\n%s=%s", rpt_label_names[i],
				      rpt_point_label(p, rpt_label_names[i]));
	if (n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, "\nstarted=%s",
				      p->start_time ? p->start_time : "unknown");
	if (json_object_get(p->labels, "mount_requested") && n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, "\nmount_requested=%s",
				      rpt_point_label(p, "mount_requested"));
	if (p->merged && n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, "\nmerged=%s", p->merged);
	if (p->verdict && n < sizeof(extra))
		snprintf(extra + n, sizeof(extra) - n, "\nverdict=%s (%+.1f %%)", p->verdict,
			 p->change_pct);
	json_array_append_new(c->arr,
			      json_pack("{s:s,s:s,s:f,s:s,s:s}", "name", name, "unit",
					rpt_point_base_unit(p), "value", rpt_point_base(p, p->mean),
					"range", range, "extra", extra));
	return 0;
}

static int gh_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out,
		    enum gh_dir dir)
{
	struct gh_ctx c = { .arr = json_array(), .dir = dir };
	int e;

	rpt_export_foreach(cmp, o, gh_point, &c);
	e = json_dumpf(c.arr, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(c.arr);
	return e || ferror(out) ? -EIO : 0;
}

static int gh_write_bigger(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	return gh_write(cmp, o, out, GH_BIGGER);
}

static int gh_write_smaller(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	return gh_write(cmp, o, out, GH_SMALLER);
}

const struct rpt_exporter rpt_export_github_bigger = {
	.name = "github-bigger",
	.summary = "github-action-benchmark customBiggerIsBetter: throughput metrics only",
	.write = gh_write_bigger,
};

const struct rpt_exporter rpt_export_github_smaller = {
	.name = "github-smaller",
	.summary = "github-action-benchmark customSmallerIsBetter: latency and kernel metrics",
	.write = gh_write_smaller,
};
