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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_and_compare),
		cmocka_unit_test(comparisons),
		cmocka_unit_test(faults_and_add),
		cmocka_unit_test(sides_across),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
