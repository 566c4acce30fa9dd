// SPDX-License-Identifier: GPL-2.0
/* Block source: per-request latency by phase and operation, flush and FUA intent, for one disk. */
/* its histograms are made from its events, in user space (sources.c's block_ev_hists) */
#define FSB_COUNTERS FSB_BLOCK_COUNTERS
#include "probes/bpf/fsb_common.bpf.h"

struct rq_slot {
	__u64 rq; /* the request's address: a slot is another request's until this matches */
	__u64 queued, issued;
};

/*
 * Issue and queue times by the request's tag, which is its slot in the hardware queue's
 * tag set from dispatch to completion: an array slot costs a bounds check where a hash
 * costs a hash and a compare per lookup. The flush request borrows the tag of the request
 * it flushes for, but never while that request is in flight; the address stored with the
 * times catches any other sharing, and such a completion counts as unmatched.
 */
#define TAGS_PER_HCTX 1024 /* BLK_MQ_MAX_DEPTH: no tag set is deeper */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FSB_INFLIGHT_MAX);
	__type(key, __u32);
	__type(value, struct rq_slot);
} inflight SEC(".maps");

static __always_inline struct rq_slot *rq_slot(struct request *rq)
{
	int tag = RD(rq, tag);
	__u32 i;

	if (tag < 0)
		return NULL;
	i = (RD(rq, mq_hctx, queue_num) * TAGS_PER_HCTX + (__u32)tag) % FSB_INFLIGHT_MAX;
	return bpf_map_lookup_elem(&inflight, &i);
}

/* Completed requests waiting for a ring record, one element per CPU (the loader sizes it). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsb_req_batch);
} staged SEC(".maps");

/*
 * The disk's request queue, once a request showed it: a disk has one for its life, so
 * from then on one pointer compare decides, where reading the queue's disk and its
 * numbers cost two more dependent loads (cache misses, as often as not) per request,
 * other disks' included.
 */
__u64 fsb_disk_q = 0;

static __always_inline bool rq_ours(struct request *rq)
{
	struct request_queue *q = RD(rq, q);

	if ((__u64)q == fsb_disk_q)
		return true;
	if (fsb_disk_q || disk_devt(RD(q, disk)) != fsb_cfg.disk_dev)
		return false;
	fsb_disk_q = (__u64)q;
	return true;
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

/* A bio's PREFLUSH and FUA: what the filesystem asked of the device. */
static __always_inline int bio_intent(struct bio *bio)
{
	__u32 f = rq_flags(RD(bio, bi_opf));
	struct fsb_stats *s;

	/* most bios carry neither flag: one read, then out */
	if (!(f & (FSB_RQ_PREFLUSH | FSB_RQ_FUA)))
		return 0;
	/* the filesystem's device (a partition, when it is one) */
	if (RD(bio, bi_bdev, bd_dev) != fsb_cfg.bdev)
		return 0;
	s = stats_here();
	if (!s)
		return 0;
	s->counters[C_BIO_PREFLUSH] += !!(f & FSB_RQ_PREFLUSH);
	s->counters[C_BIO_FUA] += !!(f & FSB_RQ_FUA);
	return 0;
}

/*
 * On a blk-mq disk, at the bio that a new request is made for: a bio with PREFLUSH or
 * FUA never merges into another's request, so every one of them passes here, and a
 * small file's nine or so bios make three requests (in the model-disk guest): a third
 * of block_bio_queue's runs. (A PREFLUSH or FUA bio larger than the queue's
 * max_sectors_kb is split into as many requests, each counted, as the device is made to
 * handle each.) The loader attaches one of the two (sources.c's block_wants).
 */
FSB_TP(block_getrq)
{
	return bio_intent((void *)ctx[0]);
}

/* On a bio-based disk (device-mapper, md), which makes no requests: every bio queued. */
FSB_TP(block_bio_queue)
{
	return bio_intent((void *)ctx[0]);
}

FSB_TP(block_rq_issue)
{
	struct request *rq = (void *)ctx[0];
	struct fsb_stats *s;
	struct rq_slot *p;
	__u64 now, queued;

	if (!rq_ours(rq))
		return 0;
	s = stats_here();
	if (!s)
		return 0;
	now = bpf_ktime_get_ns();
	s->counters[C_ISSUED]++;
	s->counters[C_FLUSH_ISSUED] += blk_op(RD(rq, cmd_flags)) == FSB_BLK_FLUSH;
	/*
	 * Queued: the request's own birth time, which the block layer stamps when I/O
	 * statistics are on (the default). block_rq_insert is skipped on direct issue, so
	 * timing it would cost a program and a table update for a partial answer.
	 */
	queued = RD(rq, start_time_ns);
	if (!queued || queued > now) {
		queued = 0;
		s->counters[C_NO_START_TIME]++;
	}
	p = rq_slot(rq);
	if (!p)
		return 0;
	p->rq = (__u64)rq;
	p->queued = queued;
	p->issued = now;
	return 0;
}

FSB_TP(block_rq_complete)
{
	struct request *rq = (void *)ctx[0];
	__u32 nr_bytes = (__u32)ctx[2];
	__u64 now, queued, issued;
	struct fsb_req_batch *b;
	struct fsb_stats *s;
	struct rq_slot *p;
	struct fsb_event *e;
	__u32 opf, op, cpu;
	__u64 i;

	if (!rq_ours(rq))
		return 0;
	s = stats_here();
	if (!s)
		return 0;
	now = bpf_ktime_get_ns();
	p = rq_slot(rq);
	if (!p || p->rq != (__u64)rq || !p->issued) {
		s->counters[C_UNMATCHED]++;
		return 0;
	}
	queued = p->queued;
	issued = p->issued;
	/* spent: the tag's next request fills the slot again */
	p->issued = 0;
	opf = RD(rq, cmd_flags);
	op = blk_op(opf);
	if (op >= FSB_BLK_NOPS)
		return 0;
	if (op == FSB_BLK_READ)
		s->counters[C_READ_BYTES] += nr_bytes;
	else if (op == FSB_BLK_WRITE)
		s->counters[C_WRITE_BYTES] += nr_bytes;
	/*
	 * Staged: this program never nests with itself on a CPU (the kernel skips a run that
	 * would), so the CPU's element has one writer.
	 */
	cpu = bpf_get_smp_processor_id();
	b = bpf_map_lookup_elem(&staged, &cpu);
	if (!b)
		return 0;
	i = b->n;
	barrier_var(i);
	if (i >= FSB_REQ_BATCH)
		i = 0;
	e = &b->ev[i];
	ev_fill(e, FSB_EV_REQ, issued, now, RD(rq, __sector), op, rq_flags(opf), nr_bytes);
	e->ph[0] = queued;
	if (i + 1 < FSB_REQ_BATCH) {
		b->n = i + 1;
		return 0;
	}
	b->n = 0;
	if (bpf_ringbuf_output(&events, b->ev, sizeof(b->ev), BPF_RB_NO_WAKEUP))
		s->counters[FSB_C_DROPS] += FSB_REQ_BATCH;
	return 0;
}
