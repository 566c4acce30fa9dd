/* What a session saw, as JSON: the result's "probes" object and a slow call's attribution. */
#include "probes/bpf/probe_bpf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "model/hist.h"
#include "model/hist_json.h"

#include "probes/bpf/bpf_session.h"
#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

#ifdef FSB_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

_Static_assert(FSB_KH_NBINS == HIST_NBINS, "kernel histograms must use model/hist.h's layout");
_Static_assert(FSB_KH_SUB_BITS == HIST_SUB_BITS,
	       "kernel histograms must use model/hist.h's layout");
_Static_assert(FSB_KH_MAX_EXP == HIST_MAX_EXP, "kernel histograms must use model/hist.h's layout");

/* Commits listed per slow call, the last ones; all are counted in commits_total. */
#define ATTR_MAX_COMMITS 8

static const char *const blk_ops[FSB_BLK_NOPS] = { "read", "write", "flush", "discard" };

#ifdef FSB_HAVE_BPF

/* Adds one CPU's figures @v (fsb_bpf.h's layout) into @counters[@nc] and @hists[@nh]. */
static void stats_add(const unsigned char *v, unsigned nc, unsigned nh, uint64_t *counters,
		      struct hist *hists)
{
	const uint64_t *c = (const void *)v;
	const struct fsb_khist_head *head = (const void *)(v + FSB_STATS_HEADS_OFF(nc));
	const uint64_t *bins = (const void *)(v + FSB_STATS_BINS_OFF(nc, nh));

	for (unsigned i = 0; i < nc; i++)
		counters[i] += c[i];
	for (unsigned h = 0; h < nh; h++) {
		struct hist *ret = &hists[h];

		if (!head[h].count)
			continue;
		if (head[h].min < ret->min)
			ret->min = head[h].min;
		if (head[h].max > ret->max)
			ret->max = head[h].max;
		ret->count += head[h].count;
		ret->sum += head[h].sum;
		ret->overflow += head[h].overflow;
		for (unsigned i = 0; i < HIST_NBINS; i++)
			ret->bins[i] += bins[(size_t)h * HIST_NBINS + i];
	}
}

/*
 * Every CPU's figures of @s added together: its @nc counters into @ret_counters and its
 * @nh histograms into @ret_hists (both cleared first). 0 or -errno.
 */
static int read_stats(const struct src_state *s, unsigned nc, unsigned nh, uint64_t *ret_counters,
		      struct hist *ret_hists)
{
	/* a source made from another's events (iomap) has no object */
	struct bpf_map *m = s->obj ? bpf_object__find_map_by_name(s->obj, "stats") : NULL;
	size_t size = FSB_STATS_SIZE(nc, nh);
	int ncpu = libbpf_num_possible_cpus(), r = 0;
	unsigned char *v;

	memset(ret_counters, 0, nc * sizeof(*ret_counters));
	for (unsigned h = 0; h < nh; h++)
		hist_init(&ret_hists[h]);
	if (!m || bpf_map__value_size(m) != size)
		return -EINVAL;
	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -ENOENT;
	v = malloc(size);
	if (!v)
		return -ENOMEM;
	for (__u32 cpu = 0; cpu < (__u32)ncpu && r == 0; cpu++) {
		if (bpf_map_lookup_elem(bpf_map__fd(m), &cpu, v) < 0)
			r = -errno;
		else
			stats_add(v, nc, nh, ret_counters, ret_hists);
	}
	free(v);
	/* BPF has no floating point: the sum of squares (stddev) comes from bin midpoints */
	for (unsigned h = 0; h < nh && r == 0; h++) {
		struct hist *ret = &ret_hists[h];

		for (unsigned i = 0; i < HIST_NBINS; i++) {
			uint64_t lo, hi;
			double mid;

			if (!ret->bins[i])
				continue;
			hist_bin_bounds(i, &lo, &hi);
			mid = ((double)lo + (double)hi) / 2;
			ret->sumsq += mid * mid * (double)ret->bins[i];
		}
	}
	return r;
}

#else /* !FSB_HAVE_BPF */

static int read_stats(const struct src_state *s, unsigned nc, unsigned nh, uint64_t *ret_counters,
		      struct hist *ret_hists)
{
	(void)s;
	memset(ret_counters, 0, nc * sizeof(*ret_counters));
	for (unsigned h = 0; h < nh; h++)
		hist_init(&ret_hists[h]);
	return -ENOTSUP;
}

#endif

/* Each program's runs and run time into @o's "programs", when the kernel counted them. */
static void progs_json(json_t *o, const struct src_state *s)
{
	json_t *progs = json_object();

	for (int i = 0; i < s->nprogs; i++)
		if (s->progs[i].runs)
			json_object_set_new(progs, s->progs[i].name,
					    json_pack("{s:I,s:I}", "runs",
						      (json_int_t)s->progs[i].runs, "run_ns",
						      (json_int_t)s->progs[i].run_ns));
	/* only when the kernel counted them (kernel.bpf_stats_enabled) */
	if (json_object_size(progs))
		json_object_set_new(o, "programs", progs);
	else
		json_decref(progs);
}

static json_t *source_json(const struct src_state *s)
{
	json_t *o = json_object(), *hists, *counters;
	unsigned nc, nh;
	struct hist *h;
	uint64_t *c;
	bool disarmed = !strcmp(s->status, PROBE_BPF_DISARMED_STATUS);

	json_object_set_new(o, "status", json_string(s->status));
	json_object_set_new(o, "what", json_string(s->src->what));
	if (strcmp(s->status, "ok") && !disarmed)
		return o;
	/* which build loaded, and what was adapted to this kernel */
	if (s->src->elf)
		json_object_set_new(o, "build", json_string(s->raw_tp ? "raw_tp" : "tp_btf"));
	if (s->note[0])
		json_object_set_new(o, "note", json_string(s->note));
	/* never armed: no figures, only what the programs' first branch cost */
	if (disarmed) {
		progs_json(o, s);
		return o;
	}
	nc = bpf_names_count(s->src->counters);
	/* the kernel's histograms, unless the consumer made them from the events */
	nh = s->hists ? 0 : bpf_names_count(s->src->hists);
	h = malloc(nh * sizeof(*h) + 1);
	c = malloc(nc * sizeof(*c) + 1);
	hists = json_object();
	counters = json_object();
	if (h && c && read_stats(s, nc, nh, c, h) == 0) {
		const struct hist *all = s->hists ? s->hists : h;

		for (unsigned i = 0; s->src->hists[i]; i++)
			if (all[i].count)
				json_object_set_new(hists, s->src->hists[i],
						    mdl_hist_to_json(&all[i]));
		for (unsigned i = 0; i < nc; i++)
			json_object_set_new(counters, s->src->counters[i],
					    json_integer((json_int_t)c[i]));
	}
	free(h);
	free(c);
	progs_json(o, s);
	json_object_set_new(o, "hists", hists);
	json_object_set_new(o, "counters", counters);
	return o;
}

/*
 * Points of the I/O map a result holds: 512 points (about 10 KB) draw the picture of
 * sectors against time that the 16384 kept do, and keep a run's result under 100 KB
 * (issue 24, item 4: at 1024 a 2-thread smallfile cell of the quick suite made 104 KB).
 * Thinned as the store is, every other point per halving.
 */
#define IOMAP_JSON_MAX 512

static json_t *iomap_json(const struct probe_bpf *b, uint64_t t_origin)
{
	json_t *pts = json_array();
	uint32_t step = 1;

	while (b->iomap_n / step > IOMAP_JSON_MAX)
		step *= 2;
	for (uint32_t i = 0; i < b->iomap_n; i += step) {
		const struct iomap_point *p = &b->iomap[i];

		/* a flush moves no data: its sector is meaningless (the kernel says -1) */
		json_array_append_new(
			pts,
			json_pack("[I,o,I,s]", (json_int_t)(p->t > t_origin ? p->t - t_origin : 0),
				  p->bytes ? json_integer((json_int_t)p->sector) : json_null(),
				  (json_int_t)p->bytes,
				  p->op < FSB_BLK_NOPS ? blk_ops[p->op] : "other"));
	}
	return json_pack("{s:I,s:I,s:I,s:o}", "events", (json_int_t)b->iomap_seen, "kept",
			 (json_int_t)json_array_size(pts), "stride",
			 (json_int_t)b->iomap_stride * step, "points", pts);
}

json_t *probe_bpf_json(const struct probe_bpf *b, uint64_t t_origin)
{
	json_t *o = json_object(), *srcs = json_object();
	uint64_t kept = b->stored < STORE_CAP ? b->stored : STORE_CAP;

	for (int i = 0; i < b->nsrc; i++)
		json_object_set_new(srcs, b->src[i].src->name, source_json(&b->src[i]));
	json_object_set_new(o, "device",
			    b->target.has_disk ? json_string(b->target.disk) : json_null());
	json_object_set_new(o, "sources", srcs);
	json_object_set_new(o, "events",
			    json_pack("{s:I,s:I}", "received",
				      (json_int_t)(b->stored + b->iomap_seen), "kept",
				      (json_int_t)kept));
	json_object_set_new(o, "iomap", iomap_json(b, t_origin));
	return o;
}

struct req_sum {
	uint64_t count, bytes, ns;
};

static bool overlaps(const struct fsb_event *e, uint64_t t0, uint64_t t1)
{
	return e->t0 <= t1 && e->t1 >= t0;
}

/* Flushes that ran inside [t0, t1]: count and their own durations. */
static void flushes_within(const struct probe_bpf *b, uint64_t t0, uint64_t t1, uint64_t *ret_n,
			   uint64_t *ret_ns)
{
	uint64_t kept = b->stored < STORE_CAP ? b->stored : STORE_CAP;

	*ret_n = *ret_ns = 0;
	for (uint64_t i = 0; i < kept; i++) {
		const struct fsb_event *e = &b->store[i];

		if (e->kind == FSB_EV_REQ && e->op == FSB_BLK_FLUSH && e->t0 >= t0 && e->t1 <= t1) {
			(*ret_n)++;
			*ret_ns += e->t1 - e->t0;
		}
	}
}

static json_t *commit_json(const struct probe_bpf *b, const struct fsb_event *e, uint64_t t0)
{
	uint64_t nfl, flns;
	json_t *o;

	flushes_within(b, e->t0, e->t1, &nfl, &flns);
	o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "tid", (json_int_t)e->sector, "start_ns",
		      (json_int_t)((int64_t)e->t0 - (int64_t)t0), "duration_ns",
		      (json_int_t)(e->t1 - e->t0), "handles", (json_int_t)e->bytes, "flushes",
		      (json_int_t)nfl, "flush_ns", (json_int_t)flns);
	if (e->ph[0] && e->ph[1] && e->ph[2]) {
		json_object_set_new(o, "locked_ns", json_integer((json_int_t)(e->ph[1] - e->t0)));
		json_object_set_new(o, "flushing_ns",
				    json_integer((json_int_t)(e->ph[2] - e->ph[1])));
		json_object_set_new(o, "logging_ns", json_integer((json_int_t)(e->t1 - e->ph[2])));
	}
	return o;
}

json_t *probe_bpf_attribute(const struct probe_bpf *b, uint64_t t0, uint64_t t1)
{
	uint64_t kept = b->stored < STORE_CAP ? b->stored : STORE_CAP;
	struct req_sum req[FSB_BLK_NOPS] = { 0 };
	uint64_t fua = 0, preflush = 0, ncommits = 0, forces = 0, iclogs = 0, iclog_ns = 0, cil = 0,
		 bcommits = 0, bsyncs = 0, ordered = 0, pauses = 0, pause_ns = 0, wb = 0,
		 wb_pages = 0;
	json_t *o = json_object(), *commits = json_array(), *reqs = json_object();
	const struct fsb_event *last[ATTR_MAX_COMMITS];

	for (uint64_t i = 0; i < kept; i++) {
		const struct fsb_event *e = &b->store[i];

		if (!overlaps(e, t0, t1))
			continue;
		switch (e->kind) {
		case FSB_EV_REQ:
			if (e->op < FSB_BLK_NOPS) {
				req[e->op].count++;
				req[e->op].bytes += e->bytes;
				req[e->op].ns += e->t1 - e->t0;
			}
			fua += !!(e->flags & FSB_RQ_FUA);
			preflush += !!(e->flags & FSB_RQ_PREFLUSH);
			break;
		case FSB_EV_COMMIT:
			/* the last ones: the commit a sync call waits for ends just before it */
			last[ncommits++ % ATTR_MAX_COMMITS] = e;
			break;
		case FSB_EV_XFS_FORCE:
			forces++;
			break;
		case FSB_EV_XFS_ICLOG:
			iclogs++;
			iclog_ns += e->t1 - e->t0;
			break;
		case FSB_EV_XFS_CIL_WAIT:
			cil++;
			break;
		case FSB_EV_BTRFS_COMMIT:
			bcommits++;
			break;
		case FSB_EV_BTRFS_SYNC:
			bsyncs++;
			break;
		case FSB_EV_BTRFS_ORDERED:
			ordered++;
			break;
		case FSB_EV_THROTTLE:
			pauses++;
			pause_ns += e->t1 - e->t0;
			break;
		case FSB_EV_WB:
			wb++;
			wb_pages += e->bytes;
			break;
		default:
			break;
		}
	}
	for (uint64_t i = ncommits > ATTR_MAX_COMMITS ? ncommits - ATTR_MAX_COMMITS : 0;
	     i < ncommits; i++)
		json_array_append_new(commits, commit_json(b, last[i % ATTR_MAX_COMMITS], t0));
	/*
	 * What did not happen is left out (a missing count is 0): on ext4 the xfs, btrfs and
	 * zero request objects were most of a slow call's bytes (issue 24, item 4).
	 */
	for (int op = 0; op < FSB_BLK_NOPS; op++)
		if (req[op].count)
			json_object_set_new(reqs, blk_ops[op],
					    json_pack("{s:I,s:I,s:I}", "count",
						      (json_int_t)req[op].count, "bytes",
						      (json_int_t)req[op].bytes, "ns",
						      (json_int_t)req[op].ns));
	if (fua)
		json_object_set_new(reqs, "fua", json_integer((json_int_t)fua));
	if (preflush)
		json_object_set_new(reqs, "preflush", json_integer((json_int_t)preflush));
	/* the store wrapped past the call's start: some of its events are gone */
	json_object_set_new(o, "complete", json_boolean(b->overwritten_t1 < t0));
	json_object_set_new(o, "requests", reqs);
	json_object_set_new(o, "commits", commits);
	json_object_set_new(o, "commits_total", json_integer((json_int_t)ncommits));
	if (forces || iclogs || iclog_ns || cil)
		json_object_set_new(o, "xfs",
				    json_pack("{s:I,s:I,s:I,s:I}", "log_forces", (json_int_t)forces,
					      "iclog_writes", (json_int_t)iclogs, "iclog_ns",
					      (json_int_t)iclog_ns, "cil_waits", (json_int_t)cil));
	if (bcommits || bsyncs || ordered)
		json_object_set_new(o, "btrfs",
				    json_pack("{s:I,s:I,s:I}", "commits", (json_int_t)bcommits,
					      "sync_files", (json_int_t)bsyncs, "ordered_extents",
					      (json_int_t)ordered));
	if (pauses || pause_ns || wb || wb_pages)
		json_object_set_new(o, "writeback",
				    json_pack("{s:I,s:I,s:I,s:I}", "throttle_pauses",
					      (json_int_t)pauses, "throttle_ns",
					      (json_int_t)pause_ns, "works", (json_int_t)wb,
					      "pages_written", (json_int_t)wb_pages));
	return o;
}
