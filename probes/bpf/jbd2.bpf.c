// SPDX-License-Identifier: GPL-2.0
/* jbd2 source: each commit of the filesystem's journal, its phases, handles, timed here. */
#define FSB_NHISTS 4
#define FSB_NCOUNTERS 3
#include "probes/bpf/fsb_common.bpf.h"

/* Its entry in sources.c names these in the same order. */
enum { H_COMMIT, H_LOCKED, H_FLUSHING, H_LOGGING };
enum { C_COMMITS, C_HANDLES };

/* jbd2_run_stats counts in jiffies; these are our own clock readings per phase. */
struct commit {
	__u64 start, locking, flushing, logging;
};

/*
 * An array slot per tid modulo 64, checked against the tid: cheaper than a hash, and a
 * journal has one commit running and a few queued at most.
 */
#define COMMIT_SLOTS 64

struct commit_slot {
	__u32 tid;
	struct commit c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, COMMIT_SLOTS);
	__type(key, __u32);
	__type(value, struct commit_slot);
} commits SEC(".maps");

static __always_inline struct commit *slot_of(__u32 tid, bool fresh)
{
	__u32 i = tid % COMMIT_SLOTS;
	struct commit_slot *s = bpf_map_lookup_elem(&commits, &i);

	if (!s)
		return NULL;
	if (fresh) {
		s->tid = tid;
		__builtin_memset(&s->c, 0, sizeof(s->c));
	} else if (s->tid != tid || !s->c.start) {
		return NULL;
	}
	return &s->c;
}

/* also the NULL checks of both arguments (fsb_common.bpf.h's FSB_TP says why) */
static __always_inline bool ours(journal_t *j, transaction_t *t)
{
	return j && t && RD(j, j_fs_dev, bd_dev) == fsb_cfg.bdev;
}

static __always_inline struct commit *phase(unsigned long long *ctx)
{
	journal_t *j = (void *)ctx[0];
	transaction_t *t = (void *)ctx[1];
	__u32 tid;

	if (!ours(j, t))
		return NULL;
	tid = RD(t, t_tid);
	return slot_of(tid, false);
}

FSB_TP(jbd2_start_commit)
{
	journal_t *j = (void *)ctx[0];
	transaction_t *t = (void *)ctx[1];
	struct commit *c;

	if (!ours(j, t))
		return 0;
	c = slot_of(RD(t, t_tid), true);
	if (c)
		c->start = bpf_ktime_get_ns();
	return 0;
}

FSB_TP(jbd2_commit_locking)
{
	struct commit *c = phase(ctx);

	if (c)
		c->locking = bpf_ktime_get_ns();
	return 0;
}

FSB_TP(jbd2_commit_flushing)
{
	struct commit *c = phase(ctx);

	if (c)
		c->flushing = bpf_ktime_get_ns();
	return 0;
}

FSB_TP(jbd2_commit_logging)
{
	struct commit *c = phase(ctx);

	if (c)
		c->logging = bpf_ktime_get_ns();
	return 0;
}

FSB_TP(jbd2_end_commit)
{
	journal_t *j = (void *)ctx[0];
	transaction_t *t = (void *)ctx[1];
	__u64 now = bpf_ktime_get_ns();
	struct commit *c;
	struct fsb_event *e;
	__u32 tid, handles;

	if (!ours(j, t))
		return 0;
	tid = RD(t, t_tid);
	c = slot_of(tid, false);
	if (!c)
		return 0; /* started before the probes were armed */
	handles = (__u32)RD(t, t_handle_count.counter);
	count_add(C_COMMITS, 1);
	count_add(C_HANDLES, handles);
	khist_record(H_COMMIT, now - c->start);
	if (c->locking && c->flushing && c->logging) {
		khist_record(H_LOCKED, c->flushing - c->start);
		khist_record(H_FLUSHING, c->logging - c->flushing);
		khist_record(H_LOGGING, now - c->logging);
	}
	e = ev_reserve(FSB_EV_COMMIT);
	if (e) {
		e->t0 = c->start;
		e->t1 = now;
		e->sector = tid;
		e->ph[0] = c->locking;
		e->ph[1] = c->flushing;
		e->ph[2] = c->logging;
		e->bytes = handles;
		ev_submit(e);
	}
	c->start = 0;
	return 0;
}
