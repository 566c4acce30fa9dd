/* Unit tests of the job: every extension's options bound to a config block of its own. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsbench/core/ext.h"
#include "fsbench/core/job.h"
#include "fsbench/core/partial.h"
#include "model/result_file.h"
#include "fsbench/ext/ext_table.h"
#include "fsbench/workloads/table.h"

static const struct fsb_opt *tbl_find(const struct fsb_job *job, const char *name)
{
	for (const struct fsb_opt *o = job->tbl; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* Each extension's table is merged shifted to its own block, after the workload's config. */
static void test_ext_configs_are_their_own(void **unused)
{
	char err[OPT_ERR_MAX] = "";
	struct fsb_job job;

	(void)unused;
	for (int w = 0; fsb_workloads[w]; w++) {
		const struct fsb_workload *wl = fsb_workloads[w];
		size_t end = wl->cfg_size;

		assert_int_equal(fsb_job_init(&job, wl, fsb_exts, err, sizeof(err)), 0);
		for (int i = 0; i < fsb_nexts; i++) {
			const struct fsb_ext *e = fsb_exts[i];

			/* blocks in list order, none overlapping the one before */
			assert_true(job.ext[i].cfg_off >= end);
			end = job.ext[i].cfg_off + e->cfg_size;
			for (const struct fsb_opt *o = e->opts; o && o->name; o++) {
				const struct fsb_opt *m = tbl_find(&job, o->name);

				assert_non_null(m);
				assert_true(o->offset < e->cfg_size);
				assert_true(m->offset == job.ext[i].cfg_off + o->offset);
			}
		}
		fsb_job_free(&job);
	}
}

/* A value set by name lands in the extension's block, where its before() reads it. */
static void test_ext_option_set_by_name(void **unused)
{
	char err[OPT_ERR_MAX] = "";
	struct fsb_job job;
	const struct fsb_opt *o;
	int64_t rate;

	(void)unused;
	assert_int_equal(
		fsb_job_init(&job, fsb_workload_find("smallfile"), fsb_exts, err, sizeof(err)), 0);
	o = tbl_find(&job, "victim-rate");
	assert_non_null(o);
	memcpy(&rate, (char *)job.cfg + o->offset, sizeof(rate));
	assert_true(rate == 10); /* the table's default */
	assert_int_equal(fsb_job_set(&job, "victim-rate", "250", err, sizeof(err)), 0);
	memcpy(&rate, (char *)job.cfg + o->offset, sizeof(rate));
	assert_true(rate == 250);
	assert_int_equal(fsb_job_set(&job, "victim-rate", "0", err, sizeof(err)), -EINVAL);
	assert_int_equal(fsb_job_set(&job, "knob", "nr_requests=64", err, sizeof(err)), 0);
	assert_int_equal(fsb_job_set(&job, "no-such-option", "1", err, sizeof(err)), -ENOENT);
	fsb_job_free(&job);
	fsb_job_free(&job); /* safe twice: a failed init is followed by a free */
}

/* A workload's result while it runs: on disk before the run, incomplete until its end. */
static void test_partial_result(void **state)
{
	char dir[] = "/tmp/fsb-test-partial.XXXXXX", path[64], err[4096];
	char *argv[] = { "smallfile", "--json", path, NULL };
	struct fsb_partial p = { 0 };
	json_t *doc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(fsb_partial_begin(&p, dir, "smallfile", 3, argv, err, sizeof(err)),
			 -EISDIR);
	assert_non_null(strstr(err, "--json /tmp/fsb-test-partial."));
	assert_null(p.doc);
	assert_int_equal(fsb_partial_begin(&p, path, "smallfile", 3, argv, err, sizeof(err)), 0);
	doc = json_load_file(path, 0, NULL);
	assert_true(json_is_false(json_object_get(doc, "complete")));
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(doc, "partial"), "loops_done")),
		0);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(doc, "config"), "command")),
		"smallfile");
	json_decref(doc);
	assert_int_equal(fsb_partial_progress(&p, 2, 10, 4096, err, sizeof(err)), 0);
	doc = json_load_file(path, 0, NULL);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(doc, "partial"), "files")), 10);
	json_decref(doc);
	/* no run: the file says why, and stays incomplete */
	assert_int_equal(fsb_partial_finish(&p, NULL, "it never started", err, sizeof(err)), 0);
	doc = json_load_file(path, 0, NULL);
	assert_null(json_object_get(doc, "partial"));
	assert_true(json_is_false(json_object_get(doc, "complete")));
	assert_string_equal(json_string_value(json_object_get(doc, "error")), "it never started");
	json_decref(doc);
	json_decref(p.doc);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext_configs_are_their_own),
		cmocka_unit_test(test_ext_option_set_by_name),
		cmocka_unit_test(test_partial_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
