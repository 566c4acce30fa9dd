/* Unit tests of report/runs: loading result files for compare/report/export, sides by coordinate. */
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

#include "model/runs.h"

static const char *write_tmp(const char *text, char *path)
{
	int fd;

	strcpy(path, "/tmp/fsb-test-runs.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void load_checks_the_shape(void **state)
{
	char path[64], err[512];
	json_t *doc = NULL;

	(void)state;
	write_tmp(
		"{\"schema\":\"fsbench-result/1\",\"runs\":[{\"workload\":\"smallfile\",\"threads\":1,"
		"\"summary\":{\"complete\":true}}]}",
		path);
	assert_int_equal(mdl_runs_load(path, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "runs")), 1);
	json_decref(doc);
	unlink(path);

	write_tmp(
		"{\"schema\":\"fsbench-result/1\",\"runs\":[{\"workload\":\"smallfile\",\"threads\":1,"
		"\"summary\":{}}]}",
		path);
	assert_int_equal(mdl_runs_load(path, &doc, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "run 0 has no valid 'summary.complete'"));
	assert_non_null(strstr(err, path));
	unlink(path);

	write_tmp("{\"schema\":\"fsbench-result/1\",\"runs\":[]}", path);
	assert_int_equal(mdl_runs_load(path, &doc, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "no runs[]"));
	unlink(path);

	assert_int_equal(mdl_runs_load("/nonexistent/r.json", &doc, err, sizeof(err)) < 0, 1);
	assert_non_null(strstr(err, "/nonexistent/r.json"));
}

static json_t *suite_doc(void)
{
	return json_pack("{s:[{s:{s:s}},{s:{s:s}},{s:{s:s}}]}", "runs", "coords", "fs", "xfs",
			 "coords", "fs", "ext4", "coords", "fs", "xfs");
}

static void sides_across_a_coordinate(void **state)
{
	json_t *doc = suite_doc();
	struct mdl_run_ref *refs = NULL;
	const char **names = NULL;
	size_t n = 0;
	char err[512];

	(void)state;
	assert_int_equal(mdl_runs_add(&refs, &n, doc, "s.json", -1), 0);
	assert_int_equal(n, 3);
	assert_int_equal(refs[2].index, 2);

	/* first seen is side 0 */
	assert_int_equal(mdl_runs_sides_across(refs, n, "fs", NULL, &names, err, sizeof(err)), 2);
	assert_string_equal(names[0], "xfs");
	assert_int_equal(refs[1].side, 1);
	free(names);

	/* --baseline-value puts its value first */
	assert_int_equal(mdl_runs_sides_across(refs, n, "fs", "ext4", &names, err, sizeof(err)), 2);
	assert_string_equal(names[0], "ext4");
	assert_int_equal(refs[1].side, 0);
	assert_int_equal(refs[0].side, 1);
	free(names);

	/* a value no run has, and a field no run has */
	assert_int_equal(mdl_runs_sides_across(refs, n, "fs", "btrfs", &names, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "--baseline-value btrfs: no run has coords.fs = btrfs"));
	assert_int_equal(mdl_runs_sides_across(refs, n, "kernel", NULL, &names, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "s.json: run 0 has no string coords.kernel"));
	mdl_runs_free(refs, n);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_checks_the_shape),
		cmocka_unit_test(sides_across_a_coordinate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
