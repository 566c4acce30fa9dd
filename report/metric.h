/* The metric catalog: each metric compare judges and exporters write, and where a run holds it. */
#ifndef RPT_METRIC_H
#define RPT_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

enum rpt_direction { RPT_HIGHER_IS_BETTER, RPT_LOWER_IS_BETTER };

enum rpt_metric_kind { RPT_KIND_THROUGHPUT, RPT_KIND_LATENCY, RPT_KIND_KERNEL };

/* Which runs a metric applies to, by what their progress counts (op.h's enum mdl_unit). */
enum rpt_metric_runs { RPT_RUNS_ALL, RPT_RUNS_FILES, RPT_RUNS_BYTES };

struct rpt_metric_def {
	const char *name; /* "files_per_sec"; latency: "<op>.<pXX>" */
	const char *unit; /* the unit values are shown and stored in */
	double scale; /* display value = raw value from the result * scale */
	enum rpt_direction dir;
	enum rpt_metric_kind kind;
	/* path of the object holding the raw value ("kernel", "probes/sources/jbd2/..."); NULL for latency */
	const char *section;
	const char *key; /* key inside @section; latency: inside the op object ("p99_ns") */
	const char *om_name; /* OpenMetrics family, in base units */
	double om_scale; /* OpenMetrics value = display value * om_scale */
	enum rpt_metric_runs runs; /* 0: every run that has the value */
	/*
	 * the whole host's figure (/proc/meminfo), not the device's: the neighbours' writes
	 * are in it, so it is reported but gated only when a gate file names it
	 */
	bool host_wide;
};

/*
 * Adding a metric is one line in one of these tables (metric.c): run-level metrics, in
 * the order tables show them, and the latency percentiles compared per operation.
 */
extern const struct rpt_metric_def rpt_run_metrics[];
extern const size_t rpt_n_run_metrics;
extern const struct rpt_metric_def rpt_latency_metrics[];
extern const size_t rpt_n_latency_metrics;

/*
 * Whether @name is a headline metric, the seeds' own: files/s and MB/s, fsync and
 * fdatasync p50 and p99 (the tail the threads are about), write amplification. A gated
 * headline metric beyond its threshold that could not be proven makes the gate "cannot
 * judge" rather than pass (rpt_cmp_blocks).
 */
bool rpt_metric_headline(const char *name);

/* Looks up a metric by name ("files_per_sec", "fsync.p99"); NULL when unknown. */
const struct rpt_metric_def *rpt_metric_lookup(const char *name);

/* Which latency percentile the metric @name is (50, 99, 99.9); 0 for none. */
double rpt_metric_percentile(const char *name);

/*
 * The latency histogram's resolution, in % of @mean (in the metric's display unit), for
 * the percentile metric @name: one bucket's width there. A step of one bucket is no
 * evidence of a change. NAN for a metric that is not a histogram's percentile.
 */
double rpt_metric_resolution_pct(const char *name, double mean);

/* Raw value of @def (of operation @op for latency) in @run; false when absent or not finite. */
bool rpt_metric_value(const json_t *run, const struct rpt_metric_def *def, const char *op,
		      double *ret);

/*
 * The number of calls (or requests, commits) behind @def's value in @run: the "count"
 * beside its percentile in the same histogram. false when there is none.
 */
bool rpt_metric_count(const json_t *run, const struct rpt_metric_def *def, const char *op,
		      double *ret);

/* Whether @run's latency @def of @op is exact: its op says "exact": true. */
bool rpt_metric_exact(const json_t *run, const struct rpt_metric_def *def, const char *op);

/*
 * Base units: what every machine format names (influx, KCIDB, github-action-benchmark, the
 * LAVA export and `lava cases`), one spelling per quantity, from the OpenMetrics family's
 * suffix: "s", "B", "B/s", "files/s", and "x" for ratios; @def->unit when it has none.
 */
const char *rpt_metric_base_unit(const struct rpt_metric_def *def);

/* @display (in @def->unit, as compare shows it) in rpt_metric_base_unit()'s unit. */
double rpt_metric_base(const struct rpt_metric_def *def, double display);

/*
 * The OpenMetrics unit of @def's family ("seconds", "bytes", "bytes_per_second",
 * "files_per_second", "ratio"): the suffix its name ends with, as OpenMetrics requires of
 * a family with a # UNIT line. NULL when the name ends in no unit.
 */
const char *rpt_metric_om_unit(const struct rpt_metric_def *def);

/* Whether @def applies to @run and @run has it (files/s for file runs, MB/s for byte runs). */
bool rpt_metric_applies(const json_t *run, const struct rpt_metric_def *def, const char *op);

#endif
