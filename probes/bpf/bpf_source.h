/* One kernel source for eBPF attribution: a BPF object and the names of what it records. */
#ifndef PROBE_BPF_SOURCE_H
#define PROBE_BPF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct fsb_bpf_cfg;
struct fsb_event;
struct hist;

/*
 * A source is one <name>.bpf.c (built into skeletons), its line in probes/bpf/meson.build's
 * bpf_sources, and its entry in sources.c holding this struct. Its object must define the
 * maps and sections of fsb_common.bpf.h: "stats" (an array of one element per CPU in
 * fsb_bpf.h's layout: the counters in @counters order, the last one the ring's drop count,
 * then the histograms in @hists order, none with @ev_hists; both orders are the lists of
 * fsb_layout.h, which the .bpf.c indexes by), "events" (ring buffer of struct fsb_event),
 * .rodata.cfg and .data.ctl. The object is built twice: with tp_btf programs (@elf) and,
 * for kernels without them, with raw_tp programs (@elf_raw); the first that loads is used.
 */
struct bpf_source {
	const char *name;
	const char *what; /* one line for --help and the README */
	/* The filesystem types it applies to (NULL-terminated), or NULL for any. */
	const char *const *fstypes;
	bool needs_disk; /* filters on the disk under test: nothing to do without one */
	bool needs_bdi; /* filters on the backing device's name */
	/* Its event ring in bytes (a power of two, pages); 0: FSB_RINGBUF_BYTES, for block. */
	unsigned ring_bytes;
	const char *const *hists; /* NULL-terminated; "flush.q2c" */
	const char *const *counters; /* NULL-terminated */
	/* The BPF objects' ELF images (the skeletons' bytes), and their sizes. */
	const void *(*elf)(size_t *ret_size);
	const void *(*elf_raw)(size_t *ret_size);
	/* Or no object: made from the events of this source (listed before it). */
	const char *from;
	/*
	 * Optional, before loading: fills what @cfg must say of the running kernel for this
	 * source (a tracepoint's argument layout, HZ). 0, with @note saying what it found
	 * ("" for nothing worth saying), or -errno with @note saying why the source cannot
	 * run here.
	 */
	int (*prepare)(struct fsb_bpf_cfg *cfg, char *note, size_t len);
	/*
	 * Optional: whether program @prog (its function name) is loaded and attached for the
	 * target @cfg describes, when two programs give the same figure at different costs.
	 * NULL: every program.
	 */
	bool (*wants)(const struct fsb_bpf_cfg *cfg, const char *prog);
	/*
	 * Optional: records event @e into the source's histograms @hists (in @hists order),
	 * when every figure of them is a difference of times the event carries. Then user
	 * space makes them, as it receives the events, and the kernel records none (its
	 * "stats" element holds the counters alone): a program run does not pay for them.
	 */
	void (*ev_hists)(const struct fsb_event *e, struct hist *hists);
};

/* How many names a NULL-terminated list holds (0 for NULL): a source's hists or counters. */
static inline unsigned bpf_names_count(const char *const *names)
{
	unsigned n = 0;

	while (names && names[n])
		n++;
	return n;
}

/* NULL-terminated, in the order they load; probes/bpf/sources.c. */
extern const struct bpf_source *const bpf_sources[];

#endif
