/* Before/after snapshots of one block device's line in /proc/diskstats, and their deltas. */
#ifndef PROBE_DISKSTATS_H
#define PROBE_DISKSTATS_H

#include <jansson.h>
#include <stdint.h>

/*
 * Fields after "major minor name", in the kernel's order (Documentation/admin-guide/
 * iostats.rst). Linux before 4.18 gives the first 11, 4.18 adds four for discards, 5.5
 * two for flushes; times are milliseconds, sizes 512-byte sectors whatever the device.
 */
enum probe_ds_field {
	DS_READS,
	DS_READS_MERGED,
	DS_SECTORS_READ,
	DS_READ_MS,
	DS_WRITES,
	DS_WRITES_MERGED,
	DS_SECTORS_WRITTEN,
	DS_WRITE_MS,
	DS_IN_FLIGHT,
	DS_IO_MS, /* io_ticks: time with at least one request in flight */
	DS_QUEUE_MS, /* time_in_queue: weighted by the number in flight */
	DS_DISCARDS,
	DS_DISCARDS_MERGED,
	DS_SECTORS_DISCARDED,
	DS_DISCARD_MS,
	DS_FLUSHES,
	DS_FLUSH_MS,
	DS_FIELDS
};

struct probe_diskstats {
	char name[64];
	unsigned major, minor;
	int nfields; /* how many of v[] the kernel gave: 11, 15 or 17 */
	uint64_t v[DS_FIELDS];
	uint64_t t_ns; /* CLOCK_MONOTONIC when read */
};

/*
 * Finds @name's line in @text (the contents of /proc/diskstats). 0, -ENOENT when the
 * device is not listed, -EBADMSG for a line with fewer than 11 fields. t_ns is left 0.
 */
int probe_diskstats_parse(const char *text, const char *name, struct probe_diskstats *ret);

/* Reads <root>/proc/diskstats (root "" or NULL: live) and stamps the time. 0 or -errno. */
int probe_diskstats_read(const char *root, const char *name, struct probe_diskstats *ret);

/*
 * The change from @a to @b as the run's `kernel.device` object: name, write_bytes,
 * write_ios, flush_ios, discard_ios, busy_ns, queue_ns, mean_queue_depth (queue time over
 * the time between the snapshots), elapsed_ns, read_bytes, read_ios, fields. A figure the
 * kernel does not give, or a counter that went backwards (device re-created), is null,
 * never 0. NULL on allocation failure.
 */
json_t *probe_diskstats_delta_json(const struct probe_diskstats *a,
				   const struct probe_diskstats *b);

#endif
