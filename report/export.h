/* Exporters: a compare document (or a result turned into one) in formats dashboards ingest. */
#ifndef RPT_EXPORT_H
#define RPT_EXPORT_H

#include <stdio.h>
#include <jansson.h>

#include "compare.h"

struct rpt_export_opts {
	const char *metrics; /* comma-separated globs of metric names to keep; NULL: all */
	const char *build_id; /* KCIDB build id ("origin:..."); NULL: "fsbench:unknown" */
};

struct rpt_exporter {
	const char *name;
	const char *summary;
	/* Writes @cmp to @out. 0 or -errno (-EIO when @out failed). */
	int (*write)(const json_t *cmp, const struct rpt_export_opts *o, FILE *out);
};

/* NULL-terminated, in the order `fsbench export --help` lists them. */
extern const struct rpt_exporter *const rpt_exporters[];

const struct rpt_exporter *rpt_exporter_find(const char *name);

/* One value to export: a metric of a sample on one side, with its comparison when there is one. */
struct rpt_point {
	const json_t *sample;
	const char *label;
	const char *workload;
	long long threads;
	const char *metric; /* "files_per_sec", "fsync.p99" */
	const char *unit; /* display unit, as in the compare document */
	const struct rpt_metric_def *def;
	const char *side;
	int nsides;
	long long n;
	double mean, median, stddev, ci_lo, ci_hi;
	const char *verdict; /* NULL for the baseline side and for single-side documents */
	double change_pct;
	const char *created; /* the document's creation time, RFC 3339 */
};

/* Calls @fn for every side of every metric of every sample that passes @o's filter and has n > 0. */
int rpt_export_foreach(const json_t *cmp, const struct rpt_export_opts *o,
		       int (*fn)(const struct rpt_point *p, void *ctx), void *ctx);

/* Copies @in to @out with every byte outside [A-Za-z0-9_-] turned into '_' (runs squeezed). */
void rpt_slug(const char *in, char *out, size_t len);

extern const struct rpt_exporter rpt_export_openmetrics;
extern const struct rpt_exporter rpt_export_influx;
extern const struct rpt_exporter rpt_export_bencher;
extern const struct rpt_exporter rpt_export_github;
extern const struct rpt_exporter rpt_export_kcidb;
extern const struct rpt_exporter rpt_export_lava;

#endif
