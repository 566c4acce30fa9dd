/* The guest's scratch disk: the null_blk model's command line, memory, checks and record. */
#include "fsbench/kgate/disk.h"
#include "fsbench/kgate/kgate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errf.h"

bool kg_disk_flush_delayed(const struct kg_disk *d)
{
	return d->kind == KG_DISK_MODEL && d->flush_latency_ms > 0;
}

const char *kg_disk_device(const struct kg_disk *d)
{
	return kg_disk_flush_delayed(d) ? "/dev/dm-0" :
	       d->kind == KG_DISK_MODEL ? "/dev/nullb0" :
					  "/dev/vda";
}

/* With the model, the results disk is the guest's only virtio disk. */
const char *kg_disk_results_device(const struct kg_disk *d)
{
	return d->kind == KG_DISK_MODEL ? "/dev/vda" : "/dev/vdb";
}

void kg_disk_cmdline(const struct kg_disk *d, char *out, size_t len)
{
	if (d->kind != KG_DISK_MODEL) {
		if (len)
			out[0] = 0;
		return;
	}
	/*
	 * memory_backed: the data lives in guest RAM, so reads see what was written.
	 * irqmode=2: each request completes from a guest hrtimer after completion_nsec, which
	 * -icount sleep=off turns into counted time. queue_mode=2: blk-mq, as a real disk's
	 * driver. bs=4096: the block size of the disks the seeds run on.
	 */
	snprintf(out, len,
		 "fsbench.disk=model null_blk.nr_devices=1 null_blk.memory_backed=1 "
		 "null_blk.irqmode=2 null_blk.queue_mode=2 null_blk.bs=4096 "
		 "null_blk.completion_nsec=%lld null_blk.gb=%lld null_blk.cache_size=%lld "
		 "null_blk.mbps=%lld null_blk.hw_queue_depth=%lld",
		 (long long)d->latency_ns, (long long)(d->bytes >> 30),
		 (long long)(d->cache_bytes >> 20), (long long)d->mbps, (long long)d->queue_depth);
	if (kg_disk_flush_delayed(d)) {
		size_t l = strlen(out);

		snprintf(out + l, len > l ? len - l : 0, " fsbench.flush_ms=%lld",
			 (long long)d->flush_latency_ms);
	}
}

int kg_disk_memory_mib(const struct kg_disk *d, int base_mib)
{
	if (d->kind != KG_DISK_MODEL)
		return base_mib;
	/* the cache's blocks are held apart from the store's until a flush moves them */
	return base_mib + (int)(d->bytes >> 20) + (int)(d->cache_bytes >> 20);
}

int kg_disk_check(const struct kg_disk *d, const char *moddir, const char *release, char *err,
		  size_t errlen)
{
	const char *names[] = { "null_blk" };
	char *paths[KG_MAX_MODULES], why[1024];
	int n;

	if (d->kind != KG_DISK_MODEL)
		return 0;
	snprintf(why, sizeof(why), "%s/modules.dep", moddir);
	if (access(why, R_OK))
		return errf(err, errlen, -errno, "reading %s: %s (run depmod for this kernel)", why,
			    strerror(errno));
	n = kg_modules_resolve(moddir, names, 1, paths, KG_MAX_MODULES, why, sizeof(why));
	for (int i = 0; i < n; i++)
		free(paths[i]);
	if (n == -ENOENT)
		return errf(err, errlen, -ENOENT,
			    "kernel %s has no null_blk driver (CONFIG_BLK_DEV_NULL_BLK, neither a "
			    "module in %s nor built in): the model disk needs it; --disk virtio "
			    "runs on a host-timed disk instead",
			    release, moddir);
	return n < 0 ? errf(err, errlen, n, "%s", why) : 0;
}

/* The host's MemAvailable in MiB, or -1 when /proc/meminfo does not say. */
static long long mem_available_mib(void)
{
	char line[256];
	long long kib = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib < 0 ? -1 : kib / 1024;
}

int kg_disk_fits(const struct kg_disk *d, int base_mib, int jobs, int64_t image_size, char *err,
		 size_t errlen)
{
	int mib = kg_disk_memory_mib(d, base_mib);
	long long avail = mem_available_mib();

	if (jobs < 1)
		jobs = 1;
	/* with virtio too: QEMU would start and the host's OOM killer end the boot */
	if (d->kind != KG_DISK_MODEL)
		return avail >= 0 && (long long)base_mib * jobs > avail ?
			       errf(err, errlen, -ENOMEM,
				    "--memory %d MiB a boot, %d at a time, but the host has %lld "
				    "MiB available",
				    base_mib, jobs, avail) :
			       0;
	if (d->bytes % (INT64_C(1) << 30) || d->cache_bytes % (INT64_C(1) << 20) ||
	    d->cache_bytes > d->bytes)
		return errf(
			err, errlen, -EINVAL,
			"--disk model: --disk-size %lld must be whole GiB and --disk-cache %lld "
			"whole MiB, at most the disk (null_blk's gb and cache_size)",
			(long long)d->bytes, (long long)d->cache_bytes);
	if (image_size > d->bytes)
		return errf(err, errlen, -EINVAL,
			    "the suite's filesystems are %lld MiB (its image_size), more than the "
			    "model disk's %lld MiB: a larger --disk-size",
			    (long long)(image_size >> 20), (long long)(d->bytes >> 20));
	if (avail >= 0 && (long long)mib * jobs > avail)
		return errf(
			err, errlen, -ENOMEM,
			"the model disk keeps its data in the guest's memory: %d MiB a boot "
			"(--memory %d + --disk-size %lld MiB + --disk-cache), %d at a time, but "
			"the host has %lld MiB available: a smaller --disk-size or --jobs",
			mib, base_mib, (long long)(d->bytes >> 20), jobs, avail);
	return 0;
}

json_t *kg_disk_json(const struct kg_disk *d, const char *backing_dir, const char *backing_fs)
{
	if (d->kind == KG_DISK_MODEL)
		return json_pack(
			"{s:s, s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:i, s:b, s:s, s:s, s:I}",
			"model", "null_blk", "device", kg_disk_device(d), "bytes",
			(json_int_t)d->bytes, "completion", "timer", "latency_ns",
			(json_int_t)d->latency_ns, "cache_bytes", (json_int_t)d->cache_bytes,
			"mbps", (json_int_t)d->mbps, "queue_depth", (json_int_t)d->queue_depth,
			"block_size", 4096, "memory_backed", 1, "queue_mode", "blk-mq", "clock",
			"guest", "flush_latency_ms", (json_int_t)d->flush_latency_ms);
	return json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:b, s:s, s:s}", "model", "virtio",
			 "device", kg_disk_device(d), "bytes", (json_int_t)d->bytes, "interface",
			 "virtio-blk", "format", "raw", "cache", "none", "aio", "native", "sparse",
			 1, "backing_dir", backing_dir, "backing_fs", backing_fs);
}
