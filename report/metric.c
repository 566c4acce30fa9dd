/* The metric catalog: what compare, gate and the exporters measure in a run, and where it is. */
#include "report/metric.h"
#include "model/result_file.h"
#include "model/schema.h"

#include <math.h>
#include <string.h>

/*
 * Run-level metrics, in the order tables show them. Only one throughput metric applies to a
 * run: files/s when its progress unit is files, MB/s when it is bytes (.runs).
 */
const struct rpt_metric_def rpt_run_metrics[] = {
	{ .name = "files_per_sec",
	  .unit = "files/s",
	  .scale = 1,
	  .dir = RPT_HIGHER_IS_BETTER,
	  .kind = RPT_KIND_THROUGHPUT,
	  .section = MDL_KEY_SUMMARY,
	  .key = "files_per_sec",
	  .om_name = "fsbench_files_per_second",
	  .om_scale = 1,
	  .runs = RPT_RUNS_FILES },
	{ .name = "bytes_per_sec",
	  .unit = "MB/s",
	  .scale = 1e-6,
	  .dir = RPT_HIGHER_IS_BETTER,
	  .kind = RPT_KIND_THROUGHPUT,
	  .section = MDL_KEY_SUMMARY,
	  .key = "bytes_per_sec",
	  .om_name = "fsbench_bytes_per_second",
	  .om_scale = 1e6,
	  .runs = RPT_RUNS_BYTES },
	{ .name = "write_amplification",
	  .unit = "x",
	  .scale = 1,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "kernel",
	  .key = "write_amplification",
	  .om_name = "fsbench_write_amplification_ratio",
	  .om_scale = 1 },
	{ .name = "dirty_max",
	  .unit = "MiB",
	  .scale = 1.0 / 1048576,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "kernel",
	  .key = "dirty_max_bytes",
	  .om_name = "fsbench_dirty_max_bytes",
	  .om_scale = 1048576,
	  .host_wide = true },
	{ .name = "writeback_max",
	  .unit = "MiB",
	  .scale = 1.0 / 1048576,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "kernel",
	  .key = "writeback_max_bytes",
	  .om_name = "fsbench_writeback_max_bytes",
	  .om_scale = 1048576,
	  .host_wide = true },
	/* kernel histograms of the eBPF probes (probes/bpf/): device flushes and journal commits */
	{ .name = "bpf.flush.p99",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "probes/sources/block/hists/flush.q2c",
	  .key = "p99_ns",
	  .om_name = "fsbench_bpf_flush_p99_seconds",
	  .om_scale = 1e-6 },
	{ .name = "bpf.write.p99",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "probes/sources/block/hists/write.q2c",
	  .key = "p99_ns",
	  .om_name = "fsbench_bpf_write_request_p99_seconds",
	  .om_scale = 1e-6 },
	{ .name = "bpf.commit.p99",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "probes/sources/jbd2/hists/commit",
	  .key = "p99_ns",
	  .om_name = "fsbench_bpf_jbd2_commit_p99_seconds",
	  .om_scale = 1e-6 },
	{ .name = "bpf.iclog.p99",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "probes/sources/xfs/hists/iclog_write",
	  .key = "p99_ns",
	  .om_name = "fsbench_bpf_xfs_iclog_write_p99_seconds",
	  .om_scale = 1e-6 },
	{ .name = "bpf.ordered_extent.p99",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_KERNEL,
	  .section = "probes/sources/btrfs/hists/ordered_extent",
	  .key = "p99_ns",
	  .om_name = "fsbench_bpf_btrfs_ordered_extent_p99_seconds",
	  .om_scale = 1e-6 },
};
const size_t rpt_n_run_metrics = sizeof(rpt_run_metrics) / sizeof(rpt_run_metrics[0]);

/*
 * Latency percentiles compared per operation ("fsync.p99"): the median and two tails. p90
 * adds little between p50 and p99, and p99.99 of a few thousand calls is the maximum, one
 * sample, which no test can judge.
 */
const struct rpt_metric_def rpt_latency_metrics[] = {
	{ .name = "p50",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_LATENCY,
	  .section = NULL,
	  .key = "p50_ns",
	  .om_name = "fsbench_latency_seconds",
	  .om_scale = 1e-6 },
	{ .name = "p99",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_LATENCY,
	  .section = NULL,
	  .key = "p99_ns",
	  .om_name = "fsbench_latency_seconds",
	  .om_scale = 1e-6 },
	{ .name = "p99.9",
	  .unit = "us",
	  .scale = 1e-3,
	  .dir = RPT_LOWER_IS_BETTER,
	  .kind = RPT_KIND_LATENCY,
	  .section = NULL,
	  .key = "p99_9_ns",
	  .om_name = "fsbench_latency_seconds",
	  .om_scale = 1e-6 },
};
const size_t rpt_n_latency_metrics = sizeof(rpt_latency_metrics) / sizeof(rpt_latency_metrics[0]);

bool rpt_metric_headline(const char *name)
{
	static const char *const headline[] = {
		"files_per_sec", "bytes_per_sec", "write_amplification", "fsync.p50",
		"fsync.p99",	 "fdatasync.p50", "fdatasync.p99",
	};

	for (size_t i = 0; i < sizeof(headline) / sizeof(headline[0]); i++)
		if (!strcmp(name, headline[i]))
			return true;
	return false;
}

const struct rpt_metric_def *rpt_metric_lookup(const char *name)
{
	const char *dot;

	for (size_t i = 0; i < rpt_n_run_metrics; i++)
		if (!strcmp(rpt_run_metrics[i].name, name))
			return &rpt_run_metrics[i];
	dot = strchr(name, '.');
	if (!dot)
		return NULL;
	for (size_t i = 0; i < rpt_n_latency_metrics; i++)
		if (!strcmp(rpt_latency_metrics[i].name, dot + 1))
			return &rpt_latency_metrics[i];
	return NULL;
}

/* The object at @path in @run: keys separated by '/' (keys may hold dots: "flush.q2c"). */
static const json_t *section_get(const json_t *run, const char *path)
{
	const json_t *o = run;
	char key[128];

	while (o && *path) {
		size_t n = strcspn(path, "/");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		o = json_object_get(o, key);
		path += n + (path[n] == '/');
	}
	return o;
}

bool rpt_metric_value(const json_t *run, const struct rpt_metric_def *def, const char *op,
		      double *ret)
{
	const json_t *v;

	if (def->kind == RPT_KIND_LATENCY)
		v = json_object_get(mdl_run_op(run, op), def->key);
	else
		v = json_object_get(section_get(run, def->section), def->key);
	if (!json_is_number(v))
		return false;
	*ret = json_number_value(v);
	return isfinite(*ret);
}

bool rpt_metric_count(const json_t *run, const struct rpt_metric_def *def, const char *op,
		      double *ret)
{
	const json_t *holder = def->kind == RPT_KIND_LATENCY ? mdl_run_op(run, op) :
							       section_get(run, def->section);
	const json_t *v = json_object_get(holder, "count");

	if (!json_is_number(v))
		return false;
	*ret = json_number_value(v);
	return isfinite(*ret);
}

bool rpt_metric_exact(const json_t *run, const struct rpt_metric_def *def, const char *op)
{
	/* min, max and mean were always exact; "exact" says the percentiles are too */
	return def->kind == RPT_KIND_LATENCY &&
	       json_is_true(json_object_get(mdl_run_op(run, op), "exact"));
}

bool rpt_metric_applies(const json_t *run, const struct rpt_metric_def *def, const char *op)
{
	enum mdl_unit unit = mdl_run_unit(run);
	double v;

	if ((def->runs == RPT_RUNS_FILES && unit != MDL_UNIT_FILES) ||
	    (def->runs == RPT_RUNS_BYTES && unit != MDL_UNIT_BYTES))
		return false;
	return rpt_metric_value(run, def, op, &v);
}

/* Longest suffix first: "_bytes_per_second" before "_bytes" would never match otherwise. */
static const struct {
	const char *om_unit, *base_unit;
} base_units[] = {
	{ .om_unit = "files_per_second", .base_unit = "files/s" },
	{ .om_unit = "bytes_per_second", .base_unit = "B/s" },
	{ .om_unit = "seconds", .base_unit = "s" },
	{ .om_unit = "bytes", .base_unit = "B" },
	{ .om_unit = "ratio", .base_unit = "x" },
};

/* The base_units[] entry @def's family name ends in ("_" and the unit); -1 when none. */
static int base_unit_index(const struct rpt_metric_def *def)
{
	size_t len = def->om_name ? strlen(def->om_name) : 0;

	for (size_t i = 0; i < sizeof(base_units) / sizeof(base_units[0]); i++) {
		size_t ul = strlen(base_units[i].om_unit);

		if (len > ul + 1 && def->om_name[len - ul - 1] == '_' &&
		    !strcmp(def->om_name + len - ul, base_units[i].om_unit))
			return (int)i;
	}
	return -1;
}

const char *rpt_metric_base_unit(const struct rpt_metric_def *def)
{
	int i = base_unit_index(def);

	return i < 0 ? def->unit : base_units[i].base_unit;
}

double rpt_metric_base(const struct rpt_metric_def *def, double display)
{
	return display * def->om_scale;
}

const char *rpt_metric_om_unit(const struct rpt_metric_def *def)
{
	int i = base_unit_index(def);

	return i < 0 ? NULL : base_units[i].om_unit;
}

double rpt_metric_percentile(const char *name)
{
	const struct rpt_metric_def *def = rpt_metric_lookup(name);

	if (!def || !def->key)
		return 0;
	return !strcmp(def->key, "p50_ns")   ? 50 :
	       !strcmp(def->key, "p99_ns")   ? 99 :
	       !strcmp(def->key, "p99_9_ns") ? 99.9 :
					       0;
}

/*
 * A bucket's midpoint, 64 buckets to each power of two (model/hist.h; the probes' the
 * same): two values whose true values lie a hair apart across a bucket boundary report a
 * whole bucket's step, about 0.8-1.6 %.
 */
double rpt_metric_resolution_pct(const char *name, double mean)
{
	const struct rpt_metric_def *def = rpt_metric_lookup(name);
	double ns;
	int e;

	if (!rpt_metric_percentile(name) || !def->scale)
		return NAN;
	ns = fabs(mean) / def->scale;
	if (ns < 64) /* buckets of 1 ns below 64 ns */
		return ns >= 1 ? 100 / ns : NAN;
	frexp(ns, &e); /* ns = f * 2^e, 0.5 <= f < 1: its bucket group is 2^(e-1) */
	return ldexp(1, e - 1 - 6) / ns * 100;
}
