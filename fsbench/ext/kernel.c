/* The kernel extension: what lies under the run's directory, and what the kernel did during it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsbench/core/common.h"
#include "probes/sampler/diskstats.h"
#include "fsbench/core/ext.h"
#include "probes/sampler/fsstats.h"
#include "probes/sampler/sampler.h"
#include "probes/target/target.h"
#include "model/schema.h"

struct kernel_state {
	struct probe_target target;
	int target_err; /* resolving failed: no device, no fs stats */
	struct probe_diskstats ds_before;
	int ds_err; /* reading the device's line failed */
	struct probe_fs_snap fs_before;
	struct probe_sampler *sampler;
};

struct kernel_cfg {
	int64_t sample_interval_ns; /* Dirty, Writeback, in-flight */
};

#define O(f) offsetof(struct kernel_cfg, f)
static const struct fsb_opt kernel_opts[] = {
	{ .name = "sample-interval",
	  .type = OPT_DURATION,
	  .offset = O(sample_interval_ns),
	  .min = (int64_t)PROBE_SAMPLER_MIN_INTERVAL_NS,
	  .max = INT64_C(3600) * 1000000000,
	  .def = "100ms",
	  .unit = "ns",
	  .help = "how often to sample Dirty and Writeback memory and the device's in-flight requests during a run" },
	{ 0 },
};
#undef O

static int kernel_before(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
			 void **ret_state, char *err, size_t errlen)
{
	const struct kernel_cfg *kc = cfg;
	struct kernel_state *k;
	const char *dir = c->dirs.n ? c->dirs.v[0] : ".";
	int r;

	(void)run;
	k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(err, errlen, "kernel sampler: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* a path the probes cannot place costs the figures about it, not the run */
	k->target_err = probe_target_resolve(NULL, dir, &k->target);
	if (k->target_err == 0) {
		if (k->target.has_block_device)
			k->ds_err = probe_diskstats_read(NULL, k->target.disk, &k->ds_before);
		probe_fsstats_read(NULL, &k->target, &k->fs_before);
	}
	r = probe_sampler_start(
		NULL,
		k->target_err == 0 && k->target.has_block_device ? k->target.disk_sysfs : NULL,
		(uint64_t)kc->sample_interval_ns, &k->sampler);
	if (r < 0) {
		snprintf(err, errlen, "starting the kernel sampler (/proc/meminfo%s): %s",
			 k->target.has_block_device ? ", inflight" : "", strerror(-r));
		free(k);
		return r;
	}
	*ret_state = k;
	return 0;
}

static json_t *target_json(const struct kernel_state *k, const char *dir)
{
	json_t *o;

	if (k->target_err == 0)
		return probe_target_json(&k->target);
	o = json_object();
	json_object_set_new(o, "path", json_string(dir));
	json_object_set_new(o, "error",
			    json_sprintf("resolving %s: %s", dir, strerror(-k->target_err)));
	return o;
}

/* The device deltas, or null with the reason in device_reason. */
static void device_json(const struct kernel_state *k, json_t *kernel, uint64_t *ret_write_bytes)
{
	struct probe_diskstats after;
	json_t *dev;
	int r;

	*ret_write_bytes = 0;
	if (k->target_err) {
		json_object_set_new(kernel, "device", json_null());
		json_object_set_new(kernel, "device_reason",
				    json_sprintf("the directory's mount is unknown: %s",
						 strerror(-k->target_err)));
		return;
	}
	if (!k->target.has_block_device) {
		json_object_set_new(kernel, "device", json_null());
		json_object_set_new(kernel, "device_reason", json_string(k->target.note));
		return;
	}
	r = k->ds_err ? k->ds_err : probe_diskstats_read(NULL, k->target.disk, &after);
	if (r < 0) {
		json_object_set_new(kernel, "device", json_null());
		json_object_set_new(kernel, "device_reason",
				    json_sprintf("/proc/diskstats has no line for %s: %s",
						 k->target.disk, strerror(-r)));
		return;
	}
	dev = probe_diskstats_delta_json(&k->ds_before, &after);
	/* partitions do not count flushes (the kernel accounts them to the whole disk), so the
	 * disk is read; other partitions' traffic is then included, which scope says */
	json_object_set_new(dev, "scope",
			    json_string(k->target.partition ? "whole_disk_of_partition" :
							      "device"));
	if (json_is_integer(json_object_get(dev, "write_bytes")))
		*ret_write_bytes =
			(uint64_t)json_integer_value(json_object_get(dev, "write_bytes"));
	json_object_set_new(kernel, "device", dev);
}

static json_t *samples_or_null(const struct probe_sampler *s)
{
	json_t *o = probe_sampler_json(s);

	return o ? o : json_null();
}

static json_t *int_or_null(bool have, uint64_t v)
{
	return have ? json_integer((json_int_t)v) : json_null();
}

static void kernel_after(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
			 void *state, json_t *run_json)
{
	struct kernel_state *k = state;
	struct probe_sampler_max m;
	struct probe_fs_snap fs_after;
	json_t *kernel, *summary_bytes, *fs;
	uint64_t dev_bytes = 0;
	const char *dir = c->dirs.n ? c->dirs.v[0] : ".";

	(void)run;
	(void)cfg;
	if (!k)
		return;
	probe_sampler_stop(k->sampler);
	if (!run_json)
		goto out;

	kernel = json_object();
	probe_sampler_maxima(k->sampler, &m);
	json_object_set_new(kernel, "dirty_max_bytes", int_or_null(m.samples > 0, m.dirty_bytes));
	json_object_set_new(kernel, "writeback_max_bytes",
			    int_or_null(m.samples > 0, m.writeback_bytes));
	json_object_set_new(kernel, "inflight_max", int_or_null(m.has_inflight, m.inflight));
	device_json(k, kernel, &dev_bytes);

	summary_bytes = json_object_get(mdl_run_summary(run_json), "bytes");
	if (json_is_null(json_object_get(kernel, "device")) || !json_is_integer(summary_bytes) ||
	    json_integer_value(summary_bytes) <= 0 ||
	    !json_is_integer(json_object_get(json_object_get(kernel, "device"), "write_bytes")))
		json_object_set_new(kernel, "write_amplification", json_null());
	else
		json_object_set_new(
			kernel, "write_amplification",
			json_real((double)dev_bytes / (double)json_integer_value(summary_bytes)));

	if (k->target_err == 0) {
		probe_fsstats_read(NULL, &k->target, &fs_after);
		fs = probe_fsstats_json(&k->fs_before, &fs_after);
	} else {
		fs = json_pack("{s:{s:n,s:b,s:s}}", "unknown", "source", "available", 0, "reason",
			       "the directory's mount is unknown");
	}
	json_object_set_new(kernel, "fs_stats", fs ? fs : json_object());
	json_object_set_new(kernel, "samples", samples_or_null(k->sampler));

	json_object_set_new(run_json, "target", target_json(k, dir));
	json_object_set_new(run_json, "kernel", kernel);
out:
	probe_sampler_free(k->sampler);
	free(k);
}

const struct fsb_ext fsb_ext_kernel = {
	.name = "kernel",
	.opts = kernel_opts,
	.cfg_size = sizeof(struct kernel_cfg),
	.before = kernel_before,
	.after = kernel_after,
};
