/* The canary (canary.h): fsyncs of one 4 KiB block in the target, timed alone. */
#include "probes/sampler/canary.h"
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as the histogram's percentiles are. */
static double rank_us(const uint64_t *v, int n, double p)
{
	int i = (int)(p / 100 * n + 0.999999) - 1;

	return (double)v[i < 0 ? 0 : i >= n ? n - 1 : i] / 1e3;
}

void probe_canary_summarise(uint64_t *v, int n, struct probe_canary *ret)
{
	double sum = 0;

	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	for (int i = 0; i < n; i++)
		sum += (double)v[i];
	ret->n = n;
	ret->p10_us = rank_us(v, n, 10);
	ret->p50_us = rank_us(v, n, 50);
	ret->p90_us = rank_us(v, n, 90);
	ret->mean_us = n ? sum / n / 1e3 : 0;
	ret->spread_pct = ret->p50_us > 0 ? (ret->p90_us - ret->p10_us) / ret->p50_us * 100 : 0;
}

int probe_canary_run(const char *dir, int n, struct probe_canary *ret)
{
	char path[PATH_MAX], block[4096];
	uint64_t t0 = now_ns(), *v;
	struct probe_canary c = { 0 };
	int fd, r = 0;

	if (n < 1 || n > PROBE_CANARY_MAX)
		return -EINVAL;
	r = base_path(path, sizeof(path), "%s/.fsbench-canary.%d", dir, (int)getpid());
	if (r < 0)
		return r;
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(block, 0x5a, sizeof(block));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		free(v);
		return r;
	}
	for (int i = 0; i < n && !r; i++) {
		uint64_t a;

		block[0] = (char)i; /* a changed block, so every fsync has data to write */
		if (pwrite(fd, block, sizeof(block), 0) != (ssize_t)sizeof(block)) {
			r = errno ? -errno : -EIO;
			break;
		}
		a = now_ns();
		if (fsync(fd) < 0)
			r = -errno;
		v[i] = now_ns() - a;
	}
	if (close(fd) < 0 && !r)
		r = -errno;
	if (unlink(path) < 0 && !r)
		r = -errno;
	if (!r) {
		probe_canary_summarise(v, n, &c);
		c.elapsed_s = (double)(now_ns() - t0) / 1e9;
		*ret = c;
	}
	free(v);
	return r;
}

json_t *probe_canary_json(const struct probe_canary *c)
{
	return json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:f}", "n", c->n, "p10_us", c->p10_us, "p50_us",
			 c->p50_us, "p90_us", c->p90_us, "mean_us", c->mean_us, "spread_pct",
			 c->spread_pct, "elapsed_s", c->elapsed_s);
}
