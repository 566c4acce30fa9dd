/* Runs a workload's threads: start barrier, loops, runtime bound, live progress, merge. */
#include "fsbench/core/runner.h"
#include "fsbench/core/clock.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sched.h>
#include <unistd.h>

/* The exact latencies a thread keeps of an op at least (FSB_EXACT_SAMPLES shared out). */
#define EXACT_MIN_PER_THREAD 2048u

/* The ops judged at the disk's resolution: the seeds' flushes. */
static bool exact_op(int op)
{
	return op == OP_FSYNC || op == OP_FDATASYNC;
}

#define MONITOR_TICK_NS 50000000u /* 50 ms: deadline and signal latency */
#define PROGRESS_TICK_NS 250000000u
#define TICK_NS 1000000000u /* on_tick: dbench prints once a second */

int runner_prepare(struct fsb_run *run)
{
	if (run->nthreads < 1 || run->nthreads > FSB_MAX_THREADS)
		return -EINVAL;
	run->threads = calloc((size_t)run->nthreads, sizeof(*run->threads));
	run->victim_slow = calloc(OP_COUNT, sizeof(*run->victim_slow));
	if (!run->threads || !run->victim_slow)
		return -ENOMEM;
	for (int i = 0; i < run->nthreads; i++) {
		struct fsb_thread *t = &run->threads[i];

		t->run = run;
		t->id = i;
		t->cpu = -1;
		/* 20 x 16 bytes per op: 3.7 KiB a thread, 3.8 MiB at FSB_MAX_THREADS */
		t->slow = calloc(OP_COUNT, sizeof(*t->slow));
		if (!t->slow)
			return -ENOMEM;
		t->exact_cap = FSB_EXACT_SAMPLES / (unsigned)run->nthreads;
		if (t->exact_cap < EXACT_MIN_PER_THREAD)
			t->exact_cap = EXACT_MIN_PER_THREAD;
		for (int op = 0; op < OP_COUNT; op++) {
			if (!(run->wl->ops & OP_BIT(op)))
				continue;
			t->hist[op] = malloc(sizeof(struct hist));
			if (!t->hist[op])
				return -ENOMEM;
			hist_init(t->hist[op]);
			if (exact_op(op)) {
				t->exact[op] = malloc(t->exact_cap * sizeof(uint64_t));
				if (!t->exact[op])
					return -ENOMEM;
				memset(t->exact[op], 0, t->exact_cap * sizeof(uint64_t));
			}
		}
	}
	for (int op = 0; op < OP_COUNT; op++) {
		if (!(run->wl->ops & OP_BIT(op)))
			continue;
		run->total[op] = malloc(sizeof(struct hist));
		if (!run->total[op])
			return -ENOMEM;
		hist_init(run->total[op]);
	}
	run->series.interval_ns = run->series.interval_ns ? run->series.interval_ns : 1000000000u;
	return 0;
}

void runner_free(struct fsb_run *run)
{
	if (run->threads)
		for (int i = 0; i < run->nthreads; i++) {
			for (int op = 0; op < OP_COUNT; op++) {
				free(run->threads[i].hist[op]);
				free(run->threads[i].exact[op]);
			}
			free(run->threads[i].slow);
		}
	free(run->victim_slow);
	for (int op = 0; op < OP_COUNT; op++) {
		free(run->total[op]);
		free(run->exact[op]);
	}
	free(run->threads);
	free(run->loops);
	free(run->series.t_ns);
	free(run->series.done);
	memset(run, 0, sizeof(*run));
}

/* Time in calls that fs_mark counts as file work (everything timed but unlink). */
static uint64_t thread_syscall_ns(const struct fsb_thread *t)
{
	uint64_t sum = 0;

	for (int op = 0; op < OP_COUNT; op++)
		if (t->hist[op] && op != OP_UNLINK && op != OP_VICTIM)
			sum += t->hist[op]->sum;
	return sum;
}

static bool gate_waiters_ready(struct fsb_run *run, int started)
{
	return atomic_load(&run->threads_at_gate) >= started;
}

/*
 * A worker's timed work of the loop is done; with @wait, blocks until every started
 * worker's is, so that thread_after() (unlink) never runs beside another's timed calls.
 */
static void timed_arrive(struct fsb_run *run, bool wait)
{
	pthread_mutex_lock(&run->timed_lock);
	run->timed_done++;
	pthread_cond_broadcast(&run->timed_cond);
	while (wait && run->timed_done < run->timed_started)
		pthread_cond_wait(&run->timed_cond, &run->timed_lock);
	pthread_mutex_unlock(&run->timed_lock);
}

static void *worker_main(void *arg)
{
	struct fsb_thread *t = arg;
	struct fsb_run *run = t->run;
	uint64_t run0 = 0, wait0 = 0, run1 = 0, wait1 = 0;
	bool sched;
	int r;

	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (r) {
			snprintf(t->errmsg, sizeof(t->errmsg), "pinning thread %d to CPU %d: %s",
				 t->id, t->cpu, strerror(r));
			fsb_run_fail(run, -r, t->errmsg);
		}
	}

	/*
	 * How long the host kept this thread from a CPU: read around the work, never in it.
	 * Before the gate, not after: a read after it would delay this thread's start behind
	 * threads already working, inside the loop's wall time (files/s).
	 */
	sched = probe_hostload_thread(&run0, &wait0) == 0;
	/* the start gate: every worker blocks here until the runner opens it for all */
	atomic_fetch_add(&run->threads_at_gate, 1);
	pthread_rwlock_rdlock(&run->gate);
	pthread_rwlock_unlock(&run->gate);
	t->t_start = fsb_now_ns();
	if (fsb_should_stop(run)) {
		t->t_end = t->t_start;
		timed_arrive(run, false);
		atomic_fetch_add(&run->threads_done, 1);
		return NULL;
	}
	r = run->wl->thread(t, run->nloops);
	if (!t->t_end)
		t->t_end = fsb_now_ns();
	if (sched && probe_hostload_thread(&run1, &wait1) == 0 && run1 >= run0 && wait1 >= wait0) {
		t->sched_run_ns += run1 - run0;
		t->sched_wait_ns += wait1 - wait0;
	} else {
		t->sched_unknown = true;
	}
	if (r) {
		t->err = r;
		fsb_run_fail(run, r, t->errmsg);
	}
	timed_arrive(run, run->wl->thread_after != NULL);
	if (run->wl->thread_after) {
		r = run->wl->thread_after(t, run->nloops);
		if (r && !t->err) {
			t->err = r;
			fsb_run_fail(run, r, t->errmsg);
		}
	}
	atomic_fetch_add(&run->threads_done, 1);
	return NULL;
}

static uint64_t progress_sum(const struct fsb_run *run)
{
	uint64_t sum = 0;

	for (int i = 0; i < run->nthreads; i++)
		sum += atomic_load_explicit(&run->threads[i].progress, memory_order_relaxed);
	return sum;
}

static int series_push(struct fsb_series *s, uint64_t t_ns, uint64_t done)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *a = realloc(s->t_ns, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		s->t_ns = a;
		a = realloc(s->done, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		s->done = a;
		s->cap = cap;
	}
	s->t_ns[s->n] = t_ns;
	s->done[s->n] = done;
	s->n++;
	return 0;
}

static void print_progress(const struct fsb_run *run, uint64_t now, bool final)
{
	double secs = (double)(now - run->run_start_ns) / 1e9;
	uint64_t done = progress_sum(run);
	double rate = secs > 0 ? (double)done / secs : 0;
	bool bytes = run->wl->unit == MDL_UNIT_BYTES;
	double eta = -1;

	if (run->expected_units && rate > 0 && done <= run->expected_units)
		eta = (double)(run->expected_units - done) / rate;
	if (run->runtime_ns) {
		double left = (double)run->runtime_ns / 1e9 - secs;

		if (eta < 0 || left < eta)
			eta = left > 0 ? left : 0;
	}
	if (bytes)
		fprintf(stderr, "\r%10.1f MiB  %9.1f MB/s", (double)done / 1048576.0, rate / 1e6);
	else
		fprintf(stderr, "\r%10llu files  %9.1f files/s", (unsigned long long)done, rate);
	if (eta >= 0)
		fprintf(stderr, "  ETA %d:%02d   ", (int)eta / 60, (int)eta % 60);
	else
		fprintf(stderr, "             ");
	if (final)
		fprintf(stderr, "\r%60s\r", "");
}

static void monitor(struct fsb_run *run)
{
	uint64_t next_sample = run->run_start_ns + run->series.interval_ns;
	uint64_t next_progress = fsb_now_ns() + PROGRESS_TICK_NS;
	struct timespec tick = { 0, MONITOR_TICK_NS };
	uint64_t next_tick = run->run_start_ns + TICK_NS;

	while (atomic_load(&run->threads_done) < run->nthreads) {
		uint64_t now;

		nanosleep(&tick, NULL);
		now = fsb_now_ns();
		if (base_signal_received && !run->signal) {
			char msg[64];

			run->signal = base_signal_received;
			snprintf(msg, sizeof(msg), "interrupted by signal %d (%s)", run->signal,
				 strsignal(run->signal));
			fsb_run_fail(run, -EINTR, msg);
		}
		if (run->runtime_ns && now - run->run_start_ns >= run->runtime_ns &&
		    !fsb_should_stop(run)) {
			/* fsb_run_end() never overwrites a worker's failure since the check */
			run->stopped_by_runtime = true;
			fsb_run_end(run);
		}
		while (now >= next_sample) {
			series_push(&run->series, next_sample - run->run_start_ns,
				    progress_sum(run));
			next_sample += run->series.interval_ns;
		}
		if (run->on_tick && now >= next_tick) {
			run->on_tick(run, now);
			while (next_tick <= now)
				next_tick += TICK_NS;
		}
		if (run->progress && now >= next_progress) {
			print_progress(run, now, false);
			next_progress = now + PROGRESS_TICK_NS;
		}
	}
}

static int loop_push(struct fsb_run *run, const struct fsb_loop *l)
{
	if (run->nloops == run->loops_cap) {
		int cap = run->loops_cap ? run->loops_cap * 2 : 8;
		struct fsb_loop *a = realloc(run->loops, (size_t)cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		run->loops = a;
		run->loops_cap = cap;
	}
	run->loops[run->nloops++] = *l;
	return 0;
}

static int run_one_loop(struct fsb_run *run)
{
	pthread_t *tids;
	uint64_t *syscall_before;
	struct fsb_loop l = { 0 };
	int r = 0, started = 0;

	tids = calloc((size_t)run->nthreads, sizeof(*tids));
	syscall_before = calloc((size_t)run->nthreads, sizeof(*syscall_before));
	if (!tids || !syscall_before) {
		free(tids);
		free(syscall_before);
		return -ENOMEM;
	}
	r = -pthread_rwlock_init(&run->gate, NULL);
	if (r)
		goto out;
	pthread_mutex_init(&run->timed_lock, NULL);
	pthread_cond_init(&run->timed_cond, NULL);
	run->timed_done = 0;
	run->timed_started = INT_MAX; /* until every worker that will run has been started */
	pthread_rwlock_wrlock(&run->gate);
	atomic_store(&run->threads_done, 0);
	atomic_store(&run->threads_at_gate, 0);
	for (int i = 0; i < run->nthreads; i++) {
		struct fsb_thread *t = &run->threads[i];

		t->files = t->bytes = 0;
		t->t_start = t->t_end = 0;
		syscall_before[i] = thread_syscall_ns(t);
	}
	for (; started < run->nthreads; started++) {
		r = -pthread_create(&tids[started], NULL, worker_main, &run->threads[started]);
		if (r)
			break;
	}
	if (r) {
		char msg[128];

		snprintf(msg, sizeof(msg), "starting worker thread %d: %s", started, strerror(-r));
		fsb_run_fail(run, r, msg);
		atomic_fetch_add(&run->threads_done, run->nthreads - started);
	}
	pthread_mutex_lock(&run->timed_lock);
	run->timed_started = started;
	pthread_cond_broadcast(&run->timed_cond);
	pthread_mutex_unlock(&run->timed_lock);
	/* let the workers reach the gate, so that opening it starts them together */
	while (!gate_waiters_ready(run, started))
		sched_yield();
	if (run->on_start)
		run->on_start(run->on_start_arg);
	/* published with release: the victim thread waits for it to start its clock */
	if (!run->run_start_ns)
		__atomic_store_n(&run->run_start_ns, fsb_now_ns(), __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&run->gate);
	monitor(run);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_rwlock_destroy(&run->gate);
	pthread_cond_destroy(&run->timed_cond);
	pthread_mutex_destroy(&run->timed_lock);

	l.start_ns = UINT64_MAX;
	for (int i = 0; i < run->nthreads; i++) {
		struct fsb_thread *t = &run->threads[i];
		uint64_t dt = t->t_end > t->t_start ? t->t_end - t->t_start : 0;

		if (t->t_start && t->t_start < l.start_ns)
			l.start_ns = t->t_start;
		if (t->t_end > l.end_ns)
			l.end_ns = t->t_end;
		l.files += t->files;
		l.bytes += t->bytes;
		l.thread_ns += dt;
		l.syscall_ns += thread_syscall_ns(t) - syscall_before[i];
		if (dt)
			l.fsmark_files_per_sec += (double)t->files / ((double)dt / 1e9);
		t->total_files += t->files;
		t->total_bytes += t->bytes;
	}
	if (l.start_ns == UINT64_MAX)
		l.start_ns = l.end_ns;
	l.fsuse_pct = run->wl->fs_use ? run->wl->fs_use(run) : -1;
	l.failed = fsb_run_failed(run);
	r = loop_push(run, &l);
out:
	free(tids);
	free(syscall_before);
	return r;
}

/*
 * run->exact[op]: every thread's latencies of @op, sorted, when each thread kept all of
 * its calls and they are all the histogram holds; else none (the histogram's percentiles
 * stand). Out of memory is the same: the result is still right, within the bucket.
 */
static void exact_merge(struct fsb_run *run, int op)
{
	size_t n = 0;

	if (!exact_op(op) || !run->total[op] || !run->total[op]->count)
		return;
	for (int i = 0; i < run->nthreads; i++) {
		const struct fsb_thread *t = &run->threads[i];

		if (!t->exact[op] || t->nexact[op] > t->exact_cap)
			return;
		n += t->nexact[op];
	}
	if (n != run->total[op]->count || !(run->exact[op] = malloc(n * sizeof(uint64_t))))
		return;
	run->nexact[op] = 0;
	for (int i = 0; i < run->nthreads; i++) {
		const struct fsb_thread *t = &run->threads[i];

		memcpy(run->exact[op] + run->nexact[op], t->exact[op],
		       t->nexact[op] * sizeof(uint64_t));
		run->nexact[op] += t->nexact[op];
	}
	hist_samples_sort(run->exact[op], n);
}

int runner_run(struct fsb_run *run)
{
	struct rusage ru0, ru1;
	struct probe_hostload_snap hl0, hl1;
	bool hl = probe_hostload_read(NULL, &hl0) == 0;
	int r = 0;

	getrusage(RUSAGE_SELF, &ru0);
	for (int loop = 0;; loop++) {
		if (fsb_should_stop(run))
			break;
		if (run->wl->want_loop ? !run->wl->want_loop(run, loop) : loop > 0)
			break;
		r = run_one_loop(run);
		if (r) {
			fsb_run_fail(run, r, "running a loop: out of memory");
			break;
		}
		/* fs_mark prints no row for a loop that failed; its partial figures stay in the JSON */
		if (run->on_loop && !run->loops[run->nloops - 1].failed)
			run->on_loop(run, loop);
	}
	__atomic_store_n(&run->run_end_ns, fsb_now_ns(), __ATOMIC_RELEASE);
	if (run->progress)
		print_progress(run, run->run_end_ns, true);
	series_push(&run->series, run->run_end_ns - run->run_start_ns, progress_sum(run));
	getrusage(RUSAGE_SELF, &ru1);
	run->cpu_user_s = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
			  (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6;
	run->cpu_sys_s = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
			 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	/* what others ran meanwhile: a busy host is a fact of the run, judged by compare */
	run->has_host_load = hl && probe_hostload_read(NULL, &hl1) == 0 &&
			     probe_hostload_delta(&hl0, &hl1, run->cpu_user_s + run->cpu_sys_s,
						  sysconf(_SC_CLK_TCK), &run->host_load) == 0;
	if (run->has_host_load) {
		uint64_t on = 0, wait = 0;
		bool known = true;

		for (int i = 0; i < run->nthreads; i++) {
			on += run->threads[i].sched_run_ns;
			wait += run->threads[i].sched_wait_ns;
			known &= !run->threads[i].sched_unknown;
		}
		if (known && on + wait)
			run->host_load.self_wait_pct = (double)wait / (double)(on + wait) * 100;
	}
	for (int i = 0; i < run->nthreads; i++)
		for (int op = 0; op < OP_COUNT; op++)
			if (run->total[op] && run->threads[i].hist[op])
				hist_add(run->total[op], run->threads[i].hist[op]);
	for (int op = 0; op < OP_COUNT; op++)
		exact_merge(run, op);
	return run->err ? run->err : 0;
}
