/* The host's load around a run: CPU time others used (/proc/stat less fsbench's own), steal, throttling. */
#ifndef PROBE_HOSTLOAD_H
#define PROBE_HOSTLOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* The aggregate "cpu" line of /proc/stat, in USER_HZ ticks, summed over every CPU. */
struct probe_cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* One reading of the host: its CPU times and, where the kernel exposes them, throttle events. */
struct probe_hostload_snap {
	struct probe_cpu_times cpu;
	uint64_t throttle; /* summed thermal_throttle *_throttle_count over every CPU */
	bool has_throttle; /* false: no CPU exposes thermal_throttle (VMs, most ARM) */
	int cpus; /* CPUs counted in /proc/stat (its cpuN lines) */
};

/* Parses the text of /proc/stat. 0, or -EBADMSG when its "cpu " line is missing or short. */
int probe_hostload_parse_stat(const char *text, struct probe_cpu_times *ret, int *ret_cpus);

/*
 * Reads <root>/proc/stat and the throttle counts under
 * <root>/sys/devices/system/cpu/cpu<N>/thermal_throttle/ (@root NULL or "" for the live
 * system). 0 or -errno; a missing throttle directory is not an error.
 */
int probe_hostload_read(const char *root, struct probe_hostload_snap *ret);

/*
 * /proc/thread-self/schedstat: the calling thread's time on a CPU and waiting on a run queue
 * for one, in ns (the kernel's schedstats; 0 or -errno, -ENOENT without CONFIG_SCHED_INFO).
 */
int probe_hostload_parse_schedstat(const char *text, uint64_t *ret_run_ns, uint64_t *ret_wait_ns);
int probe_hostload_thread(uint64_t *ret_run_ns, uint64_t *ret_wait_ns);

/* What the host did between two readings, with fsbench's own CPU time taken out. */
struct probe_hostload {
	double total_s; /* CPU time there was: every CPU's ticks between the readings */
	double busy_s; /* all of it not idle, iowait or steal */
	double self_s; /* fsbench's own (getrusage), at most busy_s */
	double others_pct; /* (busy - self) / total * 100: the share others took */
	double steal_pct; /* the hypervisor's share taken from this guest */
	double iowait_pct;
	uint64_t throttle_events; /* meaningful when has_throttle */
	bool has_throttle;
	int cpus;
	/*
	 * fsbench's workers' time waiting for a CPU, as a share of the time they were
	 * runnable (on a CPU or waiting): how much the host's load delayed the run itself,
	 * which others_pct cannot tell on a host that is always saturated. Negative: unknown.
	 */
	double self_wait_pct;
};

/*
 * The load between @a and @b, with @self_cpu_s (fsbench's user and system time over the
 * same span) taken out of the busy time. @tick_hz is sysconf(_SC_CLK_TCK). -EINVAL when
 * the counters went backwards or no time passed.
 */
int probe_hostload_delta(const struct probe_hostload_snap *a, const struct probe_hostload_snap *b,
			 double self_cpu_s, long tick_hz, struct probe_hostload *ret);

/* The run's `host_load` object (report/schema: host_load). NULL on allocation failure. */
json_t *probe_hostload_json(const struct probe_hostload *h);

#endif
