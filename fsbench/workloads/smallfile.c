/* The fs_mark-style small-file workload: options, set-up, loops and clean-up of the run. */
#include "base/errf.h"
#include "base/mix64.h"
#include "fsbench/workloads/smallfile_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
	  .file = OPT_FILE,
	  .help = "append the table to this file too" },
	{ .name = "fdatasync",
	  .type = OPT_BOOL,
	  .offset = O(fdatasync),
	  .max = 1,
	  .help = "use fdatasync() wherever fs_mark uses fsync()" },
	{ 0 },
};
#undef O

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
	uint64_t r = base_mix64(seed ^ g), x = g;

	for (int i = seq_len - 1; i >= 0; i--) {
		out[i] = "0123456789abcdef"[x & 15];
		x >>= 4;
	}
	for (int i = 0; i < rand_len; i++) {
		if ((i & 7) == 0 && i)
			r = base_mix64(r);
		out[seq_len + i] = alphabet[(r >> ((i & 7) * 8)) % 36];
	}
	out[name_len] = 0;
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
	s->seed = base_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));

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

int smallfile_fs_use_pct(int fd)
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

static int smallfile_fsuse(const struct fsb_run *run)
{
	const struct smallfile_state *s = state(run);

	return s && s->top.fd ? smallfile_fs_use_pct(s->top.fd[0]) : -1;
}

const struct fsb_workload fsb_wl_smallfile = {
	.name = "smallfile",
	.summary = "fs_mark-style small files: create, write, fsync, close across subdirectories",
	.opts = smallfile_opts,
	.cfg_size = sizeof(struct smallfile_cfg),
	.unit = MDL_UNIT_FILES,
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
