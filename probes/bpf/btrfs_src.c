/* The btrfs source's names; its programs are btrfs.bpf.c. */
#include <linux/types.h>

#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "probes/bpf/btrfs_btf.skel.h"
#include "probes/bpf/btrfs_raw.skel.h"
static const void *obj_btf(size_t *ret_size)
{
	return fsb_btrfs_btf__elf_bytes(ret_size);
}

static const void *obj_raw(size_t *ret_size)
{
	return fsb_btrfs_raw__elf_bytes(ret_size);
}
#else
#define obj_btf NULL
#define obj_raw NULL
#endif

static const char *const fstypes[] = { "btrfs", NULL };

static const char *const hists[] = { "ordered_extent", NULL };

static const char *const counters[] = { "sync_files", "transaction_commits", "ordered_extents",
					"events_dropped", NULL };

const struct bpf_source bpf_src_btrfs = {
	.name = "btrfs",
	.what = "btrfs: sync_file calls, transaction commits, ordered-extent lifetimes",
	.fstypes = fstypes,
	.hists = hists,
	.counters = counters,
	.ring_bytes = FSB_RINGBUF_SMALL,
	.elf = obj_btf,
	.elf_raw = obj_raw,
};
