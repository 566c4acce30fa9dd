/* The canary: a short fixed fsync load on the target, before and after a cell, so a drifting device shows. */
#ifndef PROBE_CANARY_H
#define PROBE_CANARY_H

#include <jansson.h>
#include <stdint.h>

/*
 * fsyncs of one rewritten 4 KiB block per canary. 200 give p90 from 20 samples above it
 * and cost 0.1 to 0.4 s on a loop device over a virtio disk (docs/compare.md).
 */
#define PROBE_CANARY_FSYNCS 200
#define PROBE_CANARY_MAX 100000

struct probe_canary {
	int n; /* fsyncs timed */
	double p10_us, p50_us, p90_us, mean_us;
	double spread_pct; /* (p90 - p10) / p50 * 100: the canary's own spread */
	double elapsed_s; /* what the canary cost, file creation and removal included */
};

/*
 * Creates a file of fsbench's own in @dir (O_EXCL, no symlink followed), writes one 4 KiB
 * block and fsyncs it @n times (1 to PROBE_CANARY_MAX), rewriting the block before each,
 * then removes the file. Only the fsync is timed. 0 or -errno.
 */
int probe_canary_run(const char *dir, int n, struct probe_canary *ret);

/* Percentiles of @v (@n values, sorted in place) into @ret; the caller sets elapsed_s. */
void probe_canary_summarise(uint64_t *v, int n, struct probe_canary *ret);

/* {n, p10_us, p50_us, p90_us, mean_us, spread_pct, elapsed_s}. NULL on allocation failure. */
json_t *probe_canary_json(const struct probe_canary *c);

#endif
