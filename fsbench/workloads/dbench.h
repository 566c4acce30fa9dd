/* What dbench.c (the workload), dbench_ops.c (its NBENCH operations) and dbench_out.c (its output) share. */
#ifndef FSB_DBENCH_H
#define FSB_DBENCH_H

#include <limits.h>
#include <stdatomic.h>

#include "fsbench/core/common.h"
#include "fsbench/core/workload.h"
#include "fsbench/workloads/dbench_load.h"

struct dbench_cfg {
	struct fsb_common common;
	int64_t clients, per_process, timelimit, warmup;
	char *loadfile, *directory, *backend;
	double rate;
	bool sync_open, sync_dirs, do_fsync, xattr, no_resolve, run_once, skip_cleanup;
	bool show_execute_time, stat_check, fake_io, percentiles, per_client;
};

/* dbench's fileio backend keeps 200 open handles per client. */
#define NB_MAX_FILES 200
/* --show-execute-time: passes each client remembers (fixed memory, 512 KiB) */
#define NB_MAX_SAMPLES 65536

struct nb_file {
	int handle; /* the loadfile's handle number; 0: a free slot */
	int fd;
	uint32_t path; /* the pool path it was opened by (SET_FILE_INFORMATION's utime) */
};

enum nb_phase { NB_WARMUP, NB_EXECUTE, NB_CLEANUP, NB_DONE };

struct nb_client {
	struct nb_file files[NB_MAX_FILES];
	/* -D's path, "/", then the line's path(s) for this client: *at() calls use rel */
	char full[PATH_MAX + NB_PATH_MAX], full2[PATH_MAX + NB_PATH_MAX];
	char *rel, *rel2;
	char *rbuf; /* ReadX's buffer, the load's largest read */
	uint64_t rng;
	uint64_t io_bytes; /* bytes the last operation read or wrote (dbench's count) */
	uint64_t mismatches; /* opens that succeeded where the loadfile has them fail */
	uint64_t short_reads;
	uint64_t passes, bytes_all;
	uint64_t rate_bytes, rate_ns; /* -R: dbench's rate keeper */
	/* read by the once-a-second lines on the monitor thread */
	_Atomic uint64_t bytes_warm, bytes_exec, lines, maxlat_ns, last_ns;
	atomic_int phase; /* enum nb_phase */
	uint32_t *pass_ms, *pass_at_ms; /* --show-execute-time */
	size_t nsamples;
	uint64_t samples_dropped;
};

struct dbench_state {
	struct nb_load load;
	int dfd; /* -D, open */
	/*
	 * -D is this user's and no one else may write in it: under clients/, which this run
	 * made, no one else can have planted a symlink, so a path is one *at() call on -D as
	 * dbench makes it; otherwise each path's directory is opened beneath -D first.
	 */
	bool private_dir;
	const char *root;
	size_t rootlen;
	char *zero; /* WriteX's data: zeros, shared read-only */
	uint64_t warmup_ns, limit_ns;
};

/*
 * Runs line @l once for thread @t (its client), as dbench's fileio backend does; the
 * paths are already in the client's full/full2. Not for Sleep (the caller waits, so that a
 * stop is not held up). 0 or -errno with t->errmsg set.
 */
int nb_exec(struct fsb_thread *t, const struct nb_line *l);

/* Puts the load's path @off for client @id below "-D/" in @out. 0, or -ENAMETOOLONG. */
int nb_expand(const struct dbench_state *s, int id, uint32_t off, char *out);

/*
 * Removes what lies in directory @name under @parent, recursively; with @rmdirs the
 * directories too and @name itself (cleanup), without them files only (dbench's Deltree).
 * Symbolic links are removed, never followed. Counts what it could not remove.
 */
uint64_t nb_deltree(int parent, const char *name, bool rmdirs, int depth);

/*
 * Makes clients/ and clients/clientN (N below @nclients) under -D, or refuses one already
 * there that is not a directory (a symbolic link above all: -EINVAL) or not this user's
 * alone (another's, or writable by others: -EPERM); as root, also a -D another user owns or
 * may write (unless sticky). 0, or -errno with @err naming it.
 */
int nb_check_tree(int dfd, const char *root, int nclients, char *err, size_t errlen);

/* Removes clients/client<@id> below -D, following no symbolic link; what it left. */
uint64_t nb_cleanup(int dfd, int id);

/* Closes every handle the client still has open (the run stopped inside a pass). */
void nb_close_all(struct nb_client *c);

#endif
