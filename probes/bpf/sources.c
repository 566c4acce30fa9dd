/* The ordered table of eBPF sources; adding one is its two files and a line here. */
#include "probes/bpf/bpf_source.h"

extern const struct bpf_source bpf_src_block;
extern const struct bpf_source bpf_src_jbd2;
extern const struct bpf_source bpf_src_xfs;
extern const struct bpf_source bpf_src_btrfs;
extern const struct bpf_source bpf_src_writeback;
extern const struct bpf_source bpf_src_iomap;

/* The result's and --probes' order: the device first, then the filesystems, then memory. */
const struct bpf_source *const bpf_sources[] = {
	&bpf_src_block,	    &bpf_src_jbd2,  &bpf_src_xfs, &bpf_src_btrfs,
	&bpf_src_writeback, &bpf_src_iomap, NULL,
};
