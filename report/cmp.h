/* The typed comparison: what the judge decided, once, for printers, exporters, gate and report. */
#ifndef RPT_CMP_H
#define RPT_CMP_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "report/verdict.h"

/*
 * One side's values of one metric and their statistics (st is valid when n > 0).
 * reps: each value's repetition, NULL when a run did not say; calls_min: the fewest calls
 * behind a run's percentile, NAN when not counted; exact: a percentile every run of the
 * side computed from every latency it kept (model/hist_json.h), not from its histogram.
 */
struct rpt_cmp_side {
	size_t n;
	double *values;
	long long *reps;
	struct rpt_stats st;
	double calls_min;
	bool exact;
};

/*
 * One side's conditions (report/hostload_rule.h): the means of its runs' host_load and the
 * median of its canaries' fsync p50; each figure valid when its flag is set.
 */
struct rpt_cmp_cond_side {
	bool load, wait, canary;
	double others_pct, steal_pct, self_wait_pct, canary_p50_us;
};

/* Why the sides' conditions left a comparison unjudged, and what the statistics said. */
struct rpt_cmp_conditions {
	char *reason;
	enum rpt_verdict verdict_if_judged;
	struct rpt_cmp_cond_side baseline, side;
};

/*
 * One side judged against the baseline (side 0): ONE verdict and why. With stats false
 * there are no figures (a side without values, or cannot_judge): verdict is
 * RPT_INSUFFICIENT, and reason says why when it is known.
 */
struct rpt_cmp_judged {
	int side;
	enum rpt_verdict verdict;
	bool stats; /* change_pct, the test and the rule below were decided */
	bool cannot_judge; /* the evidence is not there (reason says which): no verdict */
	char *reason;
	double change_pct; /* NAN: the baseline's mean is 0 and b's is not */
	bool tested;
	enum rpt_test_kind test;
	double p, p_welch, p_rank; /* NAN when not computed */
	double q; /* Benjamini-Hochberg adjusted p among the gated metrics; NAN: not in the family */
	double spread_pct; /* the larger side's own spread (rpt_cmp_spread_pct); NAN: none */
	struct rpt_rule rule;
	json_t *why; /* the probes' account of the change, or NULL */
	/* decided by the A/A floor (RPT_DECIDE_FLOOR): NAN when not */
	double floor_pct, bar_pct, resolution_pct;
	char *not_gated; /* why the floor took it out of the gate, or NULL */
	/* the host rule (report/hostload_rule.h): unequal conditions (cannot_judge), or NULL */
	struct rpt_cmp_conditions *conditions;
	char *host_note; /* judged, but on a busy host: which side and how busy; or NULL */
};

struct rpt_cmp_metric {
	char *name;
	char *unit;
	enum rpt_direction dir;
	enum rpt_metric_kind kind;
	struct rpt_cmp_side *sides; /* [nsides] */
	struct rpt_cmp_judged *judged; /* [nsides - 1]: side k + 1 against side 0 */
};

struct rpt_cmp_instr {
	int side;
	char *differs; /* which sources loaded on one side only */
};

struct rpt_cmp_sample {
	char *label;
	json_t *workload, *threads, *key; /* as the runs have them */
	json_t *coords; /* without repetition and the --across field; NULL without coords */
	json_t *context; /* per side: rpt_side_context() */
	struct rpt_cmp_metric *metrics;
	size_t nmetrics;
	struct rpt_cmp_instr *instr;
	size_t ninstr;
};

/*
 * A run left out: excluded (incomplete: @side its side, @what why) or unmatched (its
 * sample missing on side @side: @what the sample's label).
 */
struct rpt_cmp_run_note {
	char *file;
	long long run;
	int side;
	char *what;
};

enum rpt_decide {
	RPT_DECIDE_TEST, /* a test's p-value, corrected for many metrics, and the sides' spread */
	RPT_DECIDE_FLOOR, /* the A/A floor: the spread of each side's own repetitions */
};

struct rpt_cmp_settings {
	double alpha, threshold_pct, noise_cov_pct;
	enum rpt_test_choice test;
	char *across;
	json_t *gate; /* the gate file, or NULL */
	bool strict, allow_noisy;
	bool allow_unproven; /* a headline metric's not_proven passes with a warning */
	/* the tested metrics corrected together (q): the seeds' gated ones, and the others */
	size_t family, family_other;
	enum rpt_decide decide;
	double floor_multiple;
	double max_host_load_pct; /* compare --max-host-load; 0: off */
};

struct rpt_cmp {
	char *created;
	struct rpt_cmp_settings set;
	char **side_names; /* [nsides] */
	json_t **side_files; /* [nsides]: arrays of file names */
	int nsides;
	struct rpt_cmp_run_note *excluded, *unmatched;
	size_t nexcluded, nunmatched;
	struct rpt_cmp_sample *samples;
	size_t nsamples;
	/* the comparison as a whole could not be judged (a busy host, say): why */
	bool cannot_judge;
	char *cannot_judge_reason;
};

/* Appends a run note to *@v (copies of @file and @what). 0 or -ENOMEM (*@v unchanged). */
int rpt_cmp_note_add(struct rpt_cmp_run_note **v, size_t *n, const char *file, long long run,
		     int side, const char *what);

/* Frees @c and everything it owns; NULL does nothing. */
void rpt_cmp_free(struct rpt_cmp *c);

/* Sets the comparison-wide "cannot judge" with @reason (copied). 0 or -ENOMEM. */
int rpt_cmp_set_cannot_judge(struct rpt_cmp *c, const char *reason);

/*
 * Sets one comparison's "cannot judge" with @reason (copied): its verdict becomes
 * RPT_INSUFFICIENT and its figures are kept for the reader. 0 or -ENOMEM.
 */
int rpt_cmp_judged_cannot_judge(struct rpt_cmp_judged *j, const char *reason);

/* Visits every judged comparison; @fn returns nonzero to stop, which is returned. */
int rpt_cmp_foreach(const struct rpt_cmp *c,
		    int (*fn)(const struct rpt_cmp_sample *, const struct rpt_cmp_metric *,
			      const struct rpt_cmp_judged *, void *),
		    void *arg);

/* Number of comparisons with verdict @v (whose rule gates, with @gating_only). */
size_t rpt_cmp_count(const struct rpt_cmp *c, enum rpt_verdict v, bool gating_only);

/*
 * Whether comparison @j of metric @m keeps the gate of @c from judging: a gated would-be
 * regression whose sides ran under unequal conditions (j->conditions), or a gated headline
 * metric (rpt_metric_headline) beyond its threshold but not proven, unless allow_unproven,
 * strict or not; else false when the gate is not strict or the metric is not gated.
 */
bool rpt_cmp_blocks(const struct rpt_cmp *c, const struct rpt_cmp_metric *m,
		    const struct rpt_cmp_judged *j);

/*
 * The gated comparisons of @c that are not_proven: how many, how many of them keep the gate
 * from judging (a headline metric's, rpt_cmp_blocks), and the largest change among them,
 * with its sign (0 when none).
 */
struct rpt_cmp_unproven {
	size_t n, blocking;
	double worst;
};
void rpt_cmp_unproven_count(const struct rpt_cmp *c, struct rpt_cmp_unproven *ret);

/* How many gated comparisons of @c keep the gate from judging (rpt_cmp_blocks). */
size_t rpt_cmp_count_blocking(const struct rpt_cmp *c);

/* How many comparisons of @c are gated at all. */
size_t rpt_cmp_count_gated(const struct rpt_cmp *c);

/* The metric of sample @s named @name, or NULL. */
const struct rpt_cmp_metric *rpt_cmp_metric_find(const struct rpt_cmp_sample *s, const char *name);

/* The fsbench-compare/1 document of @c (every key derived from the structs), or NULL. */
json_t *rpt_cmp_to_json(const struct rpt_cmp *c);

/*
 * The structs of a fsbench-compare/1 document @doc (mdl_compare_check'ed): what
 * rpt_cmp_to_json() wrote, read back. 0, -ENOMEM, or -EPROTO with @err naming @path and
 * what is missing.
 */
int rpt_cmp_from_json(const json_t *doc, const char *path, struct rpt_cmp **ret, char *err,
		      size_t errlen);

#endif
