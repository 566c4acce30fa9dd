/* `fsbench lava submit`: jobs to a LAVA server, waited for, their results written for `lava import`. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "fsbench/lava/client.h"

#define MAX_JOBS CMD_MAX_FILES
#define LOG_TAIL_LINES 20

struct submit_cfg {
	char *lava, *token_file, *output;
	bool wait;
	int64_t timeout;
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
		"incomplete, timed out: its log's last lines are shown), 1 when the server failed.\n");
}

static int lava_submit(void *cfg)
{
	const struct submit_cfg *c = cfg;
	struct lava_client *cl = NULL;
	long ids[MAX_JOBS] = { 0 };
	char err[8192], path[PATH_MAX];
	const unsigned timeout_s = (unsigned)(c->timeout / 1000000000);
	const bool wait = c->wait || c->output, several = c->files.n > 1;
	int r = FSB_EXIT_OK, n = c->files.n;
	char *yaml[MAX_JOBS] = { 0 };

	if (lava_submit_check(c->lava, c->token_file, n, c->output, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava submit: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	if (lava_client_open(c->lava, c->token_file, &cl, err, sizeof(err))) {
		fprintf(stderr, "fsbench lava submit: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	/* every job is read before the first is submitted: a bad file submits nothing */

	for (int i = 0; i < n; i++)
		if (!(yaml[i] = lava_job_read(c->files.v[i], err, sizeof(err)))) {
			fprintf(stderr, "fsbench lava submit: %s\n", err);
			r = FSB_EXIT_USAGE;
			goto done;
		}
	for (int i = 0; i < n; i++) {
		if (lava_job_submit(cl, yaml[i], &ids[i], err, sizeof(err))) {
			fprintf(stderr, "fsbench lava submit: %s: %s\n", c->files.v[i], err);
			r = FSB_EXIT_FAIL;
			goto done;
		}
		fprintf(stderr, "fsbench lava submit: %s: job %ld, %s/scheduler/job/%ld\n",
			c->files.v[i], ids[i], lava_client_url(cl), ids[i]);
		printf("%ld\n", ids[i]);
	}
	fflush(stdout);
	if (!wait)
		goto done;
	/* all the jobs run at once on the server's devices: one deadline for all of them */
	time_t end = time(NULL) + timeout_s;

	for (int i = 0; i < n; i++) {
		struct lava_job_status js;
		time_t left = end - time(NULL);
		char *res = NULL, *tail = NULL;
		size_t len = 0;
		int e = lava_job_wait(cl, ids[i], left > 0 ? (unsigned)left : 1, &js, err,
				      sizeof(err));

		if (e == -ETIMEDOUT) {
			char e2[512];

			if (lava_job_cancel(cl, ids[i], e2, sizeof(e2)))
				fprintf(stderr, "fsbench lava submit: canceling: %s\n", e2);
			fprintf(stderr, "fsbench lava submit: cannot judge: %s (canceled)\n", err);
			r = FSB_EXIT_CANNOT_JUDGE;
			continue;
		}
		if (e) {
			fprintf(stderr, "fsbench lava submit: job %ld: %s\n", ids[i], err);
			r = r ? r : FSB_EXIT_FAIL;
			continue;
		}
		if (strcmp(js.health, "Complete")) {
			if (lava_job_log_tail(cl, ids[i], LOG_TAIL_LINES, &tail, err, sizeof(err)))
				tail = NULL;
			fprintf(stderr,
				"fsbench lava submit: cannot judge: job %ld (%s, %s/scheduler/job/%ld) "
				"finished %s%s%s; the log's last lines:\n%s\n",
				ids[i], c->files.v[i], lava_client_url(cl), ids[i],
				js.health[0] ? js.health : "without a health",
				js.failure_comment[0] ? ": " : "", js.failure_comment,
				tail ? tail : err);
			free(tail);
			r = FSB_EXIT_CANNOT_JUDGE;
			continue;
		}
		fprintf(stderr, "fsbench lava submit: job %ld: Complete\n", ids[i]);
		if (!c->output)
			continue;
		if (several)
			e = base_path(path, sizeof(path), "%s/job-%ld.yaml", c->output, ids[i]);
		else
			e = base_path(path, sizeof(path), "%s", c->output);
		if (!e && (e = lava_job_results(cl, ids[i], &res, &len, err, sizeof(err)))) {
			fprintf(stderr, "fsbench lava submit: job %ld's results: %s\n", ids[i],
				err);
			r = r ? r : FSB_EXIT_FAIL;
			continue;
		}
		if (!e)
			e = lava_results_write(path, res, len);
		free(res);
		if (e) {
			fprintf(stderr, "fsbench lava submit: writing %s: %s\n", path,
				strerror(-e));
			r = r ? r : FSB_EXIT_FAIL;
		} else
			fprintf(stderr, "fsbench lava submit: job %ld's results: %s\n", ids[i],
				path);
	}
done:
	for (int i = 0; i < n; i++)
		free(yaml[i]);
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
