/* The stream workload's chunk arithmetic and iozone's throughput figures, kept apart for unit tests. */
#ifndef FSB_WL_STREAM_H
#define FSB_WL_STREAM_H

#include <stdint.h>
#include <stdio.h>

/* Bytes [off, off + len) of one chunk. 64-bit on purpose: see stream_chunk(). */
struct stream_range {
	uint64_t off;
	uint64_t len;
};

/* Size that means "no size bound" (--size 0 with --runtime). */
#define STREAM_UNBOUNDED UINT64_MAX

/* Chunks in a @size-byte file written @chunk bytes at a time (the last may be short). */
uint64_t stream_nchunks(uint64_t size, uint64_t chunk);

/*
 * Chunk @i of a @size-byte file: offset i * chunk computed in 64 bits. The seed thread's
 * test program kept i in an int, so i * 8 MiB overflowed at 2 GiB and every later
 * sync_file_range() got a sign-extended negative offset and silently did nothing.
 * Returns 0, or -ERANGE when the offset does not fit in an off_t.
 */
int stream_chunk(uint64_t size, uint64_t chunk, uint64_t i, struct stream_range *ret);

/*
 * iozone's throughput-mode figures (-t N), in bytes per second: each writer's rate is its
 * bytes over its own time from the common start to its end (final sync included);
 * "children see" is the sum of those rates, "parent sees" the total bytes over the wall
 * time from the common start to the last writer's end. Since no writer's time exceeds
 * the wall time, parent sees <= children see.
 */
struct stream_figures {
	int writers; /* writers that ran (time > 0) */
	double children_see, parent_sees;
	double min_writer, max_writer, avg_writer;
	uint64_t min_xfer; /* fewest bytes one writer wrote (iozone's "Min xfer") */
};

/*
 * Fills @ret from @n writers' @bytes and @ns (their own times) and the run's @total_bytes
 * over @wall_ns. A writer with no time counts in min_xfer but has no rate. 0, or -EINVAL
 * when @n < 1.
 */
int stream_figures(const uint64_t *bytes, const uint64_t *ns, int n, uint64_t total_bytes,
		   uint64_t wall_ns, struct stream_figures *ret);

struct fsb_run;
struct json_t;

/* stream_report.c: the summary's figures and the text table (CLI output). */
void stream_report_json(const struct fsb_run *run, struct json_t *summary);
void stream_report_print(const struct fsb_run *run, const char *mode, int64_t chunk, FILE *out);

#endif
