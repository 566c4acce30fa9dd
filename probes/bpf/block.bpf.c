// SPDX-License-Identifier: GPL-2.0
/* Block source: per-request latency by phase and operation, flush and FUA intent, for one disk. */
#define FSB_NHISTS (FSB_BLK_NOPS * 3)
#define FSB_NCOUNTERS 9
#include "fsb_common.bpf.h"

/* Counter and histogram numbers: block_src.c names them in the same order. */
enum {
	C_BIO_PREFLUSH, /* bios queued with REQ_PREFLUSH: what the filesystem asked for */
	C_BIO_FUA,
	C_FLUSH_ISSUED, /* REQ_OP_FLUSH requests issued: what the device was made to do */
	C_ISSUED,
	C_UNMATCHED, /* completions of requests not seen issued: the flush sequence's second one */
	C_NO_INSERT, /* queued time taken from rq->start_time_ns: block_rq_insert was skipped */
	C_READ_BYTES,
	C_WRITE_BYTES,
};
enum { PH_Q2I, PH_I2C, PH_Q2C };

struct rq_times {
	__u64 queued, issued;
};

/* LRU: a request that never completes (requeued, device gone) cannot fill the table. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FSB_INFLIGHT_MAX);
	__type(key, __u64);
	__type(value, struct rq_times);
} inflight SEC(".maps");

static __always_inline bool rq_ours(struct request *rq)
{
	return disk_devt(BPF_CORE_READ(rq, q, disk)) == fsb_cfg.disk_dev;
}

static __always_inline __u32 blk_op(__u32 opf)
{
	switch (opf & 0xff) { /* REQ_OP_MASK */
	case 0:
		return FSB_BLK_READ;
	case 1:
		return FSB_BLK_WRITE;
	case 2:
		return FSB_BLK_FLUSH;
	case 3:
	case 5: /* secure erase is a discard to the histograms */
		return FSB_BLK_DISCARD;
	default:
		return FSB_BLK_NOPS;
	}
}

static __always_inline __u32 rq_flags(__u32 opf)
{
	__u32 f = 0;

	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		f |= FSB_RQ_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		f |= FSB_RQ_PREFLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		f |= FSB_RQ_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		f |= FSB_RQ_META;
	return f;
}

FSB_TP(block_bio_queue)
{
	struct bio *bio = (void *)ctx[0];
	__u32 f;

	if (disk_devt(BPF_CORE_READ(bio, bi_bdev, bd_disk)) != fsb_cfg.disk_dev)
		return 0;
	f = rq_flags(BPF_CORE_READ(bio, bi_opf));
	if (f & FSB_RQ_PREFLUSH)
		count_add(C_BIO_PREFLUSH, 1);
	if (f & FSB_RQ_FUA)
		count_add(C_BIO_FUA, 1);
	return 0;
}

FSB_TP(block_rq_insert)
{
	struct request *rq = (void *)ctx[0];
	__u64 key = (__u64)rq;
	struct rq_times t = { .queued = bpf_ktime_get_ns() };

	if (!rq_ours(rq))
		return 0;
	bpf_map_update_elem(&inflight, &key, &t, BPF_ANY);
	return 0;
}

FSB_TP(block_rq_issue)
{
	struct request *rq = (void *)ctx[0];
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct rq_times *p, t = {};

	if (!rq_ours(rq))
		return 0;
	count_add(C_ISSUED, 1);
	if (blk_op(BPF_CORE_READ(rq, cmd_flags)) == FSB_BLK_FLUSH)
		count_add(C_FLUSH_ISSUED, 1);
	p = bpf_map_lookup_elem(&inflight, &key);
	if (p && p->queued && !p->issued) {
		p->issued = now;
		return 0;
	}
	/* no insert seen (direct issue, or a requeue): the request's own birth time */
	t.queued = BPF_CORE_READ(rq, start_time_ns);
	if (!t.queued || t.queued > now)
		t.queued = now;
	t.issued = now;
	count_add(C_NO_INSERT, 1);
	bpf_map_update_elem(&inflight, &key, &t, BPF_ANY);
	return 0;
}

FSB_TP(block_rq_complete)
{
	struct request *rq = (void *)ctx[0];
	__u32 nr_bytes = (__u32)ctx[2];
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), queued, issued;
	struct rq_times *p;
	struct fsb_event *e;
	__u32 opf, op;

	if (!rq_ours(rq))
		return 0;
	p = bpf_map_lookup_elem(&inflight, &key);
	if (!p || !p->issued) {
		count_add(C_UNMATCHED, 1);
		return 0;
	}
	queued = p->queued;
	issued = p->issued;
	bpf_map_delete_elem(&inflight, &key);
	opf = BPF_CORE_READ(rq, cmd_flags);
	op = blk_op(opf);
	if (op >= FSB_BLK_NOPS)
		return 0;
	khist_record(op * 3 + PH_Q2I, issued - queued);
	khist_record(op * 3 + PH_I2C, now - issued);
	khist_record(op * 3 + PH_Q2C, now - queued);
	if (op == FSB_BLK_READ)
		count_add(C_READ_BYTES, nr_bytes);
	else if (op == FSB_BLK_WRITE)
		count_add(C_WRITE_BYTES, nr_bytes);
	e = ev_reserve(FSB_EV_REQ);
	if (!e)
		return 0;
	e->t0 = issued;
	e->t1 = now;
	e->sector = BPF_CORE_READ(rq, __sector);
	e->op = op;
	e->flags = rq_flags(opf);
	e->bytes = nr_bytes;
	ev_submit(e);
	return 0;
}
