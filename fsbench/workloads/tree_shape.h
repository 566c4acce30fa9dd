/* The tree workload's shape and schedule (tree_shape.c): what a run makes, in which order. */
#ifndef FSB_WL_TREE_SHAPE_H
#define FSB_WL_TREE_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
