/* One kernel source for eBPF attribution: a BPF object and the names of what it records. */
#ifndef PROBE_BPF_SOURCE_H
#define PROBE_BPF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A source is one <name>.bpf.c (built into a skeleton) plus one <name>_src.c holding this
 * struct. Its object must define the maps and sections of fsb_common.bpf.h: "hists"
 * (per-CPU struct fsb_khist, in @hists order), "counters" (per-CPU u64, in @counters
 * order, the last one the ring's drop count), "events" (ring buffer of struct fsb_event),
 * .rodata.cfg and .data.ctl. Each tracepoint program exists as tp_btf/ and raw_tp/; the
 * loader keeps the first set that loads.
 */
struct bpf_source {
	const char *name;
	const char *what; /* one line for --help and the README */
	/* The filesystem types it applies to (NULL-terminated), or NULL for any. */
	const char *const *fstypes;
	bool needs_disk; /* filters on the disk under test: nothing to do without one */
	bool needs_bdi; /* filters on the backing device's name */
	const char *const *hists; /* NULL-terminated; "flush.q2c" */
	const char *const *counters; /* NULL-terminated */
	/* The BPF object's ELF image (the skeleton's bytes), and its size. */
	const void *(*elf)(size_t *ret_size);
};

/* NULL-terminated, in the order they load; probes/bpf/sources.c. */
extern const struct bpf_source *const bpf_sources[];

#endif
