/* The run state: one run's threads, loops, series and stop, as the runner and workloads share it. */
#ifndef FSB_RUN_STATE_H
#define FSB_RUN_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsbench/core/slowcall.h"
#include "probes/sampler/hostload.h"
#include "model/op.h"

struct fsb_workload;
struct hist;

/*
 * Every timed system call is an operation of model/op.h's table (its JSON key, what it
 * times); fsbench names them by these short aliases.
 */
enum fsb_op {
	OP_CREATE = MDL_OP_CREATE,
	OP_OPEN = MDL_OP_OPEN,
	OP_WRITE = MDL_OP_WRITE,
	OP_FSYNC = MDL_OP_FSYNC,
	OP_FDATASYNC = MDL_OP_FDATASYNC,
	OP_SYNC = MDL_OP_SYNC,
	OP_CLOSE = MDL_OP_CLOSE,
	OP_UNLINK = MDL_OP_UNLINK,
	OP_SYNC_FILE_RANGE = MDL_OP_SYNC_FILE_RANGE,
	OP_FADVISE = MDL_OP_FADVISE,
	OP_VICTIM = MDL_OP_VICTIM,
	OP_READ = MDL_OP_READ,
	OP_MKDIR = MDL_OP_MKDIR,
	OP_RMDIR = MDL_OP_RMDIR,
	OP_STAT = MDL_OP_STAT,
	OP_SYNCFS = MDL_OP_SYNCFS,
	OP_NB_FIRST = MDL_OP_NB_DELTREE, /* dbench's operations follow in dbench's order */
	OP_COUNT = MDL_OP_COUNT
};

#define OP_BIT(op) (UINT64_C(1) << (op))
_Static_assert(MDL_OP_COUNT <= 64, "a workload's ops mask is 64 bits");

/* Upper bound on worker threads: 1024 x a few histograms of 19 KiB stays near 100 MiB. */
#define FSB_MAX_THREADS 1024

/* What struct fsb_run's stop holds; it only moves up: running, ended, failed. */
enum fsb_stop {
	FSB_RUNNING = 0,
	FSB_STOP_END, /* the work ends early but well: --runtime reached, -F filled the target */
	FSB_STOP_FAILED, /* a failure or a signal: what the run did so far is incomplete */
};

/*
 * The exact latencies kept per op and run (fsb_thread.exact): 1 MiB each, shared out
 * among the threads. Taken and touched before the run, so that the measured loop
 * neither allocates nor faults for them.
 */
#define FSB_EXACT_SAMPLES (1u << 17)

struct fsb_thread {
	struct fsb_run *run;
	int id; /* 0..nthreads-1; -1: the victim's own thread (ext/victim.c), not in run->threads */
	int cpu; /* CPU pinned to, or -1 */
	struct hist *hist[OP_COUNT]; /* NULL for ops the workload does not record */
	struct fsb_slow_top *slow; /* [OP_COUNT]: slowest calls per op; NULL: not kept */
	/*
	 * Every latency of the ops whose percentiles are judged at the disk's resolution
	 * (fsync, fdatasync), up to @exact_cap each; NULL for other ops. @nexact counts every
	 * call, also those beyond the cap.
	 */
	uint64_t *exact[OP_COUNT];
	uint64_t nexact[OP_COUNT], exact_cap;
	_Atomic uint64_t progress; /* files or bytes done in this run, read by the monitor */
	uint64_t t_start, t_end; /* monotonic ns: this loop's start (barrier) and end of work */
	uint64_t files, bytes; /* done in the current loop */
	uint64_t total_files, total_bytes;
	int err; /* negative errno that stopped this thread, or 0 */
	/* schedstat over the thread's loops: on a CPU, and runnable but waiting for one (ns) */
	uint64_t sched_run_ns, sched_wait_ns;
	bool sched_unknown; /* a loop could not read its schedstat */
	char errmsg[320];
	void *priv; /* the workload's per-thread state */
};

/* One loop (-L) of a run, as fs_mark prints one table row per loop. */
struct fsb_loop {
	uint64_t start_ns, end_ns; /* common start, last thread's end of work */
	uint64_t files, bytes;
	uint64_t syscall_ns; /* time in timed calls counted against overhead */
	uint64_t thread_ns; /* sum of the threads' own loop times */
	double fsmark_files_per_sec; /* fs_mark's sum of per-thread rates */
	int fsuse_pct;
	bool failed; /* the run failed or was stopped by a signal during this loop */
};

struct fsb_series {
	uint64_t interval_ns;
	size_t n, cap;
	uint64_t *t_ns; /* end of each interval since the run's start */
	uint64_t *done; /* cumulative progress units (files or bytes) at t_ns */
};

struct fsb_run {
	const struct fsb_workload *wl;
	void *cfg;
	int nthreads;
	struct fsb_thread *threads;
	pthread_rwlock_t gate; /* the start barrier: held for writing until all are ready */
	atomic_int stop; /* enum fsb_stop; workers check it */
	atomic_int threads_at_gate, threads_done;
	/* thread_after()'s gate: workers whose timed work is done, and how many were started */
	pthread_mutex_t timed_lock;
	pthread_cond_t timed_cond;
	int timed_done, timed_started;
	uint64_t runtime_ns; /* 0: no time bound */
	uint64_t expected_units; /* progress units the run will do, for the ETA; 0 unknown */
	bool quiet, progress; /* progress: live line on stderr */
	uint64_t run_start_ns, run_end_ns;
	struct fsb_loop *loops;
	int nloops, loops_cap;
	struct fsb_series series;
	struct hist *total[OP_COUNT]; /* merged after the run */
	/* every thread's exact[op], sorted, when each kept all its calls; else NULL */
	uint64_t *exact[OP_COUNT];
	size_t nexact[OP_COUNT];
	struct fsb_slow_top *victim_slow; /* [OP_COUNT]: the victim thread's slowest calls */
	int err; /* first error (negative errno), or 0 */
	char errmsg[400];
	int signal; /* the signal that stopped the run, or 0 */
	bool stopped_by_runtime;
	double cpu_user_s, cpu_sys_s;
	struct probe_hostload host_load; /* others' CPU share over the run; see has_host_load */
	bool has_host_load; /* false: /proc/stat could not be read */
	void *priv; /* the workload's per-run state */
	/* The CLI's hook after each loop (prints fs_mark's row as it goes), or NULL. */
	void (*on_loop)(struct fsb_run *run, int loop);
	void *on_loop_arg; /* the job whose hook on_loop is */
	/* The CLI's hook once a second on the monitor thread (print_tick), or NULL. */
	void (*on_tick)(struct fsb_run *run, uint64_t now);
	/*
	 * An extension's hook, called once on the starting thread with every worker at the
	 * gate, just before the run's clock starts (the eBPF probes arm in it, so that the
	 * first call is seen whole), or NULL; on_start_arg is its argument.
	 */
	void (*on_start)(void *arg);
	void *on_start_arg;
};

static inline bool fsb_should_stop(struct fsb_run *run)
{
	return atomic_load_explicit(&run->stop, memory_order_relaxed) != FSB_RUNNING;
}

/* Whether the run failed (or was interrupted), as opposed to still running or ended well. */
static inline bool fsb_run_failed(struct fsb_run *run)
{
	return atomic_load(&run->stop) == FSB_STOP_FAILED;
}

/*
 * Ends the run without failure (FSB_STOP_END); never over a failure that a worker
 * recorded meanwhile. Later work of the loop (final syncs) can still fail the run.
 */
static inline void fsb_run_end(struct fsb_run *run)
{
	int running = FSB_RUNNING;

	atomic_compare_exchange_strong(&run->stop, &running, FSB_STOP_END);
}

/* Records the first error of the run and stops every worker. */
void fsb_run_fail(struct fsb_run *run, int err, const char *msg);

#endif
