/* Unit tests of the job: every extension's options bound to a config block of its own. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fsbench/core/ext.h"
#include "fsbench/core/job.h"

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

		assert_int_equal(fsb_job_init(&job, wl, err, sizeof(err)), 0);
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
	assert_int_equal(fsb_job_init(&job, fsb_workload_find("smallfile"), err, sizeof(err)), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext_configs_are_their_own),
		cmocka_unit_test(test_ext_option_set_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
