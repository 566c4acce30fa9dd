/* The host's load around a run (hostload.h): /proc/stat deltas, fsbench's own time out, throttling. */
#include "probes/sampler/hostload.h"
#include "base/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int probe_hostload_parse_stat(const char *text, struct probe_cpu_times *ret, int *ret_cpus)
{
	struct probe_cpu_times t = { 0 };
	unsigned long long v[8];
	const char *p = text;
	int cpus = 0, got = -1;

	while (p && *p) {
		if (!strncmp(p, "cpu ", 4))
			got = sscanf(p + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
				     &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		else if (!strncmp(p, "cpu", 3) && isdigit((unsigned char)p[3]))
			cpus++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	/* steal came with 2.6.11; older kernels' 7 fields are too few to tell steal from idle */
	if (got < 8)
		return -EBADMSG;
	t.user = v[0];
	t.nice = v[1];
	t.system = v[2];
	t.idle = v[3];
	t.iowait = v[4];
	t.irq = v[5];
	t.softirq = v[6];
	t.steal = v[7];
	*ret = t;
	*ret_cpus = cpus;
	return 0;
}

/* Sums core_ and package_throttle_count of every cpuN under @dir; false when none has them. */
static bool throttle_sum(const char *dir, uint64_t *ret)
{
	static const char *const files[] = { "core_throttle_count", "package_throttle_count" };
	DIR *d = opendir(dir);
	struct dirent *e;
	bool any = false;

	*ret = 0;
	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "cpu", 3) || !isdigit((unsigned char)e->d_name[3]))
			continue;
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char path[PATH_MAX], line[64];
			unsigned long long n;

			if (base_path(path, sizeof(path), "%s/%s/thermal_throttle/%s", dir,
				      e->d_name, files[i]) < 0 ||
			    base_read_line(path, line, sizeof(line)) < 0 ||
			    sscanf(line, "%llu", &n) != 1)
				continue;
			*ret += n;
			any = true;
		}
	}
	closedir(d);
	return any;
}

int probe_hostload_read(const char *root, struct probe_hostload_snap *ret)
{
	char path[PATH_MAX], buf[16384];
	struct probe_hostload_snap s = { 0 };
	ssize_t n;
	int r;

	r = base_path(path, sizeof(path), "%s/proc/stat", root ? root : "");
	if (r < 0)
		return r;
	/* the cpu lines come first; a machine with hundreds of CPUs is cut, its sum is not */
	n = base_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	r = probe_hostload_parse_stat(buf, &s.cpu, &s.cpus);
	if (r < 0)
		return r;
	r = base_path(path, sizeof(path), "%s/sys/devices/system/cpu", root ? root : "");
	if (r < 0)
		return r;
	s.has_throttle = throttle_sum(path, &s.throttle);
	*ret = s;
	return 0;
}

int probe_hostload_parse_schedstat(const char *text, uint64_t *ret_run_ns, uint64_t *ret_wait_ns)
{
	unsigned long long run, wait;

	if (sscanf(text, "%llu %llu", &run, &wait) != 2)
		return -EBADMSG;
	*ret_run_ns = run;
	*ret_wait_ns = wait;
	return 0;
}

int probe_hostload_thread(uint64_t *ret_run_ns, uint64_t *ret_wait_ns)
{
	char line[128];
	int r = base_read_line("/proc/thread-self/schedstat", line, sizeof(line));

	return r < 0 ? r : probe_hostload_parse_schedstat(line, ret_run_ns, ret_wait_ns);
}

static uint64_t busy_ticks(const struct probe_cpu_times *t)
{
	/* guest time is inside user and nice already: /proc/stat counts it twice */
	return t->user + t->nice + t->system + t->irq + t->softirq;
}

static uint64_t all_ticks(const struct probe_cpu_times *t)
{
	return busy_ticks(t) + t->idle + t->iowait + t->steal;
}

int probe_hostload_delta(const struct probe_hostload_snap *a, const struct probe_hostload_snap *b,
			 double self_cpu_s, long tick_hz, struct probe_hostload *ret)
{
	uint64_t busy0 = busy_ticks(&a->cpu), busy1 = busy_ticks(&b->cpu);
	uint64_t all0 = all_ticks(&a->cpu), all1 = all_ticks(&b->cpu);
	struct probe_hostload h = { 0 };
	double hz = (double)tick_hz;

	if (tick_hz <= 0 || busy1 < busy0 || all1 <= all0 || b->cpu.steal < a->cpu.steal ||
	    b->cpu.iowait < a->cpu.iowait)
		return -EINVAL;
	h.total_s = (double)(all1 - all0) / hz;
	h.busy_s = (double)(busy1 - busy0) / hz;
	/* ticks are sampled, rusage is exact: over a short run fsbench can seem to exceed all */
	h.self_s = self_cpu_s < 0 ? 0 : self_cpu_s > h.busy_s ? h.busy_s : self_cpu_s;
	h.others_pct = (h.busy_s - h.self_s) / h.total_s * 100;
	h.steal_pct = (double)(b->cpu.steal - a->cpu.steal) / hz / h.total_s * 100;
	h.iowait_pct = (double)(b->cpu.iowait - a->cpu.iowait) / hz / h.total_s * 100;
	h.has_throttle = a->has_throttle && b->has_throttle;
	h.throttle_events =
		h.has_throttle && b->throttle > a->throttle ? b->throttle - a->throttle : 0;
	h.cpus = b->cpus;
	h.self_wait_pct = -1;
	*ret = h;
	return 0;
}

json_t *probe_hostload_json(const struct probe_hostload *h)
{
	json_t *o = json_pack(
		"{s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:o}", "cpus", h->cpus, "total_cpu_s", h->total_s,
		"busy_cpu_s", h->busy_s, "self_cpu_s", h->self_s, "others_pct", h->others_pct,
		"steal_pct", h->steal_pct, "iowait_pct", h->iowait_pct, "throttle_events",
		h->has_throttle ? json_integer((json_int_t)h->throttle_events) : json_null());

	if (o && h->self_wait_pct >= 0)
		json_object_set_new(o, "self_wait_pct", json_real(h->self_wait_pct));
	return o;
}
