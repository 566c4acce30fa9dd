/* The eBPF sources, in order: names, what each records, its objects; adding one is an entry here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "model/hist.h"

#include "probes/bpf/bpf_load.h"
#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

/*
 * Each <name>.bpf.c is built twice (meson's bpf_source_names): with tp_btf programs and
 * with raw_tp ones, each into a skeleton embedding the object. FSB_OBJECTS(name) defines
 * the two accessors and FSB_ELF(name) names them in an entry (NULL without BPF support).
 */
#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "probes/bpf/block_btf.skel.h"
#include "probes/bpf/block_raw.skel.h"
#include "probes/bpf/jbd2_btf.skel.h"
#include "probes/bpf/jbd2_raw.skel.h"
#include "probes/bpf/xfs_btf.skel.h"
#include "probes/bpf/xfs_raw.skel.h"
#include "probes/bpf/btrfs_btf.skel.h"
#include "probes/bpf/btrfs_raw.skel.h"
#include "probes/bpf/writeback_btf.skel.h"
#include "probes/bpf/writeback_raw.skel.h"
#define FSB_OBJECTS(n)                                     \
	static const void *obj_##n##_btf(size_t *ret_size) \
	{                                                  \
		return fsb_##n##_btf__elf_bytes(ret_size); \
	}                                                  \
	static const void *obj_##n##_raw(size_t *ret_size) \
	{                                                  \
		return fsb_##n##_raw__elf_bytes(ret_size); \
	}
#define FSB_ELF(n) .elf = obj_##n##_btf, .elf_raw = obj_##n##_raw
#else
#define FSB_OBJECTS(n)
#define FSB_ELF(n) .elf = NULL, .elf_raw = NULL
#endif

/* A NULL-terminated list of names, in the order of the .bpf.c's enum. */
#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

FSB_OBJECTS(block)
FSB_OBJECTS(jbd2)
FSB_OBJECTS(xfs)
FSB_OBJECTS(btrfs)
FSB_OBJECTS(writeback)

/*
 * balance_dirty_pages gives its pause in jiffies, and its arguments changed after 6.12
 * (the thresholds gave way to the dirty_throttle_control): the loader finds HZ and where
 * the pause argument is, the second-to-last either way. Without either the source still
 * loads (its work items need neither) and the note says pauses are not recorded: so
 * that a user without privilege is told that, not that HZ was unknown.
 */
static int writeback_prepare(struct fsb_bpf_cfg *cfg, char *note, size_t len)
{
	char why[160];
	int hz = bpf_load_kernel_hz(why, sizeof(why));
	int n = bpf_load_tp_nargs("balance_dirty_pages");

	if (hz < 0) {
		snprintf(note, len, "pauses not recorded: %s", why);
		return 0;
	}
	if (n < 0) {
		snprintf(note, len,
			 "pauses not recorded: no balance_dirty_pages prototype in the kernel's "
			 "BTF: %s",
			 strerror(-n));
		return 0;
	}
	if (n - 2 != FSB_BDP_PAUSE_ARG_OLD && n - 2 != FSB_BDP_PAUSE_ARG_NEW) {
		snprintf(note, len,
			 "pauses not recorded: balance_dirty_pages has %d arguments, a layout "
			 "this fsbench does not know",
			 n);
		return 0;
	}
	cfg->hz = (__u32)hz;
	cfg->bdp_pause_arg = (__u32)(n - 2);
	snprintf(note, len, "HZ %d; balance_dirty_pages has %d arguments, its pause is argument %d",
		 hz, n, n - 2);
	return 0;
}

/*
 * PREFLUSH and FUA are counted at block_getrq on a blk-mq disk (one run per request) and
 * at block_bio_queue on a bio-based one (one per bio, three times as many on ext4's small
 * files): only one of the two runs.
 */
static bool block_wants(const struct fsb_bpf_cfg *cfg, const char *prog)
{
	if (!strcmp(prog, "fsb_block_getrq"))
		return cfg->disk_mq;
	if (!strcmp(prog, "fsb_block_bio_queue"))
		return !cfg->disk_mq;
	return true;
}

/*
 * Per request, from its queued (ph[0], 0: unknown), issued (t0) and completed (t1) times:
 * what block_rq_complete recorded in the kernel before, the same differences of the same
 * readings, for each operation in .hists' order (q2d, d2c, q2c).
 */
static void block_ev_hists(const struct fsb_event *e, struct hist *hists)
{
	struct hist *h;

	if (e->kind != FSB_EV_REQ || e->op >= FSB_BLK_NOPS)
		return;
	h = &hists[e->op * 3];
	hist_record(&h[1], e->t1 - e->t0);
	if (e->ph[0]) {
		hist_record(&h[0], e->t0 - e->ph[0]);
		hist_record(&h[2], e->t1 - e->ph[0]);
	}
}

static const struct bpf_source block = {
	.name = "block",
	.what = "block requests on the disk under test: latency per phase and operation, flushes, FUA",
	.needs_disk = true,
	/* btt's names: Q queued, D issued to the driver, C completed */
	.hists = NAMES("read.q2d", "read.d2c", "read.q2c", "write.q2d", "write.d2c", "write.q2c",
		       "flush.q2d", "flush.d2c", "flush.q2c", "discard.q2d", "discard.d2c",
		       "discard.q2c"),
	.counters = NAMES("bio_preflush", "bio_fua", "flush_issued", "issued",
			  "unmatched_completions", "no_start_time", "read_bytes", "write_bytes",
			  "events_dropped"),
	.wants = block_wants,
	.ev_hists = block_ev_hists,
	FSB_ELF(block),
};

/* Per commit: its duration, and its phases when the flushing and logging ones were seen. */
static void jbd2_ev_hists(const struct fsb_event *e, struct hist *hists)
{
	if (e->kind != FSB_EV_COMMIT)
		return;
	hist_record(&hists[0], e->t1 - e->t0);
	if (e->ph[1] && e->ph[2]) {
		hist_record(&hists[1], e->ph[1] - e->t0);
		hist_record(&hists[2], e->ph[2] - e->ph[1]);
		hist_record(&hists[3], e->t1 - e->ph[2]);
	}
}

static const struct bpf_source jbd2 = {
	.name = "jbd2",
	.what = "ext3/ext4 journal commits: time per phase, handles, flushes inside each",
	.fstypes = NAMES("ext4", "ext3"),
	/* locked: start until data flushing began (waiting for running handles) */
	.hists = NAMES("commit", "locked", "flushing", "logging"),
	.counters = NAMES("commits", "handles", "events_dropped"),
	.ring_bytes = FSB_RINGBUF_SMALL,
	.ev_hists = jbd2_ev_hists,
	FSB_ELF(jbd2),
};

static const struct bpf_source xfs = {
	.name = "xfs",
	.what = "xfs log: log forces, iclog writes (sync to sync_done), CIL throttling",
	.fstypes = NAMES("xfs"),
	.hists = NAMES("iclog_write"),
	.counters = NAMES("log_forces", "iclog_writes", "cil_waits", "events_dropped"),
	.ring_bytes = FSB_RINGBUF_SMALL,
	FSB_ELF(xfs),
};

static const struct bpf_source btrfs = {
	.name = "btrfs",
	.what = "btrfs: sync_file calls, transaction commits, ordered-extent lifetimes",
	.fstypes = NAMES("btrfs"),
	.hists = NAMES("ordered_extent"),
	.counters = NAMES("sync_files", "transaction_commits", "ordered_extents", "events_dropped"),
	.ring_bytes = FSB_RINGBUF_SMALL,
	FSB_ELF(btrfs),
};

static const struct bpf_source writeback = {
	.name = "writeback",
	.what = "writeback: balance_dirty_pages pauses of writers, writeback work items",
	.needs_bdi = true,
	/* pause: how long balance_dirty_pages put a writer to sleep; work: one work item */
	.hists = NAMES("pause", "work"),
	.counters = NAMES("pauses", "pause_ns", "works", "events_dropped"),
	.ring_bytes = FSB_RINGBUF_SMALL,
	.prepare = writeback_prepare,
	FSB_ELF(writeback),
};

/*
 * No programs of its own: a second program on block_rq_issue would cost every request
 * another invocation (about 0.4 us here) for data the block source already sends.
 */
static const struct bpf_source iomap = {
	.name = "iomap",
	.what = "I/O map: sector against time of each request on the disk (from the block source)",
	.needs_disk = true,
	.from = "block",
	.hists = NAMES(NULL),
	.counters = NAMES(NULL),
};

/* The result's and --probes' order: the device first, then the filesystems, then memory. */
const struct bpf_source *const bpf_sources[] = {
	&block, &jbd2, &xfs, &btrfs, &writeback, &iomap, NULL,
};
