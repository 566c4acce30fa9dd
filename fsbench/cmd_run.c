/* `fsbench <workload>`: parse its options, run it as a job (job.c), print, write the result. */
#include "commands.h"
#include "job.h"
#include "result.h"

#include <errno.h>
#include <string.h>

#include "../report/result_file.h"

int cmd_workload(const struct fsb_workload *wl, int argc, char **argv)
{
	struct fsb_job job;
	char err[OPT_ERR_MAX];
	json_t *doc = NULL, *run = NULL;
	int r, status;

	r = fsb_job_init(&job, wl, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
		fsb_job_free(&job);
		return FSB_EXIT_FAIL;
	}
	r = opt_parse_argv(job.tbl, job.cfg, argc, argv, err, sizeof(err));
	if (r == -ECANCELED) {
		printf("usage: fsbench %s [options]\n%s\n\n", wl->name, wl->summary);
		opt_print_help(job.tbl, stdout);
		fsb_job_free(&job);
		return FSB_EXIT_OK;
	}
	if (r >= 0 && r < argc) {
		snprintf(err, sizeof(err), "unexpected argument '%s'", argv[r]);
		r = -EINVAL;
	}
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
		fsb_job_free(&job);
		return FSB_EXIT_USAGE;
	}

	/* before anything is created, so an early signal still ends in a clean, reported stop */
	fsb_install_signals();
	job.print = true;
	status = fsb_job_run(&job, argc, argv, &run, err, sizeof(err));
	if (status != FSB_EXIT_OK)
		fprintf(stderr, "fsbench %s: %s%s\n", wl->name, err,
			run && fsb_job_common(&job)->json ?
				"; the partial result is marked incomplete" :
				"");
	if (run && fsb_job_common(&job)->json) {
		doc = fsb_result_new(argc, argv);
		/* the effective configuration, enough to run it again: command and every option */
		json_object_set_new(json_object_get(doc, "config"), "command",
				    json_string(wl->name));
		json_object_set(json_object_get(doc, "config"), "params",
				json_object_get(run, "params"));
		json_array_append_new(json_object_get(doc, "runs"), run);
		fsb_result_finish(doc);
		r = rpt_json_write_atomic(doc, fsb_job_common(&job)->json);
		if (r < 0) {
			fprintf(stderr, "fsbench %s: writing result %s: %s\n", wl->name,
				fsb_job_common(&job)->json, strerror(-r));
			if (status == FSB_EXIT_OK)
				status = FSB_EXIT_FAIL;
		}
		json_decref(doc);
	} else {
		json_decref(run);
	}
	fsb_job_free(&job);
	return status;
}
