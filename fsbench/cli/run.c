/* `fsbench <workload>`: parse its options, run it as a job (core/job.c), print, write the result. */
#include "fsbench/cli/commands.h"
#include "fsbench/core/job.h"
#include "fsbench/core/result.h"

#include <errno.h>
#include <string.h>

#include "base/fileio.h"
#include "model/result_file.h"

/* The result file while the run goes on: written before it starts and after every loop. */
struct partial {
	json_t *doc;
	const char *path, *cmd;
	bool failed; /* said once, not after every loop */
};

static int partial_write(struct partial *p)
{
	int r = rpt_json_write_atomic(p->doc, p->path);

	if (r < 0 && !p->failed)
		fprintf(stderr, "fsbench %s: writing result %s: %s\n", p->cmd, p->path,
			strerror(-r));
	p->failed = r < 0;
	return r;
}

/* How far the run got, written out, so that a kill -9 leaves that much on disk. */
static int partial_update(struct partial *p, int loops_done, uint64_t files, uint64_t bytes)
{
	json_object_set_new(
		p->doc, "partial",
		json_pack("{s:i,s:I,s:I,s:s}", "loops_done", loops_done, "files", (json_int_t)files,
			  "bytes", (json_int_t)bytes, "note",
			  "the run has not finished: it was still going, or was killed"));
	return partial_write(p);
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

/*
 * The options, and for a workload that takes one (wl->operand: dbench's client count) one
 * operand anywhere among them, as dbench's popt allows: `dbench 4 -c client.txt`. 0, or
 * -EINVAL with @err naming the flag or argument, or -ECANCELED for --help.
 */
static int parse_args(const struct fsb_workload *wl, struct fsb_job *job, int argc, char **argv,
		      char *err, size_t errlen)
{
	bool have_operand = false;

	for (;;) {
		int r = opt_parse_argv(job->tbl, job->cfg, argc, argv, err, errlen);

		if (r < 0 || r >= argc)
			return r < 0 ? r : 0;
		if (!wl->operand || have_operand) {
			snprintf(err, errlen, "unexpected argument '%s'", argv[r]);
			return -EINVAL;
		}
		if (fsb_job_set(job, wl->operand, argv[r], err, errlen) < 0)
			return -EINVAL;
		have_operand = true;
		/* the operand takes argv[0]'s place, which the parser skips: it goes on after it */
		argc -= r;
		argv += r;
	}
}

int cmd_workload(const struct fsb_workload *wl, int argc, char **argv)
{
	struct fsb_job job;
	char err[OPT_ERR_MAX];
	json_t *run = NULL;
	struct partial p = { .cmd = wl->name };
	int r, status;

	r = fsb_job_init(&job, wl, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
		fsb_job_free(&job);
		return FSB_EXIT_FAIL;
	}
	r = parse_args(wl, &job, argc, argv, err, sizeof(err));
	if (r == -ECANCELED) {
		printf("usage: fsbench %s [options]\n%s\n\n", wl->name, wl->summary);
		opt_print_help(job.tbl, stdout);
		fsb_job_free(&job);
		return FSB_EXIT_OK;
	}
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
		fsb_job_free(&job);
		return FSB_EXIT_USAGE;
	}

	/* the result's place is checked (and taken) before any work: no run is lost to it */
	p.path = fsb_job_common(&job)->json;
	if (p.path) {
		r = fsb_out_check(p.path);
		if (r < 0) {
			fprintf(stderr, "fsbench %s: --json %s: %s\n", wl->name, p.path,
				strerror(-r));
			fsb_job_free(&job);
			return FSB_EXIT_USAGE;
		}
		p.doc = fsb_result_new(argc, argv);
		/* the effective configuration, enough to run it again: command and every option */
		json_object_set_new(json_object_get(p.doc, "config"), "command",
				    json_string(wl->name));
		json_object_set_new(p.doc, "complete", json_false());
		if (partial_update(&p, 0, 0, 0) < 0) {
			json_decref(p.doc);
			fsb_job_free(&job);
			return FSB_EXIT_USAGE;
		}
		job.after_loop = partial_loop;
		job.after_loop_arg = &p;
	}

	/* before anything is created, so an early signal still ends in a clean, reported stop */
	fsb_install_signals();
	job.print = true;
	status = fsb_job_run(&job, argc, argv, &run, err, sizeof(err));
	if (status != FSB_EXIT_OK)
		fprintf(stderr, "fsbench %s: %s%s\n", wl->name, err,
			p.doc ? "; the partial result is marked incomplete" : "");
	if (p.doc) {
		json_object_del(p.doc, "partial");
		if (run) {
			json_object_set(json_object_get(p.doc, "config"), "params",
					json_object_get(run, "params"));
			json_array_append_new(json_object_get(p.doc, "runs"), run);
			run = NULL;
		}
		fsb_result_finish(p.doc);
		/* a run that never started has no run object: the file says it is incomplete */
		if (!json_array_size(json_object_get(p.doc, "runs"))) {
			json_object_set_new(p.doc, "complete", json_false());
			json_object_set_new(p.doc, "error", json_string(err));
		}
		if (partial_write(&p) < 0 && status == FSB_EXIT_OK)
			status = FSB_EXIT_FAIL;
		json_decref(p.doc);
	}
	json_decref(run);
	fsb_job_free(&job);
	return status;
}
