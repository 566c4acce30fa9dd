/* `fsbench <workload>`: parse its options, run it as a job (core/job.c), print, write the result. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/core/job.h"
#include "fsbench/core/partial.h"
#include "fsbench/core/result.h"

#include <errno.h>
#include <string.h>

#include "base/fileio.h"

/* The result file while the run goes on: written before it starts and after every loop. */
struct partial {
	struct fsb_partial f;
	const char *cmd;
};

static int partial_write(struct partial *p, bool final)
{
	char err[OPT_ERR_MAX + 4096];
	int r = fsb_partial_write(&p->f, final, err, sizeof(err));

	if (err[0])
		fprintf(stderr, "fsbench %s: %s\n", p->cmd, err);
	return r;
}

/* How far the run got, written out, so that a kill -9 leaves that much on disk. */
static int partial_update(struct partial *p, int loops_done, uint64_t files, uint64_t bytes)
{
	json_object_set_new(
		p->f.doc, "partial",
		json_pack("{s:i,s:I,s:I,s:s}", "loops_done", loops_done, "files", (json_int_t)files,
			  "bytes", (json_int_t)bytes, "note",
			  "the run has not finished: it was still going, or was killed"));
	return partial_write(p, false);
}

/* After each loop. */
static void partial_loop(const struct fsb_run *run, int loop, void *arg)
{
	uint64_t files = 0, bytes = 0;

	for (int i = 0; i < run->nloops; i++) {
		files += run->loops[i].files;
		bytes += run->loops[i].bytes;
	}
	partial_update(arg, loop + 1, files, bytes);
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
	struct partial p = { .cmd = wl->name };
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
	p.f.path = fsb_job_common(&job)->json;
	if (p.f.path) {
		r = base_out_check(p.f.path);
		if (r < 0) {
			fprintf(stderr, "fsbench %s: --json %s: %s\n", wl->name, p.f.path,
				strerror(-r));
			fsb_job_free(&job);
			return FSB_EXIT_USAGE;
		}
		p.f.doc = fsb_result_new(argc, argv);
		/* the effective configuration, enough to run it again: command and every option */
		json_object_set_new(json_object_get(p.f.doc, "config"), "command",
				    json_string(wl->name));
		if (partial_update(&p, 0, 0, 0) < 0) {
			json_decref(p.f.doc);
			fsb_job_free(&job);
			return FSB_EXIT_USAGE;
		}
		job.after_loop = partial_loop;
		job.after_loop_arg = &p;
	}

	/* before anything is created, so an early signal still ends in a clean, reported stop */
	base_install_signals();
	job.print = true;
	r = fsb_job_run(&job, argc, argv, &run, err, sizeof(err));
	status = cmd_job_status(r, &job, run);
	if (r < 0)
		fprintf(stderr, "fsbench %s: %s%s\n", wl->name, err,
			p.f.doc ? "; the partial result is marked incomplete" : "");
	if (p.f.doc) {
		json_object_del(p.f.doc, "partial");
		if (run) {
			json_object_set(json_object_get(p.f.doc, "config"), "params",
					json_object_get(run, "params"));
			json_array_append_new(json_object_get(p.f.doc, "runs"), run);
			run = NULL;
		}
		/* a run that never started has no run object: the file says why it is incomplete */
		if (!json_array_size(json_object_get(p.f.doc, "runs")))
			json_object_set_new(p.f.doc, "error", json_string(err));
		if (partial_write(&p, true) < 0 && status == FSB_EXIT_OK)
			status = FSB_EXIT_FAIL;
		json_decref(p.f.doc);
	}
	json_decref(run);
	fsb_job_free(&job);
	return status;
}
