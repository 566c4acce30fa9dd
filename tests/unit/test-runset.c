/* Unit tests of report/runset: files into run references, and the comparison built from them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/export.h"
#include "report/plan.h"
#include "report/runset.h"

#define COMPARE "{\"schema\":\"fsbench-compare/1\",\"sides\":[{\"name\":\"a\"}],\"samples\":[]}"

static char paths[4][64];

/* A result of @n complete smallfile runs on filesystem @fs, @fps files/s each. */
static const char *result_file(int k, int n, const char *fs, double fps)
{
	json_t *runs = json_array(), *doc;
	int fd;

	for (int i = 0; i < n; i++)
		json_array_append_new(
			runs, json_pack("{s:s,s:i,s:{s:b,s:f},s:{s:s,s:s,s:i},s:{s:s}}", "workload",
					"smallfile", "threads", 1, "summary", "complete", 1,
					"files_per_sec", fps + i, "coords", "fs", fs, "cell", "c",
					"repetition", i, "series", "unit", "files"));
	doc = json_pack("{s:s,s:o}", "schema", "fsbench-result/2", "runs", runs);
	strcpy(paths[k], "/tmp/fsb-test-runset.XXXXXX");
	fd = mkstemp(paths[k]);
	assert_true(fd >= 0);
	assert_int_equal(json_dumpfd(doc, fd, 0), 0);
	close(fd);
	json_decref(doc);
	return paths[k];
}

static const char *text_file(int k, const char *text)
{
	int fd;

	strcpy(paths[k], "/tmp/fsb-test-runset.XXXXXX");
	fd = mkstemp(paths[k]);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return paths[k];
}

static void unlink_all(int n)
{
	for (int k = 0; k < n; k++)
		unlink(paths[k]);
}

/* Two files on two sides: their runs on the side given, and a comparison of both. */
static void load_and_compare(void **state)
{
	const char *p[2] = { result_file(0, 3, "ext4", 1000), result_file(1, 3, "ext4", 2000) };
	const char *names[2] = { "baseline", "candidate" };
	int sides[2] = { 0, 1 };
	struct rpt_runset rs = { 0 };
	struct rpt_compare_opts o;
	char err[1024];
	json_t *cmp = NULL;

	(void)state;
	rpt_compare_opts_init(&o);
	assert_int_equal(rpt_runset_load(&rs, p, sides, 2, err, sizeof(err)), 0);
	assert_null(rs.compare);
	assert_int_equal(rs.ndocs, 2);
	assert_int_equal(rs.nrefs, 6);
	assert_int_equal(rs.refs[0].side, 0);
	assert_int_equal(rs.refs[5].side, 1);
	assert_string_equal(rs.refs[5].file, p[1]);
	assert_ptr_equal(rs.refs[5].doc, rs.docs[1]);
	assert_int_equal(rpt_runset_compare(&rs, names, 2, &o, &cmp, err, sizeof(err)), 0);
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(
				json_object_get(
					json_array_get(
						json_object_get(
							json_array_get(
								json_object_get(cmp, "samples"), 0),
							"metrics"),
						0),
					"comparisons"),
				0),
			"verdict")),
		"improvement");
	json_decref(cmp);
	rpt_runset_free(&rs);
	assert_null(rs.docs);
	rpt_runset_free(&rs); /* a second call does nothing */
	unlink_all(2);
}

/* One comparison alone is kept as it is; among results it is a usage mistake. */
static void comparisons(void **state)
{
	const char *p[2] = { text_file(0, COMPARE), result_file(1, 1, "ext4", 1000) };
	struct rpt_runset rs = { 0 };
	char err[1024];

	(void)state;
	assert_int_equal(rpt_runset_load(&rs, p, NULL, 1, err, sizeof(err)), 0);
	assert_non_null(rs.compare);
	assert_int_equal(rs.nrefs, 0);
	rpt_runset_free(&rs);
	assert_int_equal(rpt_runset_load(&rs, p, NULL, 2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, p[0]));
	assert_non_null(strstr(err, "is a comparison"));
	rpt_runset_free(&rs);
	/* the other order: the result is loaded first and freed with the set */
	p[0] = paths[1];
	p[1] = paths[0];
	assert_int_equal(rpt_runset_load(&rs, p, NULL, 2, err, sizeof(err)), -EINVAL);
	assert_int_equal(rs.ndocs, 1);
	rpt_runset_free(&rs);
	unlink_all(2);
}

/* An unusable file stops the load with its name; a set built by hand holds its own reference. */
static void faults_and_add(void **state)
{
	const char *p[1] = { text_file(0, "{\"schema\":\"fsbench-result/2\",\"runs\":[]}") };
	struct rpt_runset rs = { 0 };
	char err[1024];
	json_t *doc = json_pack("{s:[{s:s,s:i,s:{s:b}}]}", "runs", "workload", "x", "threads", 1,
				"summary", "complete", 1);

	(void)state;
	assert_int_equal(rpt_runset_load(&rs, p, NULL, 1, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, p[0]));
	assert_non_null(strstr(err, "no runs[]"));
	rpt_runset_free(&rs);
	assert_int_equal(rpt_runset_add(&rs, doc, "mem", 1, err, sizeof(err)), 0);
	assert_int_equal(doc->refcount, 2);
	assert_int_equal(rs.refs[0].side, 1);
	rpt_runset_free(&rs);
	assert_int_equal(doc->refcount, 1);
	json_decref(doc);
	unlink_all(1);
}

/* Sides by a coordinate: named by its values, the given baseline first. */
static void sides_across(void **state)
{
	const char *p[2] = { result_file(0, 3, "ext4", 1000), result_file(1, 3, "xfs", 1000) };
	struct rpt_runset rs = { 0 };
	struct rpt_compare_opts o;
	char err[1024];
	json_t *cmp = NULL;

	(void)state;
	rpt_compare_opts_init(&o);
	o.across = "fs";
	assert_int_equal(rpt_runset_load(&rs, p, NULL, 2, err, sizeof(err)), 0);
	assert_int_equal(rpt_runset_sides_across(&rs, "fs", "xfs", err, sizeof(err)), 2);
	assert_string_equal(rs.names[0], "xfs");
	assert_string_equal(rs.names[1], "ext4");
	assert_int_equal(rpt_runset_compare(&rs, NULL, 0, &o, &cmp, err, sizeof(err)), 0);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(cmp, "sides"), 0), "name")),
			    "xfs");
	json_decref(cmp);
	assert_int_equal(rpt_runset_sides_across(&rs, "fs", "btrfs", err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "no run has coords.fs = btrfs"));
	rpt_runset_free(&rs);
	unlink_all(2);
}

/* compare's and explain's inputs: result files only, on the sides given or across a field. */
static void load_sides_and_why(void **state)
{
	const char *p[3] = { result_file(0, 3, "ext4", 1000), result_file(1, 3, "xfs", 1000),
			     text_file(2, COMPARE) };
	int sides[2] = { 0, 1 };
	struct rpt_runset rs = { 0 };
	char err[1024];
	json_t *cmp = NULL;

	(void)state;
	assert_int_equal(rpt_runset_load_sides(&rs, p, sides, 2, NULL, NULL, err, sizeof(err)), 2);
	rpt_runset_free(&rs);
	assert_int_equal(rpt_runset_load_sides(&rs, p, NULL, 2, "fs", "xfs", err, sizeof(err)), 2);
	assert_string_equal(rs.names[0], "xfs");
	rpt_runset_free(&rs);
	assert_int_equal(rpt_runset_load_sides(&rs, p, NULL, 1, "fs", NULL, err, sizeof(err)), 1);
	rpt_runset_free(&rs);
	/* a comparison, even alone, has no runs to judge */
	assert_int_equal(rpt_runset_load_sides(&rs, p + 2, NULL, 1, NULL, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "is a comparison (fsbench-compare/1): compare judges"));
	rpt_runset_free(&rs);

	assert_int_equal(rpt_runset_why(p, sides, 2, 5, &cmp, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(json_object_get(cmp, "sides")), 2);
	json_decref(cmp);
	cmp = NULL;
	assert_int_equal(rpt_runset_why(p + 2, sides, 1, 5, &cmp, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a comparison: explain reads results"));
	assert_null(cmp);
	unlink_all(3);
}

/* export's input: results summarised as one side, a comparison as it is; --metrics checked. */
static void export_input(void **state)
{
	const char *p[2] = { result_file(0, 3, "ext4", 1000), text_file(1, COMPARE) };
	struct rpt_cmp *cmp = NULL;
	char err[4096];

	(void)state;
	assert_int_equal(rpt_export_input(p, 1, &cmp, err, sizeof(err)), 0);
	assert_int_equal(cmp->nsides, 1);
	assert_string_equal(cmp->side_names[0], "result");
	assert_int_equal(rpt_export_metrics_check(cmp, NULL, err, sizeof(err)), 0);
	assert_int_equal(rpt_export_metrics_check(cmp, "files_*", err, sizeof(err)), 0);
	assert_int_equal(rpt_export_metrics_check(cmp, "nomatch", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--metrics 'nomatch' matches no metric of the input; it has: "
				    "files_per_sec"));
	rpt_cmp_free(cmp);
	assert_int_equal(rpt_export_input(p + 1, 1, &cmp, err, sizeof(err)), 0);
	assert_string_equal(cmp->side_names[0], "a");
	rpt_cmp_free(cmp);
	assert_int_equal(rpt_export_input(p, 2, &cmp, err, sizeof(err)), -EINVAL);
	assert_null(cmp);
	unlink_all(2);
}

/* A page's plan: @n files on @sides with the flags, loaded and put on sides. */
static int plan(struct rpt_plan *pl, const char *const *p, const int *sides, size_t n, bool two,
		const char *across, char *err, size_t errlen)
{
	struct rpt_plan_request q = {
		.paths = p, .sides = sides, .n = n, .two = two, .across = across
	};
	int e = rpt_plan_check(&q, err, errlen);

	if (!e)
		e = rpt_plan_load(pl, &q, err, errlen);
	if (!e && pl->ndocs)
		e = rpt_plan_sides(pl, &q, err, errlen);
	return e;
}

/* Which files are a page's sides, what they are named, and what it says without two. */
static void report_plan(void **state)
{
	char same[80];
	const char *p[3] = { result_file(0, 3, "ext4", 1000), result_file(1, 3, "ext4", 2000),
			     text_file(2, COMPARE) };
	const char *twin[2] = { p[0], same };
	int sides[2] = { 0, 1 }, none[2] = { 0, 0 };
	struct rpt_plan pl = { 0 };
	struct rpt_plan_request q = { .paths = p, .sides = none, .n = 2 };
	struct rpt_cmp *cmp = NULL;
	char err[1024];

	(void)state;
	/* the flags that choose the sides, before any file is read */
	q.two = true;
	assert_int_equal(rpt_plan_check(&q, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--candidate needs files on both sides"));
	q.across = "fs";
	assert_int_equal(rpt_plan_check(&q, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--across and --candidate both choose the sides"));
	q.two = false;
	q.across = "file";
	q.baseline_value = "xfs";
	assert_int_equal(rpt_plan_check(&q, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--baseline-value needs --across FIELD");

	/* baseline and candidate: the two sides, the files' plot labels */
	assert_int_equal(plan(&pl, p, sides, 2, true, NULL, err, sizeof(err)), 0);
	assert_int_equal(pl.nsides, 2);
	assert_string_equal(pl.names[1], "candidate");
	assert_string_equal(pl.labels[0], "baseline");
	assert_int_equal(rpt_plan_compare(&pl, NULL, &cmp, err, sizeof(err)), 0);
	assert_int_equal(cmp->nsides, 2);
	assert_string_equal(pl.note, "");
	rpt_cmp_free(cmp);
	rpt_plan_free(&pl);
	rpt_plan_free(&pl); /* a second call does nothing */

	/* several files: file against file, named by their file names */
	assert_int_equal(plan(&pl, p, none, 2, false, NULL, err, sizeof(err)), 0);
	assert_int_equal(pl.nsides, 2);
	assert_string_equal(pl.names[1], strrchr(p[1], '/') + 1);
	assert_int_equal(pl.rs.refs[5].side, 1);
	rpt_plan_free(&pl);
	/* ... told apart by their paths where they share a name */
	snprintf(same, sizeof(same), "/tmp/.%s", strrchr(p[0], '/'));
	assert_int_equal(plan(&pl, twin, none, 2, false, NULL, err, sizeof(err)), 0);
	assert_string_equal(pl.names[0], p[0]);
	assert_string_equal(pl.names[1], same);
	rpt_plan_free(&pl);

	/* one file on one filesystem: one side, and the page says why nothing is compared */
	assert_int_equal(plan(&pl, p, none, 1, false, NULL, err, sizeof(err)), 0);
	assert_int_equal(pl.nsides, 1);
	assert_non_null(strstr(pl.note, "One side only"));
	rpt_plan_free(&pl);
	/* across a field the runs lack */
	assert_int_equal(plan(&pl, p, none, 1, false, "kernel", err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "coords.kernel"));
	rpt_plan_free(&pl);

	/* a comparison is rendered as it is; its sides cannot be chosen again */
	assert_int_equal(plan(&pl, p + 2, none, 1, false, NULL, err, sizeof(err)), 0);
	assert_int_equal(pl.ndocs, 0);
	assert_non_null(pl.rs.cmp);
	rpt_plan_free(&pl);
	assert_int_equal(plan(&pl, p + 2, none, 1, false, "fs", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a comparison already: its sides are fixed"));
	rpt_plan_free(&pl);
	assert_int_equal(plan(&pl, p + 1, none, 2, false, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(
		strstr(err, ": report it alone, or give the result files it was made from"));
	rpt_plan_free(&pl);
	unlink_all(3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_and_compare),   cmocka_unit_test(comparisons),
		cmocka_unit_test(faults_and_add),     cmocka_unit_test(sides_across),
		cmocka_unit_test(load_sides_and_why), cmocka_unit_test(export_input),
		cmocka_unit_test(report_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
