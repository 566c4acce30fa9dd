/* Runs the eBPF sources for one run: load, arm, drain their events into the store, stop. */
#include "probes/bpf/probe_bpf.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <linux/types.h>

#include "model/hist.h"

#include "probes/bpf/bpf_load.h"
#include "probes/bpf/bpf_session.h"
#include "probes/bpf/bpf_source.h"
#include "probes/bpf/fsb_bpf.h"

#ifdef FSB_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

/* How often the consumer drains the rings (no per-event wakeups)... */
#define DRAIN_NS 20000000L
/* ...and, until the run starts, looks for its start: at most one fsync goes unseen. */
#define ARM_POLL_NS 500000L

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

#ifdef FSB_HAVE_BPF
/* Loaded and attached: "ok", or disarmed on purpose (probe_bpf_disarmed). */
static bool src_loaded(const struct src_state *s)
{
	return !strcmp(s->status, "ok") || !strcmp(s->status, PROBE_BPF_DISARMED_STATUS);
}
#endif

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

/* @ctx: the source whose ring it came from; a record holds one event or a batch of them */
static int on_event(void *ctx, void *data, size_t size)
{
	struct src_state *s = ctx;

	for (size_t off = 0; off + sizeof(struct fsb_event) <= size;
	     off += sizeof(struct fsb_event)) {
		const struct fsb_event *e = (const void *)((const char *)data + off);

		store_event(s->owner, e);
		if (s->hists)
			s->src->ev_hists(e, s->hists);
	}
	return 0;
}

/*
 * The events a source staged per CPU that no full batch sent (fsb_req_batch): read once its
 * programs are detached and disarmed, so that only a run already past its armed check as
 * they went (a few us at the run's end, after its clock stopped) could still add one.
 */
static void flush_staged(struct src_state *s)
{
	struct bpf_map *m = s->obj ? bpf_object__find_map_by_name(s->obj, "staged") : NULL;
	struct fsb_req_batch batch;

	if (!m)
		return;
	for (__u32 cpu = 0; cpu < bpf_map__max_entries(m); cpu++)
		if (!bpf_map__lookup_elem(m, &cpu, sizeof(cpu), &batch, sizeof(batch), 0))
			on_event(s, batch.ev,
				 (batch.n < FSB_REQ_BATCH ? batch.n : 0) * sizeof(batch.ev[0]));
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

		/* left out for this target (the source's wants) */
		if (!bpf_program__autoload(p))
			continue;
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
	if (s->src->ev_hists) {
		unsigned nh = bpf_names_count(s->src->hists);

		s->hists = malloc(nh * sizeof(*s->hists) + 1);
		if (!s->hists) {
			set_status(s, "skipped: %s", strerror(ENOMEM));
			return;
		}
		for (unsigned i = 0; i < nh; i++)
			hist_init(&s->hists[i]);
	}
	r = b->rb ? ring_buffer__add(b->rb, bpf_map__fd(m), on_event, s) : 0;
	if (!b->rb) {
		b->rb = ring_buffer__new(bpf_map__fd(m), on_event, s, NULL);
		r = b->rb ? 0 : -errno;
	}
	if (r < 0) {
		set_status(s, "skipped: opening %s's event ring: %s", s->src->name, strerror(-r));
		return;
	}
	set_status(s, "ok");
}

/* Each program's runs and run time so far (counted under kernel.bpf_stats_enabled). */
static void progs_cost(struct src_state *s)
{
	struct bpf_program *p;

	s->nprogs = 0;
	if (!s->obj || !s->nlinks)
		return;
	bpf_object__for_each_program(p, s->obj)
	{
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		struct prog_cost *c;

		if (s->nprogs == (int)(sizeof(s->progs) / sizeof(s->progs[0])))
			break;
		if (!bpf_program__autoload(p))
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0)
			continue;
		c = &s->progs[s->nprogs++];
		snprintf(c->name, sizeof(c->name), "%s", bpf_program__name(p));
		c->runs = info.run_cnt;
		c->run_ns = info.run_time_ns;
	}
}

static void src_unload(struct src_state *s)
{
	free(s->hists);
	s->hists = NULL;
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

	/* disarmed: the run still starts (the consumer drains at its armed pace), the programs never */
	b->armed = on;
	if (b->disarmed && on)
		return;
	/* the section holds fsb_armed alone, so the map's one value is that variable */
	for (int i = 0; i < b->nsrc; i++)
		if (b->src[i].ctl_fd >= 0)
			bpf_map_update_elem(b->src[i].ctl_fd, &key, &on, BPF_ANY);
}

/*
 * On a machine of one CPU (a kernel gate's guest) the consumer shares it with the workers
 * it watches, and a drain that runs while a worker waits for the disk delays that worker's
 * call by the drain's length. SCHED_IDLE lets the wakeup of a worker or of jbd2 preempt it
 * at once (a drain runs in user space, on the mapped ring). With more CPUs it keeps the
 * policy it was started with. Failing to change it is harmless: the drain runs as before.
 */
static void consumer_yield_on_one_cpu(void)
{
	struct sched_param sp = { 0 };
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) == 1)
		pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
}

static void *consumer_main(void *arg)
{
	struct probe_bpf *b = arg;
	struct timespec drain = { 0, DRAIN_NS }, arm = { 0, ARM_POLL_NS };

	consumer_yield_on_one_cpu();
	while (!atomic_load(&b->stop)) {
		if (!b->armed && b->arm_when && __atomic_load_n(b->arm_when, __ATOMIC_ACQUIRE))
			set_armed(b, 1);
		ring_buffer__consume(b->rb);
		nanosleep(b->armed ? &drain : &arm, NULL);
	}
	return NULL;
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

#endif

/*
 * Whether the disk makes requests (blk-mq, which has an mq directory in sysfs) or takes
 * bios alone (device-mapper, md). Where sysfs cannot say, blk-mq: every request-based
 * disk is one since 5.0, and bio-based ones are the fewer.
 */
static bool disk_is_mq(unsigned major, unsigned minor)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major, minor);
	if (stat(path, &st) < 0)
		return true;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/mq", major, minor);
	return stat(path, &st) == 0;
}

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
	b->disarmed = probe_bpf_disarmed();
	cfg.disk_dev = t->has_disk ? kdev(t->disk_major, t->disk_minor) : UINT32_MAX;
	cfg.bdev = kdev(t->bdev_major, t->bdev_minor);
	cfg.sdev = kdev(t->s_major, t->s_minor);
	snprintf(cfg.bdi, sizeof(cfg.bdi), "%s", t->bdi);
	cfg.disk_mq = t->has_disk && disk_is_mq(t->disk_major, t->disk_minor);
	bpf_load_quiet();
	for (int i = 0; bpf_sources[i] && i < 32; i++) {
		struct src_state *s = &b->src[b->nsrc++];
		char why[128];
		const char *na;

		s->src = bpf_sources[i];
		s->owner = b;
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
	/* said in every loaded source's status, so no reader takes the run for a measured one */
	for (int i = 0; b->disarmed && i < b->nsrc; i++)
		if (!strcmp(b->src[i].status, "ok"))
			set_status(&b->src[i], "%s", PROBE_BPF_DISARMED_STATUS);
#ifdef FSB_HAVE_BPF
	if (b->rb) {
		if (pthread_create(&b->consumer, NULL, consumer_main, b) == 0) {
			b->consumer_started = true;
		} else {
			for (int i = 0; i < b->nsrc; i++)
				if (src_loaded(&b->src[i])) {
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

bool probe_bpf_disarmed(void)
{
	const char *v = getenv("FSBENCH_BPF_DISARMED");

	return v && *v && strcmp(v, "0");
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
	/* the maps stay readable until probe_bpf_free(); the programs go now */
	for (int i = 0; i < b->nsrc; i++) {
		progs_cost(&b->src[i]);
		for (int l = 0; l < b->src[i].nlinks; l++)
			bpf_link__destroy(b->src[i].links[l]);
		b->src[i].nlinks = 0;
	}
	/* what the programs sent or staged before they were detached */
	if (b->rb)
		ring_buffer__consume(b->rb);
	for (int i = 0; i < b->nsrc; i++)
		if (src_loaded(&b->src[i]))
			flush_staged(&b->src[i]);
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
