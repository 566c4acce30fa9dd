/* Runs the eBPF sources for one run: load, arm, drain their events, read their maps back. */
#include "probes/bpf/probe_bpf.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#include "model/hist.h"
#include "model/hist_json.h"

#include "probes/bpf/bpf_load.h"
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

/*
 * Events kept for attribution: 131072 x 64 bytes = 8 MiB, which holds about 25 s of a
 * small-file run at 5000 files/s (five events per file). A slow call whose window starts
 * before the oldest kept event is marked incomplete, never silently short.
 */
#define STORE_CAP 131072u
/* I/O map points kept; past this, every other point is dropped and the stride doubles. */
#define IOMAP_CAP 16384u
/* How often the consumer drains the rings (no per-event wakeups)... */
#define DRAIN_NS 20000000L
/* ...and, until the run starts, looks for its start: at most one fsync goes unseen. */
#define ARM_POLL_NS 500000L
/* Commits listed per slow call, the last ones; all are counted in commits_total. */
#define ATTR_MAX_COMMITS 8

struct iomap_point {
	uint64_t t;
	uint64_t sector;
	uint32_t bytes;
	uint32_t op;
};

struct src_state {
	const struct bpf_source *src;
	/* "ok" or "skipped: ...", with the verifier's first error line per refused program */
	char status[1024];
#ifdef FSB_HAVE_BPF
	struct bpf_object *obj;
	struct bpf_link *links[32];
	int nlinks;
	int ctl_fd; /* .data.ctl: fsb_armed alone; -1 when not loaded */
#endif
	bool raw_tp; /* the raw_tp build loaded, the tp_btf one was refused (or not tried) */
	/* what the source's prepare step learned of the kernel, why tp_btf was refused */
	char note[512];
};

struct probe_bpf {
	struct probe_bpf_target target;
	int nsrc;
	struct src_state src[32];
	const uint64_t *arm_when;
	bool armed, stopped;
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

static const char *const blk_ops[FSB_BLK_NOPS] = { "read", "write", "flush", "discard" };

int probe_bpf_select(const char *list, uint32_t *ret_mask, char *err, size_t errlen)
{
	uint32_t mask = 0;
	char *dup, *tok, *save = NULL;

	if (!list || !strcmp(list, "all")) {
		*ret_mask = PROBE_BPF_ALL;
		return 0;
	}
	if (!strcmp(list, "none") || !*list) {
		*ret_mask = 0;
		return 0;
	}
	dup = strdup(list);
	if (!dup) {
		snprintf(err, errlen, "--probes: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; bpf_sources[i]; i++)
			if (!strcmp(bpf_sources[i]->name, tok))
				break;
		if (!bpf_sources[i]) {
			snprintf(err, errlen,
				 "--probes: unknown source '%s' (known: all, none, %s)", tok,
				 probe_bpf_names());
			free(dup);
			return -EINVAL;
		}
		mask |= 1u << i;
	}
	free(dup);
	*ret_mask = mask;
	return 0;
}

const char *probe_bpf_names(void)
{
	static char names[256];

	if (!names[0])
		for (int i = 0; bpf_sources[i]; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", bpf_sources[i]->name);
	return names;
}

static void set_status(struct src_state *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->status, sizeof(s->status), fmt, ap);
	va_end(ap);
}

/* Why a selected source does not apply to this target, or NULL. */
static const char *not_applicable(const struct bpf_source *src, const struct probe_bpf_target *t,
				  char *buf, size_t len)
{
	if (src->fstypes) {
		bool match = false;

		for (int i = 0; src->fstypes[i]; i++)
			match |= !strcmp(src->fstypes[i], t->fstype);
		if (!match) {
			snprintf(buf, len, "the target is %s, not %s",
				 t->fstype[0] ? t->fstype : "unknown", src->fstypes[0]);
			return buf;
		}
	}
	if (src->needs_disk && !t->has_disk)
		return "the target has no block device";
	if (src->needs_bdi && !t->bdi[0])
		return "the target's backing device is unknown";
	return NULL;
}

#ifdef FSB_HAVE_BPF

/* One request into the I/O map: every stride-th kept; full, every other dropped, stride doubled. */
static void iomap_add(struct probe_bpf *b, const struct fsb_event *e)
{
	b->iomap_seen++;
	if ((b->iomap_seen - 1) % b->iomap_stride)
		return;
	if (b->iomap_n == IOMAP_CAP) {
		for (uint32_t i = 0; i < IOMAP_CAP / 2; i++)
			b->iomap[i] = b->iomap[2 * i];
		b->iomap_n = IOMAP_CAP / 2;
		b->iomap_stride *= 2;
		if ((b->iomap_seen - 1) % b->iomap_stride)
			return;
	}
	/* issue time: when the device was asked, as seekwatcher plots it */
	b->iomap[b->iomap_n++] = (struct iomap_point){ e->t0, e->sector, e->bytes, e->op };
}

static void store_event(struct probe_bpf *b, const struct fsb_event *e)
{
	struct fsb_event *slot;

	if (e->kind < FSB_EV_KIND_MAX)
		b->received[e->kind]++;
	if (e->kind == FSB_EV_REQ && b->iomap_on)
		iomap_add(b, e);
	slot = &b->store[b->stored % STORE_CAP];
	if (b->stored >= STORE_CAP && slot->t1 > b->overwritten_t1)
		b->overwritten_t1 = slot->t1;
	*slot = *e;
	b->stored++;
}

static int on_event(void *ctx, void *data, size_t size)
{
	if (size >= sizeof(struct fsb_event))
		store_event(ctx, data);
	return 0;
}

static void src_load(struct probe_bpf *b, struct src_state *s, const struct fsb_bpf_cfg *cfg)
{
	char why[sizeof(s->status) - 16];
	struct fsb_bpf_cfg own;
	struct bpf_program *p;
	struct bpf_map *m;
	int r;

	if (s->src->from) {
		for (int i = 0; i < b->nsrc; i++)
			if (!strcmp(b->src[i].src->name, s->src->from) &&
			    !strcmp(b->src[i].status, "ok")) {
				set_status(s, "ok");
				b->iomap_on = true;
				return;
			}
		set_status(s, "skipped: made from the %s source, which is not running",
			   s->src->from);
		return;
	}
	if (!s->src->elf) {
		set_status(s, "skipped: fsbench was built without BPF support");
		return;
	}
	own = *cfg;
	/* what this kernel's version of the source's tracepoints needs to know */
	if (s->src->prepare) {
		r = s->src->prepare(&own, s->note, sizeof(s->note));
		if (r < 0) {
			set_status(s, "skipped: %s", s->note);
			s->note[0] = 0;
			return;
		}
	}
	s->obj = bpf_load_source(s->src, &own, &s->raw_tp, why, sizeof(why), &r);
	if (!s->obj) {
		set_status(s, "skipped: %s", why);
		return;
	}
	if (why[0]) {
		size_t used = strlen(s->note);

		snprintf(s->note + used, sizeof(s->note) - used, "%s%s", used ? "; " : "", why);
	}
	bpf_object__for_each_program(p, s->obj)
	{
		struct bpf_link *l;

		if (s->nlinks == (int)(sizeof(s->links) / sizeof(s->links[0]))) {
			set_status(s, "skipped: %s has more than %d programs", s->src->name,
				   s->nlinks);
			return;
		}
		l = bpf_program__attach(p);
		if (!l) {
			set_status(s, "skipped: attaching %s: %s", bpf_program__section_name(p),
				   strerror(errno));
			return;
		}
		s->links[s->nlinks++] = l;
	}
	m = bpf_object__find_map_by_name(s->obj, ".data.ctl");
	s->ctl_fd = m ? bpf_map__fd(m) : -1;
	m = bpf_object__find_map_by_name(s->obj, "events");
	if (s->ctl_fd < 0 || !m) {
		set_status(s, "skipped: %s.bpf.o lacks fsb_common.bpf.h's maps", s->src->name);
		return;
	}
	r = b->rb ? ring_buffer__add(b->rb, bpf_map__fd(m), on_event, b) : 0;
	if (!b->rb) {
		b->rb = ring_buffer__new(bpf_map__fd(m), on_event, b, NULL);
		r = b->rb ? 0 : -errno;
	}
	if (r < 0) {
		set_status(s, "skipped: opening %s's event ring: %s", s->src->name, strerror(-r));
		return;
	}
	set_status(s, "ok");
}

static void src_unload(struct src_state *s)
{
	for (int i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	s->nlinks = 0;
	bpf_object__close(s->obj);
	s->obj = NULL;
	s->ctl_fd = -1;
}

static void set_armed(struct probe_bpf *b, uint32_t on)
{
	uint32_t key = 0;

	/* the section holds fsb_armed alone, so the map's one value is that variable */
	for (int i = 0; i < b->nsrc; i++)
		if (b->src[i].ctl_fd >= 0)
			bpf_map_update_elem(b->src[i].ctl_fd, &key, &on, BPF_ANY);
	b->armed = on;
}

static void *consumer_main(void *arg)
{
	struct probe_bpf *b = arg;
	struct timespec drain = { 0, DRAIN_NS }, arm = { 0, ARM_POLL_NS };

	while (!atomic_load(&b->stop)) {
		if (!b->armed && b->arm_when && __atomic_load_n(b->arm_when, __ATOMIC_ACQUIRE))
			set_armed(b, 1);
		ring_buffer__consume(b->rb);
		nanosleep(b->armed ? &drain : &arm, NULL);
	}
	return NULL;
}

/* Every CPU's copy of element @id of per-CPU map @name (values of @size bytes); free() it. */
static void *read_percpu(const struct src_state *s, const char *name, uint32_t id, size_t size,
			 int *ret_ncpu)
{
	struct bpf_map *m = bpf_object__find_map_by_name(s->obj, name);
	int ncpu = libbpf_num_possible_cpus();
	void *v;

	if (!m || ncpu <= 0)
		return NULL;
	v = calloc((size_t)ncpu, size);
	if (v && bpf_map_lookup_elem(bpf_map__fd(m), &id, v) < 0) {
		free(v);
		return NULL;
	}
	*ret_ncpu = ncpu;
	return v;
}

/* Adds every CPU's copy of histogram @id of @s into @ret (cleared first). */
static int read_hist(const struct src_state *s, uint32_t id, struct hist *ret)
{
	struct fsb_khist *v;
	int ncpu;

	hist_init(ret);
	v = read_percpu(s, "hists", id, sizeof(*v), &ncpu);
	if (!v)
		return -ENOENT;
	for (int c = 0; c < ncpu; c++) {
		if (!v[c].count)
			continue;
		if (v[c].min < ret->min)
			ret->min = v[c].min;
		if (v[c].max > ret->max)
			ret->max = v[c].max;
		ret->count += v[c].count;
		ret->sum += v[c].sum;
		ret->overflow += v[c].overflow;
		for (unsigned i = 0; i < HIST_NBINS; i++)
			ret->bins[i] += v[c].bins[i];
	}
	/* BPF has no floating point: the sum of squares (stddev) comes from bin midpoints */
	for (unsigned i = 0; i < HIST_NBINS; i++) {
		uint64_t lo, hi;
		double mid;

		if (!ret->bins[i])
			continue;
		hist_bin_bounds(i, &lo, &hi);
		mid = ((double)lo + (double)hi) / 2;
		ret->sumsq += mid * mid * (double)ret->bins[i];
	}
	free(v);
	return 0;
}

static int read_counter(const struct src_state *s, uint32_t id, uint64_t *ret)
{
	uint64_t *v;
	int ncpu;

	*ret = 0;
	v = read_percpu(s, "counters", id, sizeof(*v), &ncpu);
	if (!v)
		return -ENOENT;
	for (int c = 0; c < ncpu; c++)
		*ret += v[c];
	free(v);
	return 0;
}

#else /* !FSB_HAVE_BPF */

static void src_load(struct probe_bpf *b, struct src_state *s, const struct fsb_bpf_cfg *cfg)
{
	(void)b;
	(void)cfg;
	set_status(s, "skipped: fsbench was built without BPF support (libbpf, clang, bpftool)");
}

static void src_unload(struct src_state *s)
{
	(void)s;
}

static void set_armed(struct probe_bpf *b, uint32_t on)
{
	b->armed = on;
}

static int read_hist(const struct src_state *s, uint32_t id, struct hist *ret)
{
	(void)s;
	(void)id;
	hist_init(ret);
	return -ENOTSUP;
}

static int read_counter(const struct src_state *s, uint32_t id, uint64_t *ret)
{
	(void)s;
	(void)id;
	*ret = 0;
	return -ENOTSUP;
}

#endif

static uint32_t kdev(unsigned major, unsigned minor)
{
	return (uint32_t)major << 20 | (uint32_t)minor;
}

int probe_bpf_start(const struct probe_bpf_target *t, uint32_t mask, const uint64_t *arm_when,
		    struct probe_bpf **ret)
{
	struct fsb_bpf_cfg cfg = { 0 };
	struct probe_bpf *b;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->store = calloc(STORE_CAP, sizeof(*b->store));
	b->iomap = calloc(IOMAP_CAP, sizeof(*b->iomap));
	if (!b->store || !b->iomap) {
		probe_bpf_free(b);
		return -ENOMEM;
	}
	b->iomap_stride = 1;
	b->target = *t;
	b->arm_when = arm_when;
	cfg.disk_dev = t->has_disk ? kdev(t->disk_major, t->disk_minor) : UINT32_MAX;
	cfg.bdev = kdev(t->bdev_major, t->bdev_minor);
	cfg.sdev = kdev(t->s_major, t->s_minor);
	snprintf(cfg.bdi, sizeof(cfg.bdi), "%s", t->bdi);
	bpf_load_quiet();
	for (int i = 0; bpf_sources[i] && i < 32; i++) {
		struct src_state *s = &b->src[b->nsrc++];
		char why[128];
		const char *na;

		s->src = bpf_sources[i];
#ifdef FSB_HAVE_BPF
		s->ctl_fd = -1;
#endif
		if (!(mask & (1u << i))) {
			set_status(s, "skipped: not selected (--probes)");
			continue;
		}
		na = not_applicable(s->src, t, why, sizeof(why));
		if (na) {
			set_status(s, "skipped: %s", na);
			continue;
		}
		src_load(b, s, &cfg);
		if (strcmp(s->status, "ok"))
			src_unload(s);
	}
#ifdef FSB_HAVE_BPF
	if (b->rb) {
		if (pthread_create(&b->consumer, NULL, consumer_main, b) == 0) {
			b->consumer_started = true;
		} else {
			for (int i = 0; i < b->nsrc; i++)
				if (!strcmp(b->src[i].status, "ok")) {
					src_unload(&b->src[i]);
					set_status(&b->src[i],
						   "skipped: starting the event reader: %s",
						   strerror(EAGAIN));
				}
		}
	}
#endif
	*ret = b;
	return 0;
}

void probe_bpf_arm(struct probe_bpf *b)
{
	set_armed(b, 1);
}

int probe_bpf_loaded(const struct probe_bpf *b)
{
	int n = 0;

	for (int i = 0; i < b->nsrc; i++)
		n += !strcmp(b->src[i].status, "ok");
	return n;
}

void probe_bpf_stop(struct probe_bpf *b)
{
	if (!b || b->stopped)
		return;
	b->stopped = true;
	set_armed(b, 0);
	if (b->consumer_started) {
		atomic_store(&b->stop, 1);
		pthread_join(b->consumer, NULL);
		b->consumer_started = false;
	}
#ifdef FSB_HAVE_BPF
	if (b->rb)
		ring_buffer__consume(b->rb);
	/* the maps stay readable until probe_bpf_free(); the programs go now */
	for (int i = 0; i < b->nsrc; i++) {
		for (int l = 0; l < b->src[i].nlinks; l++)
			bpf_link__destroy(b->src[i].links[l]);
		b->src[i].nlinks = 0;
	}
#endif
}

struct probe_bpf *probe_bpf_free(struct probe_bpf *b)
{
	if (!b)
		return NULL;
	probe_bpf_stop(b);
#ifdef FSB_HAVE_BPF
	ring_buffer__free(b->rb);
#endif
	for (int i = 0; i < b->nsrc; i++)
		src_unload(&b->src[i]);
	free(b->store);
	free(b->iomap);
	free(b);
	return NULL;
}

static json_t *source_json(const struct src_state *s)
{
	json_t *o = json_object(), *hists, *counters;
	struct hist *h;
	int i;

	json_object_set_new(o, "status", json_string(s->status));
	json_object_set_new(o, "what", json_string(s->src->what));
	if (strcmp(s->status, "ok"))
		return o;
	/* which build loaded, and what was adapted to this kernel */
	if (s->src->elf)
		json_object_set_new(o, "build", json_string(s->raw_tp ? "raw_tp" : "tp_btf"));
	if (s->note[0])
		json_object_set_new(o, "note", json_string(s->note));
	h = malloc(sizeof(*h));
	hists = json_object();
	for (i = 0; h && s->src->hists[i]; i++)
		if (read_hist(s, (uint32_t)i, h) == 0 && h->count)
			json_object_set_new(hists, s->src->hists[i], rpt_hist_to_json(h));
	free(h);
	counters = json_object();
	for (i = 0; s->src->counters[i]; i++) {
		uint64_t v;

		if (read_counter(s, (uint32_t)i, &v) == 0)
			json_object_set_new(counters, s->src->counters[i],
					    json_integer((json_int_t)v));
	}
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
