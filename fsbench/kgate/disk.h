/* The guest's scratch disk: today's host file behind virtio, or a null_blk model in guest time. */
#ifndef FSB_KGATE_DISK_H
#define FSB_KGATE_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum kg_disk_kind {
	KG_DISK_VIRTIO, /* a sparse file on the host: each request waits in host real time */
	KG_DISK_MODEL, /* the guest kernel's null_blk: completions from guest timers */
};

/*
 * The model's parameters, the same on both sides of a gate. null_blk takes its size in whole
 * GiB (module parameter gb), its cache in MiB and its bandwidth in MiB/s.
 */
struct kg_disk {
	enum kg_disk_kind kind;
	int64_t bytes; /* the disk's size, either kind */
	int64_t latency_ns; /* per-request completion time (null_blk completion_nsec) */
	int64_t cache_bytes; /* volatile write cache (cache_size); 0 for none */
	int64_t mbps; /* bandwidth limit in MiB/s; 0 for none */
	int64_t queue_depth; /* hw_queue_depth */
	/*
	 * A flush's extra time: device-mapper's delay target over the null_blk device, its
	 * flush class delayed, reads and writes not. Whole milliseconds (the target's unit),
	 * served at the guest's next timer tick after it. 0 for none.
	 */
	int64_t flush_latency_ms;
};

/* The model's defaults: 50 us a request, no cache, no bandwidth limit, depth 64. */
#define KG_DISK_LATENCY_NS INT64_C(50000)
#define KG_DISK_QUEUE_DEPTH 64

/* Whether the initramfs needs dm_delay and dmsetup. */
bool kg_disk_flush_delayed(const struct kg_disk *d);

/* The guest's device for the suite and for its results, by kind. */
const char *kg_disk_device(const struct kg_disk *d);
const char *kg_disk_results_device(const struct kg_disk *d);

/*
 * The kernel command line words that make the guest's /init use the model, or "" for virtio:
 * fsbench.disk=model and null_blk.PARAM=VALUE, which the kernel applies itself when null_blk
 * is built in and /init passes to insmod when it is a module.
 */
void kg_disk_cmdline(const struct kg_disk *d, char *out, size_t len);

/*
 * The guest's memory for @base_mib of its own: the model keeps every block written in guest
 * RAM (memory_backed), so the whole disk is added.
 */
int kg_disk_memory_mib(const struct kg_disk *d, int base_mib);

/*
 * Whether the kernel whose modules are in @moddir (RELEASE @release) can run the model:
 * null_blk as a module or built in. 0, or -ENOENT with @err naming the driver and the way
 * out (--disk virtio).
 */
int kg_disk_check(const struct kg_disk *d, const char *moddir, const char *release, char *err,
		  size_t errlen);

/*
 * Whether a suite whose filesystems are @image_size fits the model, @jobs boots at a time
 * with @base_mib of the guest's own memory each: the size in whole GiB and the cache in
 * whole MiB (null_blk's units), the suite's image within the disk, and the boots' memory
 * (kg_disk_memory_mib) within the host's MemAvailable. 0, or -EINVAL / -ENOMEM with @err
 * (a usage error: found before any boot). Always 0 for virtio.
 */
int kg_disk_fits(const struct kg_disk *d, int base_mib, int jobs, int64_t image_size, char *err,
		 size_t errlen);

/* The record of the scratch disk in a result's "vm": its kind and every parameter. */
json_t *kg_disk_json(const struct kg_disk *d, const char *backing_dir, const char *backing_fs);

#endif
