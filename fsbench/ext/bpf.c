/* The eBPF extension: kernel-side sources around the run, and why its slowest calls were slow. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsbench/core/common.h"
#include "fsbench/core/ext.h"
#include "probes/bpf/probe_bpf.h"
#include "probes/target/target.h"
#include "fsbench/core/workload.h"

struct bpf_cfg {
	char *probes; /* --probes LIST */
};

#define O(f) offsetof(struct bpf_cfg, f)
static const struct fsb_opt bpf_opts[] = {
	{ .name = "probes",
	  .type = OPT_STRING,
	  .offset = O(probes),
	  .def = "all",
	  .help = "kernel sources traced with eBPF during the run: all, none, or a comma list of block, jbd2, "
		  "xfs, btrfs, writeback, iomap; each is ok or skipped (with why) in the result's probes" },
	{ 0 },
};
#undef O

/* A whole disk's dev from sysfs ("7:3"). 0 or -errno. */
static int disk_dev(const struct probe_target *t, unsigned *ret_major, unsigned *ret_minor)
{
	char path[PATH_MAX + 8];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/dev", t->disk_sysfs);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%u:%u", ret_major, ret_minor);
	fclose(f);
	return n == 2 ? 0 : -EINVAL;
}

/* The superblock's backing_dev_info name: the disk's "MAJ:MIN", btrfs' own "btrfs-N". */
static void bdi_name(const struct probe_target *t, const struct probe_bpf_target *pt, char *buf,
		     size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	buf[0] = 0;
	if (!strcmp(t->fstype, "btrfs")) {
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/bdi", t->uuid);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			const char *name;

			link[n] = 0;
			name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
			if (strlen(name) < len)
				memcpy(buf, name, strlen(name) + 1);
		}
		return;
	}
	if (pt->has_disk)
		snprintf(buf, len, "%u:%u", pt->disk_major, pt->disk_minor);
}

static void arm_probes(void *arg)
{
	probe_bpf_arm(arg);
}

static int bpf_before(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
		      void **ret_state, char *err, size_t errlen)
{
	const struct bpf_cfg *bc = cfg;
	const char *dir = c->dirs.n ? c->dirs.v[0] : ".";
	struct probe_bpf_target pt = { 0 };
	struct probe_target *t;
	struct probe_bpf *b;
	uint32_t mask;
	int r;

	*ret_state = NULL;
	r = probe_bpf_select(bc->probes, &mask, err, errlen);
	if (r < 0)
		return r;
	if (!mask)
		return 0;
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "eBPF probes: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* an unknown target only leaves the sources without a device to filter on */
	if (probe_target_resolve(NULL, dir, t) == 0) {
		snprintf(pt.fstype, sizeof(pt.fstype), "%s", t->fstype);
		pt.s_major = t->major;
		pt.s_minor = t->minor;
		pt.bdev_major = t->dev_major;
		pt.bdev_minor = t->dev_minor;
		if (t->has_block_device && disk_dev(t, &pt.disk_major, &pt.disk_minor) == 0) {
			pt.has_disk = true;
			snprintf(pt.disk, sizeof(pt.disk), "%s", t->disk);
		}
		bdi_name(t, &pt, pt.bdi, sizeof(pt.bdi));
	}
	free(t);
	r = probe_bpf_start(&pt, mask, &run->run_start_ns, &b);
	if (r < 0) {
		snprintf(err, errlen, "starting the eBPF probes: %s", strerror(-r));
		return r;
	}
	/*
	 * Armed by the runner before its clock starts: the consumer thread's own arming, a
	 * poll of run_start_ns, can come after the first fsync on a busy one-CPU guest (that
	 * commit went uncounted: 99 for 100 under AddressSanitizer in 6.1's guest).
	 */
	run->on_start = arm_probes;
	run->on_start_arg = b;
	*ret_state = b;
	return 0;
}

struct slow_ref {
	enum fsb_op op;
	int thread; /* -1: the victim */
	struct fsb_slow_call call;
};

static int by_duration_desc(const void *a, const void *b)
{
	const struct slow_ref *x = a, *y = b;
	uint64_t dx = x->call.t1 - x->call.t0, dy = y->call.t1 - y->call.t0;

	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static size_t collect(const struct fsb_slow_top *top, int thread, enum fsb_op op,
		      struct slow_ref *out, size_t n)
{
	for (uint32_t i = 0; i < top->n; i++)
		out[n++] = (struct slow_ref){ op, thread, top->v[i] };
	return n;
}

/* The run's FSB_SLOW_N slowest calls of each operation, slowest first, with the kernel's side. */
static json_t *slow_calls_json(const struct fsb_run *run, const struct probe_bpf *b)
{
	size_t cap = ((size_t)run->nthreads + 1) * FSB_SLOW_N;
	struct slow_ref *refs = malloc(cap * sizeof(*refs));
	json_t *arr = json_array();

	if (!refs)
		return arr;
	for (int op = 0; op < OP_COUNT; op++) {
		size_t n = 0;

		for (int i = 0; i < run->nthreads; i++)
			if (run->threads[i].slow)
				n = collect(&run->threads[i].slow[op], i, (enum fsb_op)op, refs, n);
		if (run->victim_slow)
			n = collect(&run->victim_slow[op], -1, (enum fsb_op)op, refs, n);
		qsort(refs, n, sizeof(*refs), by_duration_desc);
		for (size_t i = 0; i < n && i < FSB_SLOW_N; i++) {
			const struct slow_ref *s = &refs[i];
			json_t *o = json_object();

			json_object_set_new(o, "op", json_string(mdl_ops[s->op].name));
			json_object_set_new(o, "thread",
					    s->thread < 0 ? json_string("victim") :
							    json_integer(s->thread));
			json_object_set_new(
				o, "start_ns",
				json_integer((json_int_t)(s->call.t0 - run->run_start_ns)));
			json_object_set_new(o, "duration_ns",
					    json_integer((json_int_t)(s->call.t1 - s->call.t0)));
			json_object_set_new(o, "kernel",
					    probe_bpf_attribute(b, s->call.t0, s->call.t1));
			json_array_append_new(arr, o);
		}
	}
	free(refs);
	return arr;
}

static void bpf_after(struct fsb_run *run, const struct fsb_common *c, const void *cfg, void *state,
		      json_t *run_json)
{
	struct probe_bpf *b = state;
	json_t *o;

	(void)c;
	(void)cfg;
	if (!b)
		return;
	probe_bpf_stop(b);
	if (run_json && run->run_start_ns) {
		o = probe_bpf_json(b, run->run_start_ns);
		json_object_set_new(o, "slow_calls",
				    probe_bpf_loaded(b) ? slow_calls_json(run, b) : json_array());
		json_object_set_new(run_json, "probes", o);
	}
	probe_bpf_free(b);
}

const struct fsb_ext fsb_ext_bpf = {
	.name = "bpf",
	.opts = bpf_opts,
	.cfg_size = sizeof(struct bpf_cfg),
	.before = bpf_before,
	.after = bpf_after,
};
