/* The eBPF sources: what each records, the names of its figures, its hooks, its objects. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "model/hist.h"

#include "probes/bpf/bpf_load.h"
#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"
#include "probes/bpf/fsb_layout.h"

/*
 * Each <name>.bpf.c is built twice (probes/bpf/meson.build): with tp_btf programs and
 * with raw_tp ones, each into a skeleton embedding the object. The header meson makes
 * from its bpf_sources list includes the skeletons and puts FSB_OBJECTS(name) for each,
 * the two accessors that BPF_SOURCE(name) names in its entry; for a source without a
 * .bpf.c, or a build without BPF support, it defines them as NULL. It also lists the
 * sources in the table's order, BPF_SOURCE_LIST, which makes bpf_sources[] below.
 */
#define FSB_OBJECTS(n)                                     \
	static const void *obj_##n##_btf(size_t *ret_size) \
	{                                                  \
		return fsb_##n##_btf__elf_bytes(ret_size); \
	}                                                  \
	static const void *obj_##n##_raw(size_t *ret_size) \
	{                                                  \
		return fsb_##n##_raw__elf_bytes(ret_size); \
	}
#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#endif
#include "probes/bpf/bpf_sources.h"

/* An entry's name and objects: its line in meson's bpf_sources names the rest. */
#define BPF_SOURCE(n) .name = #n, .elf = obj_##n##_btf, .elf_raw = obj_##n##_raw

/* A NULL-terminated list of names. */
#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })
/* The names of a list of fsb_layout.h, in its order; the counters' with the ring's drops. */
#define LAYOUT_NAME(id, name) name,
#define COUNTERS(list) ((const char *const[]){ list(LAYOUT_NAME) "events_dropped", NULL })
#define HISTS(list) ((const char *const[]){ list(LAYOUT_NAME) NULL })

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
	BPF_SOURCE(block),
	.what = "block requests on the disk under test: latency per phase and operation, flushes, FUA",
	.needs_disk = true,
	/* btt's names: Q queued, D issued to the driver, C completed */
	.hists = NAMES("read.q2d", "read.d2c", "read.q2c", "write.q2d", "write.d2c", "write.q2c",
		       "flush.q2d", "flush.d2c", "flush.q2c", "discard.q2d", "discard.d2c",
		       "discard.q2c"),
	.counters = COUNTERS(FSB_BLOCK_COUNTERS),
	.wants = block_wants,
	.ev_hists = block_ev_hists,
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
	BPF_SOURCE(jbd2),
	.what = "ext3/ext4 journal commits: time per phase, handles, flushes inside each",
	.fstypes = NAMES("ext4", "ext3"),
	/* locked: start until data flushing began (waiting for running handles) */
	.hists = NAMES("commit", "locked", "flushing", "logging"),
	.counters = COUNTERS(FSB_JBD2_COUNTERS),
	.ring_bytes = FSB_RINGBUF_SMALL,
	.ev_hists = jbd2_ev_hists,
};

static const struct bpf_source xfs = {
	BPF_SOURCE(xfs),
	.what = "xfs log: log forces, iclog writes (sync to sync_done), CIL throttling",
	.fstypes = NAMES("xfs"),
	.hists = HISTS(FSB_XFS_HISTS),
	.counters = COUNTERS(FSB_XFS_COUNTERS),
	.ring_bytes = FSB_RINGBUF_SMALL,
};

static const struct bpf_source btrfs = {
	BPF_SOURCE(btrfs),
	.what = "btrfs: sync_file calls, transaction commits, ordered-extent lifetimes",
	.fstypes = NAMES("btrfs"),
	.hists = HISTS(FSB_BTRFS_HISTS),
	.counters = COUNTERS(FSB_BTRFS_COUNTERS),
	.ring_bytes = FSB_RINGBUF_SMALL,
};

static const struct bpf_source writeback = {
	BPF_SOURCE(writeback),
	.what = "writeback: balance_dirty_pages pauses of writers, writeback work items",
	.needs_bdi = true,
	.hists = HISTS(FSB_WRITEBACK_HISTS),
	.counters = COUNTERS(FSB_WRITEBACK_COUNTERS),
	.ring_bytes = FSB_RINGBUF_SMALL,
	.prepare = writeback_prepare,
};

/*
 * No programs of its own: a second program on block_rq_issue would cost every request
 * another invocation (about 0.4 us here) for data the block source already sends.
 */
static const struct bpf_source iomap = {
	BPF_SOURCE(iomap),
	.what = "I/O map: sector against time of each request on the disk (from the block source)",
	.needs_disk = true,
	.from = "block",
	.hists = NAMES(NULL),
	.counters = NAMES(NULL),
};

/* In meson's bpf_sources order (the result's and --probes'). */
#define SOURCE_ADDRESS(n) &n,
const struct bpf_source *const bpf_sources[] = { BPF_SOURCE_LIST(SOURCE_ADDRESS) NULL };
