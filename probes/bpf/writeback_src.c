/* The writeback source's names; its programs are writeback.bpf.c. */
#include <linux/types.h>

#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "probes/bpf/writeback_btf.skel.h"
#include "probes/bpf/writeback_raw.skel.h"
static const void *obj_btf(size_t *ret_size)
{
	return fsb_writeback_btf__elf_bytes(ret_size);
}

static const void *obj_raw(size_t *ret_size)
{
	return fsb_writeback_raw__elf_bytes(ret_size);
}
#else
#define obj_btf NULL
#define obj_raw NULL
#endif

/* pause: how long balance_dirty_pages put a writer to sleep; work: one writeback work item */
static const char *const hists[] = { "pause", "work", NULL };

static const char *const counters[] = { "pauses", "pause_ns", "works", "events_dropped", NULL };

const struct bpf_source bpf_src_writeback = {
	.name = "writeback",
	.what = "writeback: balance_dirty_pages pauses of writers, writeback work items",
	.needs_bdi = true,
	.hists = hists,
	.counters = counters,
	.ring_bytes = FSB_RINGBUF_SMALL,
	.elf = obj_btf,
	.elf_raw = obj_raw,
};
