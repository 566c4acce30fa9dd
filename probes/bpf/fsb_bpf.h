/* What the BPF programs and their user-space loaders share: event record, histogram, limits. */
#ifndef FSB_BPF_H
#define FSB_BPF_H

/*
 * Included by BPF code (after vmlinux.h, which defines __u64) and by user space (after
 * <linux/types.h>). Nothing here may depend on either side's headers beyond those.
 */

/*
 * Kernel histograms use model/hist.h's layout (HIST_SUB_BITS 6, HIST_MAX_EXP 42:
 * (42 - 6 + 1) * 64 = 2368 buckets), so compare and report read them like syscall ones;
 * probes/bpf/bpf_json.c checks the equality at compile time. One histogram is
 * 5 * 8 + 2368 * 8 = 18984 bytes; a source's all sit in one plain array element per CPU
 * (below), which has no per-CPU map value's 32 KiB limit.
 */
#define FSB_KH_SUB_BITS 6
#define FSB_KH_SUB_COUNT 64
#define FSB_KH_MAX_EXP 42
#define FSB_KH_NBINS ((FSB_KH_MAX_EXP - FSB_KH_SUB_BITS + 1) * FSB_KH_SUB_COUNT)

/*
 * hist_index() of model/hist.h without __builtin_clzll, which clang 14 cannot lower for
 * BPF: the top bit by binary search. tests/unit/test-bpf.c checks both agree.
 */
static inline __u32 fsb_khist_index(__u64 ns)
{
	__u32 e = 0;
	__u64 v = ns;

	if (ns < FSB_KH_SUB_COUNT)
		return (__u32)ns;
	if (v >> 32) {
		v >>= 32;
		e += 32;
	}
	if (v >> 16) {
		v >>= 16;
		e += 16;
	}
	if (v >> 8) {
		v >>= 8;
		e += 8;
	}
	if (v >> 4) {
		v >>= 4;
		e += 4;
	}
	if (v >> 2) {
		v >>= 2;
		e += 2;
	}
	if (v >> 1)
		e += 1;
	return ((e - FSB_KH_SUB_BITS + 1) << FSB_KH_SUB_BITS) +
	       (__u32)((ns >> (e - FSB_KH_SUB_BITS)) & (FSB_KH_SUB_COUNT - 1));
}

/* A kernel histogram's exact figures; its FSB_KH_NBINS bins lie elsewhere (below). */
struct fsb_khist_head {
	__u64 count;
	__u64 sum;
	__u64 min; /* valid when count > 0 */
	__u64 max;
	__u64 overflow; /* values >= 2^FSB_KH_MAX_EXP ns */
};

/*
 * A source's figures on one CPU, element <cpu> of its "stats" array (so the programs need
 * no atomics; user space adds the CPUs' copies together): its @nc counters, the heads of
 * its @nh histograms, then each histogram's bins. One array lookup per program run finds
 * them all, where a per-CPU map per histogram and per counter cost a helper call each
 * (6.1 does not inline per-CPU lookups), and what every request touches (the counters and
 * the heads) shares a few cache lines instead of one page per histogram.
 */
#define FSB_STATS_HEADS_OFF(nc) (8u * (nc))
#define FSB_STATS_BINS_OFF(nc, nh) (FSB_STATS_HEADS_OFF(nc) + 40u * (nh))
#define FSB_STATS_SIZE(nc, nh) (FSB_STATS_BINS_OFF(nc, nh) + 8u * FSB_KH_NBINS * (nh))

/* What an event record describes; user space attributes these to slow calls. */
enum fsb_ev_kind {
	FSB_EV_REQ = 1, /* a block request on the device: t0 issue, t1 completion */
	FSB_EV_COMMIT, /* a jbd2 commit: t0 start, t1 end, ph[] phase ends */
	FSB_EV_XFS_FORCE, /* an xfs log force (t0 = t1: the tracepoint marks its start) */
	FSB_EV_XFS_ICLOG, /* an xfs iclog write: t0 sync, t1 sync_done */
	FSB_EV_XFS_CIL_WAIT, /* a task throttled on the CIL (t0 = t1) */
	FSB_EV_BTRFS_COMMIT, /* a btrfs transaction commit ended (t0 = t1) */
	FSB_EV_BTRFS_SYNC, /* btrfs_sync_file entered (t0 = t1) */
	FSB_EV_BTRFS_ORDERED, /* an ordered extent: t0 added, t1 removed */
	FSB_EV_THROTTLE, /* balance_dirty_pages paused a writer: t0 start, t1 = t0 + pause */
	FSB_EV_WB, /* a writeback work item: t0 start, t1 written */
	FSB_EV_KIND_MAX
};

/* Block operations the histograms separate (REQ_OP_* of the request). */
enum fsb_blk_op { FSB_BLK_READ, FSB_BLK_WRITE, FSB_BLK_FLUSH, FSB_BLK_DISCARD, FSB_BLK_NOPS };

/* Request flags carried in events (ours, not the kernel's bit numbers). */
#define FSB_RQ_FUA 1u
#define FSB_RQ_PREFLUSH 2u
#define FSB_RQ_SYNC 4u
#define FSB_RQ_META 8u

/* 64 bytes: a 4 MiB ring holds 65536 events between two drains. */
struct fsb_event {
	__u64 t0, t1; /* CLOCK_MONOTONIC ns, as fsbench's own clock */
	__u64 sector; /* REQ: first sector; COMMIT: tid; ORDERED: bytes */
	/* COMMIT: when locking, flushing and logging began (0: not seen); REQ: ph[0] queued */
	__u64 ph[3];
	__u32 kind; /* enum fsb_ev_kind */
	__u32 op; /* REQ: enum fsb_blk_op */
	__u32 flags; /* REQ: FSB_RQ_*; FORCE/SYNC/THROTTLE: pid */
	__u32 bytes; /* REQ: bytes; COMMIT: handles */
};

/*
 * The block source's completions, staged per CPU and sent to the ring FSB_REQ_BATCH at a
 * time: a ring record takes the ring's lock and bounces its lines between CPUs (about
 * 130 ns a record on the host), which the stage's own lines do not. fsbench reads what is
 * left staged once the programs are detached (bpf_session.c's flush_staged).
 */
#define FSB_REQ_BATCH 8
struct fsb_req_batch {
	__u64 n; /* staged events in ev[] */
	struct fsb_event ev[FSB_REQ_BATCH];
};

/*
 * What a source is told before it loads (the .rodata.cfg section, set by the generic
 * loader). Device numbers are the kernel's dev_t: major << 20 | minor.
 */
struct fsb_bpf_cfg {
	__u32 disk_dev; /* the whole disk under test (block requests carry the disk) */
	__u32 bdev; /* the filesystem's block device (jbd2's j_fs_dev) */
	__u32 sdev; /* the superblock's s_dev (differs from bdev on btrfs) */
	char bdi[32]; /* the backing_dev_info's name: "7:3", "btrfs-2" */
	/*
	 * Facts about the running kernel a source's prepare step looks up (0 elsewhere):
	 * writeback's HZ (its pauses are in jiffies) and the index of balance_dirty_pages'
	 * pause argument, which moved when the tracepoint's arguments changed.
	 */
	__u32 hz;
	__u32 bdp_pause_arg;
	/* The disk under test is blk-mq (/sys/dev/block/M:m/mq): it makes requests of bios. */
	__u32 disk_mq;
};

/* balance_dirty_pages(wb, thresh, ..., period, pause, start_time): up to 6.12 */
#define FSB_BDP_PAUSE_ARG_OLD 10
/* balance_dirty_pages(wb, dtc, ..., period, pause, start_time): later kernels (6.18) */
#define FSB_BDP_PAUSE_ARG_NEW 6

/*
 * The block source's ring: five or so requests per small file, drained every 20 ms, need
 * a few hundred KiB at 10000 files/s; 4 MiB leaves room for a device 10 times faster.
 * The others (a commit or a log force per fsync) keep FSB_RINGBUF_SMALL.
 */
#define FSB_RINGBUF_BYTES (4u << 20)
#define FSB_RINGBUF_SMALL (256u << 10)
/* Requests in flight tracked at once: more than any disk's tag set. */
#define FSB_INFLIGHT_MAX 16384

#endif
