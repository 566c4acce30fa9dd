/* `fsbench <workload>`: parse, prepare the target, run, print fs_mark's table, write JSON. */
#include "commands.h"
#include "common.h"
#include "ext.h"
#include "result.h"
#include "runner.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/result.h"

#define MERGED_MAX 128

/* The workload's own table, the common one, then every extension's: one CLI. */
static int merge_tables(struct fsb_opt *out, const struct fsb_opt *const *tables)
{
	int n = 0;

	for (int t = 0; tables[t]; t++)
		for (const struct fsb_opt *o = tables[t]; o->name && n < MERGED_MAX - 1; o++)
			out[n++] = *o;
	out[n] = (struct fsb_opt){ 0 };
	return n;
}

#define TABLES_MAX 16

static void collect_tables(const struct fsb_workload *wl, const struct fsb_opt **tables)
{
	int n = 0;

	tables[n++] = wl->opts;
	tables[n++] = fsb_common_opts;
	for (int i = 0; fsb_exts[i] && n < TABLES_MAX - 1; i++)
		if (fsb_exts[i]->opts)
			tables[n++] = fsb_exts[i]->opts;
	tables[n] = NULL;
}

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

static void print_loop(struct fsb_run *run, int loop)
{
	if (run->wl->print_loop)
		run->wl->print_loop(run, loop, stdout);
	fflush(stdout);
}

int cmd_workload(const struct fsb_workload *wl, int argc, char **argv)
{
	struct fsb_opt tbl[MERGED_MAX];
	const struct fsb_opt *tables[TABLES_MAX];
	void *ext_state[TABLES_MAX] = { 0 };
	bool ext_on[TABLES_MAX] = { 0 };
	json_t *run_json;
	struct fsb_run run = { 0 };
	struct fsb_common *common;
	char err[OPT_ERR_MAX], tmpdir[4096] = "";
	void *cfg;
	int r, status = FSB_EXIT_OK;
	json_t *doc = NULL;

	collect_tables(wl, tables);
	merge_tables(tbl, tables);
	cfg = calloc(1, wl->cfg_size);
	if (!cfg) {
		fprintf(stderr, "fsbench %s: %s\n", wl->name, strerror(ENOMEM));
		return FSB_EXIT_FAIL;
	}
	common = cfg;
	if (opt_set_defaults(tbl, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "fsbench %s: defaults: %s\n", wl->name, err);
		status = FSB_EXIT_FAIL;
		goto out_cfg;
	}
	r = opt_parse_argv(tbl, cfg, argc, argv, err, sizeof(err));
	if (r == -ECANCELED) {
		printf("usage: fsbench %s [options]\n%s\n\n", wl->name, wl->summary);
		opt_print_help(tbl, stdout);
		goto out_cfg;
	}
	if (r < 0 || r < argc) {
		if (r >= 0)
			snprintf(err, sizeof(err), "unexpected argument '%s'", argv[r]);
		fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
		status = FSB_EXIT_USAGE;
		goto out_cfg;
	}
	for (int i = 0; i < common->dirs.n; i++)
		if (!*common->dirs.v[i]) {
			fprintf(stderr, "fsbench %s: -d: empty directory name\n", wl->name);
			status = FSB_EXIT_USAGE;
			goto out_cfg;
		}

	run.wl = wl;
	run.cfg = cfg;
	run.nthreads = wl->nthreads ? wl->nthreads(cfg) : 1;
	run.runtime_ns = (uint64_t)common->runtime_ns;
	run.series.interval_ns = (uint64_t)common->interval_ns;
	run.quiet = common->quiet;
	run.progress = !common->quiet && isatty(STDERR_FILENO);
	if (run.nthreads > FSB_MAX_THREADS) {
		fprintf(stderr, "fsbench %s: %d threads: at most %d are allowed\n", wl->name,
			run.nthreads, FSB_MAX_THREADS);
		status = FSB_EXIT_USAGE;
		goto out_cfg;
	}

	if (!common->dirs.n) {
		const char *base = getenv("TMPDIR");

		snprintf(tmpdir, sizeof(tmpdir), "%s/fsbench.XXXXXX",
			 base && *base ? base : "/var/tmp");
		if (!mkdtemp(tmpdir)) {
			fprintf(stderr, "fsbench %s: creating a temporary directory %s: %s\n",
				wl->name, tmpdir, strerror(errno));
			tmpdir[0] = 0;
			status = FSB_EXIT_FAIL;
			goto out_cfg;
		}
		common->dirs.v[common->dirs.n++] = strdup(tmpdir);
	}

	r = runner_prepare(&run);
	if (r < 0) {
		fprintf(stderr, "fsbench %s: preparing %d threads: %s\n", wl->name, run.nthreads,
			strerror(-r));
		status = FSB_EXIT_FAIL;
		goto out;
	}
	r = wl->init(&run, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
		status = r == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_FAIL;
		goto out;
	}
	fsb_install_signals();
	for (int i = 0; fsb_exts[i]; i++) {
		if (!fsb_exts[i]->before)
			continue;
		r = fsb_exts[i]->before(&run, common, &ext_state[i], err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "fsbench %s: %s\n", wl->name, err);
			status = r == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_FAIL;
			goto out_ext;
		}
		ext_on[i] = true;
	}
	if (!run.quiet && wl->print_header) {
		printf("\n# ");
		for (int i = 0; i < argc; i++)
			printf(" %s ", i ? argv[i] : "fsbench smallfile");
		printf("\n");
		wl->print_header(&run, stdout);
		fflush(stdout);
		run.on_loop = print_loop;
	}
	r = runner_run(&run);
	if (!run.quiet && wl->print_end)
		wl->print_end(&run, stdout);
	fflush(stdout);

	doc = fsb_result_new(argc, argv);
	run_json = fsb_run_json(&run, tables);
	json_array_append_new(json_object_get(doc, "runs"), run_json);
	/* extensions stop and restore before the result is judged and written */
	for (int i = TABLES_MAX - 1; i >= 0; i--)
		if (ext_on[i]) {
			fsb_exts[i]->after(&run, common, ext_state[i], run_json);
			ext_on[i] = false;
		}
	fsb_result_finish(doc);
	if (run.err || run.signal) {
		fprintf(stderr, "fsbench %s: %s%s\n", wl->name, run.errmsg,
			common->json ? "; the partial result is marked incomplete" : "");
		status = run.signal ? 128 + run.signal : FSB_EXIT_FAIL;
	}
	if (common->json) {
		r = rpt_json_write_atomic(doc, common->json);
		if (r < 0) {
			fprintf(stderr, "fsbench %s: writing result %s: %s\n", wl->name,
				common->json, strerror(-r));
			if (status == FSB_EXIT_OK)
				status = FSB_EXIT_FAIL;
		}
	}
out_ext:
	for (int i = TABLES_MAX - 1; i >= 0; i--)
		if (ext_on[i])
			fsb_exts[i]->after(&run, common, ext_state[i], NULL);
out:
	if (wl->fini)
		wl->fini(&run);
	runner_free(&run);
	if (tmpdir[0])
		remove_tree(tmpdir);
out_cfg:
	json_decref(doc);
	opt_free(tbl, cfg);
	free(cfg);
	return status;
}
