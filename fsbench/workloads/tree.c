/* The compilebench-style tree workload: kernel-shaped trees through compilebench's phases. */
#include "base/errf.h"
#include "fsbench/core/dirs.h"
#include "fsbench/core/workload.h"
#include "fsbench/workloads/tree.h"
#include "probes/sampler/diskstats.h"
#include "probes/target/target.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

struct tree_cfg {
	struct fsb_common common;
	struct opt_strlist directory; /* compilebench's -D, folded into common.dirs */
	int64_t threads, initial, runs, patch_every, seed;
	double object_ratio;
	char *shape_from;
	bool makej, keep, no_sync;
	int pts_test;
};

/*
 * The Phoronix Test Suite's compilebench 1.0.3 runs `compilebench -D t -i 10 --makej TEST`:
 * it appends the test the user picked, which compilebench ignores (it runs all of --makej),
 * and then reads that test's line of the summary. "none" first: no test named.
 */
static const char *const pts_tests[] = { "none", "INITIAL_CREATE", "COMPILE", "READ_COMPILED_TREE",
					 NULL };
static const enum tree_phase pts_phases[] = { TP_COUNT, TP_INITIAL_CREATE, TP_COMPILE,
					      TP_READ_COMPILED };

#define O(f) offsetof(struct tree_cfg, f)
static const struct fsb_opt tree_opts[] = {
	{ .name = "directory",
	  .short_name = 'D',
	  .type = OPT_STRLIST,
	  .offset = O(directory),
	  .help = "compilebench's -D: the directory the trees go in (the same as -d)" },
	{ .name = "threads",
	  .short_name = 't',
	  .type = OPT_INT,
	  .offset = O(threads),
	  .min = 1,
	  .max = 1,
	  .def = "1",
	  .unit = "threads",
	  .help = "one: compilebench is one process, and the phases run one after another" },
	{ .name = "initial-dirs",
	  .short_name = 'i',
	  .type = OPT_INT,
	  .offset = O(initial),
	  .max = TREE_MAX_TREES / 2,
	  .def = "30",
	  .unit = "trees",
	  .help = "trees created first (compilebench's -i; \"intial create\")" },
	{ .name = "runs",
	  .short_name = 'r',
	  .type = OPT_INT,
	  .offset = O(runs),
	  .max = TREE_MAX_TREES / 2,
	  .def = "30",
	  .unit = "runs",
	  .help = "phases then run at random on those trees (compilebench's -r; not with --makej)" },
	{ .name = "makej",
	  .type = OPT_BOOL,
	  .offset = O(makej),
	  .max = 1,
	  .help = "compilebench's --makej: each tree compiled after its creation, read compiled three times, all deleted" },
	{ .name = "shape-from",
	  .type = OPT_STRING,
	  .offset = O(shape_from),
	  .help = "copy the trees' shape (directories, file sizes, .c/.h kinds) from this tree; default: a measured kernel tree (docs/tree.md)" },
	{ .name = "object-ratio",
	  .type = OPT_DOUBLE,
	  .offset = O(object_ratio),
	  .def = "1.53",
	  .dmin = 0.01,
	  .dmax = 100,
	  .help = "object bytes per source byte in compile (1.53: gcc 12 -O2 on x86_64, measured on fsbench's sources)" },
	{ .name = "patch-every",
	  .type = OPT_INT,
	  .offset = O(patch_every),
	  .min = 1,
	  .max = 1000000,
	  .def = "16",
	  .unit = "files",
	  .help = "patch reads and rewrites one file in this many" },
	{ .name = "seed",
	  .type = OPT_INT,
	  .offset = O(seed),
	  .max = INT64_MAX,
	  .def = "1",
	  .help = "seed of the random order of -r runs (the same seed, the same order)" },
	{ .name = "no-sync",
	  .type = OPT_BOOL,
	  .offset = O(no_sync),
	  .max = 1,
	  .help = "no syncfs() after each phase run (the device bytes then land where writeback puts them)" },
	{ .name = "pts-test",
	  .type = OPT_ENUM,
	  .offset = O(pts_test),
	  .def = "none",
	  .choices = pts_tests,
	  .help = "the test the Phoronix Test Suite appends to compilebench's command line (also as an operand): "
		  "the run is all of it, as compilebench's; the result names that phase's MB/s" },
	{ .name = "keep",
	  .short_name = 'k',
	  .type = OPT_BOOL,
	  .offset = O(keep),
	  .max = 1,
	  .help = "keep the trees left after the run" },
	{ 0 },
};
#undef O

static void tree_adopt(void *cfg)
{
	struct tree_cfg *c = cfg;

	for (int i = 0; i < c->directory.n; i++) {
		if (c->common.dirs.n < OPT_MAX_LIST)
			c->common.dirs.v[c->common.dirs.n++] = c->directory.v[i];
		else
			free(c->directory.v[i]);
		c->directory.v[i] = NULL;
	}
	c->directory.n = 0;
}

static int tree_nthreads(const void *cfg)
{
	(void)cfg;
	return 1;
}

/* Where /proc/diskstats counts the directory's writes, or why nowhere. */
static void find_device(struct tree_state *s, const char *dir)
{
	struct probe_target tg;
	int r = probe_target_resolve(NULL, dir, &tg);

	if (r < 0) {
		snprintf(s->device_note, sizeof(s->device_note), "resolving %s: %s", dir,
			 strerror(-r));
	} else if (!tg.has_block_device) {
		snprintf(s->device_note, sizeof(s->device_note), "%s", tg.note);
	} else {
		s->have_device = true;
		s->whole_disk_of_partition = tg.partition;
		snprintf(s->disk, sizeof(s->disk), "%s", tg.disk);
	}
}

static int alloc_hists(struct fsb_run *run, struct tree_state *s)
{
	for (int op = 0; op < OP_COUNT; op++) {
		if (!(run->wl->ops & OP_BIT(op)))
			continue;
		if (!(s->scratch[op] = malloc(sizeof(struct hist))))
			return -ENOMEM;
		for (int p = 0; p < TP_COUNT; p++) {
			if (!(s->acc[p].hist[op] = malloc(sizeof(struct hist))))
				return -ENOMEM;
			hist_init(s->acc[p].hist[op]);
		}
	}
	return 0;
}

/* Refuses before any work to run over trees an earlier run left (-k): mkdir would fail midway. */
static int check_names_free(const struct tree_state *s, const char *dir, char *err, size_t errlen)
{
	char name[48];
	struct stat st;

	for (uint32_t n = 0; n < s->ntrees; n++) {
		tree_name(n, name, sizeof(name));
		if (fstatat(s->top_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return errf(
				err, errlen, -EEXIST,
				"%s/%s exists (an earlier run with -k?): remove it or use another -D",
				dir, name);
	}
	return 0;
}

static void fill_random(char *buf, size_t len, uint64_t x)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

static int tree_init(struct fsb_run *run, char *err, size_t errlen)
{
	struct tree_cfg *c = run->cfg;
	const char *dir = c->common.dirs.v[0];
	struct tree_state *s;
	int r;

	if (c->common.dirs.n != 1)
		return errf(err, errlen, -EINVAL,
			    "-D/-d: the tree workload takes one directory, %d were given",
			    c->common.dirs.n);
	if (!c->initial && (c->makej || !c->runs))
		return errf(err, errlen, -EINVAL, "-i 0: nothing to do without trees or runs");
	if (!c->initial && c->runs)
		return errf(err, errlen, -EINVAL,
			    "-i 0: the random runs (-r) need at least one initial tree");
	s = calloc(1, sizeof(*s));
	if (!s)
		return errf(err, errlen, -ENOMEM, "allocating run state: %s", strerror(ENOMEM));
	run->priv = s;
	s->top_fd = -1;
	s->sync = !c->no_sync;
	s->pts_phase = pts_phases[c->pts_test];
	if (c->shape_from) {
		r = tree_shape_measure(c->shape_from, &s->shape, err, errlen);
		/* a path that cannot serve as a shape is the flag's fault: exit 2 */
		if (r < 0)
			return r == -ENOMEM ? r : -EINVAL;
	} else if (tree_shape_default(&s->shape) < 0) {
		return errf(err, errlen, -ENOMEM, "building the default shape: %s",
			    strerror(ENOMEM));
	}
	r = tree_schedule(c->initial, c->makej ? 0 : c->runs, c->makej, (uint64_t)c->seed,
			  &s->steps, &s->nsteps, &s->ntrees);
	if (r < 0)
		return errf(err, errlen, r, "planning %" PRId64 " trees and %" PRId64 " runs: %s",
			    c->initial, c->runs, strerror(-r));
	s->done = calloc(s->nsteps + 1, sizeof(*s->done));
	s->tstate = calloc(s->ntrees + 1, 1);
	s->made = calloc(s->ntrees + 1, sizeof(*s->made));
	s->ctx.buf = malloc(TREE_IO_SIZE);
	s->ctx.rbuf = malloc(TREE_IO_SIZE);
	if (!s->done || !s->tstate || !s->made || !s->ctx.buf || !s->ctx.rbuf ||
	    alloc_hists(run, s) < 0)
		return errf(err, errlen, -ENOMEM, "allocating run state: %s", strerror(ENOMEM));
	/* not zeros: compressing or deduplicating filesystems must write what a tree holds */
	fill_random(s->ctx.buf, TREE_IO_SIZE, (uint64_t)getpid() | 1);
	r = fsb_dirs_open(&s->top, &c->common, err, errlen);
	if (r < 0)
		return r;
	/* as root, held from a trusted walk: the trees go nowhere another user points them */
	r = fsb_dir_trusted("-D", dir, &s->top.fd[0], err, errlen);
	if (r < 0)
		return r;
	s->top_fd = s->top.fd[0];
	r = check_names_free(s, dir, err, errlen);
	if (r < 0)
		return r;
	s->ctx.shape = &s->shape;
	s->ctx.top_fd = s->top_fd;
	s->ctx.top = dir;
	s->ctx.object_ratio = c->object_ratio;
	s->ctx.patch_every = (uint32_t)c->patch_every;
	find_device(s, dir);
	return 0;
}

static bool tree_want_loop(struct fsb_run *run, int loop)
{
	const struct tree_state *s = run->priv;

	return (size_t)loop < s->nsteps;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Points the thread's histograms at the scratch ones for one run, or back (adding the run in). */
static void hists_swap(struct fsb_thread *t, struct tree_state *s, struct hist **saved,
		       struct tree_acc *a, bool back)
{
	for (int op = 0; op < OP_COUNT; op++) {
		if (!s->scratch[op])
			continue;
		if (!back) {
			saved[op] = t->hist[op];
			hist_init(s->scratch[op]);
			t->hist[op] = s->scratch[op];
			continue;
		}
		t->hist[op] = saved[op];
		hist_add(saved[op], s->scratch[op]);
		hist_add(a->hist[op], s->scratch[op]);
	}
}

static int timed_syncfs(struct fsb_thread *t, struct tree_state *s, const char *dir)
{
	uint64_t t0, t1;
	int r;

	FSB_TIME_CALL(t0, t1, r = syncfs(s->top_fd));
	if (r < 0) {
		snprintf(t->errmsg, sizeof(t->errmsg), "syncfs of %s: %s", dir, strerror(errno));
		return -errno;
	}
	fsb_record(t, OP_SYNCFS, t0, t1);
	return 0;
}

static void tree_state_apply(struct tree_state *s, const struct tree_step *st)
{
	switch (st->phase) {
	case TP_INITIAL_CREATE:
	case TP_CREATE:
		s->made[st->tree] = true;
		/* fall through */
	case TP_CLEAN:
		s->tstate[st->tree] = 1;
		break;
	case TP_COMPILE:
		s->tstate[st->tree] = 2;
		break;
	case TP_DELETE:
	case TP_DELETE_COMPILED:
		s->tstate[st->tree] = 0;
		break;
	default:
		break;
	}
}

/* One loop is one run of one phase on one tree: the schedule's entry @loop. */
static int tree_thread(struct fsb_thread *t, int loop)
{
	const struct tree_cfg *c = t->run->cfg;
	struct tree_state *s = t->run->priv;
	const struct tree_step *st = &s->steps[loop];
	struct tree_acc *a = &s->acc[st->phase];
	struct tree_done *d = &s->done[loop];
	struct probe_diskstats d0, d1;
	struct hist *saved[OP_COUNT] = { 0 };
	struct rusage ru0, ru1;
	struct tree_work w;
	uint64_t t0, t1, t2;
	bool dev;
	int r;

	getrusage(RUSAGE_THREAD, &ru0);
	dev = s->have_device && probe_diskstats_read(NULL, s->disk, &d0) == 0;
	hists_swap(t, s, saved, a, false);
	t0 = fsb_now_ns();
	r = tree_phase_run(t, &s->ctx, (enum tree_phase)st->phase, st->tree, &w);
	t1 = fsb_now_ns();
	/* the phase's dirty data reaches the device before the snapshot, so its bytes are its own */
	if (!r && s->sync)
		r = timed_syncfs(t, s, c->common.dirs.v[0]);
	t2 = fsb_now_ns();
	hists_swap(t, s, saved, a, true);
	dev = dev && probe_diskstats_read(NULL, s->disk, &d1) == 0 &&
	      d1.v[DS_SECTORS_WRITTEN] >= d0.v[DS_SECTORS_WRITTEN];
	getrusage(RUSAGE_THREAD, &ru1);
	if (r == 0 || st->phase == TP_INITIAL_CREATE || st->phase == TP_CREATE)
		tree_state_apply(s, st); /* a failed create still leaves names to remove */
	if (r)
		return r;
	d->ns = t1 - t0;
	d->sync_ns = t2 - t1;
	d->bytes = w.bytes;
	d->dev_ok = dev;
	a->runs++;
	a->ns += d->ns;
	a->sync_ns += d->sync_ns;
	a->bytes += w.bytes;
	a->bytes_written += w.bytes_written;
	a->bytes_read += w.bytes_read;
	a->files += w.files;
	a->dirs += w.dirs;
	if (d->ns)
		a->rate_sum += (double)w.bytes / ((double)d->ns / 1e9);
	a->user_s += tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
	a->sys_s += tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
	if (dev) {
		d->dev_write_bytes = (d1.v[DS_SECTORS_WRITTEN] - d0.v[DS_SECTORS_WRITTEN]) * 512;
		a->dev_runs++;
		a->dev_write_bytes += d->dev_write_bytes;
		a->dev_read_bytes += (d1.v[DS_SECTORS_READ] - d0.v[DS_SECTORS_READ]) * 512;
	}
	if (st->phase == TP_INITIAL_CREATE || st->phase == TP_CREATE || st->phase == TP_COMPILE)
		t->files = w.files;
	t->t_end = fsb_now_ns();
	return 0;
}

static void tree_fini(struct fsb_run *run)
{
	const struct tree_cfg *c = run->cfg;
	struct tree_state *s = run->priv;

	if (!s)
		return;
	if (s->top_fd >= 0 && !c->keep && s->made)
		for (uint32_t n = 0; n < s->ntrees; n++)
			if (s->made[n] && s->tstate[n])
				tree_remove_untimed(&s->ctx, n, s->tstate[n] == 2);
	fsb_dirs_close(&s->top, &c->common);
	for (int op = 0; op < OP_COUNT; op++) {
		free(s->scratch[op]);
		for (int p = 0; p < TP_COUNT; p++)
			free(s->acc[p].hist[op]);
	}
	tree_shape_free(&s->shape);
	free(s->steps);
	free(s->done);
	free(s->tstate);
	free(s->made);
	free(s->ctx.buf);
	free(s->ctx.rbuf);
	free(s);
	run->priv = NULL;
}

const struct fsb_workload fsb_wl_tree = {
	.name = "tree",
	.summary =
		"compilebench-style kernel trees: create, patch, compile, clean, read, delete, stat; MB/s and device bytes per phase",
	.opts = tree_opts,
	.cfg_size = sizeof(struct tree_cfg),
	.unit = MDL_UNIT_BYTES,
	.ops = OP_BIT(OP_MKDIR) | OP_BIT(OP_CREATE) | OP_BIT(OP_OPEN) | OP_BIT(OP_WRITE) |
	       OP_BIT(OP_READ) | OP_BIT(OP_CLOSE) | OP_BIT(OP_STAT) | OP_BIT(OP_UNLINK) |
	       OP_BIT(OP_RMDIR) | OP_BIT(OP_SYNCFS),
	.operand = "pts-test",
	.adopt = tree_adopt,
	.init = tree_init,
	.want_loop = tree_want_loop,
	.thread = tree_thread,
	.fini = tree_fini,
	.summary_json = tree_report_json,
	.print_end = tree_report_print,
	.nthreads = tree_nthreads,
};
