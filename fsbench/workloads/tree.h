/* The tree workload's parts (shape, schedule, phases), kept apart so unit tests and tree.c share them. */
#ifndef FSB_WL_TREE_H
#define FSB_WL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fsbench/core/dirs.h"
#include "fsbench/core/workload.h"

/*
 * compilebench's phases, in the order it prints its summary. The first name keeps
 * compilebench's misspelling: harnesses (autotest, Phoronix) match "intial create".
 */
enum tree_phase {
	TP_INITIAL_CREATE,
	TP_CREATE,
	TP_PATCH,
	TP_COMPILE,
	TP_CLEAN,
	TP_READ,
	TP_READ_COMPILED,
	TP_DELETE,
	TP_DELETE_COMPILED,
	TP_STAT,
	TP_STAT_COMPILED,
	TP_COUNT
};

extern const char *const tree_phase_names[TP_COUNT];

/* Whether compilebench reports the phase as MB/s (else as seconds). */
bool tree_phase_is_rate(enum tree_phase p);

enum tree_kind {
	TK_OTHER,
	TK_HEADER,
	TK_SOURCE, /* compiled into an object by the compile phase */
};

/*
 * A tree's shape: directories in breadth-first order (parents before children, so
 * creating in index order and removing in reverse order both work), and files sorted by
 * directory. Names are generated from indices ("d12", "340.c"): a shape copied from a
 * real tree keeps its fan-out, sizes and kinds, never its names.
 */
struct tree_shape {
	uint32_t ndirs, nfiles;
	uint32_t *parent; /* [ndirs]; parent[0] = 0, the tree's root */
	char **dpath; /* [ndirs] relative to the tree's root: "." for the root, "d3/d17" */
	uint32_t *fdir; /* [nfiles], ascending */
	uint64_t *fsize; /* [nfiles] */
	uint8_t *fkind; /* [nfiles] enum tree_kind */
	uint64_t bytes; /* sum of fsize */
	uint32_t nsources;
	uint64_t source_bytes;
	char from[320]; /* where the shape came from, for the result */
};

/* Bounds on a copied shape: a kernel tree has ~5k directories and ~80k files. */
#define TREE_MAX_DIRS 100000u
#define TREE_MAX_FILES 1000000u
#define TREE_MAX_DEPTH 64
#define TREE_MAX_FILE_SIZE (UINT64_C(1) << 30)

/*
 * Measures the tree under @path: directories, regular files and their sizes and kinds by
 * suffix. Symbolic links and special files are skipped and nothing outside @path is
 * entered (O_NOFOLLOW, no crossing into other mounts). 0, or -errno with @err naming the
 * path; -E2BIG past the bounds above.
 */
int tree_shape_measure(const char *path, struct tree_shape *ret, char *err, size_t errlen);

/* The default shape (tree_shape.c says what it was measured from). 0 or -ENOMEM. */
int tree_shape_default(struct tree_shape *ret);

void tree_shape_free(struct tree_shape *s);

/* Bytes of the object compiled from a @size-byte source, at @ratio (object / source). */
static inline uint64_t tree_object_size(uint64_t size, double ratio)
{
	double o = (double)size * ratio;

	return o < 1 ? 1 : (uint64_t)o;
}

/* One run of one phase on tree number @tree. */
struct tree_step {
	uint8_t phase;
	uint32_t tree;
};

/* Upper bound on trees one run makes (-i plus the creates among -r). */
#define TREE_MAX_TREES 100000u

/*
 * compilebench's order of runs: @initial trees created; then, with @makej, each of them
 * compiled right after its creation, "read compiled tree" three times and every tree
 * deleted compiled; else @runs phases drawn at random (seeded by @seed) among those
 * whose tree exists in the state it needs (a plain tree for patch, compile, read, stat
 * and delete; a compiled one for clean and the compiled variants). 0 or -ENOMEM/-E2BIG;
 * *@ret is malloc'ed.
 */
int tree_schedule(int64_t initial, int64_t runs, bool makej, uint64_t seed, struct tree_step **ret,
		  size_t *ret_n, uint32_t *ret_ntrees);

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

/* One phase's runs, summed: compilebench's summary line and fsbench's figures beside it. */
struct tree_acc {
	uint32_t runs;
	uint64_t ns, sync_ns; /* the phase's work, and the syncfs after it (not in ns) */
	uint64_t bytes, bytes_written, bytes_read, files, dirs;
	double rate_sum; /* sum of per-run bytes/s, for compilebench's avg */
	double user_s, sys_s;
	uint32_t dev_runs; /* runs with device figures */
	uint64_t dev_write_bytes, dev_read_bytes;
	struct hist *hist[OP_COUNT]; /* this phase's calls only */
};

/* One run of the schedule as it went. */
struct tree_done {
	uint64_t ns, sync_ns, bytes, dev_write_bytes;
	bool dev_ok;
};

/* The run's state (tree.c), read by the report (tree_report.c). */
struct tree_state {
	struct tree_shape shape;
	struct tree_ctx ctx;
	struct tree_step *steps;
	struct tree_done *done; /* [nsteps] */
	size_t nsteps;
	uint32_t ntrees;
	uint8_t *tstate; /* [ntrees]: 0 absent, 1 plain, 2 compiled; what fini removes */
	bool *made; /* [ntrees]: this run created it */
	struct tree_acc acc[TP_COUNT];
	struct hist *scratch[OP_COUNT]; /* one run's calls, before they join acc and the totals */
	bool have_device;
	char disk[64], device_note[320];
	bool whole_disk_of_partition;
	bool sync; /* syncfs after each phase run */
	int top_fd;
	struct fsb_dirs top;
};

void tree_report_json(const struct fsb_run *run, struct json_t *summary);
void tree_report_print(const struct fsb_run *run, FILE *out);

#endif
