/* `fsbench lava submit`: jobs to a LAVA server, waited for, their results written for `lava import`. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/fileio.h"
#include "fsbench/lava/client.h"
#include "fsbench/lava/submit_matrix.h"

#define MAX_JOBS CMD_MAX_FILES
#define LOG_TAIL_LINES 20

struct submit_cfg {
	char *lava, *token_file, *output;
	bool wait;
	int64_t timeout, repetitions;
	struct opt_strlist kernels, suites; /* a matrix: a job for each kernel with each suite */
	struct cmd_files files;
};

#define O(f) offsetof(struct submit_cfg, f)
static const struct fsb_opt submit_opts[] = {
	{ .name = "lava",
	  .type = OPT_STRING,
	  .offset = O(lava),
	  .help = "the LAVA server's URL (http://HOST[:PORT]/)" },
	{ .name = "lava-token-file",
	  .type = OPT_STRING,
	  .offset = O(token_file),
	  .file = OPT_FILE,
	  .help = "a file holding an API token of the server (yours or root's, writable by no "
		  "one else)" },
	{ .name = "wait",
	  .type = OPT_BOOL,
	  .offset = O(wait),
	  .help = "wait until every job has finished (implied by -o)" },
	{ .name = "timeout",
	  .type = OPT_DURATION,
	  .offset = O(timeout),
	  .min = INT64_C(10000000000),
	  .max = INT64_C(604800000000000),
	  .def = "2h",
	  .help = "how long to wait for all the jobs; then they are canceled" },
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = O(output),
	  .file = OPT_FILE,
	  .help = "the results as LAVA gives them (/results/ID/yaml), for `fsbench lava import`: "
		  "a file for one job, a directory (JOB-ID.yaml in it) for several" },
	{ .name = "kernel",
	  .type = OPT_STRLIST,
	  .offset = O(kernels),
	  .help = "a matrix instead of job files: a job for kernel K (as kernel-gate takes "
		  "one; repeat for more) with each --suite, one result per kernel in -o DIR" },
	{ .name = "suite",
	  .type = OPT_STRLIST,
	  .offset = O(suites),
	  .help = "with --kernel: a suite of the matrix (repeat for more; default kgate)" },
	{ .name = "repetitions",
	  .type = OPT_INT,
	  .offset = O(repetitions),
	  .min = 1,
	  .max = 1000,
	  .help = "with --kernel: passed to each suite" },
	{ 0 },
};
#undef O

static void submit_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench lava submit JOB.yaml... --lava URL --lava-token-file F [--wait]\n"
		"                           [--timeout T] [-o RESULTS]\n\n"
		"Submits each job (as `fsbench lava job` writes them) to the LAVA server, prints its\n"
		"id, and with --wait or -o waits for all of them and fetches their results. Exit 0\n"
		"when every job finished Complete, 125 (cannot judge) when one did not (canceled,\n"
		"incomplete, timed out: its log's last lines are shown), 1 when the server failed.\n\n"
		"       fsbench lava submit --kernel K... [--suite S...] --lava URL\n"
		"                           --lava-token-file F -o DIR\n\n"
		"A matrix: a job for each kernel with each suite (the model disk, as kernel-gate's),\n"
		"all submitted and waited for, and one fsbench result per kernel in DIR\n"
		"(kN-RELEASE.json, the runs of all its suites) that compare and report take.\n");
}

/* A line of lava/'s, after the command's name. */
static void report(void *data, const char *fmt, ...)
{
	va_list ap;

	(void)data;
	va_start(ap, fmt);
	fputs("fsbench lava submit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int lava_submit(void *cfg)
{
	const struct submit_cfg *c = cfg;
	struct lava_client *cl = NULL;
	long ids[MAX_JOBS] = { 0 };
	char err[8192];
	enum kg_gate_fail fail;
	const unsigned timeout_s = (unsigned)(c->timeout / 1000000000);
	const bool matrix = c->kernels.n > 0;
	const bool wait = c->wait || c->output || matrix, several = c->files.n > 1 || matrix;
	struct stat st;
	bool make_dir = false;
	int r = FSB_EXIT_OK,
	    n = matrix ? c->kernels.n * (c->suites.n ? c->suites.n : 1) : c->files.n;
	char *yaml[MAX_JOBS] = { 0 };
	bool saved[MAX_JOBS] = { false };
	struct lava_matrix_job *mj = NULL;
	const char *jn[MAX_JOBS]; /* each job's name in messages: its file */

	if (!c->lava || !c->token_file || !n) {
		fprintf(stderr, "fsbench lava submit: %s (see --help)\n",
			!n	 ? "no job file (or --kernel)" :
			!c->lava ? "--lava URL is required" :
				   "--lava-token-file is required");
		return FSB_EXIT_USAGE;
	}
	if ((matrix && (c->files.n || !c->output || n > MAX_JOBS)) ||
	    (!matrix && (c->suites.n || c->repetitions))) {
		fprintf(stderr, "fsbench lava submit: %s (see --help)\n",
			!matrix	   ? "--suite and --repetitions go with --kernel" :
			c->files.n ? "job files or --kernel, not both" :
			!c->output ? "--kernel needs -o DIR, where each kernel's result goes" :
				     "more than " CMD_XSTR(MAX_JOBS) " jobs");
		return FSB_EXIT_USAGE;
	}
	/* several jobs' results go into a directory: made here when it is not there yet */
	if (c->output && several && lstat(c->output, &st) && errno == ENOENT)
		make_dir = true;
	else if (c->output && several && (lstat(c->output, &st) || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "fsbench lava submit: -o %s: not a directory (several jobs)\n",
			c->output);
		return FSB_EXIT_USAGE;
	}
	if (c->output && !several && base_out_check(c->output)) {
		fprintf(stderr, "fsbench lava submit: -o %s: cannot be written\n", c->output);
		return FSB_EXIT_USAGE;
	}
	if (lava_client_open(c->lava, c->token_file, &cl, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava submit: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	if (make_dir && mkdir(c->output, 0755)) {
		fprintf(stderr, "fsbench lava submit: -o %s: making the directory: %s\n", c->output,
			strerror(errno));
		lava_client_close(cl);
		return FSB_EXIT_USAGE;
	}
	/* every job is read (or built) before the first is submitted: a bad one submits nothing */
	if (matrix && !(mj = calloc((size_t)n, sizeof(*mj)))) {
		fprintf(stderr, "fsbench lava submit: %s\n", strerror(ENOMEM));
		r = FSB_EXIT_FAIL;
		goto done;
	}
	if (matrix &&
	    lava_matrix_jobs(c->kernels.v, c->kernels.n, c->suites.v, c->suites.n,
			     (int)c->repetitions, c->output, (int)(c->timeout / 60000000000LL) + 1,
			     mj, &fail, report, NULL, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava submit: %s\n", err);
		r = fail == KG_GATE_USAGE  ? FSB_EXIT_USAGE :
		    fail == KG_GATE_KERNEL ? FSB_EXIT_CANNOT_JUDGE :
					     FSB_EXIT_FAIL;
		goto done;
	}
	for (int i = 0; i < n; i++) /* a matrix's jobs as lava_matrix_jobs() wrote them */
		jn[i] = matrix ? mj[i].name : c->files.v[i];
	for (int i = 0; i < n && !matrix; i++)
		if (!(yaml[i] = lava_job_read(c->files.v[i], err, sizeof(err)))) {
			fprintf(stderr, "fsbench lava submit: %s\n", err);
			r = FSB_EXIT_USAGE;
			goto done;
		}
	for (int i = 0; i < n; i++) {
		if (lava_job_submit(cl, matrix ? mj[i].yaml : yaml[i], &ids[i], err, sizeof(err))) {
			fprintf(stderr, "fsbench lava submit: %s: %s\n", jn[i], err);
			r = FSB_EXIT_FAIL;
			goto done;
		}
		fprintf(stderr, "fsbench lava submit: %s: job %ld, %s/scheduler/job/%ld\n", jn[i],
			ids[i], lava_client_url(cl), ids[i]);
		printf("%ld\n", ids[i]);
	}
	fflush(stdout);
	if (!wait)
		goto done;
	/* all the jobs run at once on the server's devices: one deadline for all of them */
	time_t end = time(NULL) + timeout_s;

	for (int i = 0; i < n; i++) {
		time_t left = end - time(NULL);
		int e = lava_job_collect(cl, ids[i], jn[i], left > 0 ? (unsigned)left : 1,
					 LOG_TAIL_LINES, c->output, several, report, NULL);

		if (e == -ECANCELED)
			r = FSB_EXIT_CANNOT_JUDGE;
		else if (e)
			r = r ? r : FSB_EXIT_FAIL;
		saved[i] = !e && c->output;
	}
	if (matrix) {
		int e = lava_matrix_results(mj, ids, saved, c->kernels.n,
					    c->suites.n ? c->suites.n : 1, c->output, report, NULL);

		r = r || !e ? r : e == -ENODATA ? FSB_EXIT_CANNOT_JUDGE : FSB_EXIT_FAIL;
	}
done:
	for (int i = 0; i < n; i++)
		free(yaml[i]), free(mj ? mj[i].yaml : NULL);
	free(mj);
	lava_client_close(cl);
	return r;
}

static const struct cmd_spec submit_cmd = {
	.name = "lava submit",
	.opts = submit_opts,
	.files_offset = offsetof(struct submit_cfg, files),
	.usage = submit_usage,
	.run = lava_submit,
};

int cmd_lava_submit(int argc, char **argv)
{
	struct submit_cfg c;

	memset(&c, 0, sizeof(c));
	return cmd_args_run(&submit_cmd, &c, argc, argv);
}
