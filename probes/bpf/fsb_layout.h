/* Each source's counters and kernel histograms, one list for its .bpf.c and for user space. */
#ifndef FSB_LAYOUT_H
#define FSB_LAYOUT_H

/*
 * A source's "stats" element (fsb_bpf.h) holds its counters, then its histograms, in the
 * order of these lists. Each entry is X(INDEX, "name"): the .bpf.c indexes by INDEX
 * (fsb_common.bpf.h makes the enum from the list it names as FSB_COUNTERS and FSB_HISTS),
 * and sources.c names the figures in the result from the same list (COUNTERS(), HISTS()),
 * so that the two cannot disagree on the order. Every source's last counter, after its
 * list, is the ring's drop count, "events_dropped" (FSB_C_DROPS). A source whose
 * histograms user space makes from its events (bpf_source.h's ev_hists) has none here.
 * Included by BPF code and by user space: macros only.
 */

/*
 * bio_preflush: bios queued with REQ_PREFLUSH, what the filesystem asked for;
 * flush_issued: REQ_OP_FLUSH requests issued, what the device was made to do;
 * unmatched_completions: of requests not seen issued (the flush sequence's second one);
 * no_start_time: requests without rq->start_time_ns (I/O statistics off): no Q2D, Q2C.
 */
#define FSB_BLOCK_COUNTERS(X)                   \
	X(C_BIO_PREFLUSH, "bio_preflush")       \
	X(C_BIO_FUA, "bio_fua")                 \
	X(C_FLUSH_ISSUED, "flush_issued")       \
	X(C_ISSUED, "issued")                   \
	X(C_UNMATCHED, "unmatched_completions") \
	X(C_NO_START_TIME, "no_start_time")     \
	X(C_READ_BYTES, "read_bytes")           \
	X(C_WRITE_BYTES, "write_bytes")

#define FSB_JBD2_COUNTERS(X)    \
	X(C_COMMITS, "commits") \
	X(C_HANDLES, "handles")

#define FSB_XFS_COUNTERS(X)         \
	X(C_FORCES, "log_forces")   \
	X(C_ICLOGS, "iclog_writes") \
	X(C_CIL_WAITS, "cil_waits")
#define FSB_XFS_HISTS(X) X(H_ICLOG, "iclog_write")

#define FSB_BTRFS_COUNTERS(X)               \
	X(C_SYNC_FILES, "sync_files")       \
	X(C_COMMITS, "transaction_commits") \
	X(C_ORDERED, "ordered_extents")
#define FSB_BTRFS_HISTS(X) X(H_ORDERED, "ordered_extent")

#define FSB_WRITEBACK_COUNTERS(X) \
	X(C_PAUSES, "pauses")     \
	X(C_PAUSE_NS, "pause_ns") \
	X(C_WORKS, "works")
/* pause: how long balance_dirty_pages put a writer to sleep; work: one work item */
#define FSB_WRITEBACK_HISTS(X) \
	X(H_PAUSE, "pause")    \
	X(H_WORK, "work")

#endif
