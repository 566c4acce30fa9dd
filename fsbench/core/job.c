/* The job API (job.h): one workload run configured, prepared, run with its extensions, and turned into JSON. */
#include "base/errf.h"

#include "fsbench/core/common.h"
#include "fsbench/core/ext.h"
#include "fsbench/core/job.h"
#include "base/fileio.h"
#include "fsbench/core/result.h"
#include "fsbench/core/runner.h"

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sizes are rounded so that every extension's config starts suitably aligned. */
static size_t cfg_round(size_t n)
{
	const size_t a = _Alignof(max_align_t);

	return (n + a - 1) / a * a;
}

static size_t opts_count(const struct fsb_opt *tbl)
{
	size_t n = 0;

	for (const struct fsb_opt *o = tbl; o && o->name; o++)
		n++;
	return n;
}

/* Appends @tbl to @job->tbl at *@n, its offsets shifted by @base. */
static void opts_append(struct fsb_job *job, size_t *n, const struct fsb_opt *tbl, size_t base)
{
	for (const struct fsb_opt *o = tbl; o && o->name; o++) {
		job->tbl[*n] = *o;
		job->tbl[(*n)++].offset += base;
	}
}

int fsb_job_init(struct fsb_job *job, const struct fsb_workload *wl,
		 const struct fsb_ext *const *exts, char *err, size_t errlen)
{
	size_t nopts = opts_count(wl->opts) + opts_count(fsb_common_opts), size, n = 0;

	memset(job, 0, sizeof(*job));
	job->wl = wl;
	job->exts = exts;
	while (exts && exts[job->nexts])
		job->nexts++;
	job->ext = calloc((size_t)job->nexts + 1, sizeof(*job->ext));
	if (!job->ext)
		return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	size = cfg_round(wl->cfg_size);
	for (int i = 0; i < job->nexts; i++) {
		const struct fsb_ext *e = job->exts[i];

		/* an extension's table must fit the struct it declares, as fio checks an engine's */
		for (const struct fsb_opt *o = e->opts; o && o->name; o++)
			if (o->offset >= e->cfg_size)
				return errf(
					err, errlen, -EINVAL,
					"extension %s: option --%s lies outside its %zu-byte config",
					e->name, o->name, e->cfg_size);
		nopts += opts_count(e->opts);
		job->ext[i].cfg_off = size;
		size += cfg_round(e->cfg_size);
	}
	job->tbl = calloc(nopts + 1, sizeof(*job->tbl));
	job->cfg = calloc(1, size);
	if (!job->tbl || !job->cfg)
		return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	opts_append(job, &n, wl->opts, 0);
	opts_append(job, &n, fsb_common_opts, 0);
	for (int i = 0; i < job->nexts; i++)
		opts_append(job, &n, job->exts[i]->opts, job->ext[i].cfg_off);
	return opt_set_defaults(job->tbl, job->cfg, err, errlen);
}

int fsb_job_set(struct fsb_job *job, const char *name, const char *value, char *err, size_t errlen)
{
	return opt_set(job->tbl, job->cfg, name, value, err, errlen);
}

void fsb_job_free(struct fsb_job *job)
{
	if (job->cfg && job->tbl)
		opt_free(job->tbl, job->cfg);
	free(job->cfg);
	free(job->tbl);
	free(job->ext);
	job->cfg = NULL;
	job->tbl = NULL;
	job->ext = NULL;
}

static void loop_done(struct fsb_run *run, int loop)
{
	const struct fsb_job *job = run->on_loop_arg;

	if (job->print && !run->quiet && run->wl->print_header) {
		if (run->wl->print_loop)
			run->wl->print_loop(run, loop, stdout);
		fflush(stdout);
	}
	if (job->after_loop)
		job->after_loop(run, loop, job->after_loop_arg);
}

static void tick_print(struct fsb_run *run, uint64_t now)
{
	run->wl->print_tick(run, now, stdout);
	fflush(stdout);
}

int fsb_job_run(struct fsb_job *job, int argc, char **argv, json_t **ret_run, char *err,
		size_t errlen)
{
	const struct fsb_workload *wl = job->wl;
	struct fsb_common *common = job->cfg;
	struct fsb_run run = { 0 };
	char tmpdir[4096] = "";
	json_t *run_json = NULL;
	int ret = 0;

	*ret_run = NULL;
	job->signal = 0;
	if (wl->adopt)
		wl->adopt(job->cfg);
	for (int i = 0; i < common->dirs.n; i++)
		if (!*common->dirs.v[i])
			return errf(err, errlen, -EINVAL, "-d: empty directory name");
	run.wl = wl;
	run.cfg = job->cfg;
	run.nthreads = wl->nthreads ? wl->nthreads(job->cfg) : 1;
	run.runtime_ns = (uint64_t)common->runtime_ns;
	run.series.interval_ns = (uint64_t)common->interval_ns;
	run.quiet = common->quiet;
	/* a workload with lines of its own every second (dbench's) needs no live line beside them */
	run.progress = !common->quiet && isatty(STDERR_FILENO) && !(job->print && wl->print_tick);
	if (run.nthreads < 1 || run.nthreads > FSB_MAX_THREADS)
		return errf(err, errlen, -EINVAL, "%d threads: 1 to %d are allowed", run.nthreads,
			    FSB_MAX_THREADS);

	if (!common->dirs.n && wl->default_dir) {
		common->dirs.v[common->dirs.n] = strdup(wl->default_dir);
		if (!common->dirs.v[common->dirs.n])
			return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
		common->dirs.n++;
	}
	if (!common->dirs.n) {
		const char *base = getenv("TMPDIR");

		snprintf(tmpdir, sizeof(tmpdir), "%s/fsbench.XXXXXX",
			 base && *base ? base : "/var/tmp");
		if (!mkdtemp(tmpdir))
			return errf(err, errlen, -errno, "creating a temporary directory %s: %s",
				    tmpdir, strerror(errno));
		common->dirs.v[common->dirs.n++] = strdup(tmpdir);
	}

	ret = runner_prepare(&run);
	if (ret < 0) {
		errf(err, errlen, ret, "preparing %d threads: %s", run.nthreads, strerror(-ret));
		goto out;
	}
	ret = wl->init(&run, err, errlen);
	if (ret < 0)
		goto out;
	base_install_signals();
	for (int i = 0; i < job->nexts; i++) {
		if (!job->exts[i]->before)
			continue;
		ret = job->exts[i]->before(&run, common, fsb_job_ext_cfg(job, i),
					   &job->ext[i].state, err, errlen);
		if (ret < 0)
			goto out_ext;
		job->ext[i].on = true;
	}
	if (job->print && !run.quiet && wl->print_header) {
		if (!wl->bare_header) {
			/* fs_mark echoes its argv[0] ("./fs_mark"): as a drop-in, so does fsbench */
			printf("\n# ");
			for (int i = 0; i < argc; i++)
				printf(" %s ", argv[i]);
			printf("\n");
		}
		wl->print_header(&run, stdout);
		fflush(stdout);
	}
	if (job->print && !run.quiet && wl->print_tick)
		run.on_tick = tick_print;
	run.on_loop = loop_done;
	run.on_loop_arg = job;
	runner_run(&run);
	if (job->print && !run.quiet && wl->print_end)
		wl->print_end(&run, stdout);
	fflush(stdout);

	run_json = fsb_run_json(&run, job->tbl);
	/* extensions stop and restore before the result is judged and written */
	for (int i = job->nexts - 1; i >= 0; i--)
		if (job->ext[i].on) {
			job->exts[i]->after(&run, common, fsb_job_ext_cfg(job, i),
					    job->ext[i].state, run_json);
			job->ext[i].on = false;
		}
	if (run.err || run.signal) {
		snprintf(err, errlen, "%s", run.errmsg);
		job->signal = run.signal;
		/* the threads ran: the CLI tells this from a refused configuration by the run */
		ret = run.signal ? -EINTR : run.err < 0 ? run.err : -EIO;
	}
	*ret_run = run_json;
out_ext:
	for (int i = job->nexts - 1; i >= 0; i--)
		if (job->ext[i].on) {
			job->exts[i]->after(&run, common, fsb_job_ext_cfg(job, i),
					    job->ext[i].state, NULL);
			job->ext[i].on = false;
		}
out:
	if (wl->fini)
		wl->fini(&run);
	runner_free(&run);
	if (tmpdir[0]) {
		base_rm_tree(tmpdir);
		/* the directory is gone: do not leave its name as the run's -d */
		free(common->dirs.v[--common->dirs.n]);
	}
	return ret;
}
