/* Before/after snapshots of one block device's line in /proc/diskstats, and their deltas. */
#include "probes/sampler/diskstats.h"
#include "base/fileio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 11 + 4 + 2 fields; the oldest format kernels still in use give 11 */
#define DS_MIN_FIELDS 11
/* one short line per device and partition: 1 MiB holds thousands, and bounds the read */
#define DISKSTATS_MAX (1 << 20)

static int parse_line(const char *line, struct probe_diskstats *ret)
{
	const char *p = line;
	char *end;
	int n = 0;

	while (n < DS_FIELDS) {
		unsigned long long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p)
			break;
		ret->v[n++] = v;
		p = end;
	}
	if (n < DS_MIN_FIELDS)
		return -EBADMSG;
	ret->nfields = n;
	return 0;
}

int probe_diskstats_parse(const char *text, const char *name, struct probe_diskstats *ret)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		struct probe_diskstats d = { 0 };
		char dev[64];
		int off = 0;

		if (sscanf(line, " %u %u %63s%n", &d.major, &d.minor, dev, &off) == 3 &&
		    !strcmp(dev, name)) {
			int r = parse_line(line + off, &d);

			if (r < 0)
				return r;
			base_strcpy(d.name, sizeof(d.name), dev);
			*ret = d;
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

int probe_diskstats_read(const char *root, const char *name, struct probe_diskstats *ret)
{
	char path[4096];
	struct probe_diskstats d;
	struct timespec ts;
	ssize_t n;
	char *buf;
	int r;

	r = base_path(path, sizeof(path), "%s/proc/diskstats", root ? root : "");
	if (r < 0)
		return r;
	buf = malloc(DISKSTATS_MAX);
	if (!buf)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = base_read_file(path, buf, DISKSTATS_MAX);
	if (n < 0) {
		free(buf);
		return (int)n;
	}
	r = probe_diskstats_parse(buf, name, &d);
	free(buf);
	if (r < 0)
		return r;
	d.t_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	*ret = d;
	return 0;
}

/* Counter delta, or null when either side lacks the field or it went backwards. */
static json_t *delta(const struct probe_diskstats *a, const struct probe_diskstats *b, int f,
		     uint64_t scale, uint64_t *ret)
{
	if (f >= a->nfields || f >= b->nfields || b->v[f] < a->v[f])
		return json_null();
	*ret = (b->v[f] - a->v[f]) * scale;
	return json_integer((json_int_t)*ret);
}

json_t *probe_diskstats_delta_json(const struct probe_diskstats *a, const struct probe_diskstats *b)
{
	json_t *o = json_object();
	uint64_t x, queue_ns = 0, elapsed = b->t_ns > a->t_ns ? b->t_ns - a->t_ns : 0;
	json_t *q;

	if (!o)
		return NULL;
	json_object_set_new(o, "name", json_string(b->name));
	json_object_set_new(o, "write_bytes", delta(a, b, DS_SECTORS_WRITTEN, 512, &x));
	json_object_set_new(o, "write_ios", delta(a, b, DS_WRITES, 1, &x));
	json_object_set_new(o, "flush_ios", delta(a, b, DS_FLUSHES, 1, &x));
	json_object_set_new(o, "discard_ios", delta(a, b, DS_DISCARDS, 1, &x));
	json_object_set_new(o, "busy_ns", delta(a, b, DS_IO_MS, 1000000, &x));
	q = delta(a, b, DS_QUEUE_MS, 1000000, &queue_ns);
	json_object_set_new(o, "queue_ns", q);
	json_object_set_new(o, "mean_queue_depth",
			    json_is_integer(q) && elapsed ?
				    json_real((double)queue_ns / (double)elapsed) :
				    json_null());
	json_object_set_new(o, "elapsed_ns", json_integer((json_int_t)elapsed));
	json_object_set_new(o, "read_bytes", delta(a, b, DS_SECTORS_READ, 512, &x));
	json_object_set_new(o, "read_ios", delta(a, b, DS_READS, 1, &x));
	json_object_set_new(o, "fields",
			    json_integer(a->nfields < b->nfields ? a->nfields : b->nfields));
	return o;
}
