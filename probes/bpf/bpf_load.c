/* Loads one eBPF source on the running kernel, or says why the kernel refused each program. */
#include "probes/bpf/bpf_load.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <linux/types.h>

#include "probes/bpf/fsb_bpf.h"
#include "probes/bpf/probe_bpf.h"

#ifdef FSB_HAVE_BPF
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#endif

/* A line of a verifier log that traces the walk (instruction, state, source line), not a verdict. */
static bool log_trace_line(const char *l, size_t n)
{
	static const char *const prefixes[] = {
		";",	      "from ",	   "last_idx",	  "regs=",     "mark_precise", "parent ",
		"frame",      "caller",	   "callee",	  "returning", "func#",	       "Func#",
		"Validating", "Live regs", "propagating", "safe",      NULL,
	};
	size_t d = 0;

	if (n == 0 || l[0] == ' ' || l[0] == '\t')
		return true;
	while (d < n && l[d] >= '0' && l[d] <= '9')
		d++;
	if (d > 0 && d < n && l[d] == ':')
		return true;
	for (int i = 0; prefixes[i]; i++)
		if (n >= strlen(prefixes[i]) && !strncmp(l, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool probe_bpf_log_error(const char *log, char *buf, size_t len)
{
	const char *first = NULL, *l = log;
	size_t first_n = 0;

	while (l && *l) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		/* the verifier's summary: everything that mattered came before it */
		if (!strncmp(l, "processed ", 10))
			break;
		if (log_trace_line(l, n)) {
			first = NULL;
		} else if (!first) {
			first = l;
			first_n = n;
		}
		l = nl ? nl + 1 : NULL;
	}
	if (!first || !len)
		return false;
	if (first_n >= len)
		first_n = len - 1;
	memcpy(buf, first, first_n);
	buf[first_n] = 0;
	/* libbpf's mark on an instruction whose CO-RE relocation found nothing (0xbad2310) */
	if (strstr(buf, "unknown#195896080"))
		snprintf(buf, len, "%s",
			 "a CO-RE relocation failed: a field or type this kernel lacks (libbpf's "
			 "poisoned call 0xbad2310)");
	return true;
}

/* The HZ nearest @measured among those Kconfig offers, if within 10 Hz + 2 %; else 0. */
static int hz_snap(double measured)
{
	static const int known[] = { 100, 250, 300, 1000 };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		double d = measured - known[i];

		if (d < 0)
			d = -d;
		if (d <= 10 + known[i] * 0.02)
			return known[i];
	}
	return 0;
}

static int hz_from_config(void)
{
	char path[128], line[256];
	struct utsname u;
	int hz = 0;
	FILE *f;

	if (uname(&u))
		return -errno;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CONFIG_HZ=%d", &hz) == 1)
			break;
	fclose(f);
	return hz > 0 ? hz : -ENOENT;
}

/* "now at N nsecs" and the first "jiffies: N" of /proc/timer_list. 0 or -errno. */
static int timer_list_read(unsigned long long *ret_ns, unsigned long long *ret_jiffies)
{
	char line[256];
	bool have_ns = false;
	int r = -ENOENT;
	FILE *f = fopen("/proc/timer_list", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!have_ns && sscanf(line, "now at %llu nsecs", ret_ns) == 1)
			have_ns = true;
		else if (have_ns && sscanf(line, "jiffies: %llu", ret_jiffies) == 1) {
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}

static int hz_from_timer_list(double *ret_measured)
{
	struct timespec gap = { 0, 100000000L };
	unsigned long long ns0, j0, ns1, j1;
	int r;

	r = timer_list_read(&ns0, &j0);
	if (r == 0) {
		nanosleep(&gap, NULL);
		r = timer_list_read(&ns1, &j1);
	}
	if (r < 0)
		return r;
	if (ns1 <= ns0 || j1 < j0)
		return -ERANGE;
	*ret_measured = (double)(j1 - j0) * 1e9 / (double)(ns1 - ns0);
	r = hz_snap(*ret_measured);
	return r ? r : -ERANGE;
}

int bpf_load_kernel_hz(char *why, size_t len)
{
	static int hz, err;
	static char cached_why[160];
	double measured = 0;

	if (!hz && !err) {
		int r = hz_from_config();

		if (r < 0)
			r = hz_from_timer_list(&measured);
		if (r > 0)
			hz = r;
		else if (r == -ERANGE)
			snprintf(
				cached_why, sizeof(cached_why),
				"the kernel's HZ is unknown: /proc/timer_list's jiffies ran at %.0f "
				"Hz, not 100, 250, 300 or 1000",
				measured);
		else
			snprintf(cached_why, sizeof(cached_why),
				 "the kernel's HZ is unknown: no CONFIG_HZ in /boot/config-*, "
				 "/proc/timer_list: %s",
				 strerror(-r));
		err = r > 0 ? 0 : r;
	}
	if (err)
		snprintf(why, len, "%s", cached_why);
	return err ? err : hz;
}

#ifdef FSB_HAVE_BPF

int bpf_load_tp_nargs(const char *tp)
{
	static struct btf *vmlinux;
	static bool tried;
	const struct btf_type *t;
	char name[128];
	int id;

	if (!tried) {
		tried = true;
		vmlinux = btf__load_vmlinux_btf();
	}
	if (!vmlinux)
		return -ENOENT;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	/* typedef -> pointer -> prototype (void *__data, the tracepoint's arguments...) */
	t = btf__type_by_id(vmlinux, (__u32)id);
	t = t ? btf__type_by_id(vmlinux, t->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(vmlinux, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -ENOENT;
	return btf_vlen(t) - 1;
}

/*
 * The first libbpf warning since the last reset: when a load fails before the verifier
 * ran (a kernel config, BTF or attach target missing), it is the reason.
 */
static _Thread_local char libbpf_warning[200];

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[sizeof(libbpf_warning)];
	const char *l = line;

	if (level != LIBBPF_WARN || libbpf_warning[0])
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (!strncmp(l, "libbpf: ", 8))
		l += 8;
	snprintf(libbpf_warning, sizeof(libbpf_warning), "%.*s", (int)strcspn(l, "\n"), l);
	return 0;
}

void bpf_load_quiet(void)
{
	libbpf_set_print(quiet_print);
}

/*
 * Opens @src's object (the raw_tp build when @raw_tp), tells it @cfg and loads it. With
 * @only >= 0, program number @only alone is loaded, its verifier log going to @log (on a
 * failed load only: libbpf asks for the log then). The object, or NULL with *@ret_err.
 */
static struct bpf_object *open_obj(const struct bpf_source *src, const struct fsb_bpf_cfg *cfg,
				   bool raw_tp, int only, char *log, size_t loglen, int *ret_err)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = src->name);
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *m;
	const void *elf;
	size_t sz;
	int r, i = 0, ncpu;

	if (log) {
		log[0] = 0;
		opts.kernel_log_buf = log;
		opts.kernel_log_size = loglen;
	}
	elf = (raw_tp ? src->elf_raw : src->elf)(&sz);
	obj = bpf_object__open_mem(elf, sz, &opts);
	if (!obj) {
		*ret_err = -errno;
		return NULL;
	}
	bpf_object__for_each_program(p, obj)
	{
		bool on = only < 0 || i == only;

		i++;
		if (src->wants && !src->wants(cfg, bpf_program__name(p)))
			on = false;
		bpf_program__set_autoload(p, on);
	}
	m = bpf_object__find_map_by_name(obj, ".rodata.cfg");
	r = m ? bpf_map__set_initial_value(m, cfg, sizeof(*cfg)) : -ENOENT;
	m = bpf_object__find_map_by_name(obj, "events");
	if (r == 0 && src->ring_bytes)
		r = m ? bpf_map__set_max_entries(m, src->ring_bytes) : -ENOENT;
	/* an element of figures per CPU the kernel may run on (fsb_bpf.h) */
	m = bpf_object__find_map_by_name(obj, "stats");
	ncpu = libbpf_num_possible_cpus();
	if (r == 0)
		r = !m ? -ENOENT : ncpu < 0 ? ncpu : bpf_map__set_max_entries(m, (__u32)ncpu);
	/* the block source's per-CPU stage of completions (fsb_bpf.h's fsb_req_batch) */
	m = bpf_object__find_map_by_name(obj, "staged");
	if (r == 0 && m)
		r = bpf_map__set_max_entries(m, (__u32)ncpu);
	if (r == 0)
		r = bpf_object__load(obj);
	if (r < 0) {
		bpf_object__close(obj);
		*ret_err = r;
		return NULL;
	}
	return obj;
}

/*
 * Why the kernel refused each program of @src's build that it refuses, as "PROG: first
 * error line" joined by "; " into @buf: each program is loaded alone with its log, so one
 * refusal does not hide the next. Only after a failed load: it costs a load per program.
 */
static void diagnose(const struct bpf_source *src, const struct fsb_bpf_cfg *cfg, bool raw_tp,
		     char *buf, size_t len)
{
	/* big enough that a refused program's log (kept from its start) reaches the verdict */
	const size_t loglen = 4u << 20;
	char *log = malloc(loglen), line[200];
	struct bpf_object *obj;
	struct bpf_program *p;
	char names[32][64];
	const void *elf;
	size_t sz;
	int n = 0, r;

	buf[0] = 0;
	if (!log)
		return;
	elf = (raw_tp ? src->elf_raw : src->elf)(&sz);
	obj = bpf_object__open_mem(elf, sz, NULL);
	if (obj)
		bpf_object__for_each_program(p, obj) if (n < 32)
			snprintf(names[n++], sizeof(names[0]), "%s", bpf_program__name(p));
	bpf_object__close(obj);
	for (int i = 0; i < n; i++) {
		size_t used = strlen(buf);

		/* not loaded on this target: nothing to refuse */
		if (src->wants && !src->wants(cfg, names[i]))
			continue;

		libbpf_warning[0] = 0;
		obj = open_obj(src, cfg, raw_tp, i, log, loglen, &r);
		if (obj) {
			bpf_object__close(obj);
			continue;
		}
		/* no verdict: refused before the verifier ran, and libbpf said why */
		if (!probe_bpf_log_error(log, line, sizeof(line)))
			snprintf(line, sizeof(line), "%s",
				 libbpf_warning[0] ? libbpf_warning : strerror(-r));
		snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "", names[i], line);
	}
	free(log);
}

struct bpf_object *bpf_load_source(const struct bpf_source *src, const struct fsb_bpf_cfg *cfg,
				   bool *ret_raw_tp, char *why, size_t len, int *ret_err)
{
	bool btf_tried = !getenv("FSBENCH_BPF_RAW_TP");
	char why_btf[400] = "", why_raw[400] = "";
	struct bpf_object *obj = NULL;
	int r = 0, r_raw = 0;

	/* tp_btf first; raw_tp where the kernel lacks BTF-typed tracepoints (or a test says) */
	if (btf_tried)
		obj = open_obj(src, cfg, false, -1, NULL, 0, &r);
	if (!obj && r != -EPERM)
		obj = open_obj(src, cfg, true, -1, NULL, 0, &r_raw);
	if (obj) {
		*ret_raw_tp = !btf_tried || r;
		why[0] = 0;
		/* the fallback ran: say what the kernel had against the tp_btf build */
		if (btf_tried && r) {
			diagnose(src, cfg, false, why_btf, sizeof(why_btf));
			snprintf(why, len, "tp_btf refused (%s): %s", strerror(-r),
				 why_btf[0] ? why_btf : "no program refused alone");
		}
		return obj;
	}
	*ret_err = r == -EPERM || r_raw == -EPERM ? -EPERM : r_raw ? r_raw : r;
	if (*ret_err == -EPERM) {
		snprintf(why, len, "loading BPF programs needs CAP_BPF and CAP_PERFMON: %s",
			 strerror(EPERM));
		return NULL;
	}
	/* both builds were refused: the verifier's reasons for each, not just errno */
	if (btf_tried)
		diagnose(src, cfg, false, why_btf, sizeof(why_btf));
	diagnose(src, cfg, true, why_raw, sizeof(why_raw));
	snprintf(why, len, "loading %s.bpf.o: %s%s%s%s%s", src->name, strerror(-*ret_err),
		 why_btf[0] ? "; tp_btf: " : "", why_btf, why_raw[0] ? "; raw_tp: " : "", why_raw);
	return NULL;
}

int probe_bpf_check_sources(char *err, size_t len)
{
	for (int i = 0; bpf_sources[i]; i++) {
		const struct bpf_source *src = bpf_sources[i];

		for (int raw = 0; src->elf && raw < 2; raw++) {
			unsigned nc = bpf_names_count(src->counters);
			/* none in the kernel when user space makes them from the events */
			unsigned nh = src->ev_hists ? 0 : bpf_names_count(src->hists);
			const void *elf;
			struct bpf_object *obj;
			struct bpf_map *map;
			size_t sz;

			elf = (raw ? src->elf_raw : src->elf)(&sz);
			obj = bpf_object__open_mem(elf, sz, NULL);
			if (!obj) {
				snprintf(err, len, "opening %s's %s build: %s", src->name,
					 raw ? "raw_tp" : "tp_btf", strerror(errno));
				return -EINVAL;
			}
			/* the layout's size tells the counts apart: a histogram outweighs any counters */
			map = bpf_object__find_map_by_name(obj, "stats");
			if (!map || bpf_map__value_size(map) != FSB_STATS_SIZE(nc, nh)) {
				snprintf(
					err, len,
					"%s.bpf.o (%s) has %d bytes of figures per CPU, sources.c's %u "
					"histograms and %u counters make %u",
					src->name, raw ? "raw_tp" : "tp_btf",
					map ? (int)bpf_map__value_size(map) : -1, nh, nc,
					FSB_STATS_SIZE(nc, nh));
				bpf_object__close(obj);
				return -EINVAL;
			}
			bpf_object__close(obj);
		}
	}
	return 0;
}

#else /* !FSB_HAVE_BPF */

int probe_bpf_check_sources(char *err, size_t len)
{
	(void)err;
	(void)len;
	return 0;
}

int bpf_load_tp_nargs(const char *tp)
{
	(void)tp;
	return -ENOTSUP;
}

void bpf_load_quiet(void)
{
}

struct bpf_object *bpf_load_source(const struct bpf_source *src, const struct fsb_bpf_cfg *cfg,
				   bool *ret_raw_tp, char *why, size_t len, int *ret_err)
{
	(void)src;
	(void)cfg;
	*ret_raw_tp = false;
	*ret_err = -ENOTSUP;
	snprintf(why, len, "fsbench was built without BPF support (libbpf, clang, bpftool)");
	return NULL;
}

#endif
