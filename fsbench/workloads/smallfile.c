/* The fs_mark-style small-file workload: create, write, fsync, close across subdirectories. */
#include "base/errf.h"
#include "base/mix64.h"
#include "fsbench/core/clock.h"
#include "fsbench/core/dirs.h"
#include "fsbench/workloads/smallfile.h"
#include "fsbench/core/workload.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

const unsigned smallfile_sync_bits[7] = {
	0,
	SF_FSYNC_BEFORE_CLOSE,
	SF_SYNC_SYSCALL | SF_FIRST_FILE,
	SF_POST_REVERSE,
	SF_POST_REVERSE | SF_SYNC_SYSCALL,
	SF_POST_IN_ORDER,
	SF_POST_IN_ORDER | SF_SYNC_SYSCALL,
};

static const char *const sync_desc[7] = {
	"NO SYNC: Test does not issue sync() or fsync() calls.",
	"INBAND FSYNC: fsync() per file in write loop.",
	"SYSTEM SYNC/SINGLE FSYNC: Issue sync() after main write loop and 1 file fsync() per subdirectory.",
	"POST REVERSE: Reopen and fsync() each file in reverse order after main write loop.",
	"SYNC POST REVERSE: Issue sync() and then reopen and fsync() each file in reverse order after main write loop.",
	"POST: Reopen and fsync() each file in order after main write loop.",
	"SYNC POST: Issue sync() and then reopen and fsync() each file in order after main write loop.",
};

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

#define O(f) offsetof(struct smallfile_cfg, f)
static const struct fsb_opt smallfile_opts[] = {
	{ .name = "size",
	  .short_name = 's',
	  .type = OPT_SIZE,
	  .offset = O(size),
	  .max = INT64_C(1) << 40,
	  .def = "51200",
	  .unit = "bytes",
	  .help = "size of each file" },
	{ .name = "write-size",
	  .short_name = 'w',
	  .type = OPT_SIZE,
	  .offset = O(wsize),
	  .min = 1,
	  .max = MAX_WRITE_SIZE,
	  .def = "16384",
	  .unit = "bytes",
	  .help = "bytes per write() call" },
	{ .name = "files",
	  .short_name = 'n',
	  .type = OPT_INT,
	  .offset = O(nfiles),
	  .min = 1,
	  .max = 100000000,
	  .def = "1000",
	  .unit = "files",
	  .help = "files per thread per loop" },
	{ .name = "files-per-subdir",
	  .short_name = 'N',
	  .type = OPT_INT,
	  .offset = O(per_subdir),
	  .max = 100000000,
	  .def = "0",
	  .unit = "files",
	  .help = "files written into each subdirectory before moving to the next (round robin); needs -D" },
	{ .name = "subdirs",
	  .short_name = 'D',
	  .type = OPT_INT,
	  .offset = O(subdirs),
	  .max = INT32_MAX, /* fs_mark reads -D with atoi() into an int and sets no bound */
	  .def = "0",
	  .unit = "directories",
	  .help = "subdirectories per directory (without -N: a new one every 180 s, as fs_mark)" },
	{ .name = "threads",
	  .short_name = 't',
	  .type = OPT_INT,
	  .offset = O(threads),
	  .min = 1,
	  .max = FSB_MAX_THREADS,
	  .def = "1",
	  .unit = "threads",
	  .help = "total threads (a multiple of the number of -d directories)" },
	{ .name = "sync",
	  .short_name = 'S',
	  .type = OPT_INT,
	  .offset = O(sync_method),
	  .max = 6,
	  .def = "1",
	  .help = "sync method: 0 none, 1 fsync before close, 2 sync() and one fsync, 3 reverse-order fsync after the loop, 4 sync then 3, 5 in-order fsync after the loop, 6 sync then 5" },
	{ .name = "loops",
	  .short_name = 'L',
	  .type = OPT_INT,
	  .offset = O(loops),
	  .max = 1000000,
	  .def = "0",
	  .unit = "loops",
	  .help = "iterations; 0: one loop, files removed unless -k; any -L N >= 1 keeps the files (-k), as fs_mark's -L does, also -L 1 (LKP always passes -L)" },
	{ .name = "keep",
	  .short_name = 'k',
	  .type = OPT_BOOL,
	  .offset = O(keep),
	  .max = 1,
	  .help = "keep the files after each loop" },
	{ .name = "random-chars",
	  .short_name = 'r',
	  .type = OPT_INT,
	  .offset = O(rand_len),
	  .max = MAX_NAME_LEN,
	  .def = "24",
	  .unit = "characters",
	  .help = "random characters at the end of each file name" },
	{ .name = "name-length",
	  .short_name = 'p',
	  .type = OPT_INT,
	  .offset = O(name_len),
	  .min = 1,
	  .max = MAX_NAME_LEN,
	  .def = "40",
	  .unit = "characters",
	  .help = "total length of each file name" },
	{ .name = "fill",
	  .short_name = 'F',
	  .type = OPT_BOOL,
	  .offset = O(fill),
	  .max = 1,
	  .help = "loop until the filesystem is full (implies -k)" },
	{ .name = "verbose",
	  .short_name = 'v',
	  .type = OPT_BOOL,
	  .offset = O(verbose),
	  .max = 1,
	  .help = "per-operation latency table" },
	{ .name = "log",
	  .short_name = 'l',
	  .type = OPT_STRING,
	  .offset = O(log),
	  .help = "append the table to this file too" },
	{ .name = "fdatasync",
	  .type = OPT_BOOL,
	  .offset = O(fdatasync),
	  .max = 1,
	  .help = "use fdatasync() wherever fs_mark uses fsync()" },
	{ 0 },
};
#undef O

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

static struct smallfile_state *state(const struct fsb_run *run)
{
	return run->priv;
}

/*
 * The name of file @g: fs_mark's shape, (name_len - rand_len) sequential characters then
 * rand_len random upper-case letters and digits. fs_mark takes the sequential part from
 * the clock, so names of two threads in the same second collide unless the random part
 * tells them apart; here it is the file's global number in hex, unique on its own.
 */
void smallfile_name(char *out, uint64_t g, int name_len, int rand_len, uint64_t seed)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	int seq_len = name_len - rand_len;
	uint64_t r = fsb_mix64(seed ^ g), x = g;

	for (int i = seq_len - 1; i >= 0; i--) {
		out[i] = "0123456789abcdef"[x & 15];
		x >>= 4;
	}
	for (int i = 0; i < rand_len; i++) {
		if ((i & 7) == 0 && i)
			r = fsb_mix64(r);
		out[seq_len + i] = alphabet[(r >> ((i & 7) * 8)) % 36];
	}
	out[name_len] = 0;
}

static uint64_t global_number(const struct fsb_run *run, int tid, int loop, uint64_t idx)
{
	const struct smallfile_cfg *c = run->cfg;

	return ((uint64_t)loop * (uint64_t)run->nthreads + (uint64_t)tid) * (uint64_t)c->nfiles +
	       idx;
}

static int smallfile_nthreads(const void *cfg)
{
	const struct smallfile_cfg *c = cfg;

	return fsb_dirs_nthreads(&c->common, c->threads);
}

static int hex_digits(uint64_t v)
{
	int d = 1;

	while (v >>= 4)
		d++;
	return d;
}

static int smallfile_init(struct fsb_run *run, char *err, size_t errlen)
{
	struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s;
	struct rlimit rl;
	int nd = c->common.dirs.n, need_fds, r;
	uint64_t max_loops;

	if (c->subdirs == 1)
		return errf(
			err, errlen, -EINVAL,
			"-D: 1 is not allowed; use 0 (none) or 2 or more subdirectories, as fs_mark");
	if (c->per_subdir && !c->subdirs)
		return errf(err, errlen, -EINVAL, "-N: needs -D with 2 or more subdirectories");
	r = fsb_dirs_check_threads(&c->common, c->threads, "-t", err, errlen);
	if (r < 0)
		return r;
	if (c->rand_len > c->name_len)
		return errf(err, errlen, -EINVAL,
			    "-r: %" PRId64 " random characters do not fit in a %" PRId64
			    "-character name (-p)",
			    c->rand_len, c->name_len);
	/* 0 is -L not given: one loop; any -L given keeps the files, as in fs_mark */
	if (c->loops > 0 || c->fill)
		c->keep = true; /* fs_mark does the same: -L and -F keep files */
	if (c->loops == 0)
		c->loops = 1;
	max_loops = c->fill ? 1000000 : (uint64_t)c->loops;
	if (c->name_len - c->rand_len < 16 && c->rand_len < 12 &&
	    hex_digits(max_loops * (uint64_t)run->nthreads * (uint64_t)c->nfiles) >
		    c->name_len - c->rand_len)
		return errf(
			err, errlen, -EINVAL,
			"-p/-r: %" PRId64
			" sequential characters cannot number every file uniquely; raise -p or -r",
			c->name_len - c->rand_len);

	s = calloc(1, sizeof(*s));
	if (!s)
		return errf(err, errlen, -ENOMEM, "allocating run state: %s", strerror(ENOMEM));
	run->priv = s;
	s->ndirs = nd;
	s->nsub = c->subdirs ? (int)c->subdirs : 1;
	s->sync_bits = smallfile_sync_bits[c->sync_method];
	s->sync_op = c->fdatasync ? OP_FDATASYNC : OP_FSYNC;
	s->seed = fsb_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));

	/* open at once: each -d, and per thread one subdirectory and the file being written */
	need_fds = nd + 2 * run->nthreads + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)need_fds) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)need_fds ? rl.rlim_max : (rlim_t)need_fds;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < (rlim_t)need_fds)
			return errf(
				err, errlen, -EMFILE,
				"-t: %d threads over %d directories need %d open files, the limit is %llu",
				run->nthreads, nd, need_fds, (unsigned long long)rl.rlim_cur);
	}

	s->dirs = c->common.dirs.v;
	s->buf = calloc(1, (size_t)(c->wsize < c->size ? c->wsize : (c->size ? c->size : 1)));
	if (!s->buf)
		return errf(err, errlen, -ENOMEM, "allocating run state: %s", strerror(ENOMEM));
	r = fsb_dirs_open(&s->top, &c->common, err, errlen);
	if (r < 0)
		return r;

	for (int i = 0; i < run->nthreads; i++) {
		struct smallfile_thread *st = calloc(1, sizeof(*st));

		if (!st || !(st->subdir_of = malloc(sizeof(uint32_t) * (size_t)c->nfiles))) {
			free(st);
			return errf(err, errlen, -ENOMEM,
				    "allocating %" PRId64 " file records for thread %d: %s",
				    c->nfiles, i, strerror(ENOMEM));
		}
		st->sub_fd = -1;
		run->threads[i].priv = st;
		/* room for the subdirectories one loop reaches with -N, so the loop rarely grows it */
		if (c->per_subdir) {
			int64_t reach = c->nfiles / c->per_subdir + 1;

			st->made_cap = (size_t)(reach < s->nsub ? reach : s->nsub);
			st->made = malloc(sizeof(uint32_t) * st->made_cap);
			if (!st->made)
				return errf(err, errlen, -ENOMEM,
					    "allocating subdirectory records for thread %d: %s", i,
					    strerror(ENOMEM));
		}
	}
	if (c->log) {
		s->log = fopen(c->log, "ae");
		if (!s->log)
			return errf(err, errlen, -errno, "-l: opening log file %s: %s", c->log,
				    strerror(errno));
	}
	run->expected_units =
		c->fill ? 0 : (uint64_t)c->loops * (uint64_t)run->nthreads * (uint64_t)c->nfiles;
	return 0;
}

static int fs_use_pct(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0 || !sf.f_blocks)
		return -1;
	return (int)(100.0 * (double)(sf.f_blocks - sf.f_bavail) / (double)sf.f_blocks);
}

static bool smallfile_want_loop(struct fsb_run *run, int loop)
{
	struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s = state(run);

	if (!c->fill)
		return loop < c->loops;
	if (s->full)
		return false;
	/* as fs_mark's check_space: stop when the next loop's files cannot fit */
	for (int d = 0; d < s->ndirs; d++) {
		struct statfs sf;

		if (fstatfs(s->top.fd[d], &sf) == 0 &&
		    (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize <
			    (uint64_t)c->size * (uint64_t)c->nfiles * (uint64_t)run->nthreads /
				    (uint64_t)s->ndirs) {
			/* full for -F's purpose: the result says so as for ENOSPC */
			s->full = true;
			return false;
		}
	}
	return true;
}

static unsigned pick_subdir(struct smallfile_thread *st, const struct smallfile_cfg *c, int nsub)
{
	if (!c->subdirs)
		return 0;
	if (c->per_subdir) {
		if (st->in_subdir >= c->per_subdir) {
			st->cur_subdir = (st->cur_subdir + 1) % (unsigned)nsub;
			st->in_subdir = 0;
		}
		st->in_subdir++;
		return st->cur_subdir;
	}
	if (fsb_now_ns() - st->subdir_start_ns > (uint64_t)SECS_PER_SUBDIR * 1000000000u) {
		st->cur_subdir = (st->cur_subdir + 1) % (unsigned)nsub;
		st->subdir_start_ns = fsb_now_ns();
	}
	return st->cur_subdir;
}

static int thread_err(struct fsb_thread *t, int e, const char *what, const char *dir, unsigned sub,
		      bool has_sub, const char *name)
{
	if (has_sub)
		snprintf(t->errmsg, sizeof(t->errmsg), "%s %s/%02x/%s: %s", what, dir, sub, name,
			 strerror(e));
	else
		snprintf(t->errmsg, sizeof(t->errmsg), "%s %s/%s: %s", what, dir, name,
			 strerror(e));
	return -e;
}

static int made_push(struct smallfile_thread *st, uint32_t sub)
{
	if (st->nmade == st->made_cap) {
		size_t cap = st->made_cap ? st->made_cap * 2 : 16;
		uint32_t *a = realloc(st->made, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		st->made = a;
		st->made_cap = cap;
	}
	st->made[st->nmade++] = sub;
	return 0;
}

/*
 * The directory that files of subdirectory @sub live in, for thread @t: the -d directory
 * itself without -D, else subdirectory @sub, opened (and with @make, created) as the
 * thread's rotation reaches it, closing the one before. Called between timed calls only.
 * A descriptor, or -errno with t->errmsg set.
 */
static int subdir_fd(struct fsb_thread *t, unsigned sub, bool make)
{
	const struct smallfile_cfg *c = t->run->cfg;
	struct smallfile_state *s = state(t->run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, fd;
	char name[16];

	if (!c->subdirs)
		return s->top.fd[d];
	if (st->sub_fd >= 0 && st->sub_open == sub)
		return st->sub_fd;
	snprintf(name, sizeof(name), "%02x", sub);
	if (make) {
		if (mkdirat(s->top.fd[d], name, 0777) == 0) {
			if (made_push(st, sub) < 0) {
				/* unrecorded, it would outlive the run: take it back now */
				unlinkat(s->top.fd[d], name, AT_REMOVEDIR);
				snprintf(t->errmsg, sizeof(t->errmsg),
					 "recording subdirectory %s/%s: %s", s->dirs[d], name,
					 strerror(ENOMEM));
				return -ENOMEM;
			}
		} else if (errno != EEXIST) {
			snprintf(t->errmsg, sizeof(t->errmsg), "creating subdirectory %s/%s: %s",
				 s->dirs[d], name, strerror(errno));
			return -errno;
		}
	}
	fd = openat(s->top.fd[d], name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(t->errmsg, sizeof(t->errmsg), "opening subdirectory %s/%s: %s", s->dirs[d],
			 name, strerror(errno));
		return -errno;
	}
	if (st->sub_fd >= 0)
		close(st->sub_fd);
	st->sub_fd = fd;
	st->sub_open = sub;
	return fd;
}

/* Re-opens created file @i and fsyncs it: the post-loop phases of -S 2..6, each call timed. */
static int post_fsync(struct fsb_thread *t, int loop, uint64_t i)
{
	struct fsb_run *run = t->run;
	const struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s = state(run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, dfd, fd, r, e;
	unsigned sub = st->subdir_of[i];
	char name[MAX_NAME_LEN + 1];
	uint64_t t0, t1;

	smallfile_name(name, global_number(run, t->id, loop, i), (int)c->name_len, (int)c->rand_len,
		       s->seed);
	dfd = subdir_fd(t, sub, false);
	if (dfd < 0)
		return dfd;
	FSB_TIME_CALL(t0, t1, fd = openat(dfd, name, O_RDONLY | O_CLOEXEC));
	if (fd < 0)
		return thread_err(t, errno, "re-opening", s->dirs[d], sub, c->subdirs, name);
	fsb_record(t, OP_OPEN, t0, t1);
	FSB_TIME_CALL(t0, t1, r = c->fdatasync ? fdatasync(fd) : fsync(fd));
	e = errno;
	fsb_record(t, s->sync_op, t0, t1);
	FSB_TIME_CALL(t0, t1, close(fd));
	fsb_record(t, OP_CLOSE, t0, t1);
	if (r < 0)
		return thread_err(t, e, c->fdatasync ? "fdatasync of" : "fsync of", s->dirs[d], sub,
				  c->subdirs, name);
	return 0;
}

/* The timed part of one loop of one worker: create, write, sync, close; then -S's phases. */
static int smallfile_thread(struct fsb_thread *t, int loop)
{
	struct fsb_run *run = t->run;
	const struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s = state(run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, r = 0;
	bool per_file_sync = s->sync_bits & SF_FSYNC_BEFORE_CLOSE;
	char name[MAX_NAME_LEN + 1];
	uint64_t i, t0, t1;

	/* as fs_mark, -N's count carries over from one loop to the next */
	st->created = 0;
	st->subdir_start_ns = fsb_now_ns();
	for (i = 0; i < (uint64_t)c->nfiles && !fsb_should_stop(run); i++) {
		unsigned sub = pick_subdir(st, c, s->nsub);
		int dfd = subdir_fd(t, sub, true), fd, e;
		int64_t left = c->size;

		if (dfd < 0) {
			r = dfd;
			break;
		}
		smallfile_name(name, global_number(run, t->id, loop, i), (int)c->name_len,
			       (int)c->rand_len, s->seed);
		st->subdir_of[i] = sub;

		/* O_EXCL: a file of the same name is not this run's to truncate or remove */
		FSB_TIME_CALL(t0, t1,
			      fd = openat(dfd, name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666));
		if (fd < 0) {
			e = errno;
			r = thread_err(t, e, "creating", s->dirs[d], sub, c->subdirs, name);
			if (e == EEXIST)
				snprintf(
					t->errmsg + strlen(t->errmsg),
					sizeof(t->errmsg) - strlen(t->errmsg),
					" (not made by this run: left alone; remove it or raise -r)");
			break;
		}
		fsb_record(t, OP_CREATE, t0, t1);
		st->created = i + 1;

		while (left > 0) {
			size_t n = (size_t)(left < c->wsize ? left : c->wsize);
			ssize_t w;

			FSB_TIME_CALL(t0, t1, w = write(fd, s->buf, n));
			/*
			 * A short write is not an error yet: the next call, for the rest, fails
			 * with the reason (ENOSPC, or EIO from a device that failed mid-request).
			 */
			if (w <= 0) {
				e = w < 0 ? errno : ENOSPC;
				r = thread_err(t, e, "writing", s->dirs[d], sub, c->subdirs, name);
				break;
			}
			fsb_record(t, OP_WRITE, t0, t1);
			left -= w;
			t->bytes += (uint64_t)w;
		}
		if (!r && per_file_sync) {
			FSB_TIME_CALL(t0, t1, e = c->fdatasync ? fdatasync(fd) : fsync(fd));
			if (e < 0)
				r = thread_err(t, errno, c->fdatasync ? "fdatasync of" : "fsync of",
					       s->dirs[d], sub, c->subdirs, name);
			else
				fsb_record(t, s->sync_op, t0, t1);
		}
		FSB_TIME_CALL(t0, t1, e = close(fd));
		if (!r && e < 0)
			r = thread_err(t, errno, "closing", s->dirs[d], sub, c->subdirs, name);
		if (r)
			break;
		fsb_record(t, OP_CLOSE, t0, t1);
		t->files++;
		atomic_store_explicit(&t->progress, t->total_files + t->files,
				      memory_order_relaxed);
	}

	if (r == -ENOSPC && c->fill) {
		/* -F: a full filesystem is the end of the run, not a failure */
		s->full = true;
		fsb_run_end(run);
		r = 0;
	}
	/* post-loop phases run on what was created, also when --runtime cut the loop short */
	if (!r && !fsb_run_failed(run) && st->created) {
		if (s->sync_bits & SF_SYNC_SYSCALL) {
			FSB_TIME_CALL(t0, t1, sync());
			fsb_record(t, OP_SYNC, t0, t1);
		}
		if (s->sync_bits & SF_POST_IN_ORDER)
			for (i = 0; i < t->files && !r; i++)
				r = post_fsync(t, loop, i);
		if (s->sync_bits & SF_POST_REVERSE)
			for (i = t->files; i > 0 && !r; i--)
				r = post_fsync(t, loop, i - 1);
		if ((s->sync_bits & SF_FIRST_FILE) && t->files && !r)
			r = post_fsync(t, loop, 0);
	}
	return r;
}

/*
 * After every worker's timed work of the loop (runner.c holds this back until then, so
 * one thread's unlinks never compete with another's creates inside files/s): removes the
 * files this thread created in the loop, unless they are kept. Every name is one that an
 * O_EXCL create of this run made. A file that cannot be removed does not stop the
 * others: how many stay behind, and where, is what the user needs.
 */
static int smallfile_thread_after(struct fsb_thread *t, int loop)
{
	struct fsb_run *run = t->run;
	const struct smallfile_cfg *c = run->cfg;
	struct smallfile_state *s = state(run);
	struct smallfile_thread *st = t->priv;
	int d = t->id % s->ndirs, r = 0, first_e = 0;
	bool timed = !t->err && !fsb_run_failed(run);
	char name[MAX_NAME_LEN + 1], first[300] = "";
	uint64_t t0, t1, left = 0;

	if (c->keep)
		return 0;
	for (uint64_t i = 0; i < st->created; i++) {
		unsigned sub = st->subdir_of[i];
		int dfd = subdir_fd(t, sub, false), e;

		if (dfd < 0) {
			r = r ? r : dfd;
			left++;
			continue;
		}
		smallfile_name(name, global_number(run, t->id, loop, i), (int)c->name_len,
			       (int)c->rand_len, s->seed);
		FSB_TIME_CALL(t0, t1, e = unlinkat(dfd, name, 0));
		if (e < 0) {
			if (!left++) {
				first_e = errno;
				if (c->subdirs)
					snprintf(first, sizeof(first), "%02x/%s", sub, name);
				else
					snprintf(first, sizeof(first), "%s", name);
			}
			continue;
		}
		if (timed)
			fsb_record(t, OP_UNLINK, t0, t1);
	}
	if (left)
		atomic_fetch_add(&s->left, left);
	if (left && !r) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "removing files: %llu of %llu left in %s (the first, %s: %s)",
			 (unsigned long long)left, (unsigned long long)st->created, s->dirs[d],
			 first, strerror(first_e));
		r = -first_e;
	}
	st->created = 0;
	return r;
}

static void smallfile_fini(struct fsb_run *run)
{
	struct smallfile_state *s = state(run);
	const struct smallfile_cfg *c = run->cfg;

	if (!s)
		return;
	if (run->threads)
		for (int i = 0; i < run->nthreads; i++) {
			struct smallfile_thread *st = run->threads[i].priv;
			int top = s->top.fd ? s->top.fd[i % s->ndirs] : -1;

			if (!st)
				continue;
			if (st->sub_fd >= 0)
				close(st->sub_fd);
			/* only what this thread made; rmdir fails on a non-empty one: kept files stay */
			for (size_t k = 0; k < st->nmade && top >= 0; k++) {
				char name[16];

				snprintf(name, sizeof(name), "%02x", st->made[k]);
				unlinkat(top, name, AT_REMOVEDIR);
			}
			free(st->made);
			free(st->subdir_of);
			free(st);
			run->threads[i].priv = NULL;
		}
	fsb_dirs_close(&s->top, &c->common);
	if (s->log)
		fclose(s->log);
	free(s->buf);
	free(s);
	run->priv = NULL;
}

static void smallfile_summary_json(const struct fsb_run *run, json_t *summary)
{
	double fsmark = 0;
	uint64_t overhead = 0;

	for (int l = 0; l < run->nloops; l++) {
		fsmark += run->loops[l].fsmark_files_per_sec;
		if (run->loops[l].thread_ns > run->loops[l].syscall_ns)
			overhead += run->loops[l].thread_ns - run->loops[l].syscall_ns;
	}
	json_object_set_new(summary, "fs_mark_files_per_sec",
			    json_real(run->nloops ? fsmark / run->nloops : 0));
	json_object_set_new(summary, "app_overhead_ns", json_integer((json_int_t)overhead));
	json_object_set_new(summary, "filesystem_full",
			    json_boolean(state(run) && state(run)->full));
	if (state(run) && atomic_load(&state(run)->left))
		json_object_set_new(summary, "files_left",
				    json_integer((json_int_t)atomic_load(&state(run)->left)));
}

/* fs_mark writes its table to stdout and to the -l log alike. */
static void out_printf(const struct fsb_run *run, FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void out_printf(const struct fsb_run *run, FILE *out, const char *fmt, ...)
{
	const struct smallfile_state *s = state(run);
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	if (s && s->log) {
		va_start(ap, fmt);
		vfprintf(s->log, fmt, ap);
		va_end(ap);
		fflush(s->log);
	}
}

static void smallfile_print_header(const struct fsb_run *run, FILE *out)
{
	const struct smallfile_cfg *c = run->cfg;
	time_t now = time(NULL);
	char when[64];

	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime(&now));
	out_printf(run, out, "#\tVersion %s (fsbench), %d thread(s) starting at %s\n", FSB_VERSION,
		   run->nthreads, when);
	out_printf(run, out, "#\tSync method: %s%s\n", sync_desc[c->sync_method],
		   c->fdatasync && c->sync_method ? " (fdatasync instead of fsync)" : "");
	if (c->subdirs > 1)
		out_printf(run, out,
			   "#\tDirectories:  %s across %" PRId64 " subdirectories with %" PRId64
			   " %s.\n",
			   c->per_subdir ? "Round Robin between directories" :
					   "Time based hash between directories",
			   c->subdirs, c->per_subdir ? c->per_subdir : SECS_PER_SUBDIR,
			   c->per_subdir ? "files per subdirectory" : "seconds per subdirectory");
	else
		out_printf(run, out, "#\tDirectories:  no subdirectories used\n");
	out_printf(run, out,
		   "#\tFile names: %" PRId64 " bytes long, (%" PRId64
		   " initial bytes of sequence number with %" PRId64
		   " random bytes at end of name)\n",
		   c->name_len, c->name_len - c->rand_len, c->rand_len);
	out_printf(run, out,
		   "#\tFiles info: size %" PRId64 " bytes, written with an IO size of %" PRId64
		   " bytes per write\n",
		   c->size, c->wsize);
	out_printf(
		run, out,
		"#\tApp overhead is time in microseconds spent in the test not doing file writing related system calls.\n");
	out_printf(
		run, out,
		"#\tFiles/sec is all files over the wall time from the common start to the last thread's end.\n\n");
	out_printf(run, out, "%6s %12s %12s %12s %16s\n", "FSUse%", "Count", "Size", "Files/sec",
		   "App Overhead");
}

static void smallfile_print_loop(const struct fsb_run *run, int loop, FILE *out)
{
	const struct smallfile_cfg *c = run->cfg;
	const struct fsb_loop *l = &run->loops[loop];
	uint64_t count = 0, wall = l->end_ns - l->start_ns;

	for (int i = 0; i <= loop; i++)
		count += run->loops[i].files;
	out_printf(run, out, "%6d %12" PRIu64 " %12" PRId64 " %12.1f %16" PRIu64 "\n", l->fsuse_pct,
		   count, c->size, wall ? (double)l->files / ((double)wall / 1e9) : 0.0,
		   (l->thread_ns > l->syscall_ns ? l->thread_ns - l->syscall_ns : 0) / 1000);
}

static void smallfile_print_end(const struct fsb_run *run, FILE *out)
{
	const struct smallfile_cfg *c = run->cfg;

	if (!c->verbose)
		return;
	out_printf(run, out, "\n%-10s %10s %10s %10s %10s %10s %10s   (microseconds)\n", "op",
		   "count", "min", "mean", "p50", "p99", "max");
	for (int op = 0; op < OP_COUNT; op++) {
		const struct hist *h = run->total[op];

		if (!h || !h->count)
			continue;
		out_printf(run, out, "%-10s %10" PRIu64 " %10.1f %10.1f %10.1f %10.1f %10.1f\n",
			   rpt_ops[op].name, h->count, (double)h->min / 1e3, hist_mean(h) / 1e3,
			   (double)hist_percentile(h, 50) / 1e3,
			   (double)hist_percentile(h, 99) / 1e3, (double)h->max / 1e3);
	}
}

static int smallfile_fsuse(const struct fsb_run *run)
{
	const struct smallfile_state *s = state(run);

	return s && s->top.fd ? fs_use_pct(s->top.fd[0]) : -1;
}

const struct fsb_workload fsb_wl_smallfile = {
	.name = "smallfile",
	.summary = "fs_mark-style small files: create, write, fsync, close across subdirectories",
	.opts = smallfile_opts,
	.cfg_size = sizeof(struct smallfile_cfg),
	.unit = RPT_UNIT_FILES,
	.ops = OP_BIT(OP_CREATE) | OP_BIT(OP_OPEN) | OP_BIT(OP_WRITE) | OP_BIT(OP_FSYNC) |
	       OP_BIT(OP_FDATASYNC) | OP_BIT(OP_SYNC) | OP_BIT(OP_CLOSE) | OP_BIT(OP_UNLINK),
	.init = smallfile_init,
	.want_loop = smallfile_want_loop,
	.thread = smallfile_thread,
	.thread_after = smallfile_thread_after,
	.fini = smallfile_fini,
	.summary_json = smallfile_summary_json,
	.print_header = smallfile_print_header,
	.print_loop = smallfile_print_loop,
	.print_end = smallfile_print_end,
	.nthreads = smallfile_nthreads,
	.fs_use = smallfile_fsuse,
};
