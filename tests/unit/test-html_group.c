/*
 * Unit tests of report/html_group: each run's own percentiles, what the percentile plots
 * draw, and the plots' lines as compare's samples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/hist_json.h"
#include "model/runs.h"
#include "report/compare.h"
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

/* A complete suite run on ext4 at one thread, mounted with @mount_options, repetition @rep. */
static json_t *suite_run(const char *mount_options, int rep, double fps)
{
	struct hist h;
	json_t *r = run_with(op_of_100(&h));

	json_object_set_new(json_object_get(r, "summary"), "files_per_sec", json_real(fps));
	json_object_set_new(r, "coords",
			    json_pack("{s:s,s:s,s:s,s:i,s:i,s:s}", "fs", "ext4", "mount_options",
				      mount_options, "workload", "smallfile", "threads", 1,
				      "repetition", rep, "cell", "ext4/smallfile/t=1"));
	assert_non_null(json_object_get(r, "coords"));
	return r;
}

/* A result of three repetitions with each mount option: two cells that share fs and threads. */
static json_t *two_mount_options(double fps)
{
	json_t *doc = json_pack("{s:[]}", "runs");

	for (int rep = 0; rep < 3; rep++) {
		json_array_append_new(json_object_get(doc, "runs"),
				      suite_run("defaults", rep, fps + rep));
		json_array_append_new(json_object_get(doc, "runs"),
				      suite_run("noatime", rep, 2 * fps + rep));
	}
	return doc;
}

/* How many of @g's @ng lines on side @side are of compare's sample @s. */
static int lines_in(const struct group *g, int ng, const struct rpt_cmp_sample *s, const char *side)
{
	int n = 0;

	for (int i = 0; i < ng; i++)
		n += rpt_html_group_in_sample(&g[i], s) && !strcmp(g[i].side, side);
	return n;
}

/*
 * The page's lines are compare's samples: runs that differ in a coordinate other than the
 * filesystem and thread count (the mount options) are two samples to compare, so two
 * lines on each side, each named by what tells it apart and each in exactly one sample's
 * plot; across the mount options, both lines are of the one sample compare judges. The
 * page once grouped by workload, side and filesystem, and drew both as one line.
 */
static void test_lines_are_samples(void **state)
{
	static const char *const labels[] = { "baseline", "candidate" };
	static const char *const across_names[] = { "defaults", "noatime" };
	const char *paths[] = { "a.json", "b.json" };
	json_t *docs[2] = { two_mount_options(100), two_mount_options(90) };
	struct group *g = calloc(MAX_GROUPS, sizeof(*g));
	struct mdl_run_ref *refs = NULL;
	struct rpt_compare_opts o;
	struct rpt_cmp *cmp = NULL;
	const char **names = NULL;
	char err[256];
	size_t n = 0;
	int ng = 0;

	(void)state;
	assert_non_null(g);
	rpt_compare_opts_init(&o);
	assert_int_equal(mdl_runs_add(&refs, &n, docs[0], paths[0], 0), 0);
	assert_int_equal(mdl_runs_add(&refs, &n, docs[1], paths[1], 1), 0);
	assert_int_equal(rpt_compare_judge(labels, 2, refs, n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(cmp->nsamples, 2);

	assert_int_equal(rpt_html_groups_build_cells(g, &ng, docs, paths, 2, labels, NULL), 0);
	assert_int_equal(ng, 4);
	for (size_t i = 0; i < cmp->nsamples; i++) {
		assert_int_equal(lines_in(g, ng, &cmp->samples[i], "baseline"), 1);
		assert_int_equal(lines_in(g, ng, &cmp->samples[i], "candidate"), 1);
	}
	for (int i = 0; i < ng; i++)
		assert_int_equal(g[i].nsamples, 3); /* its three repetitions, no other cell's */
	assert_string_equal(group_of(g, ng, "baseline: ext4 mount_options=noatime")->line,
			    "ext4 mount_options=noatime");
	rpt_html_groups_free(g, ng);

	/* throughput against threads: the same lines, each over its thread counts */
	ng = 0;
	assert_int_equal(rpt_html_groups_build(g, &ng, docs, paths, 2, labels), 0);
	assert_int_equal(ng, 4);
	assert_int_equal(group_of(g, ng, "candidate: ext4 mount_options=defaults")->nsamples, 3);
	rpt_html_groups_free(g, ng);
	rpt_cmp_free(cmp);
	mdl_runs_free(refs, n);

	/* one file across the mount options: one sample compared, a line for each side of it */
	refs = NULL;
	n = 0;
	o.across = "mount_options";
	assert_int_equal(mdl_runs_add(&refs, &n, docs[0], paths[0], 0), 0);
	assert_int_equal(
		mdl_runs_sides_across(refs, n, "mount_options", NULL, &names, err, sizeof(err)), 2);
	free(names);
	assert_int_equal(rpt_compare_judge(across_names, 2, refs, n, &o, &cmp, err, sizeof(err)),
			 0);
	assert_int_equal(cmp->nsamples, 1);
	ng = 0;
	assert_int_equal(rpt_html_groups_build_cells(g, &ng, docs, paths, 1, NULL, "mount_options"),
			 0);
	assert_int_equal(ng, 2);
	assert_true(rpt_html_group_in_sample(group_of(g, ng, "ext4 mount_options=defaults"),
					     &cmp->samples[0]));
	assert_true(rpt_html_group_in_sample(group_of(g, ng, "ext4 mount_options=noatime"),
					     &cmp->samples[0]));
	rpt_html_groups_free(g, ng);
	rpt_cmp_free(cmp);
	mdl_runs_free(refs, n);
	json_decref(docs[0]);
	json_decref(docs[1]);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_percentiles),
		cmocka_unit_test(test_lines_are_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
