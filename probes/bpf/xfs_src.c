/* The xfs source's names; its programs are xfs.bpf.c. */
#include <linux/types.h>

#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "probes/bpf/xfs_btf.skel.h"
#include "probes/bpf/xfs_raw.skel.h"
static const void *obj_btf(size_t *ret_size)
{
	return fsb_xfs_btf__elf_bytes(ret_size);
}

static const void *obj_raw(size_t *ret_size)
{
	return fsb_xfs_raw__elf_bytes(ret_size);
}
#else
#define obj_btf NULL
#define obj_raw NULL
#endif

static const char *const fstypes[] = { "xfs", NULL };

static const char *const hists[] = { "iclog_write", NULL };

static const char *const counters[] = { "log_forces", "iclog_writes", "cil_waits", "events_dropped",
					NULL };

const struct bpf_source bpf_src_xfs = {
	.name = "xfs",
	.what = "xfs log: log forces, iclog writes (sync to sync_done), CIL throttling",
	.fstypes = fstypes,
	.hists = hists,
	.counters = counters,
	.ring_bytes = FSB_RINGBUF_SMALL,
	.elf = obj_btf,
	.elf_raw = obj_raw,
};
