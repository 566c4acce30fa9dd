/* Unit tests of model/doc: a file parsed once and told apart, result or comparison. */
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

#include "model/doc.h"
#include "model/result_file.h"

#define RESULT_V1                                                                               \
	"{\"schema\":\"fsbench-result/1\",\"runs\":[{\"workload\":\"smallfile\",\"threads\":1," \
	"\"summary\":{\"complete\":true},\"ops\":{\"fsync\":{\"count\":3,"                      \
	"\"percentiles\":{\"p99.9\":70}}}}]}"
#define COMPARE "{\"schema\":\"fsbench-compare/1\",\"sides\":[{\"name\":\"a\"}],\"samples\":[]}"

static const char *write_tmp(const char *text, char *path)
{
	int fd;

	strcpy(path, "/tmp/fsb-test-doc.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Loads @text as a file; returns what mdl_doc_load did, with its kind and document. */
static int load(const char *text, enum mdl_doc_kind *kind, json_t **doc, char *err, size_t len)
{
	char path[64];
	int r;

	write_tmp(text, path);
	*doc = NULL;
	r = mdl_doc_load(path, doc, kind, err, len);
	unlink(path);
	return r;
}

/* A result is upgraded and checked as the runs loader does; its kind says so. */
static void result_is_a_result(void **state)
{
	enum mdl_doc_kind kind = MDL_DOC_COMPARE;
	char err[512] = "";
	json_t *doc;

	(void)state;
	assert_int_equal(load(RESULT_V1, &kind, &doc, err, sizeof(err)), 0);
	assert_int_equal(kind, MDL_DOC_RESULT);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), MDL_RESULT_SCHEMA);
	/* version 1 percentiles moved beside count: the upgrade ran on the one parse */
	assert_int_equal(
		json_integer_value(json_object_get(
			json_object_get(
				json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
						"ops"),
				"fsync"),
			"p99_9_ns")),
		70);
	json_decref(doc);
}

static void compare_is_a_compare(void **state)
{
	enum mdl_doc_kind kind = MDL_DOC_RESULT;
	char err[512] = "";
	json_t *doc;

	(void)state;
	assert_int_equal(load(COMPARE, &kind, &doc, err, sizeof(err)), 0);
	assert_int_equal(kind, MDL_DOC_COMPARE);
	json_decref(doc);
}

/* Each kind is refused for its own faults, the file named; nothing is returned. */
static void faults_are_named(void **state)
{
	enum mdl_doc_kind kind;
	char err[512];
	json_t *doc;

	(void)state;
	assert_int_equal(load("{\"schema\":\"fsbench-compare/1\",\"sides\":[]}", &kind, &doc, err,
			      sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "no sides[] of named objects"));
	assert_null(doc);
	assert_int_equal(load("{\"schema\":\"fsbench-result/2\",\"runs\":[{\"threads\":1}]}", &kind,
			      &doc, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "run 0 has no valid 'workload'"));
	assert_null(doc);
	assert_int_equal(load("{\"schema\":\"other/1\"}", &kind, &doc, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "schema is 'other/1', expected 'fsbench-result/2' or"));
	assert_int_equal(load("{\"runs\":", &kind, &doc, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "/tmp/fsb-test-doc."));
	assert_int_equal(mdl_doc_load("/nonexistent/r.json", &doc, &kind, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "/nonexistent/r.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(result_is_a_result),
		cmocka_unit_test(compare_is_a_compare),
		cmocka_unit_test(faults_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
