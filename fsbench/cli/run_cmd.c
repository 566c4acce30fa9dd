/* `fsbench <workload>`: parse its options, run it as a job (core/job.c), print, write the result. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/core/job.h"
#include "fsbench/core/partial.h"
#include "fsbench/ext/ext_table.h"

#include <errno.h>
#include <string.h>

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

/* Whether @argv gives option -@s or --@l (with its value attached or not). */
static bool has_opt(int argc, char **argv, char s, const char *l)
{
	size_t n = strlen(l);

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if ((argv[i][0] == '-' && argv[i][1] == s) ||
		    (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, l, n) &&
		     (!argv[i][2 + n] || argv[i][2 + n] == '=')))
			return true;
	return false;
}

/*
 * What the originals refuse, refused the same way before any work: fs_mark without a -d
 * directory, dbench without its NPROCS operand: a line and the usage on stderr, exit 1.
 */
static int drop_in_refuses(const struct cmd_spec *spec, const char *name, int argc, char **argv,
			   bool operand_seen)
{
	const char *why =
		!strcmp(name, "fs_mark") && !has_opt(argc, argv, 'd', "dir") ?
			"at least one -d directory is needed (fs_mark refuses to run without)" :
		!strcmp(name, "dbench") && !operand_seen ?
			"NPROCS, the number of clients, is needed (dbench refuses to run without)" :
			NULL;

	if (!why)
		return 0;
	fprintf(stderr, "%s: %s\n", name, why);
	fprintf(stderr, "usage: %s [options]%s   (%s --help for the options)\n", name,
		!strcmp(name, "dbench") ? " NPROCS" : "", name);
	(void)spec;
	return 1;
}

int cmd_workload(const struct fsb_workload *wl, int argc, char **argv, const char *drop_in)
{
	bool operand_seen = false;
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
				 .summary = wl->summary,
				 /* fs_mark prints its usage on stderr and exits 1, even for -h */
				 .help_out = drop_in && !strcmp(drop_in, "fs_mark") ? stderr : NULL,
				 .help_status = drop_in && !strcmp(drop_in, "fs_mark") ? 1 : 0,
				 .ret_operand_seen = &operand_seen };
	int r, status;

	r = fsb_job_init(&job, wl, fsb_exts, err, sizeof(err));
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
	if (drop_in && (status = drop_in_refuses(&spec, drop_in, argc, argv, operand_seen))) {
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
