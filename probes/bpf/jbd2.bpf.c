// SPDX-License-Identifier: GPL-2.0
/* jbd2 source: each commit of the filesystem's journal, its phases, handles, timed here. */
#define FSB_NHISTS 4
#define FSB_NCOUNTERS 3
#include "fsb_common.bpf.h"

/* jbd2_src.c names these in the same order. */
enum { H_COMMIT, H_LOCKED, H_FLUSHING, H_LOGGING };
enum { C_COMMITS, C_HANDLES };

/* jbd2_run_stats counts in jiffies; these are our own clock readings per phase. */
struct commit {
	__u64 start, locking, flushing, logging;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u32); /* tid: one filesystem's journal, so tids are unique */
	__type(value, struct commit);
} commits SEC(".maps");

static __always_inline bool ours(journal_t *j)
{
	return BPF_CORE_READ(j, j_fs_dev, bd_dev) == fsb_cfg.bdev;
}

static __always_inline struct commit *phase(unsigned long long *ctx)
{
	journal_t *j = (void *)ctx[0];
	transaction_t *t = (void *)ctx[1];
	__u32 tid;

	if (!ours(j))
		return NULL;
	tid = BPF_CORE_READ(t, t_tid);
	return bpf_map_lookup_elem(&commits, &tid);
}

FSB_TP(jbd2_start_commit)
{
	journal_t *j = (void *)ctx[0];
	transaction_t *t = (void *)ctx[1];
	struct commit c = { .start = bpf_ktime_get_ns() };
	__u32 tid;

	if (!ours(j))
		return 0;
	tid = BPF_CORE_READ(t, t_tid);
	bpf_map_update_elem(&commits, &tid, &c, BPF_ANY);
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

	if (!ours(j))
		return 0;
	tid = BPF_CORE_READ(t, t_tid);
	c = bpf_map_lookup_elem(&commits, &tid);
	if (!c)
		return 0; /* started before the probes were armed */
	handles = (__u32)BPF_CORE_READ(t, t_handle_count.counter);
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
	bpf_map_delete_elem(&commits, &tid);
	return 0;
}
