/* The result model: histogram JSON round trip, atomic writes, schema check on load, version 1 read as 2. */
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

#include "report/metric.h"
#include "model/result_file.h"

/* Whether any object key in @v, at any depth, holds a dot (what document stores nest on). */
static bool has_dotted_key(const json_t *v)
{
	const char *k;
	const json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k,
				    x) if (strchr(k, '.') || has_dotted_key(x)) return true;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) if (has_dotted_key(x)) return true;
	}
	return false;
}

static void test_hist_roundtrip(void **state)
{
	struct hist *h = malloc(sizeof(*h)), *back = malloc(sizeof(*back));
	json_t *o;

	(void)state;
	hist_init(h);
	for (uint64_t v = 1; v < UINT64_C(1) << 40; v = v * 3 + 7)
		hist_record(h, v);
	hist_record(h, UINT64_C(7200) * 1000000000); /* beyond the range */
	o = mdl_hist_to_json(h);
	assert_int_equal(json_integer_value(json_object_get(o, "count")), h->count);
	assert_int_equal(json_integer_value(json_object_get(o, "overflow")), 1);
	/* version 2 keys: beside count, unit-suffixed, no dots */
	assert_int_equal(json_integer_value(json_object_get(o, "p99_9_ns")),
			 hist_percentile(h, 99.9));
	assert_int_equal(json_integer_value(json_object_get(o, "p50_ns")), hist_percentile(h, 50));
	assert_null(json_object_get(o, "percentiles"));
	assert_false(has_dotted_key(o));
	assert_int_equal(mdl_hist_from_json(o, back), 0);
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
	doc = json_pack("{s:s,s:[]}", "schema", MDL_RESULT_SCHEMA, "runs");
	assert_int_equal(mdl_json_write_atomic(doc, path), 0);
	assert_int_equal(mdl_result_load(path, &back, err, sizeof(err)), 0);
	assert_true(json_equal(doc, back));
	json_decref(back);
	/* a wrong schema is refused with the file named */
	json_object_set_new(doc, "schema", json_string("other/2"));
	assert_int_equal(mdl_json_write_atomic(doc, path), 0);
	assert_int_equal(mdl_result_load(path, &back, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "other/2"));
	/* a directory that does not exist: an error, nothing written */
	snprintf(path, sizeof(path), "%s/missing/r.json", dir);
	assert_int_equal(mdl_json_write_atomic(doc, path), -ENOENT);
	/* no temporary files left behind */
	snprintf(path, sizeof(path), "%s/r.json", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	json_decref(doc);
}

/* A result written by the tree before version 2 (tests/fixtures/results) loads as version 2. */
static void test_v1_fixture_loads_as_v2(void **state)
{
	static const char *const names[] = { "v1-smallfile.json", "v1-stream.json" };
	const char *fixtures = getenv("FSB_FIXTURES");

	(void)state;
	assert_non_null(fixtures);
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		char path[512], err[512];
		json_t *raw, *doc = NULL;
		const json_t *run, *v1op, *t;
		const char *opname;
		size_t i, k, nops = 0, nthreads = 0;

		snprintf(path, sizeof(path), "%s/results/%s", fixtures, names[f]);
		raw = json_load_file(path, 0, NULL);
		assert_non_null(raw);
		assert_string_equal(json_string_value(json_object_get(raw, "schema")),
				    MDL_RESULT_SCHEMA_V1);
		assert_int_equal(mdl_result_load(path, &doc, err, sizeof(err)), 0);
		assert_string_equal(json_string_value(json_object_get(doc, "schema")),
				    MDL_RESULT_SCHEMA);
		assert_false(has_dotted_key(doc));
		json_array_foreach(json_object_get(raw, "runs"), i, run)
		{
			const json_t *run2 = json_array_get(json_object_get(doc, "runs"), i);

			json_object_foreach((json_t *)json_object_get(run, "ops"), opname, v1op)
			{
				const json_t *op2 =
					json_object_get(json_object_get(run2, "ops"), opname);
				const json_t *pct = json_object_get(v1op, "percentiles");
				double v;

				for (int p = 0; p < MDL_NPERCENTILES; p++)
					assert_true(json_equal(
						json_object_get(op2, mdl_percentiles[p].key),
						json_object_get(pct, mdl_percentiles[p].v1_key)));
				assert_null(json_object_get(op2, "percentiles"));
				/* compare and the exporters find it under the old metric name */
				assert_true(rpt_metric_value(run2, rpt_metric_lookup("fsync.p99.9"),
							     opname, &v));
				assert_true(v == (double)json_integer_value(
							 json_object_get(pct, "p99.9")));
				nops++;
			}
			json_array_foreach(json_object_get(run2, "per_thread"), k, t)
			{
				const json_t *v1t =
					json_array_get(json_object_get(run, "per_thread"), k);

				/* unpinned: -1 in version 1, null in version 2 */
				assert_int_equal(json_integer_value(json_object_get(v1t, "cpu")),
						 -1);
				assert_true(json_is_null(json_object_get(t, "cpu")));
				nthreads++;
			}
		}
		assert_true(nops > 0);
		assert_true(nthreads > 0);
		/* a version 2 document is left as it is */
		{
			json_t *copy = json_deep_copy(doc);

			assert_int_equal(mdl_result_upgrade(copy), 0);
			assert_true(json_equal(copy, doc));
			json_decref(copy);
		}
		json_decref(raw);
		json_decref(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_roundtrip),
		cmocka_unit_test(test_atomic_write_and_load),
		cmocka_unit_test(test_v1_fixture_loads_as_v2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
