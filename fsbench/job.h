/* One workload run being configured and run: shared by the workload commands and suites. */
#ifndef FSB_JOB_H
#define FSB_JOB_H

#include <jansson.h>
#include <stdbool.h>

#include "common.h"
#include "workload.h"

#define FSB_JOB_TABLES_MAX 16
#define FSB_JOB_OPTS_MAX 160

struct fsb_job {
	const struct fsb_workload *wl;
	/* the workload's table, the common one, then every extension's */
	const struct fsb_opt *tables[FSB_JOB_TABLES_MAX];
	struct fsb_opt tbl[FSB_JOB_OPTS_MAX]; /* the same, merged into one */
	void *cfg; /* starts with struct fsb_common */
	bool print; /* fs_mark's table on stdout */
};

/* Allocates @job's config with every default. 0 or -errno with @err set. */
int fsb_job_init(struct fsb_job *job, const struct fsb_workload *wl, char *err, size_t errlen);

/* Sets one option by long name from text (suite files). 0, -ENOENT or -EINVAL. */
int fsb_job_set(struct fsb_job *job, const char *name, const char *value, char *err, size_t errlen);

static inline struct fsb_common *fsb_job_common(struct fsb_job *job)
{
	return job->cfg;
}

/*
 * Runs the job: a fresh temporary directory when no -d was given, the workload's init,
 * every extension, the threads, and the run's JSON object. *@ret_run is set whenever the
 * threads ran (also for an incomplete run) and is NULL otherwise; @argv (may be NULL) is
 * echoed in the table header. Returns the exit status (FSB_EXIT_*, or 128 + signal) with
 * @err set to one line when it is not FSB_EXIT_OK.
 */
int fsb_job_run(struct fsb_job *job, int argc, char **argv, json_t **ret_run, char *err,
		size_t errlen);

void fsb_job_free(struct fsb_job *job);

/* SIGINT, SIGTERM and SIGHUP only set fsb_signal_received: the runner stops, then cleans up. */
void fsb_install_signals(void);

#endif
