/* `fsbench <workload>` and the job API under it: parse, prepare, run, print, write JSON. */
#include "commands.h"
#include "common.h"
#include "ext.h"
#include "job.h"
#include "result.h"
#include "runner.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/result_file.h"

static void on_signal(int sig)
{
	fsb_signal_received = sig;
}

void fsb_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes a temporary directory that fsbench made itself, with everything in it. */
static void remove_tree(const char *path)
{
	nftw(path, rm_entry, 64, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

int fsb_job_init(struct fsb_job *job, const struct fsb_workload *wl, char *err, size_t errlen)
{
	int nt = 0, n = 0;

	memset(job, 0, sizeof(*job));
	job->wl = wl;
	job->tables[nt++] = wl->opts;
	job->tables[nt++] = fsb_common_opts;
	for (int i = 0; fsb_exts[i] && nt < FSB_JOB_TABLES_MAX - 1; i++)
		if (fsb_exts[i]->opts)
			job->tables[nt++] = fsb_exts[i]->opts;
	for (int t = 0; job->tables[t]; t++)
		for (const struct fsb_opt *o = job->tables[t]; o->name; o++) {
			if (n == FSB_JOB_OPTS_MAX - 1) {
				snprintf(err, errlen, "too many options");
				return -E2BIG;
			}
			job->tbl[n++] = *o;
		}
	job->cfg = calloc(1, wl->cfg_size);
	if (!job->cfg) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return opt_set_defaults(job->tbl, job->cfg, err, errlen);
}

int fsb_job_set(struct fsb_job *job, const char *name, const char *value, char *err, size_t errlen)
{
	return opt_set(job->tbl, job->cfg, name, value, err, errlen);
}

void fsb_job_free(struct fsb_job *job)
{
	if (job->cfg)
		opt_free(job->tbl, job->cfg);
	free(job->cfg);
	job->cfg = NULL;
}

static void print_loop(struct fsb_run *run, int loop)
{
	if (run->wl->print_loop)
		run->wl->print_loop(run, loop, stdout);
	fflush(stdout);
}

int fsb_job_run(struct fsb_job *job, int argc, char **argv, json_t **ret_run, char *err,
		size_t errlen)
{
	const struct fsb_workload *wl = job->wl;
	struct fsb_common *common = job->cfg;
	struct fsb_run run = { 0 };
	void *ext_state[FSB_JOB_TABLES_MAX] = { 0 };
	bool ext_on[FSB_JOB_TABLES_MAX] = { 0 };
	char tmpdir[4096] = "";
	json_t *run_json = NULL;
	int r, status = FSB_EXIT_OK;

	*ret_run = NULL;
	for (int i = 0; i < common->dirs.n; i++)
		if (!*common->dirs.v[i]) {
			snprintf(err, errlen, "-d: empty directory name");
			return FSB_EXIT_USAGE;
		}
	run.wl = wl;
	run.cfg = job->cfg;
	run.nthreads = wl->nthreads ? wl->nthreads(job->cfg) : 1;
	run.runtime_ns = (uint64_t)common->runtime_ns;
	run.series.interval_ns = (uint64_t)common->interval_ns;
	run.quiet = common->quiet;
	run.progress = !common->quiet && isatty(STDERR_FILENO);
	if (run.nthreads > FSB_MAX_THREADS) {
		snprintf(err, errlen, "%d threads: at most %d are allowed", run.nthreads,
			 FSB_MAX_THREADS);
		return FSB_EXIT_USAGE;
	}

	if (!common->dirs.n) {
		const char *base = getenv("TMPDIR");

		snprintf(tmpdir, sizeof(tmpdir), "%s/fsbench.XXXXXX",
			 base && *base ? base : "/var/tmp");
		if (!mkdtemp(tmpdir)) {
			snprintf(err, errlen, "creating a temporary directory %s: %s", tmpdir,
				 strerror(errno));
			return FSB_EXIT_FAIL;
		}
		common->dirs.v[common->dirs.n++] = strdup(tmpdir);
	}

	r = runner_prepare(&run);
	if (r < 0) {
		snprintf(err, errlen, "preparing %d threads: %s", run.nthreads, strerror(-r));
		status = FSB_EXIT_FAIL;
		goto out;
	}
	r = wl->init(&run, err, errlen);
	if (r < 0) {
		status = r == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_FAIL;
		goto out;
	}
	fsb_install_signals();
	for (int i = 0; fsb_exts[i]; i++) {
		if (!fsb_exts[i]->before)
			continue;
		r = fsb_exts[i]->before(&run, common, &ext_state[i], err, errlen);
		if (r < 0) {
			status = r == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_FAIL;
			goto out_ext;
		}
		ext_on[i] = true;
	}
	if (job->print && !run.quiet && wl->print_header) {
		printf("\n# ");
		for (int i = 0; i < argc; i++)
			printf(" %s ", i ? argv[i] : wl->name);
		printf("\n");
		wl->print_header(&run, stdout);
		fflush(stdout);
		run.on_loop = print_loop;
	}
	runner_run(&run);
	if (job->print && !run.quiet && wl->print_end)
		wl->print_end(&run, stdout);
	fflush(stdout);

	run_json = fsb_run_json(&run, job->tables);
	/* extensions stop and restore before the result is judged and written */
	for (int i = FSB_JOB_TABLES_MAX - 1; i >= 0; i--)
		if (ext_on[i]) {
			fsb_exts[i]->after(&run, common, ext_state[i], run_json);
			ext_on[i] = false;
		}
	if (run.err || run.signal) {
		snprintf(err, errlen, "%s", run.errmsg);
		status = run.signal ? 128 + run.signal : FSB_EXIT_FAIL;
	}
	*ret_run = run_json;
out_ext:
	for (int i = FSB_JOB_TABLES_MAX - 1; i >= 0; i--)
		if (ext_on[i])
			fsb_exts[i]->after(&run, common, ext_state[i], NULL);
out:
	if (wl->fini)
		wl->fini(&run);
	runner_free(&run);
	if (tmpdir[0]) {
		remove_tree(tmpdir);
		/* the directory is gone: do not leave its name as the run's -d */
		free(common->dirs.v[--common->dirs.n]);
	}
	return status;
}

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
