// SPDX-License-Identifier: GPL-2.0
/* writeback source: balance_dirty_pages pauses and writeback work, for the target's backing device. */
#define FSB_COUNTERS FSB_WRITEBACK_COUNTERS
#define FSB_HISTS FSB_WRITEBACK_HISTS
#include "probes/bpf/fsb_common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64); /* the wb_writeback_work */
	__type(value, __u64); /* when it started */
} works SEC(".maps");

static __always_inline bool bdi_ours(struct bdi_writeback *wb)
{
	struct backing_dev_info *bdi = RD(wb, bdi);
	char name[sizeof(fsb_cfg.bdi)];

	/* the array's address, computed (CO-RE relocated), not read */
	if (bpf_probe_read_kernel_str(name, sizeof(name), bdi->dev_name) <= 0)
		return false;
	for (int i = 0; i < (int)sizeof(name); i++) {
		if (name[i] != fsb_cfg.bdi[i])
			return false;
		if (!name[i])
			return true;
	}
	return false;
}

FSB_TP(balance_dirty_pages)
{
	__u64 now = bpf_ktime_get_ns(), ns;
	struct fsb_stats *s;
	struct fsb_event *e;
	long pause = 0;

	/*
	 * The pause in jiffies is the second-to-last argument wherever the arguments stand:
	 * the loader found its index in the kernel's BTF. fsb_cfg is read-only, so the
	 * verifier follows one branch and never sees an argument the tracepoint lacks. The
	 * loads are asm because clang would merge them into one load from a computed
	 * address, which the verifier refuses ("dereference of modified ctx ptr").
	 */
	if (fsb_cfg.bdp_pause_arg == FSB_BDP_PAUSE_ARG_NEW)
		asm volatile("%[v] = *(u64 *)(%[ctx] + %[off])"
			     : [v] "=r"(pause)
			     : [ctx] "r"(ctx), [off] "i"(FSB_BDP_PAUSE_ARG_NEW * 8));
	else if (fsb_cfg.bdp_pause_arg == FSB_BDP_PAUSE_ARG_OLD)
		asm volatile("%[v] = *(u64 *)(%[ctx] + %[off])"
			     : [v] "=r"(pause)
			     : [ctx] "r"(ctx), [off] "i"(FSB_BDP_PAUSE_ARG_OLD * 8));
	/* else the loader found no layout it knows: pause stays 0, works are still timed */

	/* HZ from the loader (0: unknown): libbpf's __kconfig needs a kernel config file */
	if (pause <= 0 || !fsb_cfg.hz || !bdi_ours((void *)ctx[0]))
		return 0;
	ns = (__u64)pause * 1000000000ull / fsb_cfg.hz;
	s = stats_here();
	if (s) {
		s->counters[C_PAUSES]++;
		s->counters[C_PAUSE_NS] += ns;
		khist_record(s, H_PAUSE, ns);
	}
	e = ev_reserve();
	if (e) {
		ev_fill(e, FSB_EV_THROTTLE, now, now + ns, 0, 0, (__u32)bpf_get_current_pid_tgid(),
			0);
		ev_submit(e);
	}
	return 0;
}

FSB_TP(writeback_start)
{
	__u64 key = ctx[1], now = bpf_ktime_get_ns();

	if (!bdi_ours((void *)ctx[0]))
		return 0;
	bpf_map_update_elem(&works, &key, &now, BPF_ANY);
	return 0;
}

FSB_TP(writeback_written)
{
	__u64 key = ctx[1], now = bpf_ktime_get_ns(), *t0;
	struct fsb_stats *s;
	struct fsb_event *e;

	t0 = bpf_map_lookup_elem(&works, &key);
	if (!t0)
		return 0;
	s = stats_here();
	if (s) {
		s->counters[C_WORKS]++;
		khist_record(s, H_WORK, now - *t0);
	}
	e = ev_reserve();
	if (e) {
		ev_fill(e, FSB_EV_WB, *t0, now, 0, 0, 0, 0);
		ev_submit(e);
	}
	bpf_map_delete_elem(&works, &key);
	return 0;
}
