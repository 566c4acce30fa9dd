// SPDX-License-Identifier: GPL-2.0
/* jbd2 source: each commit of the filesystem's journal, its phases, handles, timed here. */
/* its histograms are made from its events, in user space (sources.c's jbd2_ev_hists) */
#define FSB_COUNTERS FSB_JBD2_COUNTERS
#include "probes/bpf/fsb_common.bpf.h"

/*
 * jbd2_run_stats counts in jiffies; these are our own clock readings per phase. One
 * commit at a time: a journal's commits all run in its jbd2 thread, one after the other,
 * from start_commit to end_commit (and only the target's journal is followed), so one
 * slot, checked against the tid, holds the commit in progress: the same cache line every
 * commit, where a slot per tid was a cold one each time. (An array's lookup, which the
 * verifier inlines: a global in .bss would leave the skeleton an empty struct.)
 */
struct commit {
	__u32 tid;
	__u64 start, flushing, logging;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct commit);
} commits SEC(".maps");

static __always_inline struct commit *cur(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&commits, &zero);
}

/* also the NULL checks of both arguments (fsb_common.bpf.h's FSB_TP says why) */
static __always_inline bool ours(journal_t *j, transaction_t *t)
{
	return j && t && RD(j, j_fs_dev, bd_dev) == fsb_cfg.bdev;
}

/* The commit in progress if it is @ctx's transaction, seen from its start; else NULL. */
static __always_inline struct commit *phase(unsigned long long *ctx)
{
	journal_t *j = (void *)ctx[0];
	transaction_t *t = (void *)ctx[1];
	struct commit *c;

	if (!ours(j, t))
		return NULL;
	c = cur();
	if (!c || !c->start || c->tid != RD(t, t_tid))
		return NULL;
	return c;
}

FSB_TP(jbd2_start_commit)
{
	journal_t *j = (void *)ctx[0];
	transaction_t *t = (void *)ctx[1];
	struct commit *c;

	if (!ours(j, t))
		return 0;
	c = cur();
	if (!c)
		return 0;
	c->tid = RD(t, t_tid);
	c->flushing = c->logging = 0;
	c->start = bpf_ktime_get_ns();
	return 0;
}

/*
 * No program on jbd2_commit_locking: jbd2 fires it right after jbd2_start_commit (with
 * only j_state_lock taken between), and the locked phase is timed from the start anyway,
 * so it would cost a run per commit for a time no figure uses.
 */

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
	struct commit *c = phase(ctx);
	transaction_t *t = (void *)ctx[1];
	struct fsb_stats *s;
	struct fsb_event *e;
	__u32 handles;
	__u64 now;

	/* t again: 6.12's verifier does not carry phase()'s NULL check to this load of ctx[1] */
	if (!c || !t)
		return 0; /* another journal's, or started before the probes were armed */
	now = bpf_ktime_get_ns();
	s = stats_here();
	if (!s)
		return 0;
	handles = (__u32)RD(t, t_handle_count.counter);
	s->counters[C_COMMITS]++;
	s->counters[C_HANDLES] += handles;
	e = ev_reserve();
	if (e) {
		ev_fill(e, FSB_EV_COMMIT, c->start, now, c->tid, 0, 0, handles);
		/* the locked phase begins with the commit (see above) */
		e->ph[0] = c->start;
		e->ph[1] = c->flushing;
		e->ph[2] = c->logging;
		ev_submit(e);
	}
	c->start = 0;
	return 0;
}
