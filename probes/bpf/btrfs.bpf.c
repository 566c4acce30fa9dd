// SPDX-License-Identifier: GPL-2.0
/* btrfs source: fsync entries, transaction commits and ordered-extent lifetimes, for one filesystem. */
#define FSB_COUNTERS FSB_BTRFS_COUNTERS
#define FSB_HISTS FSB_BTRFS_HISTS
#include "probes/bpf/fsb_common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FSB_INFLIGHT_MAX);
	__type(key, __u64); /* the ordered extent */
	__type(value, __u64); /* when it was added */
} ordered SEC(".maps");

FSB_TP(btrfs_sync_file)
{
	struct file *f = (void *)ctx[0];

	/* NULL checks: fsb_common.bpf.h's FSB_TP says why */
	if (!f || RD(f, f_inode, i_sb, s_dev) != fsb_cfg.sdev)
		return 0;
	count_one(C_SYNC_FILES, 1);
	ev_point(FSB_EV_BTRFS_SYNC);
	return 0;
}

/* The tracepoint fires as a commit ends; it has no start to time it from. */
FSB_TP(btrfs_transaction_commit)
{
	struct btrfs_fs_info *fs = (void *)ctx[0];

	if (!fs || RD(fs, sb, s_dev) != fsb_cfg.sdev)
		return 0;
	count_one(C_COMMITS, 1);
	ev_point(FSB_EV_BTRFS_COMMIT);
	return 0;
}

FSB_TP(btrfs_ordered_extent_add)
{
	struct btrfs_inode *ino = (void *)ctx[0];
	__u64 key = ctx[1], now = bpf_ktime_get_ns();

	if (!ino || RD(ino, vfs_inode.i_sb, s_dev) != fsb_cfg.sdev)
		return 0;
	bpf_map_update_elem(&ordered, &key, &now, BPF_ANY);
	return 0;
}

FSB_TP(btrfs_ordered_extent_remove)
{
	struct btrfs_ordered_extent *oe = (void *)ctx[1];
	__u64 key = ctx[1], now = bpf_ktime_get_ns(), *t0;
	struct fsb_stats *s;
	struct fsb_event *e;

	t0 = bpf_map_lookup_elem(&ordered, &key);
	if (!t0)
		return 0;
	s = stats_here();
	if (s) {
		s->counters[C_ORDERED]++;
		khist_record(s, H_ORDERED, now - *t0);
	}
	e = ev_reserve();
	if (e) {
		ev_fill(e, FSB_EV_BTRFS_ORDERED, *t0, now, oe ? RD(oe, num_bytes) : 0, 0, 0, 0);
		ev_submit(e);
	}
	bpf_map_delete_elem(&ordered, &key);
	return 0;
}
