/* The interference victim: one thread doing small reads or fsyncs at a fixed rate beside the workers. */
#include "base/errf.h"
#include "base/mix64.h"
#include "fsbench/core/clock.h"
#include "fsbench/core/common.h"
#include "fsbench/core/ext.h"
#include "fsbench/core/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/result_file.h"
#include "model/schema.h"

enum { VICTIM_NONE, VICTIM_READ, VICTIM_FSYNC };

static const char *const victim_modes[] = { "none", "read", "fsync", NULL };

/*
 * The thread's two complaints: an uncached application starting (a 4 KiB read that the
 * page cache cannot answer, so O_DIRECT on a file evicted beforehand), and a browser's
 * fsync (write a small file and wait for it). 64 MiB gives 16384 distinct blocks, so
 * reads land all over a file the writers' traffic has to share the device with.
 */
#define VICTIM_IO 4096
#define VICTIM_FILE_SIZE (UINT64_C(64) << 20)
#define VICTIM_FILL_BUF (UINT64_C(1) << 20)
#define START_POLL_NS 1000000 /* how soon after the workers' start the first operation runs */

struct victim_cfg {
	int mode; /* --victim: VICTIM_* */
	int64_t rate; /* --victim-rate, operations per second */
};

#define O(f) offsetof(struct victim_cfg, f)
static const struct fsb_opt victim_opts[] = {
	{ .name = "victim",
	  .type = OPT_ENUM,
	  .offset = O(mode),
	  .def = "none",
	  .help = "a thread on the same filesystem beside the workers: read (4 KiB O_DIRECT reads at random "
		  "offsets of a pre-written, evicted 64 MiB file) or fsync (write a 4 KiB file and fdatasync it); "
		  "its latencies are op 'victim'",
	  .choices = victim_modes },
	{ .name = "victim-rate",
	  .type = OPT_INT,
	  .offset = O(rate),
	  .min = 1,
	  .max = 10000,
	  .def = "10",
	  .unit = "ops/s",
	  .help = "victim operations per second, on a fixed schedule (late ones are skipped and counted)" },
	{ 0 },
};
#undef O

struct victim {
	struct fsb_run *run;
	int mode;
	int64_t rate;
	uint64_t period_ns;
	const char *dir;
	int dfd, fd; /* read: an O_DIRECT descriptor; fsync: the file written */
	bool created; /* we made the file: we may remove it */
	char name[64];
	char *buf; /* aligned for O_DIRECT */
	struct hist *h;
	struct fsb_thread th; /* records h through fsb_record() as workers do; id -1 */
	pthread_t tid;
	bool started;
	atomic_int stop;
	uint64_t missed; /* scheduled operations skipped because the previous one ran late */
	int err;
	char errmsg[320];
	bool failed_run; /* the victim's error is the run's: said once, by the CLI */
};

static struct victim *victim_free(struct victim *v)
{
	if (!v)
		return NULL;
	if (v->fd >= 0)
		close(v->fd);
	if (v->created)
		unlinkat(v->dfd, v->name, 0);
	if (v->dfd >= 0)
		close(v->dfd);
	free(v->buf);
	free(v->h);
	free(v->th.exact[OP_VICTIM]);
	free(v);
	return NULL;
}

static void victim_error(struct victim *v, int e, const char *what)
{
	v->err = -e;
	snprintf(v->errmsg, sizeof(v->errmsg), "victim: %s %s/%s: %s", what, v->dir, v->name,
		 strerror(e));
}

static int victim_read(struct victim *v, uint64_t *rnd)
{
	uint64_t off, t0, t1;
	ssize_t n;

	*rnd = base_mix64(*rnd);
	off = (*rnd % (VICTIM_FILE_SIZE / VICTIM_IO)) * VICTIM_IO;
	FSB_TIME_CALL(t0, t1, n = pread(v->fd, v->buf, VICTIM_IO, (off_t)off));
	if (n != VICTIM_IO) {
		victim_error(v, n < 0 ? errno : EIO, "reading");
		return v->err;
	}
	fsb_record(&v->th, OP_VICTIM, t0, t1);
	return 0;
}

static int victim_fsync(struct victim *v)
{
	uint64_t t0, t1;
	ssize_t n;
	int r = 0;

	/* a fresh block each time, so fdatasync has an allocation and a size to commit, as a new file does */
	if (ftruncate(v->fd, 0) < 0) {
		victim_error(v, errno, "truncating");
		return v->err;
	}
	/* one victim operation is the write and its fdatasync together, as an app sees it */
	FSB_TIME_CALL(t0, t1, {
		n = pwrite(v->fd, v->buf, VICTIM_IO, 0);
		if (n == VICTIM_IO)
			r = fdatasync(v->fd);
	});
	if (n != VICTIM_IO || r < 0) {
		victim_error(v, n < 0 || r < 0 ? errno : ENOSPC,
			     n != VICTIM_IO ? "writing" : "fdatasync of");
		return v->err;
	}
	fsb_record(&v->th, OP_VICTIM, t0, t1);
	return 0;
}

/*
 * An I/O error on the target (EIO above all) means the device failed under the run: the
 * run stops and is incomplete, as when a worker hits it, and the victim's own figures
 * end there. A full filesystem is left to the workers: under -F it is the normal end.
 */
static bool victim_fails_run(const struct victim *v)
{
	return v->err && v->err != -ENOSPC;
}

static bool victim_should_end(struct victim *v)
{
	return atomic_load(&v->stop) || __atomic_load_n(&v->run->run_end_ns, __ATOMIC_ACQUIRE);
}

static void *victim_main(void *arg)
{
	struct victim *v = arg;
	struct timespec poll = { 0, START_POLL_NS };
	uint64_t next, rnd;

	/* the runner stamps the workers' common start when it opens their gate */
	while (!(next = __atomic_load_n(&v->run->run_start_ns, __ATOMIC_ACQUIRE))) {
		if (victim_should_end(v))
			return NULL;
		nanosleep(&poll, NULL);
	}
	rnd = base_mix64(next ^ ((uint64_t)getpid() << 32));
	for (;;) {
		/* absolute deadlines: a slow operation never shifts the schedule after it */
		struct timespec ts = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
		uint64_t now;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (victim_should_end(v))
			break;
		if ((v->mode == VICTIM_READ ? victim_read(v, &rnd) : victim_fsync(v)) < 0) {
			if (victim_fails_run(v))
				fsb_run_fail(v->run, v->err, v->errmsg);
			break;
		}
		next += v->period_ns;
		now = fsb_now_ns();
		if (now > next) {
			uint64_t skip = (now - next) / v->period_ns + 1;

			v->missed += skip;
			next += skip * v->period_ns;
		}
	}
	return NULL;
}

/* Writes the file the read victim reads, makes it durable, and evicts it from the page cache. */
static int victim_prepare_read(struct victim *v, int wfd, char *err, size_t errlen)
{
	int e;

	v->fd = openat(v->dfd, v->name, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (v->fd < 0) {
		e = errno;
		if (e == EINVAL)
			return errf(
				err, errlen, -EINVAL,
				"--victim read: the filesystem under %s refuses O_DIRECT (%s); use --victim fsync there",
				v->dir, strerror(e));
		return errf(err, errlen, -e, "--victim read: opening %s/%s with O_DIRECT: %s",
			    v->dir, v->name, strerror(e));
	}
	memset(v->buf, 0x5a, VICTIM_FILL_BUF);
	for (uint64_t off = 0; off < VICTIM_FILE_SIZE; off += VICTIM_FILL_BUF) {
		ssize_t n = pwrite(wfd, v->buf, VICTIM_FILL_BUF, (off_t)off);

		if (n != (ssize_t)VICTIM_FILL_BUF) {
			e = n < 0 ? errno : ENOSPC;
			return errf(err, errlen, -e, "--victim read: writing %s/%s: %s", v->dir,
				    v->name, strerror(e));
		}
	}
	if (fsync(wfd) < 0) {
		e = errno;
		return errf(err, errlen, -e, "--victim read: fsync of %s/%s: %s", v->dir, v->name,
			    strerror(e));
	}
	e = posix_fadvise(wfd, 0, 0, POSIX_FADV_DONTNEED);
	if (e)
		return errf(err, errlen, -e, "--victim read: evicting %s/%s: %s", v->dir, v->name,
			    strerror(e));
	return 0;
}

static int victim_before(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
			 void **ret_state, char *err, size_t errlen)
{
	const struct victim_cfg *vc = cfg;
	struct victim *v;
	int wfd, r, e;

	*ret_state = NULL;
	if (vc->mode == VICTIM_NONE)
		return 0;
	if (!c->dirs.n)
		return errf(err, errlen, -EINVAL, "--victim: no directory to put its file in (-d)");
	v = calloc(1, sizeof(*v));
	if (!v)
		return errf(err, errlen, -ENOMEM, "--victim: %s", strerror(ENOMEM));
	v->fd = v->dfd = -1;
	v->run = run;
	v->mode = vc->mode;
	v->rate = vc->rate;
	v->period_ns = 1000000000u / (uint64_t)v->rate;
	v->dir = c->dirs.v[0];
	v->h = malloc(sizeof(*v->h));
	/* every latency kept, as the workers' flushes are: its percentiles exact */
	v->th.exact_cap = FSB_EXACT_SAMPLES;
	v->th.exact[OP_VICTIM] = malloc(FSB_EXACT_SAMPLES * sizeof(uint64_t));
	if (!v->h || !v->th.exact[OP_VICTIM] ||
	    posix_memalign((void **)&v->buf, VICTIM_IO, VICTIM_FILL_BUF)) {
		victim_free(v);
		return errf(err, errlen, -ENOMEM, "--victim: %s", strerror(ENOMEM));
	}
	hist_init(v->h);
	/* touched now: the victim's loop takes no page faults for them */
	memset(v->th.exact[OP_VICTIM], 0, FSB_EXACT_SAMPLES * sizeof(uint64_t));
	v->th.run = run;
	v->th.id = -1;
	v->th.cpu = -1;
	v->th.hist[OP_VICTIM] = v->h;
	v->th.slow = run->victim_slow;
	memset(v->buf, 0x5a, VICTIM_IO);
	v->dfd = open(v->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v->dfd < 0) {
		e = errno;
		r = errf(err, errlen, -e, "--victim: opening directory %s: %s", v->dir,
			 strerror(e));
		victim_free(v);
		return r;
	}
	snprintf(v->name, sizeof(v->name), "fsbench-victim.%d", (int)getpid());
	wfd = openat(v->dfd, v->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (wfd < 0) {
		e = errno;
		r = errf(err, errlen, -e, "--victim: creating %s/%s: %s", v->dir, v->name,
			 strerror(e));
		victim_free(v);
		return r;
	}
	v->created = true;
	if (v->mode == VICTIM_READ) {
		r = victim_prepare_read(v, wfd, err, errlen);
		close(wfd);
		if (r < 0) {
			victim_free(v);
			return r;
		}
	} else {
		v->fd = wfd;
	}
	r = -pthread_create(&v->tid, NULL, victim_main, v);
	if (r) {
		errf(err, errlen, r, "--victim: starting its thread: %s", strerror(-r));
		victim_free(v);
		return r;
	}
	v->started = true;
	*ret_state = v;
	return 0;
}

static void victim_after(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
			 void *state, json_t *run_json)
{
	struct victim *v = state;
	json_t *o;

	(void)c;
	(void)cfg;
	if (!v)
		return;
	atomic_store(&v->stop, 1);
	if (v->started)
		pthread_join(v->tid, NULL);
	if (victim_fails_run(v)) {
		/* an operation that failed as the workers ended, after the result was made */
		fsb_run_fail(run, v->err, v->errmsg);
		v->failed_run = !strcmp(run->errmsg, v->errmsg);
		if (run_json && v->failed_run) {
			json_t *sum = json_object_get(run_json, MDL_KEY_SUMMARY);

			json_object_set_new(sum, MDL_KEY_COMPLETE, json_false());
			json_object_set_new(sum, MDL_KEY_ERROR, json_string(v->errmsg));
		}
	}
	if (run_json) {
		json_t *ops = json_object_get(run_json, MDL_KEY_OPS);

		uint64_t *ex = v->th.exact[OP_VICTIM];
		size_t n = v->th.nexact[OP_VICTIM];

		/* exact when every latency was kept (the rate times the run fits the cap) */
		if (n <= v->th.exact_cap)
			hist_samples_sort(ex, n);
		if (ops && v->h->count)
			json_object_set_new(
				ops, "victim",
				mdl_hist_to_json_exact(v->h, n <= v->th.exact_cap ? ex : NULL, n));
		o = json_pack("{s:s,s:I,s:I,s:I}", "mode", victim_modes[v->mode], "rate",
			      (json_int_t)v->rate, "count", (json_int_t)v->h->count,
			      "missed_deadlines", (json_int_t)v->missed);
		if (v->err)
			json_object_set_new(o, "error", json_string(v->errmsg));
		json_object_set_new(run_json, "victim", o);
	}
	/* when the run did not fail for it, say why the victim stopped early, once */
	if (v->err && !v->failed_run && run_json)
		fprintf(stderr, "fsbench: %s\n", v->errmsg);
	victim_free(v);
}

const struct fsb_ext fsb_ext_victim = {
	.name = "victim",
	.opts = victim_opts,
	.cfg_size = sizeof(struct victim_cfg),
	.before = victim_before,
	.after = victim_after,
};
