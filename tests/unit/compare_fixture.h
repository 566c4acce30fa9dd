/* What test-compare.c and test-compare_floor.c share: the default rule, samples, result runs. */
#ifndef FSB_TEST_COMPARE_FIXTURE_H
#define FSB_TEST_COMPARE_FIXTURE_H

#include <stdbool.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "model/doc.h"
#include "report/compare.h"

static const struct rpt_rule rule = { RPT_DEFAULT_ALPHA, RPT_DEFAULT_THRESHOLD_PCT,
				      RPT_DEFAULT_NOISE_COV_PCT, true };

static inline void draw(gsl_rng *r, double *x, size_t n, double mean, double cov)
{
	for (size_t i = 0; i < n; i++)
		x[i] = mean + gsl_ran_gaussian(r, mean * cov);
}

/* A result run as fsbench writes it, reduced to what compare reads. */
static inline json_t *mkrun(const char *dir, int files, double fps, double fsync_p99, bool complete,
			    const char *fs, int rep)
{
	json_t *run = json_pack("{s:s,s:i,s:{s:[s],s:i,s:n},s:{s:b,s:f},s:{s:{s:I,s:I}},s:{s:s}}",
				"workload", "smallfile", "threads", 2, "params", "dir", dir,
				"files", files, "log", "summary", "complete", complete,
				"files_per_sec", fps, "ops", "fsync", "p50_ns", (json_int_t)100000,
				"p99_ns", (json_int_t)fsync_p99, "series", "unit", "files");

	if (!complete)
		json_object_set_new(json_object_get(run, "summary"), "error",
				    json_string("No space left on device"));
	if (fs)
		json_object_set_new(run, "coords",
				    json_pack("{s:s,s:s,s:i,s:i,s:s}", "fs", fs, "workload",
					      "smallfile", "threads", 2, "repetition", rep, "cell",
					      "x"));
	return run;
}

struct fixture {
	json_t *runs[16];
	struct mdl_run_ref refs[16];
	size_t n;
};

static inline void add(struct fixture *f, json_t *run, const char *file, int side)
{
	f->runs[f->n] = run;
	f->refs[f->n] =
		(struct mdl_run_ref){ .run = run, .file = file, .index = f->n, .side = side };
	f->n++;
}

static inline void fixture_free(struct fixture *f)
{
	for (size_t i = 0; i < f->n; i++)
		json_decref(f->runs[i]);
}

static const char *const sides[] = { "baseline", "candidate" };

#endif
