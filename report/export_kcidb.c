/*
 * KCIDB v5.3 exporter: a tests[] entry per value (status DONE, or a gated comparison's FAIL or
 * PASS; number {value, unit, prefix} in base units). Ids come from the content, start_time from the run, and the build from the
 * kernel the side ran (release and uname -v), so a re-submission updates instead of adding.
 *
 * A test's path is what KCIDB groups a test's results over builds by, so it names the series
 * and nothing else: the sample (workload, threads, the suite's other coordinates), the
 * filesystem, its mount options, the knob set (rpt_point_series' parts), then the metric.
 * The ext4 and the xfs cell of one suite are two tests, not one test run twice; the side
 * of a comparison is not in it (misc.side, and the id), so a comparison's test and a plain
 * export's of the same series share a path.
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <string.h>

struct kcidb_ctx {
	json_t *tests, *builds, *checkouts;
	const char *build_id; /* --build-id, or NULL */
	const char *kernel; /* check: the first side's kernel */
	bool kernels_differ;
};

/* "fsbench:<release>/<hash of uname -v>", the build the side's kernel came from. */
static void side_build(const struct rpt_point *p, char *id, size_t len, char *checkout, size_t clen)
{
	const char *rel = json_string_value(json_object_get(p->labels, "kernel"));
	const char *ver = json_string_value(json_object_get(p->labels, "kernel_version"));

	if (!rel || strstr(rel, " | ")) {
		snprintf(id, len, "fsbench:unknown");
		checkout[0] = 0;
		return;
	}
	snprintf(checkout, clen, "fsbench:%s", rel);
	if (ver)
		snprintf(id, len, "fsbench:%s/%016" PRIx64, rel, rpt_hash_str(ver));
	else
		snprintf(id, len, "fsbench:%s", rel);
}

/* Adds the build (and its checkout) of a derived build id once. */
static void add_build(struct kcidb_ctx *c, const struct rpt_point *p, const char *id,
		      const char *checkout)
{
	const char *arch = json_string_value(json_object_get(p->labels, "arch"));
	const char *rel = json_string_value(json_object_get(p->labels, "kernel"));
	const char *ver = json_string_value(json_object_get(p->labels, "kernel_version"));
	json_t *b, *x;
	size_t i;

	json_array_foreach(c->builds, i,
			   x) if (!strcmp(json_string_value(json_object_get(x, "id")), id)) return;
	b = json_pack("{s:s,s:s,s:s,s:{s:s}}", "id", id, "origin", "fsbench", "checkout_id",
		      checkout, "misc", "kernel_release", rel);
	if (ver)
		json_object_set_new(json_object_get(b, "misc"), "kernel_version", json_string(ver));
	/* the schema's architecture is [a-z0-9_]*: x86_64, aarch64, riscv64 */
	if (arch && strspn(arch, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(arch))
		json_object_set_new(b, "architecture", json_string(arch));
	json_array_append_new(c->builds, b);
	json_array_foreach(c->checkouts, i,
			   x) if (!strcmp(json_string_value(json_object_get(x, "id")),
					  checkout)) return;
	json_array_append_new(c->checkouts, json_pack("{s:s,s:s,s:s}", "id", checkout, "origin",
						      "fsbench", "comment", rel));
}

/*
 * The number in base units (rpt_point_base_unit, the spelling every format uses), with the
 * prefix KCIDB should scale it by when it shows it; a ratio ("x") has none.
 */
static json_t *number(const struct rpt_point *p)
{
	const char *unit = rpt_point_base_unit(p);
	json_t *n = json_pack("{s:f,s:s}", "value", rpt_point_base(p, p->mean), "unit", unit);

	if (strcmp(unit, "x"))
		json_object_set_new(n, "prefix",
				    json_string(strcmp(unit, "B") ? "metric" : "binary"));
	return n;
}

/* One path component: @in slugged (never empty, never a '.'), or @none when nothing is left. */
static void path_part(const char *in, const char *none, char *out, size_t len)
{
	rpt_slug(in, '_', out, len);
	if (!out[0])
		snprintf(out, len, "%s", none);
}

/* "fsbench.<sample>.<fs>.<mount options>.<knob set>.<metric>" (the file's comment says why). */
static void kcidb_path(const struct rpt_point *p, char *path, size_t len)
{
	char label[256], fs[64], mount[256], knobs[128], metric[96];

	path_part(p->label, "run", label, sizeof(label));
	path_part(rpt_point_label(p, "fs"), "unknown", fs, sizeof(fs));
	path_part(rpt_point_label(p, "mount_options"), "unknown", mount, sizeof(mount));
	path_part(rpt_point_label(p, "knob_set"), "none", knobs, sizeof(knobs));
	path_part(p->metric, "metric", metric, sizeof(metric));
	/* components are [a-zA-Z0-9_-]+ joined by dots: the schema's "path" pattern */
	snprintf(path, len, "fsbench.%s.%s.%s.%s.%s", label, fs, mount, knobs, metric);
}

/*
 * A gated comparison's verdict as KCIDB's status, so a dashboard shows a kernel the gate
 * called regressed as failed: FAIL for a regression, PASS for unchanged or an improvement;
 * DONE (a measurement) for the baseline, a plain export, a metric the gate does not judge
 * and a verdict that is not proven (noisy, insufficient, not proven: misc.verdict says).
 */
static const char *kcidb_status(const struct rpt_point *p)
{
	if (!p->verdict || !p->gated)
		return "DONE";
	if (!strcmp(p->verdict, "regression"))
		return "FAIL";
	return !strcmp(p->verdict, "unchanged") || !strcmp(p->verdict, "improvement") ? "PASS" :
											"DONE";
}
static int kcidb_point(const struct rpt_point *p, void *ctx)
{
	struct kcidb_ctx *c = ctx;
	char side[96], path[1024], id[1200], build[320], checkout[300];
	json_t *t, *misc, *env;

	kcidb_path(p, path, sizeof(path));
	/*
	 * The content's hash names the test run; a comparison's sides share the path, and an
	 * A/A comparison their content too, so there the side keeps the ids apart.
	 */
	if (p->nsides > 1) {
		path_part(p->side, "side", side, sizeof(side));
		snprintf(id, sizeof(id), "fsbench:%s.%s.%016" PRIx64, path, side,
			 rpt_point_hash(p));
	} else {
		snprintf(id, sizeof(id), "fsbench:%s.%016" PRIx64, path, rpt_point_hash(p));
	}
	if (c->build_id) {
		snprintf(build, sizeof(build), "%s", c->build_id);
	} else {
		side_build(p, build, sizeof(build), checkout, sizeof(checkout));
		if (checkout[0])
			add_build(c, p, build, checkout);
	}
	misc = json_pack("{s:I,s:f,s:s,s:s,s:s}", "n", (json_int_t)p->n, "median",
			 rpt_point_base(p, p->median), "direction",
			 p->def->dir == RPT_HIGHER_IS_BETTER ? "higher" : "lower", "sample",
			 p->label, "side", p->side);
	/* one run has no interval: absent, not ci95_lo = ci95_hi, which reads as certainty */
	if (misc && isfinite(p->ci_lo)) {
		json_object_set_new(misc, "ci95_lo", json_real(rpt_point_base(p, p->ci_lo)));
		json_object_set_new(misc, "ci95_hi", json_real(rpt_point_base(p, p->ci_hi)));
	}
	for (int i = 0; rpt_label_names[i]; i++)
		json_object_set_new(misc, rpt_label_names[i],
				    json_string(rpt_point_label(p, rpt_label_names[i])));
	if (json_object_get(p->labels, "mount_requested"))
		json_object_set_new(misc, "mount_requested",
				    json_string(rpt_point_label(p, "mount_requested")));
	if (p->merged)
		json_object_set_new(misc, "merged", json_string(p->merged));
	if (p->verdict) {
		json_object_set_new(misc, "verdict", json_string(p->verdict));
		json_object_set_new(misc, "change_pct", json_real(p->change_pct));
	}
	env = json_pack("{s:s,s:{s:s,s:s,s:s}}", "comment", rpt_point_label(p, "host"), "misc",
			"host", rpt_point_label(p, "host"), "device_model",
			rpt_point_label(p, "device_model"), "kernel", rpt_point_label(p, "kernel"));
	t = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:o}", "id", id, "build_id", build, "origin",
		      "fsbench", "path", path, "status", kcidb_status(p), "number", number(p),
		      "environment", env, "misc", misc);
	if (rpt_time_parse(p->start_time) >= 0)
		json_object_set_new(t, "start_time", json_string(p->start_time));
	json_array_append_new(c->tests, t);
	return 0;
}

static int kcidb_kernels(const struct rpt_point *p, void *ctx)
{
	struct kcidb_ctx *c = ctx;
	const char *k = rpt_point_label(p, "kernel");

	if (!c->kernel)
		c->kernel = k;
	else if (strcmp(c->kernel, k))
		c->kernels_differ = true;
	return 0;
}

static int kcidb_check(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, char *err,
		       size_t errlen)
{
	struct kcidb_ctx c = { 0 };

	if (!o || !o->build_id)
		return 0;
	rpt_export_foreach(cmp, o, kcidb_kernels, &c);
	if (!c.kernels_differ)
		return 0;
	snprintf(
		err, errlen,
		"--build-id %s: the sides ran different kernels, which are different KCIDB builds; "
		"leave --build-id out (each side's build then comes from its kernel) or export each side's results alone",
		o->build_id);
	return -EINVAL;
}

static int kcidb_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	struct kcidb_ctx c = { .tests = json_array(),
			       .builds = json_array(),
			       .checkouts = json_array(),
			       .build_id = o ? o->build_id : NULL };
	json_t *root;
	int e;

	rpt_export_foreach(cmp, o, kcidb_point, &c);
	root = json_pack("{s:{s:i,s:i}}", "version", "major", 5, "minor", 3);
	if (json_array_size(c.checkouts))
		json_object_set(root, "checkouts", c.checkouts);
	if (json_array_size(c.builds))
		json_object_set(root, "builds", c.builds);
	json_object_set(root, "tests", c.tests);
	e = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	json_decref(c.tests);
	json_decref(c.builds);
	json_decref(c.checkouts);
	return e || ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_kcidb = {
	.name = "kcidb",
	.summary =
		"KCIDB v5.3 submission: tests[] (status DONE; a gated comparison's FAIL or PASS; "
		"number) with their builds",
	.check = kcidb_check,
	.write = kcidb_write,
};
