/* KCIDB v5.3 exporter: a tests[] entry per value, status DONE with number {value, unit}. */
#include "export.h"

#include <errno.h>
#include <string.h>

struct kcidb_ctx {
	json_t *tests;
	const char *build_id;
};

static int kcidb_point(const struct rpt_point *p, void *ctx)
{
	struct kcidb_ctx *c = ctx;
	char label[256], metric[96], side[96], path[512], id[768];
	json_t *t, *misc;

	rpt_slug(p->label, label, sizeof(label));
	rpt_slug(p->metric, metric, sizeof(metric));
	rpt_slug(p->side, side, sizeof(side));
	/* path components are [a-zA-Z0-9_-]+ joined by dots (the schema's "path" pattern) */
	if (p->nsides > 1)
		snprintf(path, sizeof(path), "fsbench.%s.%s.%s", label[0] ? label : "run", metric,
			 side);
	else
		snprintf(path, sizeof(path), "fsbench.%s.%s", label[0] ? label : "run", metric);
	snprintf(id, sizeof(id), "fsbench:%s:%s", p->created ? p->created : "", path);
	misc = json_pack("{s:I,s:f,s:f,s:f,s:s,s:s}", "n", (json_int_t)p->n, "median", p->median,
			 "ci95_lo", p->ci_lo, "ci95_hi", p->ci_hi, "direction",
			 p->def->dir == RPT_HIGHER_IS_BETTER ? "higher" : "lower", "sample",
			 p->label);
	if (p->verdict) {
		json_object_set_new(misc, "verdict", json_string(p->verdict));
		json_object_set_new(misc, "change_pct", json_real(p->change_pct));
	}
	t = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:f,s:s},s:o}", "id", id, "build_id", c->build_id,
		      "origin", "fsbench", "path", path, "status", "DONE", "number", "value",
		      p->mean, "unit", p->unit, "misc", misc);
	if (p->created)
		json_object_set_new(t, "start_time", json_string(p->created));
	json_array_append_new(c->tests, t);
	return 0;
}

static int kcidb_write(const json_t *cmp, const struct rpt_export_opts *o, FILE *out)
{
	struct kcidb_ctx c = { .tests = json_array(),
			       .build_id = o && o->build_id ? o->build_id : "fsbench:unknown" };
	json_t *root;
	int e;

	rpt_export_foreach(cmp, o, kcidb_point, &c);
	root = json_pack("{s:{s:i,s:i},s:o}", "version", "major", 5, "minor", 3, "tests", c.tests);
	e = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return e || ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_kcidb = {
	.name = "kcidb",
	.summary = "KCIDB v5.3 submission: tests[] with status DONE and number {value, unit}",
	.write = kcidb_write,
};
