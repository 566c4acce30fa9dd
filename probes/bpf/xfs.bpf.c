// SPDX-License-Identifier: GPL-2.0
/* xfs source: log forces, iclog writes (sync to sync_done) and CIL throttling, for one filesystem. */
#define FSB_COUNTERS FSB_XFS_COUNTERS
#define FSB_HISTS FSB_XFS_HISTS
#include "probes/bpf/fsb_common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u64); /* the in-core log buffer */
	__type(value, __u64); /* when its write began */
} iclogs SEC(".maps");

/* NULL-checked: xfs_log_force's argument (fsb_common.bpf.h's FSB_TP says why) */
static __always_inline bool mount_ours(struct xfs_mount *mp)
{
	return mp && RD(mp, m_super, s_dev) == fsb_cfg.sdev;
}

FSB_TP(xfs_log_force)
{
	if (!mount_ours((void *)ctx[0]))
		return 0;
	count_one(C_FORCES, 1);
	ev_point(FSB_EV_XFS_FORCE);
	return 0;
}

FSB_TP(xfs_log_cil_wait)
{
	struct xlog *log = (void *)ctx[0];

	if (!log || !mount_ours(RD(log, l_mp)))
		return 0;
	count_one(C_CIL_WAITS, 1);
	ev_point(FSB_EV_XFS_CIL_WAIT);
	return 0;
}

FSB_TP(xlog_iclog_sync)
{
	struct xlog_in_core *ic = (void *)ctx[0];
	__u64 key = (__u64)ic, now = bpf_ktime_get_ns();

	if (!ic || !mount_ours(RD(ic, ic_log, l_mp)))
		return 0;
	bpf_map_update_elem(&iclogs, &key, &now, BPF_ANY);
	return 0;
}

FSB_TP(xlog_iclog_sync_done)
{
	struct xlog_in_core *ic = (void *)ctx[0];
	__u64 key = (__u64)ic, now = bpf_ktime_get_ns(), *t0;
	struct fsb_stats *s;
	struct fsb_event *e;

	t0 = bpf_map_lookup_elem(&iclogs, &key);
	if (!t0)
		return 0; /* another filesystem's, or begun before arming */
	s = stats_here();
	if (s) {
		s->counters[C_ICLOGS]++;
		khist_record(s, H_ICLOG, now - *t0);
	}
	e = ev_reserve();
	if (e) {
		ev_fill(e, FSB_EV_XFS_ICLOG, *t0, now, 0, 0, 0, 0);
		ev_submit(e);
	}
	bpf_map_delete_elem(&iclogs, &key);
	return 0;
}
