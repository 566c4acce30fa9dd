/* The block source's names; its programs are block.bpf.c. */
#include <linux/types.h>

#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "probes/bpf/block_btf.skel.h"
#include "probes/bpf/block_raw.skel.h"
static const void *obj_btf(size_t *ret_size)
{
	return fsb_block_btf__elf_bytes(ret_size);
}

static const void *obj_raw(size_t *ret_size)
{
	return fsb_block_raw__elf_bytes(ret_size);
}
#else
#define obj_btf NULL
#define obj_raw NULL
#endif

/* btt's names: Q queued, D issued to the driver, C completed; block.bpf.c's order */
static const char *const hists[] = {
	"read.q2d",    "read.d2c",    "read.q2c",  "write.q2d", "write.d2c",
	"write.q2c",   "flush.q2d",   "flush.d2c", "flush.q2c", "discard.q2d",
	"discard.d2c", "discard.q2c", NULL,
};

static const char *const counters[] = {
	"bio_preflush",	 "bio_fua",    "flush_issued", "issued",	 "unmatched_completions",
	"no_start_time", "read_bytes", "write_bytes",  "events_dropped", NULL,
};

const struct bpf_source bpf_src_block = {
	.name = "block",
	.what = "block requests on the disk under test: latency per phase and operation, flushes, FUA",
	.needs_disk = true,
	.hists = hists,
	.counters = counters,
	.elf = obj_btf,
	.elf_raw = obj_raw,
};
