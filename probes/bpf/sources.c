/* The ordered table of eBPF sources; adding one is its two files and a line here. */
#include "bpf_source.h"

extern const struct bpf_source bpf_src_block;
extern const struct bpf_source bpf_src_jbd2;

/* Order is the result's and --help's; block first: the others' attribution uses its flushes. */
const struct bpf_source *const bpf_sources[] = {
	&bpf_src_block,
	&bpf_src_jbd2,
	NULL,
};
