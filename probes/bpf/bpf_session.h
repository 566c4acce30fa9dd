/*
 * One run's eBPF session state, shared by bpf_session.c (load, arm, drain, stop) and
 * bpf_json.c (the result's "probes" object, slow-call attribution). Private to probes/bpf/.
 */
#ifndef PROBE_BPF_SESSION_H
#define PROBE_BPF_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"
#include "probes/bpf/probe_bpf.h"

struct hist;

#ifdef FSB_HAVE_BPF
struct bpf_link;
struct bpf_object;
struct ring_buffer;
#endif

/*
 * Events kept for attribution: 131072 x 64 bytes = 8 MiB, which holds about 25 s of a
 * small-file run at 5000 files/s (five events per file). A slow call whose window starts
 * before the oldest kept event is marked incomplete, never silently short.
 */
#define STORE_CAP 131072u
/* I/O map points kept; past this, every other point is dropped and the stride doubles. */
#define IOMAP_CAP 16384u

struct iomap_point {
	uint64_t t;
	uint64_t sector;
	uint32_t bytes;
	uint32_t op;
};

struct src_state {
	const struct bpf_source *src;
	struct probe_bpf *owner;
	/* with the source's ev_hists: its histograms, made by the consumer from the events */
	struct hist *hists;
	/* "ok" or "skipped: ...", with the verifier's first error line per refused program */
	char status[1024];
#ifdef FSB_HAVE_BPF
	struct bpf_object *obj;
	struct bpf_link *links[32];
	int nlinks;
	int ctl_fd; /* .data.ctl: fsb_armed alone; -1 when not loaded */
#endif
	bool raw_tp; /* the raw_tp build loaded, the tp_btf one was refused (or not tried) */
	/*
	 * What each program cost, read as the run stops: the kernel counts runs and their
	 * time only while kernel.bpf_stats_enabled is 1 (0 runs: it was not).
	 */
	int nprogs;
	struct prog_cost {
		char name[32];
		uint64_t runs, run_ns;
	} progs[32];
	/* what the source's prepare step learned of the kernel, why tp_btf was refused */
	char note[512];
};

struct probe_bpf {
	struct probe_bpf_target target;
	int nsrc;
	struct src_state src[32];
	const uint64_t *arm_when;
	/* set by the consumer thread (a poll of arm_when) or the runner's thread (probe_bpf_arm) */
	atomic_bool armed;
	bool stopped;
	/*
	 * FSBENCH_BPF_DISARMED=1: loaded and attached, fsb_armed never set, so every program
	 * returns at its first branch; a benchmark's floor (docs/cost.md), never a measured run.
	 */
	bool disarmed;
#ifdef FSB_HAVE_BPF
	struct ring_buffer *rb;
#endif
	pthread_t consumer;
	bool consumer_started;
	atomic_int stop;
	/* written by the consumer only; read after it is joined */
	struct fsb_event *store;
	uint64_t stored; /* events ever stored; store[stored % STORE_CAP] is next */
	uint64_t overwritten_t1; /* latest end among events the store overwrote */
	uint64_t received[FSB_EV_KIND_MAX];
	struct iomap_point *iomap;
	bool iomap_on; /* the iomap source is ok: block's request events feed the map */
	uint32_t iomap_n, iomap_stride;
	uint64_t iomap_seen;
};

#endif
