/* BPF side of every source: its maps, the arming switch, histogram recording, event output. */
#ifndef FSB_COMMON_BPF_H
#define FSB_COMMON_BPF_H

#include "probes/bpf/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "probes/bpf/fsb_bpf.h"

/* The including source defines FSB_NHISTS and FSB_NCOUNTERS before including this. */

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load; the same section name in every source. */
const volatile struct fsb_bpf_cfg fsb_cfg SEC(".rodata.cfg") = {};

/* 1 from the run's start: set-up I/O (the victim's file, mkfs) stays out of the figures. */
volatile __u32 fsb_armed SEC(".data.ctl") = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSB_NHISTS);
	__type(key, __u32);
	__type(value, struct fsb_khist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSB_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FSB_RINGBUF_BYTES);
} events SEC(".maps");

/* Events the ring had no room for; the last counter of every source. */
#define FSB_C_DROPS (FSB_NCOUNTERS - 1)

static __always_inline void count_add(__u32 i, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &i);

	if (c)
		*c += v;
}

static __always_inline void khist_record(__u32 id, __u64 ns)
{
	struct fsb_khist *h = bpf_map_lookup_elem(&hists, &id);
	__u64 i;

	if (!h)
		return;
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
	h->bins[i]++;
}

/* No wakeup per event: the consumer drains on its own timer. */
static __always_inline struct fsb_event *ev_reserve(__u32 kind)
{
	struct fsb_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_add(FSB_C_DROPS, 1);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = kind;
	return e;
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
	struct fsb_event *e = ev_reserve(kind);

	if (!e)
		return;
	e->t0 = e->t1 = bpf_ktime_get_ns();
	e->flags = (__u32)bpf_get_current_pid_tgid();
	ev_submit(e);
}

/* The kernel's dev_t of a gendisk (MKDEV: major << 20 | minor). */
static __always_inline __u32 disk_devt(struct gendisk *d)
{
	return ((__u32)RD(d, major) << 20) | (__u32)RD(d, first_minor);
}

#endif
