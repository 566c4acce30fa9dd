/* The iomap source's names; its programs are iomap.bpf.c. */
#include "bpf_source.h"

#ifdef FSB_HAVE_BPF
/* the skeleton embeds the object as one long string literal */
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include <linux/types.h>
#include "fsb_bpf.h"
#include "iomap.skel.h"
static const void *elf(size_t *ret_size)
{
	return fsb_iomap__elf_bytes(ret_size);
}
#else
#define elf NULL
#endif

/* the I/O map is the result's probes.iomap table, built from this source's events */
static const char *const hists[] = { NULL };

static const char *const counters[] = { "issued", "events_dropped", NULL };

const struct bpf_source bpf_src_iomap = {
	.name = "iomap",
	.what = "I/O map: sector against time of each request issued to the disk",
	.needs_disk = true,
	.hists = hists,
	.counters = counters,
	.elf = elf,
};
