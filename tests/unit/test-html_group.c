/* Unit tests of report/html_group: each run's own percentiles, what the percentile plots draw. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/hist_json.h"
#include "report/html_group.h"

/* A complete smallfile run on ext4 with @op (stolen) as its one operation, fsync. */
static json_t *run_with(json_t *op)
{
	json_t *r = json_pack("{s:s,s:i,s:{s:b,s:f},s:{s:s},s:{s:o}}", "workload", "smallfile",
			      "threads", 1, "summary", "complete", 1, "files_per_sec", 100.0,
			      "coords", "fs", "ext4", "ops", "fsync", op);

	assert_non_null(r);
	return r;
}

/* 100 fsyncs of 1..100 us: its op object, with the stored percentiles and bins. */
static json_t *op_of_100(struct hist *h)
{
	hist_init(h);
	for (uint64_t us = 1; us <= 100; us++)
		hist_record(h, us * 1000);
	return mdl_hist_to_json(h);
}

static const struct group *group_of(const struct group *g, int ng, const char *name)
{
	for (int i = 0; i < ng; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	fail_msg("no group %s", name);
	return NULL;
}

/*
 * The stored keys are what compare judges, so a doctored p99 is drawn as stored; without
 * them the run's histogram answers; with neither, no value; a run without calls, no point.
 */
static void test_run_percentiles(void **state)
{
	static const char *const labels[] = { "baseline", "candidate" };
	struct group *g = calloc(MAX_GROUPS, sizeof(*g));
	struct hist h;
	json_t *stored = op_of_100(&h), *bare = op_of_100(&h), *none, *empty;
	json_t *docs[2];
	const char *paths[] = { "a.json", "b.json" };
	const struct group *a, *b;
	int ng = 0, fsync = mdl_op_find("fsync");

	(void)state;
	assert_non_null(g);
	assert_true(fsync >= 0);
	json_object_set_new(stored, "p99_ns", json_integer(150000));
	for (int m = 0; m < MDL_NPERCENTILES; m++)
		json_object_del(bare, mdl_percentiles[m].key);
	none = json_pack("{s:i}", "count", 5);
	empty = json_pack("{s:i}", "count", 0);
	docs[0] = json_pack("{s:[o,o]}", "runs", run_with(stored), run_with(bare));
	docs[1] = json_pack("{s:[o,o]}", "runs", run_with(none), run_with(empty));
	assert_non_null(docs[0]);
	assert_non_null(docs[1]);

	assert_int_equal(rpt_html_groups_build(g, &ng, docs, paths, 2, labels), 0);
	assert_int_equal(ng, 2);
	a = group_of(g, ng, "baseline: ext4");
	b = group_of(g, ng, "candidate: ext4");

	assert_int_equal(a->npcts[fsync], 2);
	assert_int_equal(a->pcts[fsync][0].count, 100);
	assert_true(a->pcts[fsync][0].ns[2] == 150000); /* p99 as stored */
	for (int m = 0; m < MDL_NPERCENTILES; m++) {
		double want = (double)hist_percentile(&h, mdl_percentiles[m].pct);

		if (m != 2)
			assert_true(a->pcts[fsync][0].ns[m] == want);
		assert_true(a->pcts[fsync][1].ns[m] == want); /* from the bins */
	}
	/* the run without bins or keys: its count, no values; the run of 0 calls left out */
	assert_int_equal(b->npcts[fsync], 1);
	assert_int_equal(b->pcts[fsync][0].count, 5);
	for (int m = 0; m < MDL_NPERCENTILES; m++)
		assert_true(isnan(b->pcts[fsync][0].ns[m]));

	rpt_html_groups_free(g, ng);
	assert_null(g[0].pcts[fsync]);
	assert_int_equal(g[0].npcts[fsync], 0);
	json_decref(docs[0]);
	json_decref(docs[1]);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_percentiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
