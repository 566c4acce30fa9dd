/* A sampler thread: dirty and writeback memory and the device's in-flight requests over a run. */
#include "probes/sampler/sampler.h"
#include "base/fileio.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct probe_sampler {
	char meminfo[PATH_MAX];
	char inflight[PATH_MAX]; /* empty: no device */
	uint64_t interval_ns, start_ns;
	pthread_t thread;
	bool running;
	pthread_mutex_t lock; /* guards stop, with wake */
	pthread_cond_t wake;
	bool stop;
	/* written by the thread only; read after join */
	size_t n, cap;
	unsigned stride, tick; /* store every stride-th tick */
	uint64_t *t_ns, *dirty, *writeback, *in_r, *in_w;
	struct probe_sampler_max max;
	uint64_t errors;
	int first_err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "Dirty:  1234 kB" -> bytes. */
static int meminfo_field(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *p = text;
	unsigned long long kb;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			if (sscanf(p + klen + 1, " %llu", &kb) != 1)
				return -EBADMSG;
			*ret = (uint64_t)kb * 1024;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

static int read_meminfo(const char *path, struct probe_sample *s)
{
	char buf[8192];
	ssize_t n = base_read_file(path, buf, sizeof(buf));
	int r;

	if (n < 0)
		return (int)n;
	r = meminfo_field(buf, "Dirty", &s->dirty_bytes);
	if (r == 0)
		r = meminfo_field(buf, "Writeback", &s->writeback_bytes);
	return r;
}

static int read_inflight(const char *path, struct probe_sample *s)
{
	char buf[128];
	unsigned long long r, w;
	int e = base_read_line(path, buf, sizeof(buf));

	if (e < 0)
		return e;
	if (sscanf(buf, " %llu %llu", &r, &w) != 2)
		return -EBADMSG;
	s->inflight_read = r;
	s->inflight_write = w;
	s->has_inflight = true;
	return 0;
}

static int sample_paths(struct probe_sampler *p, struct probe_sample *ret)
{
	struct probe_sample s = { 0 };
	int r = read_meminfo(p->meminfo, &s);

	if (r == 0 && p->inflight[0])
		r = read_inflight(p->inflight, &s);
	if (r == 0)
		*ret = s;
	return r;
}

int probe_sample_read(const char *root, const char *disk_sysfs, struct probe_sample *ret)
{
	char path[PATH_MAX];
	struct probe_sample s = { 0 };
	int r;

	r = base_path(path, sizeof(path), "%s/proc/meminfo", root ? root : "");
	if (r == 0)
		r = read_meminfo(path, &s);
	if (r == 0 && disk_sysfs) {
		r = base_path(path, sizeof(path), "%s/inflight", disk_sysfs);
		if (r == 0)
			r = read_inflight(path, &s);
	}
	if (r == 0)
		*ret = s;
	return r;
}

/* Keeps every other sample; later ticks are stored half as often. */
static void halve(struct probe_sampler *p)
{
	size_t j = 0;

	for (size_t i = 0; i < p->n; i += 2, j++) {
		p->t_ns[j] = p->t_ns[i];
		p->dirty[j] = p->dirty[i];
		p->writeback[j] = p->writeback[i];
		p->in_r[j] = p->in_r[i];
		p->in_w[j] = p->in_w[i];
	}
	p->n = j;
	p->stride *= 2;
}

static void record(struct probe_sampler *p, uint64_t t, const struct probe_sample *s, bool force)
{
	struct probe_sampler_max *m = &p->max;
	uint64_t in = s->inflight_read + s->inflight_write;

	if (!m->samples++)
		p->start_ns = t;
	if (s->dirty_bytes > m->dirty_bytes)
		m->dirty_bytes = s->dirty_bytes;
	if (s->writeback_bytes > m->writeback_bytes)
		m->writeback_bytes = s->writeback_bytes;
	if (s->has_inflight) {
		m->has_inflight = true;
		if (in > m->inflight)
			m->inflight = in;
		if (s->inflight_read > m->inflight_read)
			m->inflight_read = s->inflight_read;
		if (s->inflight_write > m->inflight_write)
			m->inflight_write = s->inflight_write;
	}
	if (p->tick++ % p->stride && !force)
		return;
	if (p->n == p->cap)
		halve(p);
	p->t_ns[p->n] = t - p->start_ns;
	p->dirty[p->n] = s->dirty_bytes;
	p->writeback[p->n] = s->writeback_bytes;
	p->in_r[p->n] = s->inflight_read;
	p->in_w[p->n] = s->inflight_write;
	p->n++;
}

static void take(struct probe_sampler *p, bool force)
{
	struct probe_sample s = { 0 };
	uint64_t t = now_ns();
	int r = sample_paths(p, &s);

	if (r < 0) {
		if (!p->errors++)
			p->first_err = r;
		return;
	}
	record(p, t, &s, force);
}

static void *sampler_main(void *arg)
{
	struct probe_sampler *p = arg;
	uint64_t next = p->start_ns, t;
	struct timespec ts;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		next += p->interval_ns;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		while (!p->stop && pthread_cond_timedwait(&p->wake, &p->lock, &ts) != ETIMEDOUT)
			;
		if (p->stop)
			break;
		pthread_mutex_unlock(&p->lock);
		take(p, false);
		/* a slow read (a stalled /proc under heavy writeback) skips ticks, it does not bunch them */
		t = now_ns();
		if (t > next + p->interval_ns)
			next += (t - next) / p->interval_ns * p->interval_ns;
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	/* the final state, so the series ends where the run did */
	take(p, true);
	return NULL;
}

static int alloc_series(struct probe_sampler *p, size_t cap)
{
	p->cap = cap;
	p->t_ns = calloc(p->cap, sizeof(uint64_t));
	p->dirty = calloc(p->cap, sizeof(uint64_t));
	p->writeback = calloc(p->cap, sizeof(uint64_t));
	p->in_r = calloc(p->cap, sizeof(uint64_t));
	p->in_w = calloc(p->cap, sizeof(uint64_t));
	return p->t_ns && p->dirty && p->writeback && p->in_r && p->in_w ? 0 : -ENOMEM;
}

static void free_series(struct probe_sampler *p)
{
	free(p->t_ns);
	free(p->dirty);
	free(p->writeback);
	free(p->in_r);
	free(p->in_w);
}

int probe_sampler_start(const char *root, const char *disk_sysfs, uint64_t interval_ns,
			struct probe_sampler **ret)
{
	return probe_sampler_start_n(root, disk_sysfs, interval_ns, PROBE_SAMPLER_MAX_SAMPLES, ret);
}

int probe_sampler_start_n(const char *root, const char *disk_sysfs, uint64_t interval_ns,
			  size_t max_samples, struct probe_sampler **ret)
{
	struct probe_sampler *p;
	pthread_condattr_t ca;
	int r;

	if (interval_ns < PROBE_SAMPLER_MIN_INTERVAL_NS || max_samples < 2 ||
	    max_samples > PROBE_SAMPLER_MAX_SAMPLES)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->interval_ns = interval_ns;
	p->stride = 1;
	r = base_path(p->meminfo, sizeof(p->meminfo), "%s/proc/meminfo", root ? root : "");
	if (r == 0 && disk_sysfs && *disk_sysfs)
		r = base_path(p->inflight, sizeof(p->inflight), "%s/inflight", disk_sysfs);
	if (r == 0)
		r = alloc_series(p, max_samples);
	if (r < 0)
		goto fail;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);

	/* the first sample defines t = 0 */
	take(p, true);
	if (p->errors) {
		r = p->first_err;
		goto fail_sync;
	}
	r = -pthread_create(&p->thread, NULL, sampler_main, p);
	if (r < 0)
		goto fail_sync;
	p->running = true;
	*ret = p;
	return 0;

fail_sync:
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
fail:
	free_series(p);
	free(p);
	return r;
}

int probe_sampler_stop(struct probe_sampler *s)
{
	if (!s)
		return 0;
	if (s->running) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
		s->running = false;
	}
	return s->first_err;
}

void probe_sampler_maxima(const struct probe_sampler *s, struct probe_sampler_max *ret)
{
	*ret = s->max;
}

static json_t *array_of(const uint64_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

json_t *probe_sampler_json(const struct probe_sampler *s)
{
	json_t *o = json_object();
	bool dev = s->inflight[0] && s->max.has_inflight;

	if (!o)
		return NULL;
	json_object_set_new(o, "interval_ns",
			    json_integer((json_int_t)(s->interval_ns * s->stride)));
	json_object_set_new(o, "decimated", json_boolean(s->stride > 1));
	json_object_set_new(o, "t_ns", array_of(s->t_ns, s->n));
	json_object_set_new(o, "dirty_bytes", array_of(s->dirty, s->n));
	json_object_set_new(o, "writeback_bytes", array_of(s->writeback, s->n));
	json_object_set_new(o, "inflight_read", dev ? array_of(s->in_r, s->n) : json_null());
	json_object_set_new(o, "inflight_write", dev ? array_of(s->in_w, s->n) : json_null());
	json_object_set_new(o, "errors", json_integer((json_int_t)s->errors));
	if (s->errors)
		json_object_set_new(o, "error", json_string(strerror(-s->first_err)));
	return o;
}

struct probe_sampler *probe_sampler_free(struct probe_sampler *s)
{
	if (!s)
		return NULL;
	probe_sampler_stop(s);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free_series(s);
	free(s);
	return NULL;
}
