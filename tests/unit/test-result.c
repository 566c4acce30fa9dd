/* The result model: histogram JSON round trip, atomic writes, schema check on load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "result_file.h"

static void test_hist_roundtrip(void **state)
{
	struct hist *h = malloc(sizeof(*h)), *back = malloc(sizeof(*back));
	json_t *o;

	(void)state;
	hist_init(h);
	for (uint64_t v = 1; v < UINT64_C(1) << 40; v = v * 3 + 7)
		hist_record(h, v);
	hist_record(h, UINT64_C(7200) * 1000000000); /* beyond the range */
	o = rpt_hist_to_json(h);
	assert_int_equal(json_integer_value(json_object_get(o, "count")), h->count);
	assert_int_equal(json_integer_value(json_object_get(o, "overflow")), 1);
	assert_int_equal(rpt_hist_from_json(o, back), 0);
	/* bins, count, sum, min, max come back exactly, so consumers can merge runs */
	assert_memory_equal(back->bins, h->bins, sizeof(h->bins));
	assert_int_equal(back->count, h->count);
	assert_int_equal(back->sum, h->sum);
	assert_int_equal(back->min, h->min);
	assert_int_equal(back->max, h->max);
	assert_int_equal(back->overflow, h->overflow);
	for (double p = 1; p < 100; p += 9.7)
		assert_int_equal(hist_percentile(back, p), hist_percentile(h, p));
	json_decref(o);
	free(h);
	free(back);
}

static void test_atomic_write_and_load(void **state)
{
	char dir[] = "/tmp/fsbench-unit.XXXXXX", path[256], err[256];
	json_t *doc, *back = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	doc = json_pack("{s:s,s:[]}", "schema", RPT_RESULT_SCHEMA, "runs");
	assert_int_equal(rpt_json_write_atomic(doc, path), 0);
	assert_int_equal(rpt_result_load(path, &back, err, sizeof(err)), 0);
	assert_true(json_equal(doc, back));
	json_decref(back);
	/* a wrong schema is refused with the file named */
	json_object_set_new(doc, "schema", json_string("other/2"));
	assert_int_equal(rpt_json_write_atomic(doc, path), 0);
	assert_int_equal(rpt_result_load(path, &back, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "other/2"));
	/* a directory that does not exist: an error, nothing written */
	snprintf(path, sizeof(path), "%s/missing/r.json", dir);
	assert_int_equal(rpt_json_write_atomic(doc, path), -ENOENT);
	/* no temporary files left behind */
	snprintf(path, sizeof(path), "%s/r.json", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_roundtrip),
		cmocka_unit_test(test_atomic_write_and_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
