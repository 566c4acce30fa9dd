// SPDX-License-Identifier: GPL-2.0
/* writeback source: balance_dirty_pages pauses and writeback work, for the target's backing device. */
#define FSB_NHISTS 2
#define FSB_NCOUNTERS 4
#include "probes/bpf/fsb_common.bpf.h"

/* writeback_src.c names these in the same order. */
enum { H_PAUSE, H_WORK };
enum { C_PAUSES, C_PAUSE_NS, C_WORKS };

/* balance_dirty_pages gives its pause in jiffies; libbpf reads HZ from the kernel config */
extern int CONFIG_HZ __kconfig __weak;

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
	long pause = (long)ctx[6];
	__u64 now = bpf_ktime_get_ns(), ns;
	struct fsb_event *e;

	if (pause <= 0 || CONFIG_HZ <= 0 || !bdi_ours((void *)ctx[0]))
		return 0;
	ns = (__u64)pause * (1000000000ull / (__u64)CONFIG_HZ);
	count_add(C_PAUSES, 1);
	count_add(C_PAUSE_NS, ns);
	khist_record(H_PAUSE, ns);
	e = ev_reserve(FSB_EV_THROTTLE);
	if (e) {
		e->t0 = now;
		e->t1 = now + ns;
		e->flags = (__u32)bpf_get_current_pid_tgid();
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
	struct fsb_event *e;

	t0 = bpf_map_lookup_elem(&works, &key);
	if (!t0)
		return 0;
	count_add(C_WORKS, 1);
	khist_record(H_WORK, now - *t0);
	e = ev_reserve(FSB_EV_WB);
	if (e) {
		e->t0 = *t0;
		e->t1 = now;
		ev_submit(e);
	}
	bpf_map_delete_elem(&works, &key);
	return 0;
}
