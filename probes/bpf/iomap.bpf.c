// SPDX-License-Identifier: GPL-2.0
/* I/O map source: sector against time of every request issued to the disk (seekwatcher's picture). */
#define FSB_NHISTS 1
#define FSB_NCOUNTERS 2
#include "fsb_common.bpf.h"

/* iomap_src.c names these in the same order; the map itself is the event stream. */
enum { C_ISSUED };

FSB_TP(block_rq_issue)
{
	struct request *rq = (void *)ctx[0];
	struct fsb_event *e;
	__u32 opf;

	if (disk_devt(BPF_CORE_READ(rq, q, disk)) != fsb_cfg.disk_dev)
		return 0;
	count_add(C_ISSUED, 1);
	opf = BPF_CORE_READ(rq, cmd_flags);
	e = ev_reserve(FSB_EV_IOMAP);
	if (!e)
		return 0;
	e->t0 = e->t1 = bpf_ktime_get_ns();
	e->sector = BPF_CORE_READ(rq, __sector);
	e->bytes = BPF_CORE_READ(rq, __data_len);
	switch (opf & 0xff) {
	case 0:
		e->op = FSB_BLK_READ;
		break;
	case 1:
		e->op = FSB_BLK_WRITE;
		break;
	case 2:
		e->op = FSB_BLK_FLUSH;
		break;
	case 3:
	case 5:
		e->op = FSB_BLK_DISCARD;
		break;
	default:
		e->op = FSB_BLK_NOPS;
	}
	ev_submit(e);
	return 0;
}
