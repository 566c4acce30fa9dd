/* `fsbench kernel-gate` and `kernel-run`: a suite on kernels booted in QEMU, gated. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/kgate.h"
#include "fsbench/cli/commands.h"
#include "fsbench/suite/suite.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/signal.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/gate.h"
#include "report/runset.h"
#include "model/result_file.h"
#include "model/runs.h"

/*
 * Also the model disk's: A/A gates dealt from 12 boots of one kernel raised false alarms in
 * 7 of 300 with 2 boots a side, 1 with 3 and none with 4, every one on a p99.9
 * (docs/kernel-gate.md, "How a regression is decided"). 3 a side, with p99.9 gated only
 * from 4, is the fewest that raised none.
 */
#define KG_DEFAULT_BOOTS 3
#define KG_MODEL_BOOTS_P999 4
#define KG_MAX_BOOTS 50
/*
 * What the gate judges by default. Percentiles beyond p99 are out: with a few thousand calls
 * per run p99.9 is a handful of samples, and pooling 10 runs a side still gave a false alarm
 * on write.p99.9. Under TCG with -icount, time inside the guest is counted instructions, so
 * code paths are repeatable, but an fsync or fdatasync waits on I/O the host completes in
 * real time: those latencies, and files/s whose every file waits on one, carry the host's
 * load (files/s CoV 12-28 % between boots here) and need KVM or real hardware. Reported,
 * not gated.
 */
static const char default_gate[] = "{\"metrics\": {\"*.p99.9\": {\"gate\": false}}}";
static const char icount_gate[] = "{\"metrics\": {\"*.p99.9\": {\"gate\": false}, "
				  "\"fsync.*\": {\"gate\": false}, "
				  "\"fdatasync.*\": {\"gate\": false}, "
				  "\"sync.*\": {\"gate\": false}, "
				  "\"files_per_sec\": {\"gate\": false}}}";

static const char *const accels[] = { "tcg", "kvm", NULL };
/* auto: the model under tcg, where the host's timing would leak in; virtio under kvm */
static const char *const disks[] = { "auto", "model", "virtio", NULL };

/*
 * With the model disk every run of a kernel is nearly the same (files/s within 0.05 %
 * between boots), so a regression is a change beyond both the threshold and this many times
 * the largest difference between two runs of one kernel (rpt_compare_floor).
 */
#define KG_FLOOR_MULTIPLE "3"
/*
 * The model's default threshold: files/s, MB/s and fsync p50 moved at most 0.4 % between
 * boots of one kernel here, so 1 % is above any A/A difference seen and below the few
 * percent a kernel change on the fsync path makes.
 */
#define KG_MODEL_THRESHOLD "1"

/* The command line of kernel-gate and kernel-run, as the option tables fill it. */
struct kg_cfg {
	char *spec[2], *modules[2], *append[2]; /* --baseline/--kernel, --candidate... */
	char *common_append;
	int64_t boots, repetitions, memory, disk_size, timeout, boot_timeout;
	char *fs, *threads, *cpu, *qemu, *disk_dir, *workdir, *json;
	char *gate_file;
	double alpha, threshold, max_host_load; /* max_host_load: NAN when not given */
	int accel, disk;
	int64_t disk_latency, disk_cache, disk_mbps, disk_queue_depth, disk_flush_latency, jobs;
	double floor_multiple;
	bool no_icount;
	char *suite; /* the operand; a second one is an error */
};

#define O(f) offsetof(struct kg_cfg, f)
/* What both commands take: the suite in the guest and the VM it runs in. */
/* clang-format off */
#define KG_COMMON_OPTS \
	{ .name = "repetitions", .type = OPT_INT, .offset = O(repetitions), .min = 1, .max = 1000, \
	  .help = "passed to the suite in the guest (default: the suite's)" }, \
	{ .name = "fs", .type = OPT_STRING, .offset = O(fs), \
	  .help = "passed to the suite in the guest: its filesystems to run, LIST" }, \
	{ .name = "threads", .type = OPT_STRING, .offset = O(threads), \
	  .help = "passed to the suite in the guest: thread counts, LIST" }, \
	{ .name = "accel", .type = OPT_ENUM, .offset = O(accel), .def = "tcg", .choices = accels, \
	  .help = "QEMU's accelerator" }, \
	{ .name = "no-icount", .type = OPT_BOOL, .offset = O(no_icount), \
	  .help = "real time under tcg instead of -icount shift=0 (sleep=off with the model " \
		  "disk, sleep=on with virtio)" }, \
	{ .name = "disk", .type = OPT_ENUM, .offset = O(disk), .def = "auto", .choices = disks, \
	  .help = "the suite's disk: model (null_blk in the guest, timed by guest timers; " \
		  "auto under tcg) or virtio (a host file; auto under kvm)" }, \
	{ .name = "disk-latency", .type = OPT_DURATION, .offset = O(disk_latency), \
	  .min = 1000, .max = INT64_C(1000000000), .def = "50us", \
	  .help = "model: the time each request takes" }, \
	{ .name = "disk-cache", .type = OPT_SIZE, .offset = O(disk_cache), \
	  .max = INT64_C(1) << 40, .def = "0", \
	  .help = "model: a volatile write cache of SIZE (whole MiB), written back by flush " \
		  "and FUA; 0 for none" }, \
	{ .name = "disk-flush-latency", .type = OPT_DURATION, .offset = O(disk_flush_latency), \
	  .max = INT64_C(10000000000), .def = "0", \
	  .help = "model: a flush's extra time, whole ms (dm-delay's flush class, served at " \
		  "the guest's next timer tick); 0 for none" }, \
	{ .name = "disk-mbps", .type = OPT_INT, .offset = O(disk_mbps), .max = 1000000, \
	  .def = "0", .unit = "MiB/s", .help = "model: a bandwidth limit; 0 for none" }, \
	{ .name = "disk-queue-depth", .type = OPT_INT, .offset = O(disk_queue_depth), .min = 1, \
	  .max = 4096, .def = CMD_XSTR(KG_DISK_QUEUE_DEPTH), \
	  .help = "model: requests in flight" }, \
	{ .name = "cpu", .type = OPT_STRING, .offset = O(cpu), .def = "qemu64", \
	  .help = "QEMU's CPU model" }, \
	{ .name = "memory", .type = OPT_INT, .offset = O(memory), .min = 256, .max = 1 << 20, \
	  .def = "1024", .unit = "MiB", .help = "the guest's memory" }, \
	{ .name = "qemu", .type = OPT_STRING, .offset = O(qemu), .file = OPT_FILE, \
	  .def = "qemu-system-x86_64", \
	  .help = "the QEMU program" }, \
	{ .name = "disk-size", .type = OPT_SIZE, .offset = O(disk_size), \
	  .min = INT64_C(64) << 20, .max = INT64_C(1) << 40, .def = "2G", \
	  .help = "the scratch disk, fresh each boot (model: whole GiB, held in guest memory)" }, \
	{ .name = "disk-dir", .type = OPT_STRING, .offset = O(disk_dir), .file = OPT_DIR, \
	  .def = "/dev/shm", \
	  .help = "where the scratch disk lives (tmpfs)" }, \
	{ .name = "boot-timeout", .type = OPT_DURATION, .offset = O(boot_timeout), \
	  .min = INT64_C(5000000000), .max = INT64_C(86400000000000), .def = "3m", \
	  .help = "until the guest's init starts" }, \
	{ .name = "timeout", .type = OPT_DURATION, .offset = O(timeout), \
	  .min = INT64_C(10000000000), .max = INT64_C(604800000000000), .def = "30m", \
	  .help = "a whole boot" }, \
	{ .name = "workdir", .type = OPT_STRING, .offset = O(workdir), .file = OPT_DIR, \
	  .help = "consoles and results (default a new fsbench-kgate-DATE-XXXXXX)" }
/* clang-format on */

static const struct fsb_opt gate_opts[] = {
	{ .name = "baseline",
	  .type = OPT_STRING,
	  .offset = O(spec[0]),
	  .file = OPT_FILE,
	  .help = "the baseline kernel K1 (required)" },
	{ .name = "candidate",
	  .type = OPT_STRING,
	  .offset = O(spec[1]),
	  .file = OPT_FILE,
	  .help = "the candidate kernel K2 (required)" },
	{ .name = "baseline-modules",
	  .type = OPT_STRING,
	  .offset = O(modules[0]),
	  .file = OPT_DIR,
	  .help = "K1's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "candidate-modules",
	  .type = OPT_STRING,
	  .offset = O(modules[1]),
	  .file = OPT_DIR,
	  .help = "K2's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "baseline-append",
	  .type = OPT_STRING,
	  .offset = O(append[0]),
	  .help = "extra kernel command line for K1" },
	{ .name = "candidate-append",
	  .type = OPT_STRING,
	  .offset = O(append[1]),
	  .help = "extra kernel command line for K2" },
	{ .name = "append",
	  .type = OPT_STRING,
	  .offset = O(common_append),
	  .help = "extra kernel command line for both" },
	{ .name = "boots",
	  .type = OPT_INT,
	  .offset = O(boots),
	  .min = 1,
	  .max = KG_MAX_BOOTS,
	  .def = CMD_XSTR(KG_DEFAULT_BOOTS),
	  .help = "boots a side, in the order A B B A (the model disk gates p99.9 from " CMD_XSTR(
		  KG_MODEL_BOOTS_P999) ")" },
	KG_COMMON_OPTS,
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = O(json),
	  .file = OPT_FILE,
	  .help = "the gate's document (default WORKDIR/kernel-gate.json)" },
	{ .name = "gate-file",
	  .type = OPT_STRING,
	  .offset = O(gate_file),
	  .file = OPT_FILE,
	  .help = "per-metric gate settings, as compare's --gate-file" },
	{ .name = "jobs",
	  .type = OPT_INT,
	  .offset = O(jobs),
	  .max = 64,
	  .def = "0",
	  .help = "boots at a time (default: the host's online CPUs with the model disk, 1 "
		  "with virtio, whose timing other boots would change)" },
	CMD_OPT_ALPHA(O(alpha), "significance level, as compare's (virtio disk)"),
	{ .name = "threshold",
	  .type = OPT_DOUBLE,
	  .offset = O(threshold),
	  .dmax = 1000,
	  .unit = "%",
	  .help = "smallest change that counts, as compare's (default: " KG_MODEL_THRESHOLD
		  " with the model disk, " CMD_XSTR(RPT_DEFAULT_THRESHOLD_PCT) " with virtio)" },
	{ .name = "floor-multiple",
	  .type = OPT_DOUBLE,
	  .offset = O(floor_multiple),
	  .dmin = 1,
	  .dmax = 1000,
	  .def = KG_FLOOR_MULTIPLE,
	  .help = "model disk: a regression is a change beyond --threshold and this many times "
		  "the A/A floor (the largest difference between two runs of one kernel)" },
	{ .name = "max-host-load",
	  .type = OPT_DOUBLE,
	  .offset = O(max_host_load),
	  .dmax = 100,
	  .unit = "%",
	  .help = "cannot judge when other processes used more of the host's CPUs than this "
		  "during a boot (default: off)" },
	{ 0 },
};

static const struct fsb_opt run_opts[] = {
	{ .name = "kernel",
	  .type = OPT_STRING,
	  .offset = O(spec[0]),
	  .file = OPT_FILE,
	  .help = "the kernel K (required)" },
	{ .name = "modules",
	  .type = OPT_STRING,
	  .offset = O(modules[0]),
	  .file = OPT_DIR,
	  .help = "K's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "append",
	  .type = OPT_STRING,
	  .offset = O(common_append),
	  .help = "extra kernel command line" },
	KG_COMMON_OPTS,
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = O(json),
	  .file = OPT_FILE,
	  .help = "copy the guest's result (with its \"vm\" record) to FILE" },
	{ 0 },
};
#undef O

static const char kernel_forms[] =
	"A kernel is a bzImage/vmlinuz (its modules from --*modules DIR holding\n"
	"lib/modules/RELEASE, else /lib/modules/RELEASE), a Debian linux-image .deb, or a\n"
	"release installed under /boot and /lib/modules.\n\n";

static void gate_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench kernel-gate --baseline K1 --candidate K2 [options] [SUITE]\n\n"
		"Boots K1 and K2 alternately in QEMU, runs SUITE (default '%s') inside each boot,\n"
		"and gates K2 against K1. Exit: 0 good, 1 regressed, 125 cannot judge (no boot, too\n"
		"few samples, A/A noise), 2 usage.\n%s",
		KG_DEFAULT_SUITE, kernel_forms);
}

static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench kernel-run --kernel K [--modules DIR] [options] [SUITE]\n\n"
		"Boots K once in QEMU and runs SUITE (default '%s') inside; exits with the guest's\n"
		"status, 125 when the kernel did not boot, 2 on usage errors.\n%s",
		KG_DEFAULT_SUITE, kernel_forms);
}

static int take_suite(void *cfg, char *arg, char *err, size_t errlen)
{
	struct kg_cfg *c = cfg;

	if (c->suite) {
		snprintf(err, errlen, "one suite only ('%s' is extra)", arg);
		return -EINVAL;
	}
	c->suite = arg;
	return 0;
}

/* The parsed command line as kg_prepare() takes it. 0, or FSB_EXIT_USAGE after one line. */
static int to_args(const struct kg_cfg *c, bool gate, struct kg_args *a)
{
	const char *cmd = gate ? "kernel-gate" : "kernel-run";

	memset(a, 0, sizeof(*a));
	for (int i = 0; i < 2; i++) {
		a->spec[i] = c->spec[i];
		a->modules[i] = c->modules[i];
		a->append[i] = c->append[i];
	}
	a->common_append = c->common_append;
	a->suite = c->suite;
	a->fs = c->fs;
	a->threads = c->threads;
	a->gate_file = c->gate_file;
	a->workdir = c->workdir;
	a->json = c->json;
	a->repetitions = (int)c->repetitions;
	kg_vm_defaults(&a->vm);
	a->vm.qemu = c->qemu;
	a->vm.accel = accels[c->accel];
	a->vm.cpu = c->cpu;
	a->vm.memory_mib = (int)c->memory;
	a->vm.disk_bytes = c->disk_size;
	a->vm.disk_dir = c->disk_dir;
	a->vm.disk.bytes = c->disk_size;
	a->vm.disk.kind = !strcmp(disks[c->disk], "model")  ? KG_DISK_MODEL :
			  !strcmp(disks[c->disk], "virtio") ? KG_DISK_VIRTIO :
			  !strcmp(a->vm.accel, "tcg")	    ? KG_DISK_MODEL :
							      KG_DISK_VIRTIO;
	a->vm.disk.latency_ns = c->disk_latency;
	a->vm.disk.cache_bytes = c->disk_cache;
	a->vm.disk.mbps = c->disk_mbps;
	a->vm.disk.queue_depth = c->disk_queue_depth;
	a->vm.disk.flush_latency_ms = c->disk_flush_latency / 1000000;
	/*
	 * sleep=off with the model: an idle guest's clock jumps to its next timer, so waiting
	 * on the disk costs no host time and the host's load cannot reach the guest's clock.
	 * virtio's requests complete in host real time, which the guest must wait for.
	 */
	if (a->vm.disk.kind == KG_DISK_MODEL)
		a->vm.icount = "shift=0,sleep=off";
	if (c->no_icount)
		a->vm.icount = NULL;
	a->boots = (int)c->boots;
	a->jobs = gate ? (int)c->jobs : 1;
	if (!a->jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		a->jobs = a->vm.disk.kind == KG_DISK_MODEL && cpus > 1 ? (int)cpus : 1;
	}
	a->floor_multiple = c->floor_multiple;
	a->vm.boot_timeout_s = (int)(c->boot_timeout / 1000000000);
	a->vm.timeout_s = (int)(c->timeout / 1000000000);
	/* the option table refused nan, inf and values out of range */
	a->alpha = c->alpha;
	a->threshold = !isnan(c->threshold)		? c->threshold :
		       a->vm.disk.kind == KG_DISK_MODEL ? atof(KG_MODEL_THRESHOLD) :
							  RPT_DEFAULT_THRESHOLD_PCT;
	a->max_host_load = c->max_host_load;
	if (c->disk_flush_latency % 1000000 ||
	    (c->disk_flush_latency && a->vm.disk.kind != KG_DISK_MODEL)) {
		fprintf(stderr,
			"fsbench %s: --disk-flush-latency: whole milliseconds (dm-delay's unit), "
			"with --disk model\n",
			cmd);
		return FSB_EXIT_USAGE;
	}
	if (!a->spec[0] || (gate && !a->spec[1])) {
		fprintf(stderr, "fsbench %s: %s\n", cmd,
			gate ? "--baseline and --candidate are both needed" : "--kernel is needed");
		return FSB_EXIT_USAGE;
	}
	return 0;
}

/*
 * One boot through kg_cli_boot into an array of its own, so that boots in threads side by
 * side share nothing: the record is the caller's in @ret_rec whatever happened.
 */
static int boot_one(struct kg_ctx *x, int side, int index, int total, bool gate, json_t **ret_rec,
		    char *ret_result, size_t len, const char *cmd)
{
	json_t *one = json_array();
	int r;

	if (!one) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, strerror(ENOMEM));
		return FSB_EXIT_FAIL;
	}
	r = kg_cli_boot(x, side, index, total, gate, one, ret_result, len, cmd);
	*ret_rec = json_incref(json_array_get(one, 0));
	json_decref(one);
	return r;
}
static int kernel_run(void *cfg)
{
	struct kg_ctx *x = calloc(1, sizeof(*x));
	char result[PATH_MAX + 64] = "", path[PATH_MAX + 64];
	json_t *boots = json_array(), *rec;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines between stderr's, in one log */
	if (!x || !boots) {
		fprintf(stderr, "fsbench kernel-run: %s\n", strerror(ENOMEM));
		json_decref(boots);
		free(x);
		return FSB_EXIT_FAIL;
	}
	if ((r = to_args(cfg, false, &x->a)))
		goto out;
	if ((r = kg_cli_prepare(x, 1, "kernel-run")) || (r = kg_cli_journal_open(x, "kernel-run")))
		goto out;
	base_install_signals();
	rec = NULL;
	r = boot_one(x, 0, 0, 1, false, &rec, result, sizeof(result), "kernel-run");
	kg_cli_journal_close(x);
	if (rec)
		json_array_append_new(boots, rec);
	if (rec) {
		/* what the suite printed in the guest, as if it had run here */
		snprintf(path, sizeof(path), "%s/guest/stdout",
			 json_string_value(json_object_get(rec, "dir")));
		FILE *f = fopen(path, "re");
		char buf[4096];
		size_t n;
		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
			/* the guest wrote it: no escape sequences reach the terminal */
			for (size_t i = 0; i < n; i++)
				if (((unsigned char)buf[i] < ' ' && buf[i] != '\n' &&
				     buf[i] != '\t') ||
				    buf[i] == 127)
					buf[i] = '?';
			fwrite(buf, 1, n, stdout);
		}
		if (f)
			fclose(f);
		fflush(stdout); /* the guest's last line may lack its newline */
		if (!r)
			r = (int)json_integer_value(json_object_get(rec, "guest_status"));
	}
	if (x->a.json && result[0] && access(result, R_OK) == 0) {
		json_t *doc = json_load_file(result, 0, NULL);
		int e = doc ? rpt_json_write_atomic(doc, x->a.json) : -EIO;

		json_decref(doc);
		if (e) {
			fprintf(stderr, "fsbench kernel-run: writing %s: %s\n", x->a.json,
				strerror(-e));
			r = r ? r : FSB_EXIT_FAIL;
		}
	}
out:
	json_decref(boots);
	free(x);
	return r;
}

/* Largest |change| among gated, judged comparisons of @cmp, and the regressions. */
static void cmp_extent(const json_t *cmp, double *ret_max, const char **ret_metric,
		       size_t *ret_regressed)
{
	const json_t *s, *m, *c;
	size_t i, j, k;

	*ret_max = 0;
	*ret_metric = NULL;
	*ret_regressed = rpt_compare_count(cmp, RPT_REGRESSION, true);
	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		double ch = json_number_value(json_object_get(c, "change_pct"));

		const char *v = json_string_value(json_object_get(c, "verdict"));

		/* a noisy or insufficient change was not judged: it is not the floor */
		if (!json_is_true(json_object_get(c, "gate")) ||
		    !json_is_number(json_object_get(c, "change_pct")) || !v ||
		    !strcmp(v, "noisy") || !strcmp(v, "insufficient"))
			continue;
		if (fabs(ch) > *ret_max) {
			*ret_max = fabs(ch);
			*ret_metric = json_string_value(json_object_get(m, "name"));
		}
	}
}

static int build_cmp(const char *const *files, const int *sides, size_t nfiles,
		     const char *const names[2], const struct rpt_compare_opts *o, json_t **ret,
		     json_t **docs)
{
	struct rpt_runset rs = { 0 };
	char err[1024];
	int r = 0;

	for (size_t i = 0; i < nfiles && !r; i++)
		r = rpt_runset_add(&rs, docs[i], files[i], sides[i], err, sizeof(err));
	if (!r)
		r = rpt_runset_compare(&rs, names, 2, o, ret, err, sizeof(err));
	if (r)
		fprintf(stderr, "fsbench kernel-gate: comparing: %s\n", err);
	rpt_runset_free(&rs);
	return r;
}

/* One kernel-gate's boots, their results, the comparisons and the verdict. */
struct gate {
	struct kg_ctx *x;
	struct rpt_compare_opts o;
	char files[2 * KG_MAX_BOOTS][PATH_MAX + 64];
	const char *fptr[2 * KG_MAX_BOOTS], *aafiles[2 * KG_MAX_BOOTS];
	json_t *docs[2 * KG_MAX_BOOTS], *aadocs[2 * KG_MAX_BOOTS];
	int sides[2 * KG_MAX_BOOTS], aasides[2 * KG_MAX_BOOTS];
	size_t nf, naa;
	int total;
	json_t *boots, *gate, *cmp, *aa, *out;
	double load_max, load_sum;
	const char *verdict, *why;
	bool counted; /* the model disk under instruction counting: judged by the A/A floor */
};

/* The per-metric gate settings: --gate-file, else the defaults for the accelerator. */
static int gate_settings(struct gate *g)
{
	const struct kg_args *a = &g->x->a;
	char err[1024];

	rpt_compare_opts_init(&g->o);
	g->o.alpha = a->alpha;
	g->o.threshold_pct = a->threshold;
	g->counted = a->vm.disk.kind == KG_DISK_MODEL && a->vm.icount && a->vm.icount[0] &&
		     !strcmp(a->vm.accel, "tcg");
	if (!a->gate_file && g->counted) /* every metric: the floor says which the spread allows */
		g->gate = a->boots >= KG_MODEL_BOOTS_P999 ? json_object() :
							    json_loads(default_gate, 0, NULL);
	else if (!a->gate_file)
		g->gate = json_loads(a->vm.icount && !strcmp(a->vm.accel, "tcg") ? icount_gate :
										   default_gate,
				     0, NULL);
	else if (rpt_gate_load(a->gate_file, &g->gate, err, sizeof(err))) {
		fprintf(stderr, "fsbench kernel-gate: --gate-file: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	g->o.gate = g->gate;
	return 0;
}

/* A gate's boots, run by --jobs threads; each boot's slots are its own. */
struct boot_pool {
	struct kg_ctx *x;
	int total, next;
	bool stop; /* a boot failed: start no more */
	pthread_mutex_t lock;
	const int *side;
	json_t **rec;
	char (*files)[PATH_MAX + 64];
	int *status;
};

static void *boot_worker(void *arg)
{
	struct boot_pool *p = arg;

	for (;;) {
		int i;

		pthread_mutex_lock(&p->lock);
		i = p->stop || base_signal_received ? p->total : p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->total)
			return NULL;
		p->status[i] = boot_one(p->x, p->side[i], i, p->total, true, &p->rec[i],
					p->files[i], sizeof(p->files[i]), "kernel-gate");
		if (p->status[i]) {
			pthread_mutex_lock(&p->lock);
			p->stop = true;
			pthread_mutex_unlock(&p->lock);
		}
	}
}

/* Runs the pool's boots @jobs at a time; a boot never started keeps status -1. 0 or -errno. */
static int boots_run(struct boot_pool *p, int jobs)
{
	pthread_t t[64];
	int n = 0, e = 0;

	for (int i = 0; i < p->total; i++)
		p->status[i] = -1;
	if (jobs > p->total)
		jobs = p->total;
	if (jobs <= 1) {
		boot_worker(p);
		return 0;
	}
	for (; n < jobs && n < 64; n++)
		if ((e = pthread_create(&t[n], NULL, boot_worker, p)))
			break;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return n ? 0 : -e;
}

/*
 * A B B A A B B A ...: a linear drift over time falls on both sides alike, and with two
 * boots at a time each pair holds one boot of each side, so neither side runs first, nor
 * beside itself.
 */
static int gate_boots(struct gate *g)
{
	int side[2 * KG_MAX_BOOTS], status[2 * KG_MAX_BOOTS], r = 0;
	json_t *rec[2 * KG_MAX_BOOTS] = { 0 };
	struct boot_pool pool = {
		.x = g->x, .side = side, .rec = rec, .files = g->files, .status = status
	};
	char err[1024];

	g->total = pool.total = 2 * g->x->a.boots;
	for (int i = 0; i < g->total; i++)
		side[i] = (i + i / 2) % 2;
	if (g->x->a.jobs > 1)
		fprintf(stderr, "fsbench kernel-gate: %d boots, %d at a time\n", g->total,
			g->x->a.jobs < g->total ? g->x->a.jobs : g->total);
	pthread_mutex_init(&pool.lock, NULL);
	if ((r = boots_run(&pool, g->x->a.jobs)))
		fprintf(stderr, "fsbench kernel-gate: starting the boots: %s\n", strerror(-r));
	pthread_mutex_destroy(&pool.lock);
	if (r) {
		g->why = "the boots could not start";
		return FSB_EXIT_CANNOT_JUDGE;
	}
	for (int i = 0; i < g->total; i++) {
		size_t nf = g->nf;

		if (rec[i])
			json_array_append_new(g->boots, rec[i]);
		if (r)
			continue;
		if (status[i]) {
			g->why = base_signal_received ? "interrupted" : "a boot failed";
			r = base_signal_received ? 128 + (int)base_signal_received :
						   FSB_EXIT_CANNOT_JUDGE;
			continue;
		}
		if (rpt_runs_load(g->files[i], &g->docs[nf], err, sizeof(err))) {
			fprintf(stderr, "fsbench kernel-gate: %s\n", err);
			g->why = "a result could not be read";
			r = FSB_EXIT_CANNOT_JUDGE;
			continue;
		}
		g->fptr[nf] = g->files[i];
		g->sides[nf] = side[i];
		if (side[i] == 0) { /* A/A: the baseline's 1st, 3rd... boots against 2nd, 4th... */
			g->aafiles[g->naa] = g->files[i];
			g->aadocs[g->naa] = g->docs[nf];
			g->aasides[g->naa] = (int)(g->naa % 2);
			g->naa++;
		}
		g->nf++;
		double l = json_number_value(
			json_object_get(json_array_get(g->boots, (size_t)i), "host_load_pct"));
		g->load_sum += l;
		if (l > g->load_max)
			g->load_max = l;
	}
	return r;
}

/* Candidate against baseline, and the baseline's odd boots against its even ones. */
static int gate_compare(struct gate *g)
{
	const char *names[2] = { "baseline", "candidate" };
	const char *aanames[2] = { "baseline-odd", "baseline-even" };
	struct rpt_compare_opts ao = g->o;

	/*
	 * Strict: a gated metric with too few samples cannot pass. Noisy ones (device timing
	 * under TCG) pass with a warning: the A/A line shows how noisy.
	 */
	g->o.strict = true;
	g->o.allow_noisy = true;
	if (build_cmp(g->fptr, g->sides, g->nf, names, &g->o, &g->cmp, g->docs)) {
		g->why = "the results could not be compared";
		return FSB_EXIT_CANNOT_JUDGE;
	}
	if (g->naa >= 2 &&
	    build_cmp(g->aafiles, g->aasides, g->naa, aanames, &ao, &g->aa, g->aadocs)) {
		g->why = "the A/A comparison failed";
		return FSB_EXIT_CANNOT_JUDGE;
	}
	if (g->counted) {
		int r = rpt_compare_floor(g->cmp, g->x->a.floor_multiple);

		if (!r && g->aa)
			r = rpt_compare_floor(g->aa, g->x->a.floor_multiple);
		if (r) {
			fprintf(stderr, "fsbench kernel-gate: judging by the A/A floor: %s\n",
				strerror(-r));
			g->why = "the results could not be compared";
			return FSB_EXIT_CANNOT_JUDGE;
		}
	}
	return 0;
}

/* Prints the comparison, the A/A floor and the host's load; the exit status it comes to. */
static int gate_judge(struct gate *g)
{
	double aamax = 0, cmax = 0;
	const char *aametric = NULL, *cmetric = NULL;
	size_t aareg = 0, creg = 0;
	enum rpt_gate_status st = rpt_gate_status(g->cmp);
	int r;

	rpt_compare_print(g->cmp, stdout, false);
	cmp_extent(g->cmp, &cmax, &cmetric, &creg);
	if (g->aa) {
		cmp_extent(g->aa, &aamax, &aametric, &aareg);
		printf("A/A noise floor (baseline boots odd vs even): largest judged gated "
		       "change %.1f%%%s%s%s, %zu regression(s), %zu noisy\n",
		       aamax, aametric ? " (" : "", aametric ? aametric : "", aametric ? ")" : "",
		       aareg, rpt_compare_count(g->aa, RPT_NOISY, true));
	} else
		printf("A/A noise floor: not measured (needs --boots 2 or more)\n");
	printf("host load from other processes during the boots: mean %.0f%%, max %.0f%% of the host's CPUs\n",
	       g->load_sum / g->total, g->load_max);
	if (rpt_compare_count(g->cmp, RPT_NOISY, true))
		printf("note: %zu gated metric(s) were too noisy to judge and did not fail the "
		       "gate (see the A/A floor)\n",
		       rpt_compare_count(g->cmp, RPT_NOISY, true));
	if (g->counted)
		printf("decided by the A/A floor: a change counts beyond %.4g%% and %.4g times the "
		       "largest difference between two runs of one kernel (floor, beside each "
		       "verdict)\n",
		       g->x->a.threshold, g->x->a.floor_multiple);
	else if (g->load_max > 25)
		printf("warning: the host was busy; under TCG host load leaks into the "
		       "guest's timing (two busy loops cut files/s by 42%%)\n");
	if (st == RPT_GATE_REGRESSED) {
		r = 1;
		g->verdict = "regressed";
	} else if (st == RPT_GATE_UNJUDGED) {
		r = FSB_EXIT_CANNOT_JUDGE;
		g->why = "some gated metrics could not be judged (too few samples, or noisy)";
	} else
		r = 0, g->verdict = "good";
	if (r != 1 && aareg) {
		r = FSB_EXIT_CANNOT_JUDGE;
		g->verdict = "cannot judge";
		g->why =
			"the baseline regressed against itself (A/A): the noise floor is above the gate";
	}
	if (!isnan(g->x->a.max_host_load) && g->load_max > g->x->a.max_host_load) {
		r = FSB_EXIT_CANNOT_JUDGE;
		g->verdict = "cannot judge";
		g->why = "the host was busier than --max-host-load";
	}
	g->out = json_pack("{s:s, s:f, s:s?, s:f, s:s?, s:I, s:f, s:f}", "schema",
			   "fsbench-kernel-gate/1", "largest_change_pct", cmax,
			   "largest_change_metric", cmetric, "aa_largest_change_pct", aamax,
			   "aa_largest_change_metric", aametric, "aa_regressions",
			   (json_int_t)aareg, "host_load_mean_pct", g->load_sum / g->total,
			   "host_load_max_pct", g->load_max);
	return r;
}

/* The verdict line and the gate's document (kernels, boots, comparisons). */
static void gate_verdict(struct gate *g, int r)
{
	struct kg_ctx *x = g->x;
	char docpath[PATH_MAX + 32];
	const char *path = x->a.json ? x->a.json : docpath;

	if (!g->out)
		g->out = json_pack("{s:s}", "schema", "fsbench-kernel-gate/1");
	if (r == 1)
		g->verdict = "regressed";
	printf("verdict: %s%s%s (exit %d)\n", g->verdict, g->why ? ": " : "", g->why ? g->why : "",
	       r);
	fflush(stdout); /* its line whole before stderr's */
	if (!x->workdir[0])
		return;
	json_object_set_new(g->out, "verdict", json_string(g->verdict));
	if (g->why)
		json_object_set_new(g->out, "reason", json_string(g->why));
	json_object_set_new(g->out, "exit", json_integer(r));
	json_object_set_new(g->out, "suite", json_string(x->suite));
	for (int i = 0; i < 2; i++) {
		char cl[KG_CMDLINE_MAX + 128];

		kg_cmdline(&x->k[i], cl, sizeof(cl));
		if (x->a.vm.disk.kind == KG_DISK_MODEL) { /* as boot.c gives it */
			size_t l = strlen(cl);

			cl[l++] = ' ';
			kg_disk_cmdline(&x->a.vm.disk, cl + l, sizeof(cl) - l);
		}
		json_object_set_new(
			g->out, x->k[i].label[0] ? x->k[i].label : (i ? "candidate" : "baseline"),
			json_pack("{s:s, s:s, s:s, s:s}", "spec", x->k[i].spec, "image",
				  x->k[i].image, "release", x->k[i].release, "cmdline", cl));
	}
	json_object_set(g->out, "boots", g->boots);
	if (g->cmp)
		json_object_set(g->out, "compare", g->cmp);
	if (g->aa)
		json_object_set(g->out, "aa_compare", g->aa);
	snprintf(docpath, sizeof(docpath), "%s/kernel-gate.json", x->workdir);
	int e = rpt_json_write_atomic(g->out, path);
	if (e)
		fprintf(stderr, "fsbench kernel-gate: writing %s: %s\n", path, strerror(-e));
	else
		fprintf(stderr, "fsbench kernel-gate: boots and results in %s; verdict in %s\n",
			x->workdir, path);
}

static int kernel_gate(void *cfg)
{
	struct gate *g = calloc(1, sizeof(*g));
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines between stderr's, in one log */
	if (!g || !(g->x = calloc(1, sizeof(*g->x))) || !(g->boots = json_array())) {
		fprintf(stderr, "fsbench kernel-gate: %s\n", strerror(ENOMEM));
		r = FSB_EXIT_FAIL;
		goto done;
	}
	g->verdict = "cannot judge";
	if ((r = to_args(cfg, true, &g->x->a)) || (r = gate_settings(g)) ||
	    (r = kg_cli_prepare(g->x, 2, "kernel-gate")) ||
	    (r = kg_cli_journal_open(g->x, "kernel-gate")))
		goto done;
	base_install_signals();
	r = gate_boots(g);
	kg_cli_journal_close(g->x);
	if (!r && !(r = gate_compare(g)))
		r = gate_judge(g);
	gate_verdict(g, r);
done:
	if (g) {
		for (size_t i = 0; i < g->nf; i++)
			json_decref(g->docs[i]);
		json_decref(g->out);
		json_decref(g->cmp);
		json_decref(g->aa);
		json_decref(g->gate);
		json_decref(g->boots);
		free(g->x);
	}
	free(g);
	return r;
}

static const struct cmd_spec gate_cmd = {
	.name = "kernel-gate",
	.opts = gate_opts,
	.operand = take_suite,
	.usage = gate_usage,
	.run = kernel_gate,
};

static const struct cmd_spec run_cmd = {
	.name = "kernel-run",
	.opts = run_opts,
	.operand = take_suite,
	.usage = run_usage,
	.run = kernel_run,
};

int cmd_kernel_gate(int argc, char **argv)
{
	struct kg_cfg c = { .max_host_load = NAN, .threshold = NAN };

	return cmd_args_run(&gate_cmd, &c, argc, argv);
}

int cmd_kernel_run(int argc, char **argv)
{
	struct kg_cfg c = { .max_host_load = NAN };

	return cmd_args_run(&run_cmd, &c, argc, argv);
}
