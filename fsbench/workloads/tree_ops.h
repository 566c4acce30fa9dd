/* The tree workload's phases on one tree (tree_ops.c), over the shape of tree_shape.h. */
#ifndef FSB_WL_TREE_OPS_H
#define FSB_WL_TREE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsbench/core/workload.h"
#include "fsbench/workloads/tree_shape.h"

/* Bytes of the object compiled from a @size-byte source, at @ratio (object / source). */
static inline uint64_t tree_object_size(uint64_t size, double ratio)
{
	double o = (double)size * ratio;

	return o < 1 ? 1 : (uint64_t)o;
}

/* What one phase run did, in units of the phase's own work. */
struct tree_work {
	uint64_t bytes_written, bytes_read; /* file data */
	uint64_t bytes; /* what the phase's MB/s counts (compilebench's "tree size" of the phase) */
	uint64_t files, dirs; /* made (create, compile) or removed (clean, delete) or visited */
};

/* The state every phase needs (tree_ops.c). */
struct tree_ctx {
	const struct tree_shape *shape;
	int top_fd; /* the -D directory */
	const char *top; /* its name, for messages */
	char *buf; /* TREE_IO_SIZE bytes written, not zeros */
	char *rbuf; /* TREE_IO_SIZE bytes read into */
	double object_ratio;
	uint32_t patch_every; /* patch rewrites one file in this many */
	uint32_t generation; /* bumps per patch, so rewritten data differs */
};

#define TREE_IO_SIZE (64u * 1024)

/* "fsbench-tree-N", the name of tree @n under -D. */
void tree_name(uint32_t n, char *buf, size_t len);

/*
 * Runs @phase on tree @n; timed calls go to @t's histograms. 0, or -errno with t->errmsg
 * naming the path. The "compiled" phases also visit each source's object.
 */
int tree_phase_run(struct fsb_thread *t, struct tree_ctx *c, enum tree_phase phase, uint32_t n,
		   struct tree_work *ret);

/* Removes tree @n, untimed (fini's clean-up): only the names the run made; objects' failures count when @compiled. */
int tree_remove_untimed(const struct tree_ctx *c, uint32_t n, bool compiled);

#endif
