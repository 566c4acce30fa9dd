/* BPF side of every source: its maps, the arming switch, histogram recording, event output. */
#ifndef FSB_COMMON_BPF_H
#define FSB_COMMON_BPF_H

#include "probes/bpf/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "probes/bpf/fsb_bpf.h"
#include "probes/bpf/fsb_layout.h"

/*
 * The including source names its lists of fsb_layout.h before including this: FSB_COUNTERS,
 * and FSB_HISTS unless user space makes its histograms from its events (bpf_source.h's
 * ev_hists). Their indexes, and how many there are, are these enums'.
 */
#define FSB_INDEX(id, name) id,
/* the ring's drop count last: "events_dropped" */
enum { FSB_COUNTERS(FSB_INDEX) FSB_C_DROPS, FSB_NCOUNTERS };
#ifdef FSB_HISTS
enum { FSB_HISTS(FSB_INDEX) FSB_NHISTS };
#else
enum { FSB_NHISTS = 0 };
#endif

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load; the same section name in every source. */
const volatile struct fsb_bpf_cfg fsb_cfg SEC(".rodata.cfg") = {};

/* 1 from the run's start: set-up I/O (the victim's file, mkfs) stays out of the figures. */
volatile __u32 fsb_armed SEC(".data.ctl") = 0;

/* fsb_bpf.h's per-CPU layout, as this source's sizes make it */
struct fsb_stats {
	__u64 counters[FSB_NCOUNTERS];
	struct fsb_khist_head head[FSB_NHISTS];
	__u64 bins[FSB_NHISTS][FSB_KH_NBINS];
};
_Static_assert(sizeof(struct fsb_stats) == FSB_STATS_SIZE(FSB_NCOUNTERS, FSB_NHISTS),
	       "struct fsb_stats must be fsb_bpf.h's layout");

/*
 * Element <cpu> is that CPU's: a plain array (the loader sizes it to the possible CPUs),
 * whose lookup the verifier inlines, where a per-CPU array's is a helper call on 6.1.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsb_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FSB_RINGBUF_BYTES);
} events SEC(".maps");

/*
 * This CPU's figures; NULL only if the loader sized the array short. Programs run with
 * migration disabled, so the CPU stays theirs until they return.
 */
static __always_inline struct fsb_stats *stats_here(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&stats, &cpu);
}

static __always_inline void khist_record(struct fsb_stats *s, __u32 id, __u64 ns)
{
	struct fsb_khist_head *h;
	__u64 i;

	/* the same one-register check as the index's below, for the same verifiers */
	barrier_var(id);
	if (id >= FSB_NHISTS)
		return;
	h = &s->head[id];
	if (h->count == 0 || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += ns;
	if (ns >> FSB_KH_MAX_EXP) {
		h->overflow++;
		return;
	}
	/*
	 * One register for the check and the access: clang checks a zero-extended copy and
	 * indexes with another, and verifiers before 6.3 (Debian's 6.1) do not carry the
	 * check over to it ("R0 unbounded memory access"). barrier_var() pins the index in
	 * one 64-bit register before the check.
	 */
	i = fsb_khist_index(ns);
	barrier_var(i);
	if (i >= FSB_KH_NBINS)
		return;
	s->bins[id][i]++;
}

/* Adds @v to counter @i, for a program that records nothing else. */
static __always_inline void count_one(__u32 i, __u64 v)
{
	struct fsb_stats *s = stats_here();

	barrier_var(i);
	if (s && i < FSB_NCOUNTERS)
		s->counters[i] += v;
}

/*
 * No wakeup per event: the consumer drains on its own timer. The record is not cleared:
 * every event's writer sets each of its fields (ev_fill), which costs less than a memset
 * and then the same stores again.
 */
static __always_inline struct fsb_event *ev_reserve(void)
{
	struct fsb_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		struct fsb_stats *s = stats_here();

		if (s)
			s->counters[FSB_C_DROPS]++;
	}
	return e;
}

/* Every field of @e; ph[] 0 (a commit sets its own after). */
static __always_inline void ev_fill(struct fsb_event *e, __u32 kind, __u64 t0, __u64 t1,
				    __u64 sector, __u32 op, __u32 flags, __u32 bytes)
{
	e->t0 = t0;
	e->t1 = t1;
	e->sector = sector;
	e->kind = kind;
	e->op = op;
	e->flags = flags;
	e->bytes = bytes;
	e->ph[0] = e->ph[1] = e->ph[2] = 0;
}

static __always_inline void ev_submit(struct fsb_event *e)
{
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/*
 * Each source is compiled twice: as tp_btf programs (the default), whose arguments are
 * typed kernel pointers that can be dereferenced directly, and with -DFSB_RAW_TP as
 * raw_tp programs for kernels without BTF-typed tracepoints, which must read through
 * bpf_probe_read_kernel (a helper call per field: slower). RD(p, a, b) is p->a->b in both.
 */
#define FSB_NARG(...) FSB_NARG_(__VA_ARGS__, 4, 3, 2, 1, 0)
#define FSB_NARG_(_1, _2, _3, _4, n, ...) n
#define FSB_CAT(a, b) FSB_CAT_(a, b)
#define FSB_CAT_(a, b) a##b
#define FSB_ARROW1(s, a) (s)->a
#define FSB_ARROW2(s, a, b) (s)->a->b
#define FSB_ARROW3(s, a, b, c) (s)->a->b->c
#define FSB_ARROW4(s, a, b, c, d) (s)->a->b->c->d
#ifdef FSB_RAW_TP
#define RD(s, ...) BPF_CORE_READ(s, __VA_ARGS__)
#define FSB_SEC(tp) SEC("raw_tp/" #tp)
#else
#define RD(s, ...) FSB_CAT(FSB_ARROW, FSB_NARG(__VA_ARGS__))(s, __VA_ARGS__)
#define FSB_SEC(tp) SEC("tp_btf/" #tp)
#endif

/*
 * A program on tracepoint @tp; the body reads its arguments from ctx[]. A pointer
 * argument is checked against NULL before its first dereference: 6.12's verifier takes
 * every pointer argument of a module's tracepoint (jbd2, xfs, btrfs are modules on
 * Debian) as maybe NULL and refuses the tp_btf program otherwise ("R2 invalid mem
 * access 'trusted_ptr_or_null_'"); later kernels only mark the arguments known nullable.
 */
#define FSB_TP(tp)                                                   \
	static __always_inline int on_##tp(unsigned long long *ctx); \
	FSB_SEC(tp)                                                  \
	int fsb_##tp(unsigned long long *ctx)                        \
	{                                                            \
		return fsb_armed ? on_##tp(ctx) : 0;                 \
	}                                                            \
	static __always_inline int on_##tp(unsigned long long *ctx)

/* An event at one instant (t0 = t1), stamped with the current thread's id. */
static __always_inline void ev_point(__u32 kind)
{
	struct fsb_event *e = ev_reserve();
	__u64 now;

	if (!e)
		return;
	now = bpf_ktime_get_ns();
	ev_fill(e, kind, now, now, 0, 0, (__u32)bpf_get_current_pid_tgid(), 0);
	ev_submit(e);
}

/* The kernel's dev_t of a gendisk (MKDEV: major << 20 | minor). */
static __always_inline __u32 disk_devt(struct gendisk *d)
{
	return ((__u32)RD(d, major) << 20) | (__u32)RD(d, first_minor);
}

#endif
