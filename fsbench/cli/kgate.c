/* `fsbench kernel-gate` and `kernel-run`: a suite on kernels booted in QEMU, gated. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/backends.h"
#include "base/dirfd.h"
#include "fsbench/cli/kgate_cmd.h"
#include "fsbench/cli/history_run.h"
#include "fsbench/history/db.h"
#include "fsbench/cli/commands.h"
#include "fsbench/suite/suite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/compare.h"

static const char *const accels[] = { "tcg", "kvm", NULL };
/* auto: the model under tcg, where the host's timing would leak in; virtio under kvm */
static const char *const disks[] = { "auto", "model", "virtio", NULL };

/*
 * With the model disk every run of a kernel is nearly the same (files/s within 0.05 %
 * between boots), so a regression is a change beyond both the threshold and this many times
 * the largest difference between two runs of one kernel (rpt_cmp_floor_pct).
 */
#define KG_FLOOR_MULTIPLE "3"

/*
 * The command line of kernel-gate and kernel-run, as the option tables fill it: most options
 * straight into the request the gate takes (@a), the rest in the units or forms they are
 * given in, which to_args() turns into @a's. @a.suite is the operand (take_suite), and
 * @a.max_host_load NAN when not given.
 */
struct kg_cfg {
	struct kg_args a;
	int64_t boot_timeout, timeout; /* ns: @a.vm holds whole seconds */
	struct cmd_backend_cfg be; /* a backend other than the local boot (backends.h) */
	int accel, disk; /* indexes into accels[] and disks[] */
	bool no_icount;
	char *history; /* --history DB: kernel-run's result, or each boot of the gate, added there */
};

#define O(f) offsetof(struct kg_cfg, f)
#define A(f) offsetof(struct kg_cfg, a.f)
/* What both commands take: the suite in the guest and the VM it runs in. */
/* clang-format off */
#define KG_COMMON_OPTS \
	{ .name = "repetitions", .type = OPT_INT, .offset = A(repetitions), .min = 1, .max = 1000, \
	  .help = "passed to the suite in the guest (default: the suite's)" }, \
	{ .name = "fs", .type = OPT_STRING, .offset = A(fs), \
	  .help = "passed to the suite in the guest: its filesystems to run, LIST" }, \
	{ .name = "threads", .type = OPT_STRING, .offset = A(threads), \
	  .help = "passed to the suite in the guest: thread counts, LIST" }, \
	{ .name = "accel", .type = OPT_ENUM, .offset = O(accel), .def = "tcg", .choices = accels, \
	  .help = "QEMU's accelerator" }, \
	{ .name = "no-icount", .type = OPT_BOOL, .offset = O(no_icount), \
	  .help = "real time under tcg instead of -icount shift=0 (sleep=off with the model " \
		  "disk, sleep=on with virtio)" }, \
	{ .name = "disk", .type = OPT_ENUM, .offset = O(disk), .def = "auto", .choices = disks, \
	  .help = "the suite's disk: model (null_blk in the guest, timed by guest timers; " \
		  "auto under tcg) or virtio (a host file; auto under kvm)" }, \
	{ .name = "disk-latency", .type = OPT_DURATION, .offset = A(vm.disk.latency_ns), \
	  .min = 1000, .max = INT64_C(1000000000), .def = "50us", \
	  .help = "model: the time each request takes" }, \
	{ .name = "disk-cache", .type = OPT_SIZE, .offset = A(vm.disk.cache_bytes), \
	  .max = INT64_C(1) << 40, .def = "0", \
	  .help = "model: a volatile write cache of SIZE (whole MiB), written back by flush " \
		  "and FUA; 0 for none" }, \
	{ .name = "disk-flush-latency", .type = OPT_DURATION, .offset = A(flush_latency_ns), \
	  .max = INT64_C(10000000000), .def = "0", \
	  .help = "model: a flush's extra time, whole ms (dm-delay's flush class, served at " \
		  "the guest's next timer tick); 0 for none" }, \
	{ .name = "disk-mbps", .type = OPT_INT, .offset = A(vm.disk.mbps), .max = 1000000, \
	  .def = "0", .unit = "MiB/s", .help = "model: a bandwidth limit; 0 for none" }, \
	{ .name = "disk-queue-depth", .type = OPT_INT, .offset = A(vm.disk.queue_depth), .min = 1, \
	  .max = 4096, .def = CMD_XSTR(KG_DISK_QUEUE_DEPTH), \
	  .help = "model: requests in flight" }, \
	{ .name = "cpu", .type = OPT_STRING, .offset = A(vm.cpu), .def = "qemu64", \
	  .help = "QEMU's CPU model" }, \
	{ .name = "memory", .type = OPT_INT, .offset = A(vm.memory_mib), .min = 256, \
	  .max = 1 << 20, .def = "1024", .unit = "MiB", .help = "the guest's memory" }, \
	{ .name = "qemu", .type = OPT_STRING, .offset = A(vm.qemu), .file = OPT_FILE, \
	  .def = "qemu-system-x86_64", \
	  .help = "the QEMU program" }, \
	{ .name = "disk-size", .type = OPT_SIZE, .offset = A(vm.disk.bytes), \
	  .min = INT64_C(64) << 20, .max = INT64_C(1) << 40, .def = "2G", \
	  .help = "the scratch disk, fresh each boot (model: whole GiB, held in guest memory)" }, \
	{ .name = "disk-dir", .type = OPT_STRING, .offset = A(vm.disk_dir), .file = OPT_DIR, \
	  .def = "/dev/shm", \
	  .help = "where the scratch disk lives (tmpfs)" }, \
	{ .name = "boot-timeout", .type = OPT_DURATION, .offset = O(boot_timeout), \
	  .min = INT64_C(5000000000), .max = INT64_C(86400000000000), .def = "3m", \
	  .help = "until the guest's init starts" }, \
	{ .name = "timeout", .type = OPT_DURATION, .offset = O(timeout), \
	  .min = INT64_C(10000000000), .max = INT64_C(604800000000000), .def = "30m", \
	  .help = "a whole boot" }, \
	{ .name = "workdir", .type = OPT_STRING, .offset = A(workdir), .file = OPT_DIR, \
	  .help = "consoles and results (default a new fsbench-kgate-DATE-XXXXXX)" }, \
	CMD_BACKEND_OPTS(O(be))
/* clang-format on */

/* --baseline-url, --candidate-url, --kernel-url: kgate/fetch.h */
#define KG_URL_HELP(k)                                                                         \
	"instead of a file, " k " as an http(s) URL (a .deb or a bzImage), fetched once into " \
	"the work directory (at most 1 GiB); its URL and SHA-256 go into the records"

static const struct fsb_opt gate_opts[] = {
	{ .name = "baseline",
	  .type = OPT_STRING,
	  .offset = A(spec[0]),
	  .file = OPT_FILE,
	  .help = "the baseline kernel K1 (this or --baseline-url)" },
	{ .name = "candidate",
	  .type = OPT_STRING,
	  .offset = A(spec[1]),
	  .file = OPT_FILE,
	  .help = "the candidate kernel K2 (this or --candidate-url)" },
	{ .name = "baseline-url",
	  .type = OPT_STRING,
	  .offset = A(url[0]),
	  .help = KG_URL_HELP("K1") },
	{ .name = "candidate-url",
	  .type = OPT_STRING,
	  .offset = A(url[1]),
	  .help = KG_URL_HELP("K2") },
	{ .name = "baseline-modules",
	  .type = OPT_STRING,
	  .offset = A(modules[0]),
	  .file = OPT_DIR,
	  .help = "K1's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "candidate-modules",
	  .type = OPT_STRING,
	  .offset = A(modules[1]),
	  .file = OPT_DIR,
	  .help = "K2's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "baseline-append",
	  .type = OPT_STRING,
	  .offset = A(append[0]),
	  .help = "extra kernel command line for K1" },
	{ .name = "candidate-append",
	  .type = OPT_STRING,
	  .offset = A(append[1]),
	  .help = "extra kernel command line for K2" },
	{ .name = "append",
	  .type = OPT_STRING,
	  .offset = A(common_append),
	  .help = "extra kernel command line for both" },
	{ .name = "boots",
	  .type = OPT_INT,
	  .offset = A(boots),
	  .min = 1,
	  .max = KG_MAX_BOOTS,
	  .help = "boots a side, in the order A B B A (default: " CMD_XSTR(KG_MODEL_BOOTS) " with the model disk, " CMD_XSTR(
		  KG_VIRTIO_BOOTS) " with virtio, "
				   "more when the suite's repetitions give fewer than " CMD_XSTR(
					   RPT_MIN_SAMPLES) " samples a side; the model disk gates "
							    "p99.9 from " CMD_XSTR(
								    KG_MODEL_BOOTS_P999) ")" },
	KG_COMMON_OPTS,
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = A(json),
	  .file = OPT_FILE,
	  .help = "the gate's document (default WORKDIR/kernel-gate.json)" },
	{ .name = "gate-file",
	  .type = OPT_STRING,
	  .offset = A(gate_file),
	  .file = OPT_FILE,
	  .help = "per-metric gate settings, as compare's --gate-file" },
	{ .name = "jobs",
	  .type = OPT_INT,
	  .offset = A(jobs),
	  .max = 64,
	  .def = "0",
	  .help = "boots at a time (default: the host's online CPUs with the model disk, 1 "
		  "with virtio, whose timing other boots would change)" },
	CMD_OPT_ALPHA(A(alpha), "significance level, as compare's (virtio disk)"),
	{ .name = "threshold",
	  .type = OPT_DOUBLE,
	  .offset = A(threshold),
	  .dmax = 1000,
	  .unit = "%",
	  .help = "smallest change that counts, as compare's (default: " KG_MODEL_THRESHOLD
		  " with the model disk, " CMD_XSTR(RPT_DEFAULT_THRESHOLD_PCT) " with virtio)" },
	{ .name = "floor-multiple",
	  .type = OPT_DOUBLE,
	  .offset = A(floor_multiple),
	  .dmin = 1,
	  .dmax = 1000,
	  .def = KG_FLOOR_MULTIPLE,
	  .help = "model disk: a regression is a change beyond --threshold and this many times "
		  "the A/A floor (the largest difference between two runs of one kernel)" },
	{ .name = "history",
	  .type = OPT_STRING,
	  .offset = O(history),
	  .help = "add each boot's result to the history store DB once the gate is over: a "
		  "SQLite file or a postgresql:// URI (docs/history.md); 'default' for the default "
		  "store" },
	{ .name = "max-host-load",
	  .type = OPT_DOUBLE,
	  .offset = A(max_host_load),
	  .dmax = 100,
	  .unit = "%",
	  .help = "cannot judge when other processes used more of the host's CPUs than this "
		  "during a boot (default: off)" },
	{ 0 },
};

static const struct fsb_opt run_opts[] = {
	{ .name = "kernel",
	  .type = OPT_STRING,
	  .offset = A(spec[0]),
	  .file = OPT_FILE,
	  .help = "the kernel K (this or --kernel-url)" },
	{ .name = "kernel-url", .type = OPT_STRING, .offset = A(url[0]), .help = KG_URL_HELP("K") },
	{ .name = "modules",
	  .type = OPT_STRING,
	  .offset = A(modules[0]),
	  .file = OPT_DIR,
	  .help = "K's modules: a directory holding lib/modules/RELEASE" },
	{ .name = "append",
	  .type = OPT_STRING,
	  .offset = A(common_append),
	  .help = "extra kernel command line" },
	KG_COMMON_OPTS,
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = A(json),
	  .file = OPT_FILE,
	  .help = "copy the guest's result (with its \"vm\" record) to FILE" },
	{ .name = "history",
	  .type = OPT_STRING,
	  .offset = O(history),
	  .help = "add the result (--json FILE, required) to the history store DB: a SQLite "
		  "file or a postgresql:// URI (docs/history.md); 'default' for the default store" },
	{ 0 },
};
#undef O
#undef A

int kg_run_opt_value(const char *arg)
{
	const char *name = arg + 2;
	size_t n = strcspn(name, "=");

	if (strncmp(arg, "--", 2))
		return -1;
	for (const struct fsb_opt *o = run_opts; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return o->type != OPT_BOOL && !name[n];
	return -1;
}

int kg_run_args_check(int argc, char **argv, char *err, size_t errlen)
{
	struct kg_cfg c = { .a.max_host_load = NAN };
	char *copy[KG_RUN_MAX_ARGS + 1];
	int r;

	if (argc > KG_RUN_MAX_ARGS) {
		snprintf(err, errlen, "more than %d kernel-run arguments", KG_RUN_MAX_ARGS - 1);
		return -EINVAL;
	}
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	copy[argc] = NULL;
	r = opt_set_defaults(run_opts, &c, err, errlen);
	if (!r) {
		r = opt_parse_argv(run_opts, &c, argc, copy, err, errlen);
		if (r == -ECANCELED) {
			snprintf(err, errlen, "--help: not an option to pass on");
			r = -EINVAL;
		} else if (r >= 0 && r < argc) { /* the suite is history run's --suite */
			snprintf(err, errlen, "%s: not a kernel-run option", copy[r]);
			r = -EINVAL;
		} else if (r > 0) {
			r = 0;
		}
	}
	opt_free(run_opts, &c);
	return r;
}

static const char kernel_forms[] =
	"A kernel is a bzImage/vmlinuz (its modules from --*modules DIR holding\n"
	"lib/modules/RELEASE, else /lib/modules/RELEASE), a Debian linux-image .deb, or a\n"
	"release installed under /boot and /lib/modules; or, with --*-url, a .deb or a bzImage\n"
	"served over http(s).\n\n";

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

	if (c->a.suite) {
		snprintf(err, errlen, "one suite only ('%s' is extra)", arg);
		return -EINVAL;
	}
	c->a.suite = arg;
	return 0;
}

/*
 * The parsed command line as kg_prepare() takes it: @c->a as the option table filled it, with
 * what is given in other units or forms made into the request's. 0, or FSB_EXIT_USAGE after
 * one line.
 */
static int to_args(const struct kg_cfg *c, bool gate, struct kg_args *a)
{
	const char *cmd = gate ? "kernel-gate" : "kernel-run";
	char err[1280];

	*a = c->a;
	a->vm.accel = accels[c->accel];
	a->vm.disk_bytes = a->vm.disk.bytes;
	a->vm.disk.kind = !strcmp(disks[c->disk], "model")  ? KG_DISK_MODEL :
			  !strcmp(disks[c->disk], "virtio") ? KG_DISK_VIRTIO :
			  !strcmp(a->vm.accel, "tcg")	    ? KG_DISK_MODEL :
							      KG_DISK_VIRTIO;
	a->vm.disk.flush_latency_ms = a->flush_latency_ns / 1000000;
	a->vm.boot_timeout_s = (int)(c->boot_timeout / 1000000000);
	a->vm.timeout_s = (int)(c->timeout / 1000000000);
	if (!gate)
		a->jobs = 1; /* kernel-run's one boot; the gate's 0 is kg_args_defaults' to fill */
	kg_args_defaults(a, c->no_icount);
	if (kg_args_check(a, gate, err, sizeof(err))) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		return FSB_EXIT_USAGE;
	}
	return 0;
}

/*
 * The backends' options before any work: each backend's own rules, and the options the one
 * selected fixes itself refused unless at their defaults. 0, or FSB_EXIT_USAGE after a line
 * each.
 */
static int backend_check(const struct kg_cfg *c, const struct fsb_opt *tbl, const char *cmd)
{
	struct kg_cfg def = { .a.max_host_load = NAN, .a.threshold = NAN };
	const struct cmd_backend *be;
	char err[512];
	int r = 0;

	for (be = cmd_backends; be->name; be++)
		if (be->check && be->check(&c->be, &c->a, err, sizeof(err))) {
			fprintf(stderr, "fsbench %s: %s\n", cmd, err);
			return FSB_EXIT_USAGE;
		}
	if (!(be = cmd_backend_selected(&c->be)) || !be->fixed)
		return 0;
	if (opt_set_defaults(tbl, &def, err, sizeof(err)))
		r = -EINVAL;
	for (int i = r ? -1 : opt_next_changed(tbl, c, &def, be->fixed, 0); i >= 0;
	     i = opt_next_changed(tbl, c, &def, be->fixed, i + 1)) {
		/* --disk as the backend boots it changes nothing; auto means it under tcg */
		if (be->fixed_disk && !strcmp(be->fixed[i], "disk") &&
		    !strcmp(disks[c->disk], be->fixed_disk))
			continue;
		fprintf(stderr, "fsbench %s: --%s: not with --%s (%s)\n", cmd, be->fixed[i],
			be->option, be->fixed_why);
		r = -EINVAL;
	}
	opt_free(tbl, &def);
	return r ? FSB_EXIT_USAGE : 0;
}

/* The command once its options passed: the local backend, or the one its options select. */
static int run_with_backend(const struct kg_cfg *c, struct kg_ctx *x, bool gate)
{
	const struct cmd_backend *sel = cmd_backend_selected(&c->be);
	const char *cmd = gate ? "kernel-gate" : "kernel-run";
	struct kg_boot_backend be;
	bool usage = false;
	char err[4096];
	int r;

	if (!sel)
		return gate ? kg_cli_gate(x, NULL) : kg_cli_run(x, NULL);
	if (sel->open(&c->be, cmd, &be, &usage, err, sizeof(err))) {
		fprintf(stderr, "fsbench %s: %s\n", cmd, err);
		r = usage ? FSB_EXIT_USAGE : FSB_EXIT_CANNOT_JUDGE;
		/* the gate started (its backend answered, or did not): its document says so */
		if (gate && !usage)
			r = kg_cli_gate_stopped(x, r, err);
	} else
		r = gate ? kg_cli_gate(x, &be) : kg_cli_run(x, &be);
	sel->close(&be);
	return r;
}

static int boot_dir(const struct dirent *d)
{
	return !strncmp(d->d_name, "boot-", 5);
}

/*
 * kernel-gate --history: each boot's result.json in the work directory, in boot order. The
 * gate has let its descriptor go, so the directory is walked again from "/" as trusted
 * (root's, and no one else can write any directory on the way, or rename what lies beneath),
 * and each result opened beneath it through no symlink before its path is handed on.
 */
static int gate_history(const struct kg_cfg *c, const char *workdir, int status)
{
	struct dirent **ents = NULL;
	char **paths, why[1024];
	size_t n = 0;
	int wfd = workdir[0] ? base_dir_open_trusted(workdir, geteuid(), false, why, sizeof(why)) :
			       -ENOENT;
	int m;

	if (wfd < 0) {
		fprintf(stderr, "fsbench kernel-gate: --history: %s: %s: its boots are not added\n",
			workdir, workdir[0] ? why : strerror(-wfd));
		return status ? status : FSB_EXIT_SYSTEM;
	}
	m = scandir(workdir, &ents, boot_dir, alphasort);

	paths = calloc(m > 0 ? (size_t)m : 1, sizeof(*paths));
	for (int i = 0; i < m; i++) {
		size_t len = strlen(workdir) + strlen(ents[i]->d_name) + sizeof("//result.json");

		if (paths && (paths[n] = malloc(len))) {
			char rel[300];
			int fd;

			snprintf(paths[n], len, "%s/%s/result.json", workdir, ents[i]->d_name);
			snprintf(rel, sizeof(rel), "%s/result.json", ents[i]->d_name);
			/* a boot without a result (it failed) adds nothing; a link is no result */
			fd = base_open_beneath(wfd, rel, O_RDONLY, 0);
			if (fd < 0) {
				free(paths[n]);
			} else {
				close(fd);
				n++;
			}
		}
		free(ents[i]);
	}
	free(ents);
	close(wfd);
	if (m > 0 && !paths) {
		fprintf(stderr, "fsbench kernel-gate: --history: %s\n", strerror(ENOMEM));
		return status ? status : FSB_EXIT_SYSTEM;
	}
	status = cmd_history_add("kernel-gate", c->history, (const char *const *)paths, n, true,
				 status);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return status;
}

static int kernel_run(void *cfg)
{
	const struct kg_cfg *c = cfg;
	struct kg_ctx *x = calloc(1, sizeof(*x));
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines between stderr's, in one log */
	if (!x) {
		fprintf(stderr, "fsbench kernel-run: %s\n", strerror(ENOMEM));
		return FSB_EXIT_SYSTEM;
	}
	if (c->history && !c->a.json) {
		free(x);
		return cmd_fail(FSB_EXIT_USAGE, "kernel-run", "--history needs --json FILE");
	}
	if (!(r = backend_check(cfg, run_opts, "kernel-run")) && !(r = to_args(cfg, false, &x->a)))
		r = run_with_backend(cfg, x, false);
	free(x);
	if (c->history && r != FSB_EXIT_USAGE)
		r = cmd_history_add("kernel-run", c->history, (const char *const *)&c->a.json,
				    access(c->a.json, F_OK) ? 0 : 1, false, r);
	return r;
}

static int kernel_gate(void *cfg)
{
	struct kg_ctx *x = calloc(1, sizeof(*x));
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines between stderr's, in one log */
	if (!x) {
		fprintf(stderr, "fsbench kernel-gate: %s\n", strerror(ENOMEM));
		return FSB_EXIT_SYSTEM;
	}
	if (!(r = backend_check(cfg, gate_opts, "kernel-gate")) &&
	    !(r = to_args(cfg, true, &x->a))) {
		x->a.vm.progress = kg_cli_gate_progress;
		r = run_with_backend(cfg, x, true);
		if (((const struct kg_cfg *)cfg)->history && r != FSB_EXIT_USAGE)
			r = gate_history(cfg, x->workdir, r);
	}
	free(x);
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
	struct kg_cfg c = { .a.max_host_load = NAN, .a.threshold = NAN };

	kg_vm_init(&c.a.vm); /* what no option sets; the table fills the rest */
	return cmd_args_run(&gate_cmd, &c, argc, argv);
}

int cmd_kernel_run(int argc, char **argv)
{
	struct kg_cfg c = { .a.max_host_load = NAN };

	kg_vm_init(&c.a.vm); /* what no option sets; the table fills the rest */
	return cmd_args_run(&run_cmd, &c, argc, argv);
}
