/* Unit tests of model/run: the typed run, its one sample key and the metric key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/run.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	assert_non_null(j);
	return j;
}

/* A suite run's cell: its coords without repetition and cell, keys sorted, compact. */
static void key_of_a_suite_run(void **state)
{
	json_t *run = parse("{\"workload\":\"smallfile\",\"threads\":2,\"coords\":{\"threads\":2,"
			    "\"workload\":\"smallfile\",\"fs\":\"xfs\",\"repetition\":3,"
			    "\"cell\":\"xfs/smallfile/t=2\"},\"summary\":{\"complete\":true}}");
	char *k = mdl_run_sample_key(run, NULL), *ka = mdl_run_sample_key(run, "fs");

	(void)state;
	assert_string_equal(k, "{\"fs\":\"xfs\",\"threads\":2,\"workload\":\"smallfile\"}");
	assert_string_equal(ka, "{\"threads\":2,\"workload\":\"smallfile\"}");
	free(k);
	free(ka);
	json_decref(run);
}

/* A command's own run: where it ran and wrote differ between repetitions and are not its cell. */
static void key_of_a_command_run(void **state)
{
	json_t *a = parse("{\"workload\":\"smallfile\",\"threads\":1,\"params\":{\"dir\":[\"/a\"],"
			  "\"json\":\"a.json\",\"files\":300,\"log\":null},\"summary\":{}}");
	json_t *b = parse("{\"workload\":\"smallfile\",\"threads\":1,\"params\":{\"dir\":[\"/b\"],"
			  "\"json\":\"b.json\",\"files\":300},\"summary\":{}}");
	json_t *c = parse("{\"workload\":\"smallfile\",\"threads\":1,\"params\":{\"dir\":[\"/b\"],"
			  "\"files\":400},\"summary\":{}}");
	char *ka = mdl_run_sample_key(a, NULL), *kb = mdl_run_sample_key(b, NULL);
	char *kc = mdl_run_sample_key(c, NULL);

	(void)state;
	assert_string_equal(
		ka, "{\"params\":{\"files\":300},\"threads\":1,\"workload\":\"smallfile\"}");
	assert_string_equal(ka, kb);
	assert_string_not_equal(ka, kc);
	free(ka);
	free(kb);
	free(kc);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

/* Across thread counts (the page's throughput lines): the count ran and the count asked for both go. */
static void key_across_threads(void **state)
{
	json_t *a = parse("{\"workload\":\"smallfile\",\"threads\":4,\"params\":{\"threads\":2,"
			  "\"files\":300},\"summary\":{}}");
	json_t *b = parse("{\"workload\":\"smallfile\",\"threads\":1,\"params\":{\"threads\":1,"
			  "\"files\":300},\"summary\":{}}");
	char *ka = mdl_run_sample_key(a, "threads"), *kb = mdl_run_sample_key(b, "threads");

	(void)state;
	assert_string_equal(ka, "{\"params\":{\"files\":300},\"workload\":\"smallfile\"}");
	assert_string_equal(ka, kb);
	free(ka);
	free(kb);
	json_decref(a);
	json_decref(b);
}

static void metric_key(void **state)
{
	char *m = mdl_metric_key("{\"fs\":\"ext4\"}", "fsync.p99");

	(void)state;
	assert_string_equal(m, "{\"fs\":\"ext4\"}#fsync.p99");
	free(m);
}

/* Decoded once: identity, completeness, and load that was not measured is not 0 %. */
static void decode(void **state)
{
	json_t *doc =
		parse("{\"host\":{\"kernel\":\"6.1.0-57-amd64\"},\"runs\":["
		      "{\"workload\":\"stream\",\"threads\":1,\"series\":{\"unit\":\"bytes\"},"
		      "\"coords\":{\"fs\":\"ext4\",\"repetition\":1,\"cell\":\"ext4/stream\"},"
		      "\"summary\":{\"complete\":false,\"error\":\"ENOSPC\"}},"
		      "{\"workload\":\"smallfile\",\"threads\":2,\"target\":{\"fstype\":\"xfs\"},"
		      "\"host_load\":{\"others_pct\":12.5,\"steal_pct\":0},"
		      "\"summary\":{\"complete\":true}}]}");
	const json_t *runs = json_object_get(doc, "runs");
	struct mdl_run a, b;

	(void)state;
	assert_int_equal(mdl_run_decode(json_array_get(runs, 0), doc, &a), 0);
	assert_string_equal(a.workload, "stream");
	assert_int_equal(a.repetition, 1);
	assert_string_equal(a.fs, "ext4");
	assert_string_equal(a.cell, "ext4/stream");
	assert_false(a.complete);
	assert_string_equal(a.error, "ENOSPC");
	assert_int_equal(a.unit, MDL_UNIT_BYTES);
	assert_false(a.load.measured);
	assert_string_equal(a.kernel, "6.1.0-57-amd64");
	assert_string_equal(a.key, "{\"fs\":\"ext4\"}");

	assert_int_equal(mdl_run_decode(json_array_get(runs, 1), NULL, &b), 0);
	assert_int_equal(b.threads, 2);
	assert_int_equal(b.repetition, -1);
	assert_string_equal(b.fs, "xfs");
	assert_true(b.complete);
	assert_true(b.load.measured);
	assert_true(fabs(b.load.others_pct - 12.5) < 1e-9);
	assert_false(b.load.has_wait);
	assert_null(b.kernel);
	mdl_run_clear(&a);
	mdl_run_clear(&b);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_of_a_suite_run),
		cmocka_unit_test(key_of_a_command_run),
		cmocka_unit_test(key_across_threads),
		cmocka_unit_test(metric_key),
		cmocka_unit_test(decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
