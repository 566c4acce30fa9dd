/* kernel-gate's and kernel-run's lines (the gate's observer) and their exit statuses. */
#include "fsbench/cli/kgate.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/signal.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/gate.h"
#include "model/result_file.h"

void kg_cli_prepared(const struct kg_ctx *x, int nk, const char *cmd)
{
	for (int i = 0; i < nk; i++)
		fprintf(stderr, "fsbench %s: %s %s: %s, initramfs %s%s\n", cmd, x->k[i].label,
			x->k[i].release, x->k[i].image, x->initramfs[i],
			x->cached[i] ? " (cached)" : "");
}

/* The observer's argument: the command whose name starts each line. */
struct out {
	const char *cmd;
	int status; /* the verdict's exit status */
};

static void on_error(void *arg, const char *msg)
{
	const struct out *o = arg;

	fflush(stdout); /* stderr's lines must not cut into a line stdout has buffered */
	fprintf(stderr, "fsbench %s: %s\n", o->cmd, msg);
}

static void on_planned(void *arg, const struct kg_ctx *x, int reps, bool picked)
{
	const struct out *o = arg;

	if (picked)
		fprintf(stderr,
			"fsbench %s: the suite runs %d repetition(s) a boot: %d boots a side, so that "
			"each gated metric has %d samples a side\n",
			o->cmd, reps, x->a.boots, reps * x->a.boots);
}

static void on_prepared(void *arg, const struct kg_ctx *x, int nk)
{
	kg_cli_prepared(x, nk, ((const struct out *)arg)->cmd);
}

static void on_boots_start(void *arg, int total, int slots)
{
	fprintf(stderr, "fsbench %s: %d boots, %d at a time\n", ((const struct out *)arg)->cmd,
		total, slots);
}

static void on_boot_start(void *arg, const struct kg_boot_req *req)
{
	const struct kg_kernel *k = &req->x->k[req->side];

	fprintf(stderr, "fsbench %s: boot %d/%d: %s %s%s%s ...\n", ((const struct out *)arg)->cmd,
		req->index + 1, req->total, k->label, k->release, k->append[0] ? " " : "",
		k->append);
}

static void on_boot_done(void *arg, const struct kg_boot_req *req, const struct kg_boot_res *res)
{
	const struct kg_boot *b = &res->boot;
	const json_t *lava = json_object_get(res->record, "lava");

	if (lava) { /* the worker's boot: its times and load are not this host's to tell */
		fprintf(stderr,
			"fsbench %s: boot %d/%d: %s %s: LAVA job %lld (%s) done in %.0f s, "
			"guest status %d\n",
			((const struct out *)arg)->cmd, req->index + 1, req->total,
			req->x->k[req->side].label, b->guest_release,
			(long long)json_integer_value(json_object_get(lava, "job")),
			json_string_value(json_object_get(lava, "url")), b->seconds,
			b->guest_status);
		return;
	}
	fprintf(stderr,
		"fsbench %s: boot %d/%d: %s %s: up in %.0f s, done in %.0f s, guest status %d, "
		"host load from others %.0f%%\n",
		((const struct out *)arg)->cmd, req->index + 1, req->total,
		req->x->k[req->side].label, b->guest_release, b->boot_seconds, b->seconds,
		b->guest_status, b->host_load_pct);
}

/* The comparison, the A/A floor and the host's load, in plain words. */
static void on_judged(void *arg, const struct kg_gate_report *rep)
{
	const struct kg_args *a = &rep->x->a;

	(void)arg;
	rpt_compare_print(rep->cmp, stdout, false);
	if (rep->aa && rep->counted && rep->naa < 3)
		printf("A/A noise floor (baseline boots odd vs even): not measured: the baseline's "
		       "%zu boots make halves of one boot each, too few to show how far two boots of "
		       "one kernel differ (--boots 3 or more measures it); each verdict above is "
		       "judged against how far each kernel's own boots differ (the floor beside it)\n",
		       rep->naa);
	else if (rep->aa)
		printf("A/A noise floor (baseline boots odd vs even): largest judged gated "
		       "change %.1f%%%s%s%s, %zu regression(s), %zu noisy: the baseline against "
		       "itself, so a change of that size is noise\n",
		       rep->aamax, rep->aametric ? " (" : "", rep->aametric ? rep->aametric : "",
		       rep->aametric ? ")" : "", rep->aareg, rep->aanoisy);
	else
		printf("A/A noise floor: not measured (needs --boots 2 or more)\n");
	printf("host load from other processes during the boots: mean %.0f%%, max %.0f%% of the host's CPUs\n",
	       rep->load_mean, rep->load_max);
	if (rep->cnoisy)
		printf("note: %zu gated metric(s) were too noisy to judge and did not fail the "
		       "gate (see the A/A floor)\n",
		       rep->cnoisy);
	if (rep->counted) {
		printf("decided by the A/A floor: a change counts beyond %.4g%% and %.4g times the "
		       "largest difference between two runs of one kernel (floor, beside each "
		       "verdict)\n",
		       a->threshold, a->floor_multiple);
		printf("and a percentile only beyond one histogram bucket, and gated only with %d "
		       "or more calls a run at or above it (p99: %d calls; fewer say "
		       "\"(not gated)\")\n",
		       RPT_TAIL_CALLS, RPT_TAIL_CALLS * 100);
	} else if (rep->load_max > 25)
		printf("warning: the host was busy; under TCG host load leaks into the "
		       "guest's timing (two busy loops cut files/s by 42%%)\n");
}

/* The verdict's exit status, for `git bisect run`: 0 good, 1 regressed, 125 skip. */
static int on_verdict(void *arg, const struct kg_gate_report *rep)
{
	int st = rep->signal			      ? 128 + rep->signal :
		 rep->verdict == KG_VERDICT_GOOD      ? FSB_EXIT_OK :
		 rep->verdict == KG_VERDICT_REGRESSED ? FSB_EXIT_REGRESSED :
							FSB_EXIT_CANNOT_JUDGE;

	((struct out *)arg)->status = st;
	printf("verdict: %s%s%s (exit %d)\n", kg_verdict_name(rep->verdict), rep->why ? ": " : "",
	       rep->why ? rep->why : "", st);
	fflush(stdout); /* its line whole before stderr's */
	return st;
}

static void on_written(void *arg, const char *workdir, const char *path, int e)
{
	const struct out *o = arg;

	if (e)
		fprintf(stderr, "fsbench %s: writing %s: %s\n", o->cmd, path, strerror(-e));
	else
		fprintf(stderr, "fsbench %s: boots and results in %s; verdict in %s\n", o->cmd,
			workdir, path);
}

static const struct kg_gate_observer gate_printer = {
	.error = on_error,
	.planned = on_planned,
	.prepared = on_prepared,
	.boots_start = on_boots_start,
	.boot_start = on_boot_start,
	.boot_done = on_boot_done,
	.judged = on_judged,
	.verdict = on_verdict,
	.written = on_written,
};

int kg_cli_gate(struct kg_ctx *x, const struct kg_boot_backend *be)
{
	struct kg_boot_backend local = kg_local_backend(x->a.jobs);
	struct out o = { .cmd = "kernel-gate" };
	enum kg_gate_fail fail;
	int r = kg_gate_run(x, be ? be : &local, &gate_printer, &o, &fail);

	if (!r) /* the status the verdict line gave */
		return o.status;
	return fail == KG_GATE_USAGE  ? FSB_EXIT_USAGE :
	       fail == KG_GATE_KERNEL ? FSB_EXIT_CANNOT_JUDGE :
					FSB_EXIT_FAIL;
}

/* What the suite printed in the guest, as if it had run here; the guest wrote it: escaped. */
static void print_guest_stdout(const char *dir)
{
	char path[PATH_MAX + 64], buf[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/guest/stdout", dir);
	f = fopen(path, "re");
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		for (size_t i = 0; i < n; i++)
			if (((unsigned char)buf[i] < ' ' && buf[i] != '\n' && buf[i] != '\t') ||
			    buf[i] == 127)
				buf[i] = '?';
		fwrite(buf, 1, n, stdout);
	}
	if (f)
		fclose(f);
	fflush(stdout); /* the guest's last line may lack its newline */
}

/* kernel-run's exit status after the boot returned @r: the guest's status when it has one. */
static int run_status(int r, const struct kg_boot_res *res)
{
	int st = res->boot.guest_status;

	if (r == -EINTR)
		return 128 + (int)base_signal_received;
	if (r == -ENODATA) /* no result: the guest's own failure, when it said one */
		return st > 0 && st < 126 ? st : FSB_EXIT_CANNOT_JUDGE;
	return r ? FSB_EXIT_CANNOT_JUDGE : st;
}

int kg_cli_run(struct kg_ctx *x, const struct kg_boot_backend *be)
{
	struct kg_boot_backend local = kg_local_backend(1);
	struct kg_boot_req req = { .x = x, .total = 1 };
	struct kg_boot_res res = { 0 };
	struct out o = { .cmd = "kernel-run" };
	enum kg_gate_fail fail;
	char err[9216];
	int r;

	be = be ? be : &local;
	if (be->prepare(be->priv, x, &fail, err, sizeof(err))) {
		on_error(&o, err);
		if (be->finish)
			be->finish(be->priv, x);
		return fail == KG_GATE_USAGE  ? FSB_EXIT_USAGE :
		       fail == KG_GATE_KERNEL ? FSB_EXIT_CANNOT_JUDGE :
						FSB_EXIT_FAIL;
	}
	kg_cli_prepared(x, 1, o.cmd);
	base_install_signals();
	on_boot_start(&o, &req);
	r = be->run(be->priv, &req, &res, err, sizeof(err));
	if (res.booted)
		on_boot_done(&o, &req, &res);
	if (r)
		on_error(&o, err);
	if (be->finish)
		be->finish(be->priv, x);
	if (res.record)
		print_guest_stdout(res.dir);
	r = run_status(r, &res);
	if (x->a.json && res.result) {
		int e = mdl_json_write_atomic(res.result, x->a.json);

		if (e) {
			fprintf(stderr, "fsbench kernel-run: writing %s: %s\n", x->a.json,
				strerror(-e));
			r = r ? r : FSB_EXIT_FAIL;
		}
	}
	kg_boot_res_free(&res);
	return r;
}
