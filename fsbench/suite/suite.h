/*
 * Suite files: parsing and validation with line:column errors, matrix expansion, cell names.
 * One file per concern: scan.c (JSON positions), field.c (typed fields),
 * parse.c (entries, validation, load, free), label.c (labels),
 * select.c (--fs, --threads, workloads), matrix.c (cells and their jobs),
 * coords.c (result JSON), find.c (a suite by name); parser.h holds what the parsing
 * files share. suite_run.h runs one (the target, the cell loop, the result).
 */
#ifndef FSB_SUITE_H
#define FSB_SUITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "fsbench/core/job.h"

/* Limits on what a suite file may ask for; a matrix past SUITE_MAX_CELLS is a typo. */
#define SUITE_MAX_FS 32
#define SUITE_MAX_KNOBSETS 32
#define SUITE_MAX_KNOBS 32
#define SUITE_MAX_WORKLOADS 32
#define SUITE_MAX_PARAMS 32
#define SUITE_MAX_THREADS 32
#define SUITE_MAX_ARGS 32
#define SUITE_MAX_CELLS 4096
#define SUITE_MAX_REPETITIONS 1000
#define SUITE_DEFAULT_IMAGE_SIZE (INT64_C(2) << 30)

struct suite_fs {
	char *type;
	char *label; /* the name in cells: the type unless that is ambiguous */
	char *mkfs_options; /* as written ("" for none) */
	char *mkfs_argv[SUITE_MAX_ARGS + 1]; /* the same, split on blanks, NULL-terminated */
	char *mount_options; /* "" for none */
	int barrier[2]; /* 0 and/or 1, in file order */
	int nbarrier; /* 0: the file did not ask */
};

struct suite_knobset {
	char *name;
	int n;
	char *knob[SUITE_MAX_KNOBS]; /* "name=value" as --knob takes it */
	json_t *map; /* as written, for coords */
};

struct suite_workload {
	const struct fsb_workload *wl;
	char *label; /* the name in cells: the workload's name unless that is ambiguous */
	int np;
	char *pname[SUITE_MAX_PARAMS], *pvalue[SUITE_MAX_PARAMS]; /* option text, in file order */
	json_t *params; /* as written, for coords */
	bool victim_top; /* the victim came from the entry's "victim" shorthand */
	int threads[SUITE_MAX_THREADS]; /* its own thread list, or nthreads 0: the suite's */
	int nthreads;
};

struct suite {
	char *path; /* as given, for messages */
	char *name; /* "name", or the file name without .json */
	char *description;
	struct suite_fs fs[SUITE_MAX_FS];
	int nfs;
	struct suite_knobset ks[SUITE_MAX_KNOBSETS];
	int nks;
	struct suite_workload wl[SUITE_MAX_WORKLOADS];
	int nwl;
	int threads[SUITE_MAX_THREADS];
	int nthreads;
	int repetitions;
	int64_t image_size;
	json_t *root; /* the file as parsed */
};

struct suite_cell {
	int fs; /* index into suite.fs */
	int barrier; /* 0, 1, or -1 when the file did not ask */
	int ks; /* index into suite.ks, or -1 */
	int wl; /* index into suite.wl */
	int threads;
	char name[256]; /* ext4/barrier=1/smallfile/t=4 */
	char mount_options[1200]; /* the filesystem's, with the barrier's option added */
	const char *skip; /* why this cell cannot run (xfs without barriers), or NULL */
};

/*
 * Parses and validates a suite: every value goes through the workloads' option tables as
 * on the command line. @path names the file in messages ("FILE:LINE:COL: where: what").
 * 0, or -EINVAL / -errno with @err set; @ret is zeroed and must be freed either way.
 */
int suite_parse(struct suite *ret, const char *path, const char *text, size_t len, char *err,
		size_t errlen);
int suite_load(struct suite *ret, const char *path, char *err, size_t errlen);
void suite_free(struct suite *s);

/*
 * @name as a path when it is a file, else the suite of that name (".json" added) in the
 * configs directory of the build tree or the installation. 0 with @out set, or -ENOENT.
 */
int suite_find(const char *name, char *out, size_t len);

/*
 * What `fsbench` alone runs: configs/quick.json, its path into @quick; as root on fresh
 * images (@ret_dir ""), else its small-file part in a temporary directory made in $TMPDIR
 * (or /var/tmp), its path into @ret_dir, which the caller removes. 0, or -errno with @err.
 */
int suite_default(char *quick, size_t qlen, char *ret_dir, size_t dlen, char *err, size_t errlen);

/*
 * Where suite_find() looks, in order: the source tree's configs/ (only for the program in
 * its build tree), then the installed one.
 */
#define SUITE_NCONFIG_DIRS 2
extern const char *const suite_config_dirs[SUITE_NCONFIG_DIRS];

/* --fs LIST: keeps the filesystems whose label or type is in the comma list. */
int suite_select_fs(struct suite *s, const char *list, char *err, size_t errlen);
/* --threads LIST: replaces every thread list (the suite's and each workload's). */
int suite_set_threads(struct suite *s, const char *list, char *err, size_t errlen);
/* Keeps only the workloads named in the comma list (the no-root default drops stream). */
int suite_select_workloads(struct suite *s, const char *list, char *err, size_t errlen);

/* The barrier's mount option for @fstype ("" where barriers cannot be turned off/on). */
int suite_barrier_option(const char *fstype, int barrier, const char **ret);

/* Every cell, in run order (fs, barrier, knob set, workload, threads). Free with free(). */
int suite_expand(const struct suite *s, struct suite_cell **ret, int *ret_n, char *err,
		 size_t errlen);

/* A job for @c with the cell's params, threads and knobs set; fsb_job_free() it. */
/*
 * The order a suite runs in: run @i (0-based, below @ncells x repetitions) is cell
 * *@ret_cell's repetition *@ret_rep (1-based). Repetitions go round the whole matrix, every
 * other round backwards (A B B A A B ...), so that a device or host drifting during the
 * suite hits every cell, and so both sides of any --across comparison, alike.
 */
void suite_slot(int ncells, int i, int *ret_cell, int *ret_rep);

int suite_job(const struct suite *s, const struct suite_cell *c, struct fsb_job *job, char *err,
	      size_t errlen);

/* The run's coords: fs, mkfs and mount options, barrier, knobs, workload, params, threads, @repetition (0-based), cell. */
json_t *suite_coords(const struct suite *s, const struct suite_cell *c, int repetition);

/* The expanded suite for the result's config. */
json_t *suite_json(const struct suite *s, const struct suite_cell *cells, int n);

#endif
