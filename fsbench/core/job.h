/* One workload run being configured and run: shared by the workload commands and suites. */
#ifndef FSB_JOB_H
#define FSB_JOB_H

#include "base/signal.h" /* base_install_signals(), which the job's callers run */
#include <jansson.h>
#include <stdbool.h>

#include "fsbench/core/common.h"
#include "fsbench/core/workload.h"

/* One extension (ext.h) in a job: where its config lives, and its state during the run. */
struct fsb_job_ext {
	size_t cfg_off; /* offset of the extension's config in the job's cfg */
	void *state; /* what before() returned */
	bool on; /* before() succeeded: after() is owed */
};

struct fsb_job {
	const struct fsb_workload *wl;
	/* the extensions that run around it, in the order before() runs (the caller's table) */
	const struct fsb_ext *const *exts;
	int nexts;
	/*
	 * The workload's options, the common ones, then every extension's, merged into one
	 * table whose offsets are into @cfg (an extension's shifted by its cfg_off). Its
	 * order is the order of the result's "params".
	 */
	struct fsb_opt *tbl;
	/* One block: the workload's config (which starts with struct fsb_common), then each extension's. */
	void *cfg;
	struct fsb_job_ext *ext; /* @nexts entries, in @exts order */
	bool print; /* fs_mark's table on stdout */
	/* Called on the main thread after each loop, the workers joined (a partial result). */
	void (*after_loop)(const struct fsb_run *run, int loop, void *arg);
	void *after_loop_arg;
	int signal; /* the signal that stopped the last fsb_job_run(), or 0 */
};

/*
 * Allocates @job's option table and config with every default, for workload @wl and the
 * NULL-terminated extensions @exts (fsb_exts, the extensions' table: core names none of
 * them). 0 or -errno with @err set; fsb_job_free() is safe on @job either way.
 */
int fsb_job_init(struct fsb_job *job, const struct fsb_workload *wl,
		 const struct fsb_ext *const *exts, char *err, size_t errlen);

/* Sets one option by long name from text (suite files). 0, -ENOENT or -EINVAL. */
int fsb_job_set(struct fsb_job *job, const char *name, const char *value, char *err, size_t errlen);

static inline struct fsb_common *fsb_job_common(struct fsb_job *job)
{
	return job->cfg;
}

/* Extension @i's config (fsb_exts[i]->cfg_size bytes). */
static inline void *fsb_job_ext_cfg(struct fsb_job *job, int i)
{
	return (char *)job->cfg + job->ext[i].cfg_off;
}

/*
 * Runs the job: a fresh temporary directory when no -d was given, the workload's init,
 * every extension, the threads, and the run's JSON object. *@ret_run is set whenever the
 * threads ran (also for an incomplete run) and is NULL otherwise; @argv (may be NULL) is
 * echoed in the table header. Returns 0, or -errno with @err set to one line: -EINVAL
 * with no run is a configuration refused before anything was made (a usage error), and
 * -EINTR with @job->signal set a run that a signal stopped.
 */
int fsb_job_run(struct fsb_job *job, int argc, char **argv, json_t **ret_run, char *err,
		size_t errlen);

void fsb_job_free(struct fsb_job *job);

#endif
