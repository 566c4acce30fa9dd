/* kernel-gate's boots, comparisons and verdict (cli/kgate.h's kg_cli_gate); printed here. */
#include "fsbench/cli/kgate.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/signal.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/gate.h"
#include "report/runset.h"
#include "model/result_file.h"
#include "model/runs.h"

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
		p->status[i] = kg_cli_boot_one(p->x, p->side[i], i, p->total, true, &p->rec[i],
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
		if (mdl_runs_load(g->files[i], &g->docs[nf], err, sizeof(err))) {
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
	/* 2 boots a side: one baseline boot a half, which the floor cannot judge */
	if (g->aa && g->counted && g->naa < 3)
		printf("A/A noise floor (baseline boots odd vs even): one boot a half, no floor to "
		       "judge by (--boots 3 or more); the floor beside each verdict is the A/A "
		       "measure\n");
	else if (g->aa) {
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
	if (g->counted) {
		printf("decided by the A/A floor: a change counts beyond %.4g%% and %.4g times the "
		       "largest difference between two runs of one kernel (floor, beside each "
		       "verdict)\n",
		       g->x->a.threshold, g->x->a.floor_multiple);
		printf("and a percentile only beyond one histogram bucket, and gated only with %d "
		       "or more calls a run at or above it (p99: %d calls; fewer say "
		       "\"(not gated)\")\n",
		       RPT_TAIL_CALLS, RPT_TAIL_CALLS * 100);
	} else if (g->load_max > 25)
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
	int e = mdl_json_write_atomic(g->out, path);
	if (e)
		fprintf(stderr, "fsbench kernel-gate: writing %s: %s\n", path, strerror(-e));
	else
		fprintf(stderr, "fsbench kernel-gate: boots and results in %s; verdict in %s\n",
			x->workdir, path);
}

int kg_cli_gate(struct kg_ctx *x)
{
	struct gate *g = calloc(1, sizeof(*g));
	int r;

	if (!g || !(g->boots = json_array())) {
		fprintf(stderr, "fsbench kernel-gate: %s\n", strerror(ENOMEM));
		r = FSB_EXIT_FAIL;
		goto done;
	}
	g->x = x;
	g->verdict = "cannot judge";
	/* the journal before the kernels: it records a .deb's extraction directory too */
	if ((r = gate_settings(g)) || (r = kg_cli_journal_open(g->x, "kernel-gate")))
		goto done;
	if ((r = kg_cli_prepare(g->x, 2, "kernel-gate"))) {
		kg_cli_journal_close(g->x);
		goto done;
	}
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
	}
	free(g);
	return r;
}
