/* The jbd2 source's names; its programs are jbd2.bpf.c. */
#include <linux/types.h>

#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "probes/bpf/jbd2_btf.skel.h"
#include "probes/bpf/jbd2_raw.skel.h"
static const void *obj_btf(size_t *ret_size)
{
	return fsb_jbd2_btf__elf_bytes(ret_size);
}

static const void *obj_raw(size_t *ret_size)
{
	return fsb_jbd2_raw__elf_bytes(ret_size);
}
#else
#define obj_btf NULL
#define obj_raw NULL
#endif

static const char *const fstypes[] = { "ext4", "ext3", NULL };

/* locked: start until data flushing began (waiting for running handles) */
static const char *const hists[] = { "commit", "locked", "flushing", "logging", NULL };

static const char *const counters[] = { "commits", "handles", "events_dropped", NULL };

const struct bpf_source bpf_src_jbd2 = {
	.name = "jbd2",
	.what = "ext3/ext4 journal commits: time per phase, handles, flushes inside each",
	.fstypes = fstypes,
	.hists = hists,
	.counters = counters,
	.ring_bytes = FSB_RINGBUF_SMALL,
	.elf = obj_btf,
	.elf_raw = obj_raw,
};
