/* Unit tests of a side's context: the call totals and labels exporters stamp a sample with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/context.h"

static json_t *mkrun(json_int_t count, json_int_t sum_ns, bool complete)
{
	json_t *run = json_pack("{s:s,s:i,s:{s:b},s:{s:{s:I,s:I}},s:{s:s}}", "workload",
				"smallfile", "threads", 1, "summary", "complete", complete, "ops",
				"fsync", "count", count, "sum_ns", sum_ns, "target", "fstype",
				"ext4");

	assert_non_null(run);
	return run;
}

static json_int_t total(const json_t *ctx, const char *key)
{
	const json_t *v =
		json_object_get(json_object_get(json_object_get(ctx, "ops"), "fsync"), key);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static json_t *context_of(json_t *const *runs, size_t n)
{
	struct mdl_run_ref refs[4];
	size_t idx[4];

	for (size_t i = 0; i < n; i++) {
		refs[i] = (struct mdl_run_ref){ .run = runs[i], .file = "r.json", .index = i };
		idx[i] = i;
	}
	return rpt_side_context("baseline", refs, idx, n);
}

/* The totals are the sums over the complete runs; an incomplete one is left out. */
static void test_totals(void **state)
{
	json_t *runs[3] = { mkrun(10, 1000, true), mkrun(5, 700, true), mkrun(99, 99, false) };
	json_t *ctx = context_of(runs, 3);

	(void)state;
	assert_non_null(ctx);
	assert_int_equal(total(ctx, "count"), 15);
	assert_int_equal(total(ctx, "sum_ns"), 1700);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(ctx, "labels"), "fs")), "ext4");
	json_decref(ctx);
	for (int i = 0; i < 3; i++)
		json_decref(runs[i]);
}

/*
 * A result file is anyone's: two runs with count and sum_ns at INT64_MAX saturate there
 * instead of overflowing (undefined behaviour, which the sanitizer build stops on).
 */
static void test_totals_saturate(void **state)
{
	json_t *runs[2] = { mkrun(INT64_MAX, INT64_MAX, true), mkrun(INT64_MAX, INT64_MAX, true) };
	json_t *ctx = context_of(runs, 2);

	(void)state;
	assert_non_null(ctx);
	assert_true(total(ctx, "count") == INT64_MAX);
	assert_true(total(ctx, "sum_ns") == INT64_MAX);
	json_decref(ctx);
	json_decref(runs[0]);
	json_decref(runs[1]);
	runs[0] = mkrun(INT64_MIN, INT64_MIN, true);
	runs[1] = mkrun(-1, -1, true);
	ctx = context_of(runs, 2);
	assert_true(total(ctx, "count") == INT64_MIN);
	json_decref(ctx);
	json_decref(runs[0]);
	json_decref(runs[1]);
}

/*
 * "about" names the side: the command without where it wrote its result, and host_load the
 * mean over the runs that measured it; a malformed host_load (a file is anyone's) is skipped.
 */
static void test_about(void **state)
{
	json_t *doc = json_pack("{s:{s:[s,s,s,s,s]},s:{s:s},s:{s:s}}", "config", "argv",
				"smallfile", "-t", "1", "--json", "r.json", "tool", "version",
				"0.1.0", "host", "cpu_model", "Xeon");
	json_t *runs[3] = { mkrun(1, 1, true), mkrun(1, 1, true), mkrun(1, 1, true) };
	struct mdl_run_ref refs[3];
	size_t idx[3] = { 0, 1, 2 };
	const json_t *about, *hl;
	json_t *ctx;

	(void)state;
	assert_non_null(doc);
	json_object_set_new(runs[0], "host_load",
			    json_pack("{s:f,s:f}", "others_pct", 10.0, "steal_pct", 1.0));
	json_object_set_new(runs[1], "host_load",
			    json_pack("{s:f,s:f,s:f}", "others_pct", 30.0, "steal_pct", 3.0,
				      "self_wait_pct", 5.0));
	json_object_set_new(runs[2], "host_load",
			    json_pack("{s:s,s:f}", "others_pct", "busy", "steal_pct", 9.0));
	json_object_set_new(runs[0], "canary",
			    json_pack("{s:{s:f},s:{s:f}}", "before", "p50_us", 100.0, "after",
				      "p50_us", 150.0));
	json_object_set_new(runs[1], "canary", json_pack("{s:{s:f}}", "before", "p50_us", 300.0));
	for (size_t i = 0; i < 3; i++)
		refs[i] = (struct mdl_run_ref){
			.run = runs[i], .doc = doc, .file = "r.json", .index = i
		};
	ctx = rpt_side_context("baseline", refs, idx, 3);
	assert_non_null(ctx);
	about = json_object_get(ctx, "about");
	assert_string_equal(json_string_value(json_object_get(about, "command")),
			    "fsbench smallfile -t 1");
	assert_string_equal(json_string_value(json_object_get(about, "fsbench")), "0.1.0");
	assert_string_equal(json_string_value(json_object_get(about, "cpu")), "Xeon");
	hl = json_object_get(about, "host_load");
	assert_float_equal(json_number_value(json_object_get(hl, "others_pct")), 20.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(hl, "steal_pct")), 2.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(hl, "self_wait_pct")), 5.0, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(hl, "runs")), 2);
	/* the canary's p50 before and after, each over the runs that have it */
	hl = json_object_get(about, "canary");
	assert_float_equal(json_number_value(json_object_get(hl, "before_p50_us")), 200.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(hl, "after_p50_us")), 150.0, 1e-9);
	json_decref(ctx);
	/* no run measured it: no host_load at all, rather than a zero load */
	for (size_t i = 0; i < 3; i++)
		json_object_del(runs[i], "host_load");
	ctx = rpt_side_context("baseline", refs, idx, 3);
	assert_null(json_object_get(json_object_get(ctx, "about"), "host_load"));
	json_decref(ctx);
	for (int i = 0; i < 3; i++)
		json_decref(runs[i]);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_totals_saturate),
		cmocka_unit_test(test_about),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
