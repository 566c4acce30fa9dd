/* The stream workload's chunk arithmetic, kept apart so that a unit test can check it. */
#ifndef FSB_WL_STREAM_H
#define FSB_WL_STREAM_H

#include <stdint.h>

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

#endif
