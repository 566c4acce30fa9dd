/* `fsbench <workload>`: parse its options, run it as a job (core/job.c), print, write the result. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/core/job.h"
#include "fsbench/core/partial.h"

#include <errno.h>

/* Where a result write that failed during the run is said: the command's name is @arg. */
static void say(void *arg, const char *msg)
{
	fprintf(stderr, "fsbench %s: %s\n", (const char *)arg, msg);
}

int cmd_job_status(int r, const struct fsb_job *job, const json_t *run)
{
	if (job->signal)
		return 128 + job->signal;
	if (r == -EINVAL && !run)
		return FSB_EXIT_USAGE;
	return r < 0 ? FSB_EXIT_FAIL : FSB_EXIT_OK;
}

int cmd_workload(const struct fsb_workload *wl, int argc, char **argv)
{
	struct fsb_job job;
	char err[OPT_ERR_MAX];
	json_t *run = NULL;
	/* the result file while the run goes on: written before it starts and after every loop */
	struct fsb_partial p = { .say = say, .say_arg = (void *)wl->name };
	char perr[OPT_ERR_MAX + 4096];
	/* a drop-in whose harness gives one operand (dbench's client count) takes it anywhere */
	struct cmd_spec spec = { .name = wl->name,
				 .operand = wl->operand ? NULL : cmd_no_operand,
				 .operand_opt = wl->operand,
				 .summary = wl->summary };
	int r, status;

	r = fsb_job_init(&job, wl, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
		fsb_job_free(&job);
		return FSB_EXIT_FAIL;
	}
	/* the job's merged table: the workload's options, the common ones, every extension's */
	spec.opts = job.tbl;
	if (!cmd_args_parse(&spec, job.cfg, argc, argv, &status)) {
		fsb_job_free(&job);
		return status;
	}

	/* the result's place is checked (and taken) before any work: no run is lost to it */
	if (fsb_job_common(&job)->json) {
		r = fsb_partial_begin(&p, fsb_job_common(&job)->json, wl->name, argc, argv, perr,
				      sizeof(perr));
		if (r < 0) {
			if (perr[0])
				say(p.say_arg, perr);
			fsb_job_free(&job);
			return FSB_EXIT_USAGE;
		}
		job.after_loop = fsb_partial_after_loop;
		job.after_loop_arg = &p;
	}

	/* before anything is created, so an early signal still ends in a clean, reported stop */
	base_install_signals();
	job.print = true;
	r = fsb_job_run(&job, argc, argv, &run, err, sizeof(err));
	status = cmd_job_status(r, &job, run);
	if (r < 0)
		fprintf(stderr, "fsbench %s: %s%s\n", wl->name, err,
			p.doc ? "; the partial result is marked incomplete" : "");
	if (p.doc) {
		r = fsb_partial_finish(&p, run, err, perr, sizeof(perr));
		run = NULL;
		if (perr[0])
			say(p.say_arg, perr);
		if (r < 0 && status == FSB_EXIT_OK)
			status = FSB_EXIT_FAIL;
		json_decref(p.doc);
	}
	json_decref(run);
	fsb_job_free(&job);
	return status;
}
