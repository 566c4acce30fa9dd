/* The I/O map source: sector against time, made from the block source's request events. */
#include "probes/bpf/bpf_source.h"

/*
 * No programs of its own: a second program on block_rq_issue would cost every request
 * another invocation (about 0.4 us here) for data the block source already sends.
 */
static const char *const none[] = { NULL };

const struct bpf_source bpf_src_iomap = {
	.name = "iomap",
	.what = "I/O map: sector against time of each request on the disk (from the block source)",
	.needs_disk = true,
	.from = "block",
	.hists = none,
	.counters = none,
};
