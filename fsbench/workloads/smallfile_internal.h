/* What the small-file workload's files share (smallfile.c, smallfile_thread.c, smallfile_out.c). */
#ifndef FSB_SMALLFILE_INTERNAL_H
#define FSB_SMALLFILE_INTERNAL_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fsbench/core/common.h"
#include "fsbench/core/dirs.h"
#include "fsbench/core/workload.h"
#include "fsbench/workloads/smallfile.h"

/* fs_mark switches subdirectory every 180 s when -D is given without -N. */
#define SECS_PER_SUBDIR 180
#define MAX_NAME_LEN 255
#define MAX_WRITE_SIZE (1 << 30)

struct smallfile_cfg {
	struct fsb_common common;
	int64_t size, wsize, nfiles, per_subdir, subdirs, threads, sync_method, loops;
	int64_t rand_len, name_len;
	bool keep, fill, verbose, fdatasync;
	char *log;
};

struct smallfile_state {
	int ndirs;
	char **dirs; /* absolute or as given */
	struct fsb_dirs top; /* the -d directories, open; subdirectories are opened per thread */
	int nsub; /* max(1, -D) */
	unsigned sync_bits;
	enum fsb_op sync_op;
	uint64_t seed;
	bool full; /* -F reached ENOSPC, or the next loop's files would not fit */
	atomic_uint_fast64_t left; /* files that cleanup could not remove, all threads */
	char *buf; /* zeroed write buffer shared read-only by all threads */
	FILE *log; /* -l: fs_mark's log, appended to */
};

struct smallfile_thread {
	uint32_t *subdir_of; /* per file index in this loop */
	uint64_t created; /* files created in this loop (their names can be regenerated) */
	uint64_t subdir_start_ns;
	unsigned cur_subdir, in_subdir;
	/*
	 * The one subdirectory this thread has open (-D): open files stay at one per thread
	 * however large -D is, and a subdirectory is made only when the rotation reaches it.
	 */
	int sub_fd;
	uint32_t sub_open; /* which subdirectory sub_fd is; meaningful when sub_fd >= 0 */
	uint32_t *made; /* subdirectories this thread created (fini may remove them) */
	size_t nmade, made_cap;
};

static inline struct smallfile_state *state(const struct fsb_run *run)
{
	return run->priv;
}

/* The run-wide number of file @idx of thread @tid in @loop: what its name encodes. */
static inline uint64_t global_number(const struct fsb_run *run, int tid, int loop, uint64_t idx)
{
	const struct smallfile_cfg *c = run->cfg;

	return ((uint64_t)loop * (uint64_t)run->nthreads + (uint64_t)tid) * (uint64_t)c->nfiles +
	       idx;
}

/* fs_mark's FSUse% of the filesystem that holds @fd, or -1. */
int smallfile_fs_use_pct(int fd);

/* The timed loop of one worker and the cleanup after it (smallfile_thread.c). */
int smallfile_thread(struct fsb_thread *t, int loop);
int smallfile_thread_after(struct fsb_thread *t, int loop);

/* fs_mark's text and the summary's fs_mark fields (smallfile_out.c). */
void smallfile_summary_json(const struct fsb_run *run, json_t *summary);
void smallfile_print_header(const struct fsb_run *run, FILE *out);
void smallfile_print_loop(const struct fsb_run *run, int loop, FILE *out);
void smallfile_print_end(const struct fsb_run *run, FILE *out);

#endif
