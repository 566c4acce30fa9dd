/* A sampler thread: dirty and writeback memory and the device's in-flight requests over a run. */
#ifndef PROBE_SAMPLER_H
#define PROBE_SAMPLER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Samples kept in memory. At the cap the series is halved (every other sample kept) and
 * from then on only every second tick is stored, so a run of any length keeps its whole
 * shape in bounded memory: 65536 x 40 bytes = 2.5 MiB, 1.8 h at 100 ms before halving.
 * The maxima always see every tick.
 */
#define PROBE_SAMPLER_MAX_SAMPLES 65536
#define PROBE_SAMPLER_MIN_INTERVAL_NS 1000000ull

struct probe_sample {
	uint64_t dirty_bytes, writeback_bytes; /* /proc/meminfo Dirty, Writeback */
	uint64_t inflight_read, inflight_write; /* <disk>/inflight */
	bool has_inflight;
};

/* One reading: <root>/proc/meminfo and, unless @disk_sysfs is NULL, <disk_sysfs>/inflight. */
int probe_sample_read(const char *root, const char *disk_sysfs, struct probe_sample *ret);

struct probe_sampler_max {
	uint64_t samples; /* ticks read (stored or not) */
	uint64_t dirty_bytes, writeback_bytes;
	uint64_t inflight; /* largest read + write in one sample */
	uint64_t inflight_read, inflight_write;
	bool has_inflight;
};

struct probe_sampler;

/*
 * Starts a thread that reads a sample at once and every @interval_ns after (at least
 * PROBE_SAMPLER_MIN_INTERVAL_NS) until stopped. @root as for the other probes; @disk_sysfs
 * may be NULL (no block device: memory only). The first reading is taken before the
 * thread starts, so an unreadable /proc/meminfo fails here. 0 or -errno.
 */
int probe_sampler_start(const char *root, const char *disk_sysfs, uint64_t interval_ns,
			struct probe_sampler **ret);

/* The same with a smaller cap on stored samples (2 to PROBE_SAMPLER_MAX_SAMPLES). */
int probe_sampler_start_n(const char *root, const char *disk_sysfs, uint64_t interval_ns,
			  size_t max_samples, struct probe_sampler **ret);

/* Takes a last sample and joins the thread. Safe to call twice. Returns the first error
 * a sample met during the run (0 if none); the series holds the samples that succeeded. */
int probe_sampler_stop(struct probe_sampler *s);

/* After stop: the maxima. */
void probe_sampler_maxima(const struct probe_sampler *s, struct probe_sampler_max *ret);

/*
 * After stop: the run's `kernel.samples` object: interval_ns (as stored, after any
 * halving), decimated, t_ns (since start), dirty_bytes, writeback_bytes, inflight_read and
 * inflight_write (null without a device), errors. NULL on allocation failure.
 */
json_t *probe_sampler_json(const struct probe_sampler *s);

/* Stops if running and frees. Accepts NULL; returns NULL. */
struct probe_sampler *probe_sampler_free(struct probe_sampler *s);

#endif
