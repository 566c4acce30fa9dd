/* Unit tests of the kernel gate (kgate/gate_flow.c) and kernel-run's boot (run_flow.c) over a fake backend. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "base/signal.h"
#include "fsbench/kgate/gate_flow.h"
#include "fsbench/kgate/run_flow.h"
#include "report/compare.h"
#include "report/verdict.h"

#define REPS 3

/* A fake backend: each boot's files/s from a table by side and boot of that side. */
struct fake {
	double value[2][KG_MAX_BOOTS]; /* [side][nth boot of the side] */
	double rep_step; /* added per repetition (a cold first run, as on a real boot) */
	long p99[2][KG_MAX_BOOTS]; /* fsync.p99_ns of each run when not 0 */
	int order[2 * KG_MAX_BOOTS]; /* the side of each boot, in the order run() saw them */
	int nboots, seen[2];
	int prepared, finished;
	bool single; /* kernel-run's one boot, not a gate's */
	int prep_error, error; /* what prepare and run return (run's with no result) */
	int guest_status;
	char dir[PATH_MAX], moved[PATH_MAX + 8], decoy[PATH_MAX + 8];
};

/* What the observer saw. */
struct seen {
	const struct fake *f;
	enum kg_verdict verdict;
	int verdicts, judged;
	int nprepared, done, left; /* kernel-run's: kernels prepared, boot_done, boot_left seen */
	size_t naa;
	char error[1024];
	char why[256]; /* rep->why at the verdict */
};

/*
 * A result as a guest's fsbench writes it, reduced to what compare reads: REPS runs, with
 * an fsync p99 when @p99 is not 0.
 */
static json_t *canned_result(double files_per_sec, double step, long p99)
{
	json_t *runs = json_array();

	for (int r = 0; r < REPS; r++)
		json_array_append_new(
			runs,
			json_pack("{s:s, s:i, s:{s:s, s:s, s:i, s:i, s:s}, s:{s:b, s:f},"
				  " s:{s:s}, s:o}",
				  "workload", "smallfile", "threads", 1, "coords", "fs", "ext4",
				  "workload", "smallfile", "threads", 1, "repetition", r, "cell",
				  "ext4-smallfile-t1", "summary", "complete", 1, "files_per_sec",
				  files_per_sec + r * step, "series", "unit", "files", "ops",
				  p99 ? json_pack("{s:{s:i, s:I}}", "fsync", "count", 1000,
						  "p99_ns", (json_int_t)p99) :
					json_object()));
	return json_pack("{s:s, s:o}", "schema", "fsbench-result/2", "runs", runs);
}

static int fake_prepare(void *priv, struct kg_ctx *x, enum kg_gate_fail *ret_fail, char *err,
			size_t errlen)
{
	struct fake *f = priv;

	f->prepared++;
	if (f->prep_error) {
		*ret_fail = KG_GATE_SYSTEM;
		snprintf(err, errlen, "preparing the fake: %s", strerror(-f->prep_error));
		return f->prep_error;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(x->k[i].label, sizeof(x->k[i].label), "%s", i ? "candidate" : "baseline");
		snprintf(x->k[i].release, sizeof(x->k[i].release), "6.1.0-test");
		snprintf(x->k[i].spec, sizeof(x->k[i].spec), "k%d", i);
	}
	snprintf(x->workdir, sizeof(x->workdir), "%s", f->dir);
	snprintf(x->suite, sizeof(x->suite), "kgate.json");
	/*
	 * Held by descriptor, as kg_prepare holds it; then its name is taken over: moved away,
	 * and a link to a decoy put in its place. What the gate writes must follow the
	 * descriptor, not the name.
	 */
	x->workdir_fd = open(f->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(x->workdir_fd >= 0);
	snprintf(f->moved, sizeof(f->moved), "%s.moved", f->dir);
	snprintf(f->decoy, sizeof(f->decoy), "%s.decoy", f->dir);
	assert_int_equal(rename(f->dir, f->moved), 0);
	assert_int_equal(mkdir(f->decoy, 0700), 0);
	assert_int_equal(symlink(f->decoy, f->dir), 0);
	return 0;
}

static int fake_run(void *priv, const struct kg_boot_req *req, struct kg_boot_res *ret, char *err,
		    size_t errlen)
{
	struct fake *f = priv;
	int nth = f->seen[req->side]++;

	assert_int_equal(req->index, f->nboots);
	assert_int_equal(req->gate, !f->single);
	f->order[f->nboots++] = req->side;
	ret->record = json_pack("{s:i, s:s, s:f, s:i}", "index", req->index + 1, "side",
				req->x->k[req->side].label, "host_load_pct", 0.0, "guest_status",
				f->guest_status);
	ret->boot.guest_status = f->guest_status;
	if (f->error) { /* as a backend's boot that ends without a result */
		if (f->error == -EINTR)
			base_signal_received = SIGINT;
		ret->booted = f->error != -EINTR;
		snprintf(err, errlen, "boot 1: the fake failed: %s", strerror(-f->error));
		return f->error;
	}
	ret->result = canned_result(f->value[req->side][nth], f->rep_step, f->p99[req->side][nth]);
	json_object_set(ret->result, "vm", ret->record);
	ret->booted = true;
	snprintf(ret->path, sizeof(ret->path), "%s/boot-%02d.json", f->dir, req->index + 1);
	return 0;
}

static void fake_finish(void *priv, struct kg_ctx *x)
{
	((struct fake *)priv)->finished++;
	if (x->workdir_fd >= 0)
		close(x->workdir_fd);
	x->workdir_fd = -1;
}

static void on_error(void *arg, const char *msg)
{
	snprintf(((struct seen *)arg)->error, sizeof(((struct seen *)arg)->error), "%s", msg);
}

static void on_judged(void *arg, const struct kg_gate_report *rep)
{
	((struct seen *)arg)->judged++;
	((struct seen *)arg)->naa = rep->naa;
}

static int on_verdict(void *arg, const struct kg_gate_report *rep)
{
	((struct seen *)arg)->verdict = rep->verdict;
	((struct seen *)arg)->verdicts++;
	snprintf(((struct seen *)arg)->why, sizeof(((struct seen *)arg)->why), "%s",
		 rep->why ? rep->why : "");
	return 0;
}

static const struct kg_gate_observer obs = {
	.error = on_error,
	.judged = on_judged,
	.verdict = on_verdict,
};

/* The model disk under instruction counting: judged by the A/A floor, as the default gate. */
static void ctx_init(struct kg_ctx *x, int boots, int reps)
{
	const char *fx = getenv("FSB_FIXTURES");
	static char suite[PATH_MAX];

	snprintf(suite, sizeof(suite), "%s/../../configs/kgate.json", fx ? fx : "tests/fixtures");
	memset(x, 0, sizeof(*x));
	kg_vm_defaults(&x->a.vm);
	x->a.vm.accel = "tcg";
	x->a.vm.icount = "shift=0,sleep=off";
	x->a.vm.disk.kind = KG_DISK_MODEL;
	x->a.suite = suite;
	x->a.boots = boots;
	x->a.repetitions = reps;
	x->a.alpha = RPT_DEFAULT_ALPHA;
	x->a.threshold = 1;
	x->a.floor_multiple = 3;
	x->a.max_host_load = NAN;
	x->a.jobs = 1;
}

static struct kg_boot_backend fake_backend(struct fake *f)
{
	return (struct kg_boot_backend){ .name = "fake",
					 .slots = 1,
					 .prepare = fake_prepare,
					 .run = fake_run,
					 .finish = fake_finish,
					 .priv = f };
}

/* The work directory's three names that fake_prepare made (or the one, had it failed). */
static void fake_cleanup(struct fake *f)
{
	if (unlink(f->dir))
		rmdir(f->dir);
	rmdir(f->decoy);
	rmdir(f->moved);
}

/* Runs the gate on @f's values; the verdict the observer got. */
static enum kg_verdict gate(struct fake *f, int boots, struct seen *s)
{
	struct kg_boot_backend be = fake_backend(f);
	struct kg_ctx *x = malloc(sizeof(*x));
	enum kg_gate_fail fail;
	char path[PATH_MAX + 32];
	struct stat st;

	assert_non_null(x);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test-gate.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	ctx_init(x, boots, REPS);
	x->workdir_fd = -1;
	memset(s, 0, sizeof(*s));
	assert_int_equal(kg_gate_run(x, &be, &obs, s, &fail), 0);
	assert_int_equal(s->verdicts, 1);
	assert_int_equal(f->prepared, 1);
	assert_int_equal(f->finished, 1);
	/* the gate's document, written once beside the boots: in the directory held */
	snprintf(path, sizeof(path), "%s/kernel-gate.json", f->moved);
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/kernel-gate.json", f->decoy);
	assert_int_equal(stat(path, &st), -1);
	fake_cleanup(f);
	free(x);
	return s->verdict;
}

static void on_run_prepared(void *arg, const struct kg_ctx *x, int nk)
{
	(void)x;
	((struct seen *)arg)->nprepared = nk;
}

static void on_run_done(void *arg, const struct kg_boot_req *req, const struct kg_boot_res *res)
{
	(void)req, (void)res;
	((struct seen *)arg)->done++;
}

/* What the guest left is read before the backend lets the work directory go. */
static void on_run_left(void *arg, const struct kg_boot_req *req, const struct kg_boot_res *res)
{
	struct seen *s = arg;

	(void)res;
	assert_int_equal(s->f->finished, 0);
	assert_true(req->x->workdir_fd >= 0);
	s->left++;
}

static const struct kg_gate_observer run_obs = {
	.error = on_error,
	.prepared = on_run_prepared,
	.boot_done = on_run_done,
	.boot_left = on_run_left,
};

/* What kernel-run's boot gave: kg_run_boot's return, its outputs, what the observer saw. */
struct run_out {
	int r;
	struct kg_run_res res;
	enum kg_gate_fail fail;
	struct seen s;
};

/* kernel-run's boot through @f into @o; kg_run_boot's return. */
static int run_one(struct fake *f, struct run_out *o)
{
	struct kg_boot_backend be = fake_backend(f);
	struct kg_ctx *x = malloc(sizeof(*x));
	struct seen *s = &o->s;

	assert_non_null(x);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test-gate.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	ctx_init(x, 1, REPS);
	x->workdir_fd = -1;
	memset(s, 0, sizeof(*s));
	s->f = f;
	f->single = true;
	o->r = kg_run_boot(x, &be, &run_obs, s, &o->res, &o->fail);
	base_signal_received = 0;
	/* finish after prepare, whether it failed or not */
	assert_int_equal(f->prepared, 1);
	assert_int_equal(f->finished, 1);
	fake_cleanup(f);
	free(x);
	return o->r;
}

/* A boot that ran: the suite's status and its result, the guest's output read before finish. */
static void test_run_good(void **unused)
{
	struct fake f = { .value = { { 1000 } }, .guest_status = 0 };
	struct run_out o;

	(void)unused;
	assert_int_equal(run_one(&f, &o), 0);
	assert_int_equal(o.res.status, 0);
	assert_int_equal(o.res.signal, 0);
	assert_non_null(o.res.result);
	assert_int_equal(json_array_size(json_object_get(o.res.result, "runs")), REPS);
	assert_int_equal(f.nboots, 1);
	assert_int_equal(f.order[0], 0);
	assert_int_equal(o.s.nprepared, 1);
	assert_int_equal(o.s.done, 1);
	assert_int_equal(o.s.left, 1);
	assert_string_equal(o.s.error, "");
	json_decref(o.res.result);
}

/*
 * A boot that failed cannot judge the kernel (the CLI's 125, kg_cli_fail_status), nor does
 * one whose suite wrote no result and gave no failure of its own (0, or 126 and above);
 * a failure the suite reported is its answer, as it would be run here.
 */
static void test_run_failed(void **unused)
{
	static const struct {
		int error, guest_status, r, status;
	} cases[] = {
		{ -EIO, 0, -EIO, 0 },
		{ -ENODATA, 0, -ENODATA, 0 },
		{ -ENODATA, 137, -ENODATA, 0 },
		{ -ENODATA, 3, 0, 3 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f = { .error = cases[i].error, .guest_status = cases[i].guest_status };
		struct run_out o;

		assert_int_equal(run_one(&f, &o), cases[i].r);
		assert_null(o.res.result);
		assert_int_equal(o.res.signal, 0);
		assert_int_equal(o.s.left, 1);
		assert_non_null(strstr(o.s.error, "the fake failed"));
		if (cases[i].r)
			assert_int_equal(o.fail, KG_GATE_KERNEL);
		else
			assert_int_equal(o.res.status, cases[i].status);
	}
}

/* A boot a signal stopped says which (the CLI's 128 + the signal). */
static void test_run_interrupted(void **unused)
{
	struct fake f = { .error = -EINTR };
	struct run_out o;

	(void)unused;
	assert_int_equal(run_one(&f, &o), -EINTR);
	assert_int_equal(o.res.signal, SIGINT);
	assert_null(o.res.result);
	assert_int_equal(o.s.done, 0);
	assert_int_equal(o.s.left, 1);
}

/* A prepare that failed: its kind and its line, the backend finished, no boot. */
static void test_run_prepare_failed(void **unused)
{
	struct fake f = { .prep_error = -ENOMEM };
	struct run_out o;

	(void)unused;
	assert_int_equal(run_one(&f, &o), -ENOMEM);
	assert_int_equal(o.fail, KG_GATE_SYSTEM);
	assert_int_equal(f.nboots, 0);
	assert_int_equal(o.s.nprepared, 0);
	assert_null(o.res.result);
	assert_non_null(strstr(o.s.error, "preparing the fake"));
}

/* Each side's boots alike (0.05 % apart): a 3 % drop in files/s is a regression. */
static void test_regression(void **unused)
{
	struct fake f = { .value = { { 1000, 1000.5 }, { 970, 970.5 } }, .rep_step = 5 };
	struct seen s;

	(void)unused;
	assert_int_equal(gate(&f, 2, &s), KG_VERDICT_REGRESSED);
	assert_int_equal(s.judged, 1);
	/* A B B A */
	assert_int_equal(f.nboots, 4);
	assert_int_equal(f.order[0], 0);
	assert_int_equal(f.order[1], 1);
	assert_int_equal(f.order[2], 1);
	assert_int_equal(f.order[3], 0);
	assert_int_equal(s.naa, 2);
}

/* The same kernel on both sides: good. */
static void test_aa_good(void **unused)
{
	struct fake f = { .value = { { 1000, 1000.5 }, { 1000.2, 1000.3 } }, .rep_step = 5 };
	struct seen s;

	(void)unused;
	assert_int_equal(gate(&f, 2, &s), KG_VERDICT_GOOD);
}

/*
 * The floor rule: the baseline's two boots differ by 2 %, so a 3 % change is within 3 times
 * what one kernel's boots differ by, and is not a regression (it would be with the
 * threshold alone, 1 %).
 */
static void test_floor(void **unused)
{
	struct fake f = { .value = { { 1000, 1020 }, { 970, 989.4 } }, .rep_step = 5 };
	struct seen s;

	(void)unused;
	assert_int_equal(gate(&f, 2, &s), KG_VERDICT_GOOD);
	/* and beyond the floor, it is */
	struct fake g = { .value = { { 1000, 1020 }, { 900, 918 } }, .rep_step = 5 };

	assert_int_equal(gate(&g, 2, &s), KG_VERDICT_REGRESSED);
}

/*
 * Two boots that hand back the same runs (here boot 3, the candidate's second, and boot 4,
 * the baseline's second: A B B A) are one result replayed or copied: cannot judge, naming
 * both, before any comparison. Runs alike in files/s but not in fsync's p99 are two
 * measurements and are judged.
 */
static void test_replayed(void **unused)
{
	struct fake f = { .value = { { 1000, 1000.5 }, { 1000.2, 1000.5 } }, .rep_step = 5 };
	struct seen s;

	(void)unused;
	assert_int_equal(gate(&f, 2, &s), KG_VERDICT_CANNOT_JUDGE);
	assert_int_equal(s.judged, 0);
	assert_string_equal(s.why, "boots 3 (candidate) and 4 (baseline) gave the same runs, "
				   "value for value: a result replayed or copied, not measured "
				   "twice");
	assert_non_null(strstr(s.error, "boots 3 (candidate) and 4 (baseline)"));

	struct fake g = { .value = { { 1000, 1000.5 }, { 1000.2, 1000.5 } },
			  .rep_step = 5,
			  .p99 = { { 250000, 250000 }, { 250000, 251000 } } };

	assert_int_not_equal(gate(&g, 2, &s), KG_VERDICT_CANNOT_JUDGE);
	assert_int_equal(s.judged, 1);
	assert_null(strstr(s.why, "replayed"));
}

/* Three boots a side: A B B A A B, the baseline's halves of two and one boots. */
static void test_order(void **unused)
{
	struct fake f = { .value = { { 1000, 1000.5, 1000.2 }, { 1000.1, 1000.4, 1000.3 } },
			  .rep_step = 5 };
	static const int want[] = { 0, 1, 1, 0, 0, 1 };
	struct seen s;

	(void)unused;
	assert_int_equal(gate(&f, 3, &s), KG_VERDICT_GOOD);
	assert_int_equal(f.nboots, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(f.order[i], want[i]);
		assert_int_equal(kg_gate_side(i), want[i]);
	}
	assert_int_equal(s.naa, 3);
}

/* Too few samples a side is refused before the kernels are prepared or any boot runs. */
static void test_plan(void **unused)
{
	struct fake f = { 0 };
	struct kg_boot_backend be = { .prepare = fake_prepare, .run = fake_run, .priv = &f };
	struct kg_ctx *x = malloc(sizeof(*x));
	enum kg_gate_fail fail;
	struct seen s = { 0 };

	(void)unused;
	assert_non_null(x);
	ctx_init(x, 2, 1);
	assert_int_equal(kg_gate_run(x, &be, &obs, &s, &fail), -EINVAL);
	assert_int_equal(fail, KG_GATE_USAGE);
	assert_int_equal(f.prepared + f.nboots + s.verdicts, 0);
	assert_non_null(strstr(s.error, "give --boots 3, or --repetitions 2"));
	/* without --boots the gate picks enough: 3 a side of one repetition */
	assert_int_equal(kg_gate_boots_needed(&x->a, 1, 0), 3);
	assert_int_equal(kg_gate_boots_needed(&x->a, 3, 0), KG_MODEL_BOOTS);
	assert_int_equal(kg_gate_boots_needed(&x->a, 3, 5), 5);
	/* the floor needs two boots of one kernel, whatever the repetitions */
	assert_int_equal(kg_gate_boots_needed(&x->a, 10, 1), 2);
	x->a.vm.disk.kind = KG_DISK_VIRTIO;
	assert_int_equal(kg_gate_boots_needed(&x->a, 10, 1), 1);
	assert_int_equal(kg_gate_boots_needed(&x->a, 3, 0), KG_VIRTIO_BOOTS);
	free(x);
}

/* kernel-gate's rules below the CLI: the disk's defaults, and what is refused with its message. */
static void test_args(void **unused)
{
	struct kg_args a;
	char err[1280];

	(void)unused;
	memset(&a, 0, sizeof(a));
	kg_vm_defaults(&a.vm);
	a.spec[0] = "k1";
	a.spec[1] = "k2";
	a.vm.disk.kind = KG_DISK_MODEL;
	a.vm.disk.latency_ns = KG_DISK_LATENCY_NS;
	a.vm.disk.queue_depth = KG_DISK_QUEUE_DEPTH;
	a.threshold = NAN;
	kg_args_defaults(&a, false);
	assert_string_equal(a.vm.icount, "shift=0,sleep=off");
	assert_true(a.jobs >= 1);
	assert_true(a.threshold == 1);
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), 0);
	/* a flush latency not in whole ms, then the model's options with virtio */
	a.flush_latency_ns = 1500000;
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--disk-flush-latency: whole milliseconds"));
	a.flush_latency_ns = 0;
	a.vm.disk.kind = KG_DISK_VIRTIO;
	a.vm.disk.mbps = 10;
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "with --disk virtio they would be ignored"));
	a.vm.disk.mbps = 0;
	a.spec[1] = "linux-image.deb";
	a.modules[1] = "/m";
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_string_equal(
		err, "/m: a .deb brings its own modules; --candidate-modules would be ignored");
	a.modules[1] = NULL;
	/* "--" as a word hands what follows to init; inside a word it does not */
	a.common_append = "quiet a--b";
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), 0);
	a.append[0] = "quiet -- x";
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--append 'quiet -- x': a newline or a '--' word"));
	a.append[0] = NULL;
	a.spec[1] = NULL;
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--baseline and --candidate are both needed (or --baseline-url, "
				 "--candidate-url)");
	assert_int_equal(kg_args_check(&a, false, err, sizeof(err)), 0);
	/* virtio: no -icount sleep=off, one boot at a time, compare's threshold */
	memset(&a, 0, sizeof(a));
	kg_vm_defaults(&a.vm);
	a.vm.disk.kind = KG_DISK_VIRTIO;
	a.threshold = NAN;
	kg_args_defaults(&a, true);
	assert_null(a.vm.icount);
	assert_int_equal(a.jobs, 1);
	assert_true(a.threshold == RPT_DEFAULT_THRESHOLD_PCT);
}

static void add_line(void *arg, const char *line)
{
	char *buf = arg;

	strncat(buf, line, 4095 - strlen(buf));
	strncat(buf, "|", 4095 - strlen(buf));
}

/* The lines below kernel-gate's table: which apply, from the report. */
static void test_explain(void **unused)
{
	struct kg_ctx *x = calloc(1, sizeof(*x));
	struct kg_gate_report rep = { .load_mean = 3, .load_max = 30 };
	char buf[4096] = "";

	(void)unused;
	assert_non_null(x);
	rep.x = x;
	kg_gate_explain(&rep, add_line, buf);
	assert_string_equal(
		buf,
		"A/A noise floor: not measured (needs --boots 2 or more)|"
		"host load from other processes during the boots: mean 3%, max 30% of the host's "
		"CPUs|warning: the host was busy; under TCG host load leaks into the guest's timing "
		"(two busy loops cut files/s by 42%)|");
	/* boots on another machine (LAVA's workers): their host's load is not this one's */
	buf[0] = 0;
	x->needs.remote = true;
	rep.load_mean = rep.load_max = 0;
	kg_gate_explain(&rep, add_line, buf);
	assert_string_equal(buf, "A/A noise floor: not measured (needs --boots 2 or more)|"
				 "host load during the boots: not measured (they ran on the "
				 "backend's machines)|");
	x->needs.remote = false;
	buf[0] = 0;
	x->a.threshold = 1;
	x->a.floor_multiple = 3;
	rep.aa = (const struct rpt_cmp *)x; /* only tested for NULL */
	rep.counted = true;
	rep.naa = 2;
	rep.cnoisy = 1;
	kg_gate_explain(&rep, add_line, buf);
	assert_non_null(strstr(buf, "not measured: the baseline's 2 boots make halves"));
	assert_non_null(strstr(buf, "|note: 1 gated metric(s) were too noisy"));
	assert_non_null(strstr(buf, "|decided by the A/A floor: a change counts beyond 1% and 3 "
				    "times"));
	assert_non_null(strstr(buf, "gated only with 10 or more calls a run at or above it (p99: "
				    "1000 calls"));
	/* the bucket's bar is the histogram's: an exact percentile is judged without it */
	assert_non_null(strstr(buf, "a percentile read from a histogram only beyond one of its "
				    "buckets (an exact one"));
	assert_null(strstr(buf, "warning"));
	buf[0] = 0;
	rep.naa = 4;
	rep.aamax = 0.25;
	rep.aametric = "files_per_sec";
	kg_gate_explain(&rep, add_line, buf);
	assert_non_null(strstr(buf, "largest judged gated change 0.2% (files_per_sec), 0 "
				    "regression(s), 0 noisy"));
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regression),
		cmocka_unit_test(test_aa_good),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_replayed),
		cmocka_unit_test(test_run_good),
		cmocka_unit_test(test_run_failed),
		cmocka_unit_test(test_run_interrupted),
		cmocka_unit_test(test_run_prepare_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
