/* Exporters: a compare document (or a result turned into one) in formats dashboards ingest. */
#ifndef RPT_EXPORT_H
#define RPT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "report/cmp.h"
#include "report/metric.h"

struct rpt_export_opts {
	const char *metrics; /* comma-separated globs of metric names to keep; NULL: all */
	const char *build_id; /* KCIDB build id ("origin:..."); NULL: from each side's kernel */
	/*
	 * openmetrics, prometheus: stamp every sample with its side's start time. Off by default, because
	 * node_exporter's textfile collector refuses client-side timestamps; Prometheus backfill
	 * (promtool tsdb create-blocks-from openmetrics) needs them.
	 */
	bool timestamps;
};

struct rpt_exporter {
	const char *name;
	const char *summary;
	/*
	 * Optional: whether @cmp can be written as asked, before any output exists. 0, or
	 * -EINVAL with @err saying why and what to do instead (a usage error).
	 */
	int (*check)(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, char *err,
		     size_t errlen);
	/* Writes @cmp to @out. 0 or -errno (-EIO when @out failed). */
	int (*write)(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out);
};

/* NULL-terminated, in the order `fsbench export --help` lists them. */
extern const struct rpt_exporter *const rpt_exporters[];

const struct rpt_exporter *rpt_exporter_find(const char *name);

/* Whether @metric passes --metrics @filter (comma-separated globs; NULL or "": all). */
bool rpt_metric_wanted(const char *filter, const char *metric);

/*
 * --metrics @filter that keeps nothing is a mistake (a typo, an unclosed '['), not an empty
 * export: 0 (also for NULL), or -EINVAL with @err listing the metrics @cmp has.
 */
int rpt_export_metrics_check(const struct rpt_cmp *cmp, const char *filter, char *err,
			     size_t errlen);

/*
 * What export writes from files @paths[0..n-1]: one comparison (fsbench-compare/1) as it
 * was judged, or result files summarised as one side, "result". 0 with *@ret the caller's
 * (rpt_cmp_free), or -errno with @err set.
 */
int rpt_export_input(const char *const *paths, size_t n, struct rpt_cmp **ret, char *err,
		     size_t errlen);

/* One value to export: a metric of a sample on one side, with its comparison when there is one. */
struct rpt_point {
	const struct rpt_cmp_sample *sample;
	const char *label;
	const char *workload;
	long long threads;
	const char *metric; /* "files_per_sec", "fsync.p99" */
	const char *unit; /* display unit, as in the compare document */
	const struct rpt_metric_def *def;
	const char *side;
	int nsides;
	long long n;
	/*
	 * in the display unit; ci_lo/ci_hi from rpt_ci_positive (never below zero), NAN when
	 * there is no interval (n < 2): exporters write it only when isfinite(ci_lo)
	 */
	double mean, median, stddev, ci_lo, ci_hi;
	const double *values; /* the side's per-run values, n of them */
	const long long *reps; /* each value's repetition (suite runs); NULL when unknown */
	const char *verdict; /* NULL for the baseline side and for single-side documents */
	bool gated; /* with @verdict: the comparison's rule gates (a regression fails the gate) */
	double change_pct;
	/* when the side's first run started (RFC 3339); the document's creation time if unknown */
	const char *start_time;
	const json_t *labels; /* the side's context labels (rpt_side_context); may be NULL */
	const json_t *ops; /* the side's calls per op: {op: {count, sum_ns}}; may be NULL */
	/*
	 * NULL for a side from one result file; for runs pooled from several, "N results,
	 * HASH" (a hash of their start times): such a point is stamped with the latest start and
	 * tagged with this, so it never lands on a point one of those results made alone.
	 */
	const char *merged;
	char threads_str[24];
	char label_buf[256]; /* .label as exports show it (see rpt_export_foreach) */
	char merged_buf[48];
};

/*
 * Label names every format carries, in this order: what identifies a series (workload,
 * threads, fs, mount options, knob set) and where it ran (device, kernel, host).
 */
extern const char *const rpt_label_names[];

/* Value of label @name of @p ("workload", "threads" or a context label); "unknown" when unknown. */
const char *rpt_point_label(const struct rpt_point *p, const char *name);

/* The operation of a latency metric ("fsync" of "fsync.p99") into @buf, and its quantile (0.99). */
void rpt_point_op(const struct rpt_point *p, char *buf, size_t len, double *ret_quantile);

/* @v (in the display unit) in the base unit of the metric's OpenMetrics family (s, B, B/s). */
double rpt_point_base(const struct rpt_point *p, double v);

/* rpt_metric_base_unit() of @p's metric: "s", "B", "B/s", "files/s", "x". */
const char *rpt_point_base_unit(const struct rpt_point *p);

/*
 * A name for the series @p belongs to, the same whichever run it came from: the sample label
 * with fs, mount options and knob set (and the side when there are several).
 */
void rpt_point_series(const struct rpt_point *p, char *buf, size_t len);

/*
 * 64-bit FNV-1a of what @p was computed from (sample key, metric, the side's labels, start
 * time and values, in sorted order): the same results exported twice, in any order, alone or
 * inside a comparison, give the same hash, and another run gives another.
 */
uint64_t rpt_point_hash(const struct rpt_point *p);

/* 64-bit FNV-1a of a string (build identities). */
uint64_t rpt_hash_str(const char *s);

/* Seconds since the epoch of an RFC 3339 UTC time "YYYY-MM-DDTHH:MM:SSZ"; -1 when it is not one. */
long long rpt_time_parse(const char *rfc3339);

/*
 * Calls @fn for every side of every metric of every sample that passes @o's filter and has n > 0.
 * The point's label means the same for a suite's run and a standalone one ("smallfile t=1"):
 * a suite cell's path ("ext4/smallfile/t=1") loses the filesystem (a label of its own) and
 * its '/' become blanks.
 */
int rpt_export_foreach(const struct rpt_cmp *cmp, const struct rpt_export_opts *o,
		       int (*fn)(const struct rpt_point *p, void *ctx), void *ctx);

/*
 * A name for systems that allow few characters: @in copied to @out (at most @len - 1
 * bytes) keeping letters, digits, '-' and @sep ('_' or '-'); every other run of bytes
 * becomes one @sep, and no @sep leads or trails. It never writes a '.', so slugs can be
 * joined with dots.
 *
 * What LAVA allows (lava-server, lava_common and lava_dispatcher): a test definition's name
 * must match ^[-_a-zA-Z0-9.]+$; a test case name reaches the dispatcher in a
 * "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=NAME ...>" line split on blanks and ended at '>',
 * and lava-test-case makes $LAVA_RESULT_DIR/results/NAME, so a '/' would nest it. A
 * slug, with dots between slugs, is inside [-_a-zA-Z0-9.] and safe on all three counts.
 * `export --format lava` and KCIDB's ids slug with '_'; `lava cases` slugs a suite cell
 * with '-' and joins its fields with '.'.
 */
void rpt_slug(const char *in, char sep, char *out, size_t len);

/*
 * lava-server keeps a test case name to RPT_LAVA_NAME_MAX characters. A longer slug @s is
 * cut to @len characters: its head, @sep and 8 hex digits of a hash of the whole, and its
 * last (len - 9) / 3 characters, at most 24 (they tell the sides apart). Two long names
 * that differ only in the cut part still differ. Shorter ones are kept.
 */
#define RPT_LAVA_NAME_MAX 100

/*
 * @v as LAVA's measurement: a plain decimal that Python's Decimal and lava-test-case take, no
 * exponent (which a latency in seconds would get from %g). `export --format lava` and `lava
 * cases` write numbers with it.
 */
void rpt_lava_number(double v, char *buf, size_t len);
void rpt_slug_shorten(char *s, size_t len, char sep);

extern const struct rpt_exporter rpt_export_openmetrics;
extern const struct rpt_exporter rpt_export_prometheus;
extern const struct rpt_exporter rpt_export_influx;
extern const struct rpt_exporter rpt_export_csv;
extern const struct rpt_exporter rpt_export_bencher;
extern const struct rpt_exporter rpt_export_github_bigger;
extern const struct rpt_exporter rpt_export_github_smaller;
extern const struct rpt_exporter rpt_export_kcidb;
extern const struct rpt_exporter rpt_export_lava;
extern const struct rpt_exporter rpt_export_junit;

#endif
