/* dbench 4.0's load: NBENCH loadfiles replayed by N clients, per-op histograms (the output: dbench_out.c). */
#include "fsbench/workloads/dbench.h"
#include "fsbench/workloads/dbench_out.h"
#include "base/errf.h"
#include "fsbench/core/dirs.h"
#include "base/mix64.h"
#include "fsbench/core/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* Debian's dbench package puts its one loadfile here; dbench's own default is DATADIR's. */
#define NB_DEFAULT_LOADFILE "/usr/share/dbench/client.txt"

#define O(f) offsetof(struct dbench_cfg, f)
static const struct fsb_opt dbench_opts[] = {
	{ .name = "threads",
	  .type = OPT_INT,
	  .offset = O(clients),
	  .min = 1,
	  .max = FSB_MAX_THREADS,
	  .def = "1",
	  .unit = "clients",
	  .help = "clients, each replaying the loadfile in its own clients/clientN (dbench's NPROCS operand, which sets it too)" },
	{ .name = "clients-per-process",
	  .type = OPT_INT,
	  .offset = O(per_process),
	  .min = 1,
	  .max = FSB_MAX_THREADS,
	  .def = "1",
	  .unit = "clients",
	  .help = "clients for each of the NPROCS: NPROCS x this many clients in all" },
	{ .name = "per-client-results",
	  .type = OPT_BOOL,
	  .offset = O(per_client),
	  .max = 1,
	  .help = "after the table, each client's lines, bytes and table" },
	{ .name = "timelimit",
	  .short_name = 't',
	  .type = OPT_INT,
	  .offset = O(timelimit),
	  .max = INT64_C(31) * 86400,
	  .def = "600",
	  .unit = "seconds",
	  .help = "seconds of the execute phase, after the warmup" },
	{ .name = "loadfile",
	  .short_name = 'c',
	  .type = OPT_STRING,
	  .offset = O(loadfile),
	  .def = NB_DEFAULT_LOADFILE,
	  .help = "the NBENCH loadfile (client.txt)" },
	{ .name = "directory",
	  .short_name = 'D',
	  .type = OPT_STRING,
	  .offset = O(directory),
	  .help = "working directory: clients/ is made below it (default: -d, else the current directory, as dbench)" },
	{ .name = "warmup",
	  .type = OPT_INT,
	  .offset = O(warmup),
	  .min = -1,
	  .max = INT64_C(31) * 86400,
	  .def = "-1",
	  .unit = "seconds",
	  .help = "seconds of warmup, left out of every figure; -1: a fifth of -t, as dbench" },
	{ .name = "sync",
	  .short_name = 's',
	  .type = OPT_BOOL,
	  .offset = O(sync_open),
	  .max = 1,
	  .help = "open files with O_SYNC" },
	{ .name = "sync-dir",
	  .short_name = 'S',
	  .type = OPT_BOOL,
	  .offset = O(sync_dirs),
	  .max = 1,
	  .help = "fdatasync the parent directory after Unlink, Rmdir and Rename" },
	{ .name = "fsync",
	  .short_name = 'F',
	  .type = OPT_BOOL,
	  .offset = O(do_fsync),
	  .max = 1,
	  .help = "fsync after every WriteX" },
	{ .name = "xattr",
	  .short_name = 'x',
	  .type = OPT_BOOL,
	  .offset = O(xattr),
	  .max = 1,
	  .help = "read and write the user.DosAttrib xattr as Samba would" },
	{ .name = "target-rate",
	  .short_name = 'R',
	  .type = OPT_DOUBLE,
	  .offset = O(rate),
	  .dmax = 1e9,
	  .unit = "MB/s",
	  .help = "throughput each client keeps to; 0: as fast as it can (default 0)" },
	{ .name = "no-resolve",
	  .type = OPT_BOOL,
	  .offset = O(no_resolve),
	  .max = 1,
	  .help = "no case-blind directory scan after a failed lookup (Samba's name resolution)" },
	{ .name = "run-once",
	  .type = OPT_BOOL,
	  .offset = O(run_once),
	  .max = 1,
	  .help = "each client replays the loadfile once, then stops" },
	{ .name = "skip-cleanup",
	  .type = OPT_BOOL,
	  .offset = O(skip_cleanup),
	  .max = 1,
	  .help = "leave clients/ in place at the end" },
	{ .name = "show-execute-time",
	  .type = OPT_BOOL,
	  .offset = O(show_execute_time),
	  .max = 1,
	  .help = "print how long each pass through the loadfile took (\"completed in\" lines)" },
	{ .name = "stat-check",
	  .type = OPT_BOOL,
	  .offset = O(stat_check),
	  .max = 1,
	  .help = "stat before Mkdir, Rmdir, Rename and creating opens, skipping pointless calls" },
	{ .name = "fake-io",
	  .type = OPT_BOOL,
	  .offset = O(fake_io),
	  .max = 1,
	  .help = "count ReadX and WriteX without reading or writing" },
	{ .name = "backend",
	  .short_name = 'B',
	  .type = OPT_STRING,
	  .offset = O(backend),
	  .def = "fileio",
	  .help = "dbench's backend: only fileio, the local filesystem, is replayed" },
	{ .name = "percentiles",
	  .type = OPT_BOOL,
	  .offset = O(percentiles),
	  .max = 1,
	  .help = "also print p50, p99 and p99.9 per operation, before dbench's table" },
	{ 0 },
};
#undef O

static struct dbench_state *state(const struct fsb_run *run)
{
	return run->priv;
}

static int dbench_nthreads(const void *cfg)
{
	const struct dbench_cfg *c = cfg;

	/* above FSB_MAX_THREADS, job.c refuses the run before any work */
	return (int)(c->clients * c->per_process);
}

static int client_new(struct fsb_run *run, int i, char *err, size_t errlen)
{
	const struct dbench_cfg *cfg = run->cfg;
	struct dbench_state *s = state(run);
	struct nb_client *c = calloc(1, sizeof(*c));

	if (!c)
		return errf(err, errlen, -ENOMEM, "allocating client %d: %s", i, strerror(ENOMEM));
	run->threads[i].priv = c;
	memcpy(c->full, s->root, s->rootlen);
	c->full[s->rootlen] = '/';
	memcpy(c->full2, c->full, s->rootlen + 1);
	c->rel = c->full + s->rootlen + 1;
	c->rel2 = c->full2 + s->rootlen + 1;
	c->rng = base_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) ^ (uint64_t)i);
	c->rbuf = malloc(s->load.max_io ? s->load.max_io : 1);
	if (cfg->show_execute_time) {
		c->pass_ms = calloc(NB_MAX_SAMPLES, sizeof(*c->pass_ms));
		c->pass_at_ms = calloc(NB_MAX_SAMPLES, sizeof(*c->pass_at_ms));
	}
	if (!c->rbuf || (cfg->show_execute_time && (!c->pass_ms || !c->pass_at_ms)))
		return errf(err, errlen, -ENOMEM, "allocating client %d's buffers: %s", i,
			    strerror(ENOMEM));
	return 0;
}

static int dbench_init(struct fsb_run *run, char *err, size_t errlen)
{
	struct dbench_cfg *cfg = run->cfg;
	struct dbench_state *s;
	const char *dir = cfg->directory;
	int r;

	if (cfg->backend && strcmp(cfg->backend, "fileio") && strcmp(cfg->backend, "dbench"))
		return errf(err, errlen, -EINVAL,
			    "-B %s: only the fileio backend (a local filesystem) is replayed",
			    cfg->backend);
	if (!dir) {
		if (cfg->common.dirs.n != 1)
			return errf(err, errlen, -EINVAL,
				    "-d: dbench works in one directory, %d were given",
				    cfg->common.dirs.n);
		dir = cfg->common.dirs.v[0];
	}
	if (!*dir || strlen(dir) >= PATH_MAX - 1)
		return errf(err, errlen, -EINVAL, "-D: %s", *dir ? "too long" : "empty");
	s = calloc(1, sizeof(*s));
	if (!s)
		return errf(err, errlen, -ENOMEM, "allocating run state: %s", strerror(ENOMEM));
	run->priv = s;
	s->dfd = -1;
	/* every fault of the loadfile is a usage error, found before any work */
	r = nb_load_read(cfg->loadfile, &s->load, err, errlen);
	if (r < 0)
		return r == -ENOMEM ? r : -EINVAL;
	s->root = dir;
	s->rootlen = strlen(dir);
	s->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dfd < 0)
		return errf(err, errlen, errno == ENOENT || errno == ENOTDIR ? -EINVAL : -errno,
			    "-D %s: %s", dir, strerror(errno));
	/* as root, held from a trusted walk: every file below is made beneath this descriptor */
	if ((r = fsb_dir_trusted("-D", dir, &s->dfd, err, errlen)) < 0)
		return r;
	struct stat dst;

	s->private_dir = !fstat(s->dfd, &dst) && dst.st_uid == geteuid() &&
			 !(dst.st_mode & (S_IWGRP | S_IWOTH));
	s->zero = calloc(1, s->load.max_io ? s->load.max_io : 1);
	if (!s->zero)
		return errf(err, errlen, -ENOMEM, "allocating run state: %s", strerror(ENOMEM));
	r = nb_check_tree(s->dfd, dir, run->nthreads, err, errlen);
	if (r < 0)
		return r;
	s->limit_ns = (uint64_t)cfg->timelimit * 1000000000u;
	s->warmup_ns = (uint64_t)(cfg->warmup < 0 ? cfg->timelimit / 5 : cfg->warmup) * 1000000000u;
	for (int i = 0; i < run->nthreads; i++) {
		r = client_new(run, i, err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Warmup is over for this client: its figures start again from here. */
static void begin_execute(struct fsb_thread *t, struct nb_client *c, uint64_t exec_start)
{
	for (int op = 0; op < NB_NOPS; op++) {
		hist_init(t->hist[OP_NB_FIRST + op]);
		if (t->slow)
			memset(&t->slow[OP_NB_FIRST + op], 0, sizeof(t->slow[0]));
	}
	t->bytes = 0;
	t->t_start = exec_start;
	atomic_store(&c->phase, NB_EXECUTE);
}

static void sleep_ns(struct fsb_run *run, uint64_t ns)
{
	/* in slices, so that a stop (signal, --runtime) is not held up by a long wait */
	while (ns && !fsb_should_stop(run)) {
		uint64_t d = ns < 100000000u ? ns : 100000000u;
		struct timespec ts = { 0, (long)d };

		nanosleep(&ts, NULL);
		ns -= d;
	}
}

/* Before line @l: -R's rate, or the loadfile's own timestamps, as dbench paces a client. */
static void pace(struct fsb_thread *t, struct nb_client *c, const struct nb_line *l,
		 uint64_t pass_start)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	uint64_t now = fsb_now_ns();

	if (cfg->rate > 0) {
		double delay;

		if (!c->rate_ns) {
			c->rate_ns = now;
			c->rate_bytes = c->bytes_all;
			return;
		}
		delay = (double)(c->bytes_all - c->rate_bytes) / (1e6 * cfg->rate) -
			(double)(now - c->rate_ns) / 1e9;
		if (delay > 0)
			sleep_ns(t->run, (uint64_t)(delay * 1e9));
		c->rate_ns = fsb_now_ns();
		c->rate_bytes = c->bytes_all;
	} else if (l->target_ns && now - pass_start < l->target_ns) {
		sleep_ns(t->run, l->target_ns - (now - pass_start));
	}
}

/* One line of the loadfile, its REPEAT times: each operation timed alone. */
static int run_line(struct fsb_thread *t, struct nb_client *c, const struct nb_line *l)
{
	const struct dbench_state *s = t->run->priv;
	bool exec = atomic_load_explicit(&c->phase, memory_order_relaxed) == NB_EXECUTE;
	uint64_t t0, t1;
	int r;

	if ((l->path && nb_expand(s, t->id, l->path, c->rel) < 0) ||
	    (l->path2 && nb_expand(s, t->id, l->path2, c->rel2) < 0)) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "client %d, loadfile line %u: the path is longer than %d characters",
			 t->id, l->lineno, NB_PATH_MAX);
		return -ENAMETOOLONG;
	}
	for (uint32_t k = 0; k < l->repeat; k++) {
		if (l->op == NB_SLEEP) {
			sleep_ns(t->run, (uint64_t)l->p[0] * 1000u);
			continue;
		}
		FSB_TIME_CALL(t0, t1, r = nb_exec(t, l));
		if (r < 0)
			return r;
		fsb_record(t, (enum fsb_op)(OP_NB_FIRST + l->op), t0, t1);
		if (t1 - t0 > atomic_load_explicit(&c->maxlat_ns, memory_order_relaxed))
			atomic_store_explicit(&c->maxlat_ns, t1 - t0, memory_order_relaxed);
		atomic_store_explicit(&c->last_ns, t1, memory_order_relaxed);
		if (!c->io_bytes)
			continue;
		c->bytes_all += c->io_bytes;
		if (exec) {
			t->bytes += c->io_bytes;
			atomic_fetch_add_explicit(&c->bytes_exec, c->io_bytes,
						  memory_order_relaxed);
		} else {
			atomic_fetch_add_explicit(&c->bytes_warm, c->io_bytes,
						  memory_order_relaxed);
		}
		atomic_store_explicit(&t->progress, c->bytes_all, memory_order_relaxed);
	}
	return 0;
}

static void note_pass(struct nb_client *c, uint64_t begin, uint64_t pass_start, uint64_t end)
{
	c->passes++;
	if (!c->pass_ms)
		return;
	if (c->nsamples == NB_MAX_SAMPLES) {
		c->samples_dropped++;
		return;
	}
	c->pass_ms[c->nsamples] = (uint32_t)((end - pass_start) / 1000000u);
	c->pass_at_ms[c->nsamples++] = (uint32_t)((end - begin) / 1000000u);
}

/* A client: passes through the loadfile until the time limit (or once, --run-once). */
static int dbench_thread(struct fsb_thread *t, int loop)
{
	struct fsb_run *run = t->run;
	const struct dbench_cfg *cfg = run->cfg;
	const struct dbench_state *s = state(run);
	struct nb_client *c = t->priv;
	uint64_t exec_start = run->run_start_ns + s->warmup_ns;
	uint64_t exec_end = exec_start + s->limit_ns, begin = fsb_now_ns();
	int r = 0;

	(void)loop;
	if (!s->warmup_ns)
		begin_execute(t, c, exec_start);
	for (uint64_t pass = 0;; pass++) {
		uint64_t pass_start = fsb_now_ns();

		for (size_t i = 0; i < s->load.n; i++) {
			const struct nb_line *l = &s->load.v[i];
			uint64_t now = fsb_now_ns();
			int phase = atomic_load_explicit(&c->phase, memory_order_relaxed);

			if (phase == NB_WARMUP && now >= exec_start) {
				begin_execute(t, c, exec_start);
				phase = NB_EXECUTE;
			}
			if ((phase == NB_EXECUTE && now >= exec_end) || fsb_should_stop(run))
				goto out;
			atomic_store_explicit(&c->lines, pass * s->load.nlines + l->lineno,
					      memory_order_relaxed);
			pace(t, c, l, pass_start);
			r = run_line(t, c, l);
			if (r < 0)
				goto out;
		}
		note_pass(c, begin, pass_start, fsb_now_ns());
		if (cfg->run_once)
			break;
	}
out:
	t->t_end = fsb_now_ns();
	if (atomic_load(&c->phase) == NB_WARMUP) {
		/* the whole run was warmup: nothing of it counts */
		t->t_start = t->t_end;
		t->bytes = 0;
	} else if (t->t_end > exec_end) {
		t->t_end = exec_end;
	}
	atomic_store(&c->phase, NB_CLEANUP);
	return r;
}

/* After every client's timed work: its own clients/clientN removed, as dbench's cleanup. */
static int dbench_thread_after(struct fsb_thread *t, int loop)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	const struct dbench_state *s = state(t->run);
	struct nb_client *c = t->priv;
	char name[32];
	uint64_t left;

	(void)loop;
	nb_close_all(c);
	atomic_store(&c->phase, NB_CLEANUP);
	if (!cfg->skip_cleanup) {
		snprintf(name, sizeof(name), "clients/client%d", t->id);
		left = nb_cleanup(s->dfd, t->id);
		if (left) {
			atomic_store(&c->phase, NB_DONE);
			snprintf(t->errmsg, sizeof(t->errmsg),
				 "cleanup: %llu entries left in %s/%s", (unsigned long long)left,
				 s->root, name);
			return -ENOTEMPTY;
		}
	}
	atomic_store(&c->phase, NB_DONE);
	return 0;
}

static void dbench_fini(struct fsb_run *run)
{
	const struct dbench_cfg *cfg = run->cfg;
	struct dbench_state *s = state(run);

	if (!s)
		return;
	for (int i = 0; run->threads && i < run->nthreads; i++) {
		struct nb_client *c = run->threads[i].priv;

		if (!c)
			continue;
		nb_close_all(c);
		free(c->rbuf);
		free(c->pass_ms);
		free(c->pass_at_ms);
		free(c);
		run->threads[i].priv = NULL;
	}
	/* clients/ itself, when the loadfile made it and cleanup emptied it */
	if (s->dfd >= 0) {
		if (!cfg->skip_cleanup && run->nloops)
			unlinkat(s->dfd, "clients", AT_REMOVEDIR);
		close(s->dfd);
	}
	nb_load_free(&s->load);
	free(s->zero);
	free(s);
	run->priv = NULL;
}

#define NB_BIT(op) OP_BIT(OP_NB_FIRST + (op))

const struct fsb_workload fsb_wl_dbench = {
	.name = "dbench",
	.summary = "dbench 4.0's NBENCH load: N clients replay a loadfile; dbench's output",
	.opts = dbench_opts,
	.cfg_size = sizeof(struct dbench_cfg),
	.unit = MDL_UNIT_BYTES,
	.ops = NB_BIT(NB_DELTREE) | NB_BIT(NB_FLUSH) | NB_BIT(NB_CLOSE) | NB_BIT(NB_LOCKX) |
	       NB_BIT(NB_RMDIR) | NB_BIT(NB_MKDIR) | NB_BIT(NB_RENAME) | NB_BIT(NB_READX) |
	       NB_BIT(NB_WRITEX) | NB_BIT(NB_UNLINK) | NB_BIT(NB_UNLOCKX) | NB_BIT(NB_FIND_FIRST) |
	       NB_BIT(NB_SET_FILE_INFORMATION) | NB_BIT(NB_QUERY_FILE_INFORMATION) |
	       NB_BIT(NB_QUERY_PATH_INFORMATION) | NB_BIT(NB_QUERY_FS_INFORMATION) |
	       NB_BIT(NB_NTCREATEX),
	.init = dbench_init,
	.thread = dbench_thread,
	.thread_after = dbench_thread_after,
	.fini = dbench_fini,
	.summary_json = dbench_summary_json,
	.print_header = dbench_print_header,
	.print_tick = dbench_print_tick,
	.print_end = dbench_print_end,
	.nthreads = dbench_nthreads,
	.operand = "threads",
	.default_dir = ".",
	.bare_header = true,
};
