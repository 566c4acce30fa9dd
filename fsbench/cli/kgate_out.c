/* kernel-gate's and kernel-run's lines (the observer of both flows) and their exit statuses. */
#include "fsbench/cli/kgate_cmd.h"
#include "fsbench/cli/backends.h"
#include "fsbench/cli/commands.h"
#include "fsbench/kgate/run_flow.h"

#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsbench/core/clock.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/gate.h"
#include "model/result_file.h"

void kg_cli_prepared(const struct kg_ctx *x, int nk, const char *cmd)
{
	for (int i = 0; i < nk; i++) {
		if (x->k[i].url[0]) /* what was fetched, to compare with what the lab published */
			fprintf(stderr, "fsbench %s: %s: fetched %s, sha256 %s\n", cmd,
				x->k[i].label, x->k[i].url, x->k[i].sha256);
		fprintf(stderr, "fsbench %s: %s %s: %s, initramfs %s%s\n", cmd, x->k[i].label,
			x->k[i].release, x->k[i].image, x->initramfs[i],
			x->cached[i] ? " (cached)" : "");
	}
}

/* The observer's argument: the command whose name starts each line. */
struct out {
	const char *cmd;
	int status; /* the verdict's exit status */
	char why[2048]; /* the first error said: the reason a gate stopped without a verdict */
};

static void on_error(void *arg, const char *msg)
{
	struct out *o = arg;

	if (!o->why[0])
		snprintf(o->why, sizeof(o->why), "%.*s", (int)sizeof(o->why) - 1, msg);
	fflush(stdout); /* stderr's lines must not cut into a line stdout has buffered */
	fprintf(stderr, "fsbench %s: %s\n", o->cmd, msg);
}

static void on_planned(void *arg, const struct kg_ctx *x, int reps, bool picked)
{
	const struct out *o = arg;

	if (picked)
		fprintf(stderr,
			"fsbench %s: the suite runs %d repetition(s) a boot: %lld boots a side, so that "
			"each gated metric has %lld samples a side\n",
			o->cmd, reps, (long long)x->a.boots, (long long)(reps * x->a.boots));
}

static void on_prepared(void *arg, const struct kg_ctx *x, int nk)
{
	kg_cli_prepared(x, nk, ((const struct out *)arg)->cmd);
}

/* The gate's boots, from their threads: a line with the time left as each one ends. */
static struct kg_eta gate_eta;
static pthread_mutex_t gate_eta_lock = PTHREAD_MUTEX_INITIALIZER;

void kg_cli_gate_progress(void *arg, const struct kg_kernel *k, const struct kg_boot *b,
			  enum kg_stage stage)
{
	double left;

	(void)arg;
	pthread_mutex_lock(&gate_eta_lock);
	left = kg_eta_update(&gate_eta, b, stage, (double)fsb_now_ns() / 1e9);
	if (stage == KG_STAGE_DONE && left >= 0 && b->boot_seconds > 0)
		fprintf(stderr,
			"fsbench kernel-gate: %d of %d boots done; %s %s: its /init spoke at %.0f s, "
			"the suite ran %.0f-%.0f s; about %.0f s left\n",
			gate_eta.done, gate_eta.total, k->label, k->release, b->init_seconds,
			b->boot_seconds, b->seconds, left);
	pthread_mutex_unlock(&gate_eta_lock);
}

static void on_boots_start(void *arg, int total, int slots)
{
	pthread_mutex_lock(&gate_eta_lock);
	gate_eta = (struct kg_eta){ .total = total, .jobs = slots };
	pthread_mutex_unlock(&gate_eta_lock);
	if (slots > 1)
		fprintf(stderr, "fsbench %s: %d boots, %d at a time\n",
			((const struct out *)arg)->cmd, total, slots);
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
	char words[4200]; /* room for a server URL a backend may name */

	/* a backend's boot, worded by its row (its times and load may not be this host's) */
	for (const struct cmd_backend *be = cmd_backends; be->name; be++)
		if (be->boot_words && !be->boot_words(res->record, b, words, sizeof(words))) {
			fprintf(stderr, "fsbench %s: boot %d/%d: %s %s: %s\n",
				((const struct out *)arg)->cmd, req->index + 1, req->total,
				req->x->k[req->side].label, b->guest_release, words);
			return;
		}
	fprintf(stderr,
		"fsbench %s: boot %d/%d: %s %s: up in %.0f s, done in %.0f s, guest status %d, "
		"host load from others %.0f%%\n",
		((const struct out *)arg)->cmd, req->index + 1, req->total,
		req->x->k[req->side].label, b->guest_release, b->boot_seconds, b->seconds,
		b->guest_status, b->host_load_pct);
}

/* kernel-run's boot: what the suite printed in the guest, as if it had run here. */
static void on_boot_left(void *arg, const struct kg_boot_req *req, const struct kg_boot_res *res)
{
	(void)arg;
	kg_guest_stdout_copy(req->x->workdir_fd, res->name, stdout);
}

static void print_line(void *arg, const char *line)
{
	(void)arg;
	printf("%s\n", line);
}

/* The comparison, the A/A floor and the host's load, in plain words. */
static void on_judged(void *arg, const struct kg_gate_report *rep)
{
	(void)arg;
	rpt_cmp_print(rep->cmp, stdout, false);
	kg_gate_explain(rep, print_line, NULL);
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

static void on_published(void *arg, const char *where)
{
	const struct out *o = arg;

	fprintf(stderr, "fsbench %s: the verdict is also in %s\n", o->cmd, where);
}

static const struct kg_gate_observer gate_printer = {
	.error = on_error,
	.planned = on_planned,
	.prepared = on_prepared,
	.boots_start = on_boots_start,
	.boot_start = on_boot_start,
	.boot_done = on_boot_done,
	.boot_left = on_boot_left,
	.judged = on_judged,
	.verdict = on_verdict,
	.written = on_written,
	.published = on_published,
};

int kg_cli_fail_status(enum kg_gate_fail fail)
{
	return fail == KG_GATE_USAGE  ? FSB_EXIT_USAGE :
	       fail == KG_GATE_KERNEL ? FSB_EXIT_CANNOT_JUDGE :
					FSB_EXIT_SYSTEM;
}

int kg_cli_gate(struct kg_ctx *x, const struct kg_boot_backend *be)
{
	struct kg_boot_backend local = kg_local_backend(x->a.jobs);
	struct out o = { .cmd = "kernel-gate" };
	enum kg_gate_fail fail;
	int r = kg_gate_run(x, be ? be : &local, &gate_printer, &o, &fail);

	if (!r) /* the status the verdict line gave */
		return o.status;
	r = kg_cli_fail_status(fail);
	/* a gate that started says why it stopped in its document too */
	return r == FSB_EXIT_USAGE ? r : kg_cli_gate_stopped(x, r, o.why);
}

int kg_cli_gate_stopped(const struct kg_ctx *x, int status, const char *why)
{
	int e = kg_gate_document_stopped(x, status, why);

	if (e)
		fprintf(stderr, "fsbench kernel-gate: writing %s: %s\n", x->a.json, strerror(-e));
	else if (x->a.json)
		fprintf(stderr, "fsbench kernel-gate: no verdict (%d); why in %s\n", status,
			x->a.json);
	return status;
}

int kg_cli_run(struct kg_ctx *x, const struct kg_boot_backend *be)
{
	struct kg_boot_backend local = kg_local_backend(1);
	struct out o = { .cmd = "kernel-run" };
	struct kg_run_res res;
	enum kg_gate_fail fail;
	int r = kg_run_boot(x, be ? be : &local, &gate_printer, &o, &res, &fail);

	/* the suite's own status; else 128 + the signal that stopped it; else its failure's kind */
	r = !r ? res.status : res.signal ? 128 + res.signal : kg_cli_fail_status(fail);
	if (x->a.json && res.result) {
		int e = mdl_json_write_atomic(res.result, x->a.json);

		if (e) {
			fprintf(stderr, "fsbench kernel-run: writing %s: %s\n", x->a.json,
				strerror(-e));
			r = r ? r : FSB_EXIT_SYSTEM;
		}
	}
	json_decref(res.result);
	return r;
}
