/* The kernel gate (gate_flow.h): its plan, boots in the order A B B A, comparisons, verdict, document. */
#include "fsbench/kgate/gate_flow.h"
#include "fsbench/kgate/util.h"
#include "fsbench/suite/suite.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/signal.h"
#include "report/compare.h"
#include "report/gate.h"
#include "report/runset.h"
#include "report/verdict.h"
#include "model/result_file.h"

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

/* One kernel-gate's boots, their results, the comparisons and the verdict. */
struct gate {
	struct kg_ctx *x;
	const struct kg_boot_backend *be;
	const struct kg_gate_observer *obs;
	void *arg;
	struct rpt_compare_opts o;
	struct kg_boot_res res[2 * KG_MAX_BOOTS];
	json_t *docs[2 * KG_MAX_BOOTS], *aadocs[2 * KG_MAX_BOOTS];
	const char *paths[2 * KG_MAX_BOOTS], *aapaths[2 * KG_MAX_BOOTS];
	int sides[2 * KG_MAX_BOOTS], aasides[2 * KG_MAX_BOOTS];
	size_t nf;
	json_t *boots, *gate;
	/* the judge's typed comparisons, serialised once, into the gate's document */
	struct rpt_cmp *cmp, *aa;
	double load_sum;
	bool judged;
	struct kg_gate_report rep;
	char why[256]; /* rep.why when it names boots */
};

static void say(const struct gate *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const struct gate *g, const char *fmt, ...)
{
	char msg[8192];
	va_list ap;

	if (!g->obs->error)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	g->obs->error(g->arg, msg);
}

/* The model disk under instruction counting: every metric is repeatable, judged by the floor. */
static bool gate_counted(const struct kg_args *a)
{
	return a->vm.disk.kind == KG_DISK_MODEL && a->vm.icount && a->vm.icount[0] &&
	       !strcmp(a->vm.accel, "tcg");
}

int kg_gate_side(int i)
{
	return (i + i / 2) % 2;
}

static int boots_default(const struct kg_args *a)
{
	return a->vm.disk.kind == KG_DISK_MODEL ? KG_MODEL_BOOTS : KG_VIRTIO_BOOTS;
}

int kg_gate_boots_needed(const struct kg_args *a, int reps, int boots)
{
	int need = reps > 0 ? (RPT_MIN_SAMPLES + reps - 1) / reps : RPT_MIN_SAMPLES;

	/* the floor is the spread between two boots of one kernel: two boots a side at least */
	if (gate_counted(a) && need < 2)
		need = 2;
	if (boots <= 0)
		boots = boots_default(a);
	return need > boots ? need : boots;
}

/*
 * Before any work: the suite's repetitions a boot times the boots a side are the samples
 * each gated metric gets. Too few with --boots given is a usage error naming what to
 * change; without it the boots are raised. A suite that cannot be read is left to
 * kg_prepare(), which says why.
 */
static int gate_plan(struct gate *g)
{
	struct kg_args *a = &g->x->a;
	char path[PATH_MAX], err[1024];
	struct suite su;
	int reps, need, boots = (int)a->boots; /* the option's range: 0..KG_MAX_BOOTS */

	if (suite_find(a->suite ? a->suite : KG_DEFAULT_SUITE, path, sizeof(path)) ||
	    suite_load(&su, path, err, sizeof(err)))
		return 0;
	reps = a->repetitions ? (int)a->repetitions : su.repetitions;
	suite_free(&su);
	need = kg_gate_boots_needed(a, reps, boots);
	if (boots && need > boots && gate_counted(a) && boots < 2) {
		say(g,
		    "--boots 1: on the model disk a change is judged against the spread between "
		    "boots of one kernel, which one boot a side cannot show: give --boots %d",
		    need);
		return -EINVAL;
	}
	if (boots && need > boots) {
		say(g,
		    "--boots %d: %d boot(s) a side of %d repetition(s) each (the suite's, or "
		    "--repetitions) give %d sample(s) a side per gated metric, and a comparison "
		    "needs %d: give --boots %d, or --repetitions %d",
		    boots, boots, reps, boots * reps, RPT_MIN_SAMPLES, need,
		    (RPT_MIN_SAMPLES + boots - 1) / boots);
		return -EINVAL;
	}
	bool picked = need > boots_default(a) && !boots;

	a->boots = need;
	if (g->obs->planned)
		g->obs->planned(g->arg, g->x, reps, picked);
	return 0;
}

/* The per-metric gate settings: --gate-file, else the defaults for the accelerator. */
static int gate_settings(struct gate *g)
{
	const struct kg_args *a = &g->x->a;
	char err[1024];
	int r;

	rpt_compare_opts_init(&g->o);
	g->o.alpha = a->alpha;
	g->o.threshold_pct = a->threshold;
	g->rep.counted = gate_counted(a);
	if (!a->gate_file &&
	    g->rep.counted) /* every metric: the floor says which the spread allows */
		g->gate = a->boots >= KG_MODEL_BOOTS_P999 ? json_object() :
							    json_loads(default_gate, 0, NULL);
	else if (!a->gate_file)
		g->gate = json_loads(a->vm.icount && !strcmp(a->vm.accel, "tcg") ? icount_gate :
										   default_gate,
				     0, NULL);
	else if ((r = rpt_gate_load(a->gate_file, &g->gate, err, sizeof(err)))) {
		say(g, "--gate-file: %s", err);
		return r;
	}
	g->o.gate = g->gate;
	return 0;
}

/* A gate's boots, run by the backend's slots in threads; each boot's slots are its own. */
struct boot_pool {
	struct gate *g;
	int total, next;
	bool stop; /* a boot failed: start no more */
	pthread_mutex_t lock;
	int *status;
};

static void *boot_worker(void *arg)
{
	struct boot_pool *p = arg;
	struct gate *g = p->g;

	for (;;) {
		struct kg_boot_req req = { .x = g->x, .total = p->total, .gate = true };
		char err[9216];
		int i;

		pthread_mutex_lock(&p->lock);
		i = p->stop || base_signal_received ? p->total : p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->total)
			return NULL;
		req.index = i;
		req.side = kg_gate_side(i);
		if (g->obs->boot_start)
			g->obs->boot_start(g->arg, &req);
		p->status[i] = g->be->run(g->be->priv, &req, &g->res[i], err, sizeof(err));
		if (g->res[i].booted && g->obs->boot_done)
			g->obs->boot_done(g->arg, &req, &g->res[i]);
		if (p->status[i]) {
			say(g, "%s", err);
			pthread_mutex_lock(&p->lock);
			p->stop = true;
			pthread_mutex_unlock(&p->lock);
		}
	}
}

/* Runs the pool's boots @slots at a time; a boot never started keeps status 1. 0 or -errno. */
static int boots_run(struct boot_pool *p, int slots)
{
	pthread_t t[64];
	int n = 0, e = 0;

	for (int i = 0; i < p->total; i++)
		p->status[i] = 1;
	if (slots > p->total)
		slots = p->total;
	if (slots <= 1) {
		boot_worker(p);
		return 0;
	}
	for (; n < slots && n < 64; n++)
		if ((e = pthread_create(&t[n], NULL, boot_worker, p)))
			break;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return n ? 0 : -e;
}

/*
 * Two boots that gave the same runs, value for value (every metric, histogram and sample;
 * what binds a result to its boot, its token, boot id and time, and the "vm" record lie
 * outside the runs): one result replayed or copied, not two measurements. Under -icount on
 * the model disk a metric can repeat between boots (fsync.p50), a whole run set does not.
 * Both backends' results meet here. -ECANCELED, with rep.why naming the two.
 */
static int gate_replayed(struct gate *g)
{
	for (int i = 0; i < g->rep.total; i++)
		for (int j = i + 1; j < g->rep.total; j++) {
			const struct kg_ctx *x = g->x;

			if (!json_equal(json_object_get(g->res[i].result, "runs"),
					json_object_get(g->res[j].result, "runs")))
				continue;
			snprintf(g->why, sizeof(g->why),
				 "boots %d (%s) and %d (%s) gave the same runs, value for value: a "
				 "result replayed or copied, not measured twice",
				 i + 1, x->k[kg_gate_side(i)].label, j + 1,
				 x->k[kg_gate_side(j)].label);
			say(g, "%s: cannot judge", g->why);
			g->rep.why = g->why;
			return -ECANCELED;
		}
	return 0;
}

/*
 * A B B A A B B A ... (kg_gate_side): a linear drift over time falls on both sides alike,
 * and with two boots at a time each pair holds one boot of each side, so neither side runs
 * first, nor beside itself. The results stay in memory as the backend adopted them.
 */
static int gate_boots(struct gate *g)
{
	int status[2 * KG_MAX_BOOTS], r = 0, slots = g->be->slots;
	struct boot_pool pool = { .g = g, .status = status };
	size_t naa = 0;

	g->rep.total = pool.total = 2 * g->x->a.boots;
	if (g->obs->boots_start)
		g->obs->boots_start(g->arg, g->rep.total,
				    slots < g->rep.total ? slots : g->rep.total);
	pthread_mutex_init(&pool.lock, NULL);
	if ((r = boots_run(&pool, slots)))
		say(g, "starting the boots: %s", strerror(-r));
	pthread_mutex_destroy(&pool.lock);
	if (r) {
		g->rep.why = "the boots could not start";
		return r;
	}
	for (int i = 0; i < g->rep.total; i++) {
		struct kg_boot_res *res = &g->res[i];
		int side = kg_gate_side(i);

		if (res->record)
			json_array_append(g->boots, res->record);
		if (r)
			continue;
		if (status[i]) {
			g->rep.signal = (int)base_signal_received;
			g->rep.why = g->rep.signal	   ? "interrupted" :
				     status[i] == -EBADMSG ? "a result could not be read" :
							     "a boot failed";
			r = g->rep.signal ? -EINTR : status[i] < 0 ? status[i] : -ECANCELED;
			continue;
		}
		g->docs[g->nf] = res->result;
		g->paths[g->nf] = res->path;
		g->sides[g->nf] = side;
		if (side == 0) { /* A/A: the baseline's 1st, 3rd... boots against 2nd, 4th... */
			g->aadocs[naa] = res->result;
			g->aapaths[naa] = res->path;
			g->aasides[naa] = (int)(naa % 2);
			naa++;
		}
		g->nf++;
		double l = json_number_value(json_object_get(res->record, "host_load_pct"));
		g->load_sum += l;
		if (l > g->rep.load_max)
			g->rep.load_max = l;
	}
	g->rep.naa = naa;
	return r ? r : gate_replayed(g);
}

/* ---- what report/ judges: every call into its comparison and floor is below ---- */

/* Largest |change| among gated, judged comparisons of @cmp, and the regressions. */
struct extent {
	double max;
	const char *metric;
};

static int extent_one(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
		      const struct rpt_cmp_judged *j, void *arg)
{
	struct extent *x = arg;

	(void)s;
	/* a noisy, insufficient or unproven change was not judged: it is not the floor */
	if (!j->rule.gate || !j->stats || !isfinite(j->change_pct) || j->verdict == RPT_NOISY ||
	    j->verdict == RPT_INSUFFICIENT || j->verdict == RPT_NOT_PROVEN)
		return 0;
	if (fabs(j->change_pct) > x->max) {
		x->max = fabs(j->change_pct);
		x->metric = m->name;
	}
	return 0;
}

static void cmp_extent(const struct rpt_cmp *cmp, double *ret_max, const char **ret_metric,
		       size_t *ret_regressed, size_t *ret_noisy)
{
	struct extent x = { 0 };

	rpt_cmp_foreach(cmp, extent_one, &x);
	*ret_max = x.max;
	*ret_metric = x.metric;
	*ret_regressed = rpt_cmp_count(cmp, RPT_REGRESSION, true);
	*ret_noisy = rpt_cmp_count(cmp, RPT_NOISY, true);
}

static int build_cmp(struct gate *g, json_t **docs, const char **paths, const int *sides, size_t n,
		     const char *const names[2], const struct rpt_compare_opts *o,
		     struct rpt_cmp **ret)
{
	struct rpt_runset rs = { 0 };
	char err[1024];
	int r = 0;

	for (size_t i = 0; i < n && !r; i++)
		r = rpt_runset_add(&rs, docs[i], paths[i], sides[i], err, sizeof(err));
	if (!r)
		r = rpt_runset_judge(&rs, names, 2, o, ret, err, sizeof(err));
	if (r)
		say(g, "comparing: %s", err);
	rpt_runset_free(&rs);
	return r;
}

/*
 * Candidate against baseline, and the baseline's odd boots against its even ones, judged
 * (by the A/A floor when counted); the extents and the gate's status into @g->rep.
 */
static int gate_compare(struct gate *g, enum rpt_gate_status *ret_st)
{
	const char *names[2] = { "baseline", "candidate" };
	const char *aanames[2] = { "baseline-odd", "baseline-even" };
	struct rpt_compare_opts ao = g->o;
	struct kg_gate_report *rep = &g->rep;

	/*
	 * Strict: a gated metric with too few samples cannot pass. Noisy ones (device timing
	 * under TCG) pass with a warning: the A/A line shows how noisy.
	 */
	g->o.strict = true;
	g->o.allow_noisy = true;
	/* counted runs are judged by the A/A floor: one judge, one pass (rpt_compare_judge) */
	if (rep->counted)
		g->o.floor_multiple = ao.floor_multiple = g->x->a.floor_multiple;
	if (build_cmp(g, g->docs, g->paths, g->sides, g->nf, names, &g->o, &g->cmp)) {
		rep->why = "the results could not be compared";
		return -EPROTO;
	}
	if (rep->naa >= 2 &&
	    build_cmp(g, g->aadocs, g->aapaths, g->aasides, rep->naa, aanames, &ao, &g->aa)) {
		rep->why = "the A/A comparison failed";
		return -EPROTO;
	}
	rep->cmp = g->cmp;
	rep->aa = g->aa;
	cmp_extent(g->cmp, &rep->cmax, &rep->cmetric, &rep->creg, &rep->cnoisy);
	/* with one baseline boot in a half there is no A/A floor to quote */
	if (g->aa && !(rep->counted && rep->naa < 3))
		cmp_extent(g->aa, &rep->aamax, &rep->aametric, &rep->aareg, &rep->aanoisy);
	*ret_st = rpt_cmp_gate_status(g->cmp);
	return 0;
}

/* ---- the verdict and the document ---- */

/* The verdict from the comparisons, the A/A floor and the host's load. */
static void gate_judge(struct gate *g, enum rpt_gate_status st)
{
	struct kg_gate_report *rep = &g->rep;

	rep->load_mean = g->load_sum / rep->total;
	g->judged = true;
	if (g->obs->judged)
		g->obs->judged(g->arg, rep);
	if (st == RPT_GATE_REGRESSED)
		rep->verdict = KG_VERDICT_REGRESSED;
	else if (st == RPT_GATE_UNJUDGED)
		rep->why = "some gated metrics could not be judged (too few samples, or noisy)";
	else
		rep->verdict = KG_VERDICT_GOOD;
	if (rep->verdict != KG_VERDICT_REGRESSED && rep->aareg) {
		rep->verdict = KG_VERDICT_CANNOT_JUDGE;
		rep->why =
			"the baseline regressed against itself (A/A): the noise floor is above the gate";
	}
	if (!isnan(g->x->a.max_host_load) && rep->load_max > g->x->a.max_host_load) {
		rep->verdict = KG_VERDICT_CANNOT_JUDGE;
		rep->why = "the host was busier than --max-host-load";
	}
}

const char *kg_verdict_name(enum kg_verdict v)
{
	static const char *const names[] = {
		[KG_VERDICT_GOOD] = "good",
		[KG_VERDICT_REGRESSED] = "regressed",
		[KG_VERDICT_CANNOT_JUDGE] = "cannot judge",
	};

	return names[v];
}

static void line(void (*emit)(void *, const char *), void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void line(void (*emit)(void *, const char *), void *arg, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit(arg, buf);
}

void kg_gate_explain(const struct kg_gate_report *rep, void (*emit)(void *arg, const char *line),
		     void *arg)
{
	const struct kg_args *a = &rep->x->a;

	if (rep->aa && rep->counted && rep->naa < 3)
		line(emit, arg,
		     "A/A noise floor (baseline boots odd vs even): not measured: the baseline's "
		     "%zu boots make halves of one boot each, too few to show how far two boots of "
		     "one kernel differ (--boots 3 or more measures it); each verdict above is "
		     "judged against how far each kernel's own boots differ (the floor beside it)",
		     rep->naa);
	else if (rep->aa)
		line(emit, arg,
		     "A/A noise floor (baseline boots odd vs even): largest judged gated "
		     "change %.1f%%%s%s%s, %zu regression(s), %zu noisy: the baseline against "
		     "itself, so a change of that size is noise",
		     rep->aamax, rep->aametric ? " (" : "", rep->aametric ? rep->aametric : "",
		     rep->aametric ? ")" : "", rep->aareg, rep->aanoisy);
	else
		line(emit, arg, "A/A noise floor: not measured (needs --boots 2 or more)");
	if (rep->x->needs.remote) /* another machine's: not this host's to see */
		line(emit, arg,
		     "host load during the boots: not measured (they ran on the backend's "
		     "machines)");
	else
		line(emit, arg,
		     "host load from other processes during the boots: mean %.0f%%, max %.0f%% "
		     "of the host's CPUs",
		     rep->load_mean, rep->load_max);
	if (rep->cnoisy)
		line(emit, arg,
		     "note: %zu gated metric(s) were too noisy to judge and did not fail the "
		     "gate (see the A/A floor)",
		     rep->cnoisy);
	if (rep->counted) {
		line(emit, arg,
		     "decided by the A/A floor: a change counts beyond %.4g%% and %.4g times the "
		     "largest difference between two runs of one kernel (floor, beside each "
		     "verdict)",
		     a->threshold, a->floor_multiple);
		line(emit, arg,
		     "and a percentile read from a histogram only beyond one of its buckets (an "
		     "exact one, as fsync's when every call was kept, without that bar), and "
		     "gated only with %d or more calls a run at or above it (p99: %d calls; "
		     "fewer say \"(not gated)\")",
		     RPT_TAIL_CALLS, RPT_TAIL_CALLS * 100);
	} else if (rep->load_max > 25)
		line(emit, arg,
		     "warning: the host was busy; under TCG host load leaks into the "
		     "guest's timing (two busy loops cut files/s by 42%%)");
}

/* The gate's document: verdict, kernels, boots, comparisons; written once. */
static void gate_document(struct gate *g, int status)
{
	const struct kg_gate_report *rep = &g->rep;
	struct kg_ctx *x = g->x;
	char docpath[PATH_MAX + 32], heldpath[64] = "";
	const char *path = x->a.json ? x->a.json : docpath;
	json_t *out;
	int e;

	if (g->judged)
		out = json_pack("{s:s, s:f, s:s?, s:f, s:s?, s:I, s:f, s:f}", "schema",
				"fsbench-kernel-gate/1", "largest_change_pct", rep->cmax,
				"largest_change_metric", rep->cmetric, "aa_largest_change_pct",
				rep->aamax, "aa_largest_change_metric", rep->aametric,
				"aa_regressions", (json_int_t)rep->aareg, "host_load_mean_pct",
				rep->load_mean, "host_load_max_pct", rep->load_max);
	else
		out = json_pack("{s:s}", "schema", "fsbench-kernel-gate/1");
	if (g->judged && x->needs.remote) { /* not measured, not 0 % */
		json_object_set_new(out, "host_load_mean_pct", json_null());
		json_object_set_new(out, "host_load_max_pct", json_null());
	}
	json_object_set_new(out, "verdict", json_string(kg_verdict_name(rep->verdict)));
	/* every boot ran and was compared: else the verdict is the reason why not */
	json_object_set_new(out, "complete", json_boolean(g->judged));
	if (rep->why)
		json_object_set_new(out, "reason", json_string(rep->why));
	json_object_set_new(out, "exit", json_integer(status));
	json_object_set_new(out, "suite", json_string(x->suite));
	for (int i = 0; i < 2; i++) {
		char cl[KG_CMDLINE_MAX + 128];

		kg_cmdline(&x->k[i], cl, sizeof(cl));
		if (x->a.vm.disk.kind == KG_DISK_MODEL) { /* as boot.c gives it */
			size_t l = strlen(cl);

			cl[l++] = ' ';
			kg_disk_cmdline(&x->a.vm.disk, cl + l, sizeof(cl) - l);
		}
		json_object_set_new(
			out, x->k[i].label[0] ? x->k[i].label : (i ? "candidate" : "baseline"),
			json_pack("{s:s, s:s*, s:s*, s:s, s:s, s:s}", "spec", x->k[i].spec, "url",
				  x->k[i].url[0] ? x->k[i].url : NULL, "sha256",
				  x->k[i].url[0] ? x->k[i].sha256 : NULL, "image", x->k[i].image,
				  "release", x->k[i].release, "cmdline", cl));
	}
	json_object_set(out, "boots", g->boots);
	if (g->cmp)
		json_object_set_new(out, "compare", rpt_cmp_to_json(g->cmp));
	if (g->aa)
		json_object_set_new(out, "aa_compare", rpt_cmp_to_json(g->aa));
	if (g->judged && g->be->publish && out) {
		char err[2048] = "";
		json_t *pub = g->be->publish(g->be->priv, x, out, err, sizeof(err));
		const char *said = json_string_value(json_object_get(pub, "said"));

		if (said && g->obs->published)
			g->obs->published(g->arg, said);
		if (pub)
			json_object_set_new(out, "published", pub);
		else
			say(g, "warning: the verdict was not published: %s",
			    err[0] ? err : strerror(ENOMEM));
	}
	/* the work directory's own file, beneath its descriptor held since its check */
	snprintf(docpath, sizeof(docpath), "%s/kernel-gate.json", x->workdir);
	if (!x->a.json && x->workdir_fd >= 0)
		kg_fd_path(heldpath, sizeof(heldpath), x->workdir_fd, "kernel-gate.json");
	e = out ? mdl_json_write_atomic(out, heldpath[0] ? heldpath : path) : -ENOMEM;
	json_decref(out);
	if (g->obs->written)
		g->obs->written(g->arg, x->workdir, path, e);
}

int kg_gate_document_stopped(const struct kg_ctx *x, int status, const char *why)
{
	char reason[4096];
	json_t *out;
	int e;

	if (!x->a.json)
		return 0;
	/* the reason may quote a server or a guest: printable UTF-8, as a log shows it */
	base_escape_str(reason, sizeof(reason), why ? why : "the gate stopped");
	out = json_pack("{s:s, s:s, s:b, s:s, s:i, s:s, s:[]}", "schema", "fsbench-kernel-gate/1",
			"verdict", kg_verdict_name(KG_VERDICT_CANNOT_JUDGE), "complete", 0,
			"reason", reason, "exit", status, "suite",
			x->suite[0] ? x->suite :
			x->a.suite  ? x->a.suite :
				      KG_DEFAULT_SUITE,
			"boots");
	for (int i = 0; out && i < 2; i++) {
		/* a URL's SHA-256 once fetched */
		json_t *k = json_pack("{s:s?, s:s*, s:s*}", "spec",
				      x->a.url[i] && x->k[i].spec[0] ? x->k[i].spec : x->a.spec[i],
				      "url", x->a.url[i], "sha256",
				      x->k[i].sha256[0] ? x->k[i].sha256 : NULL);

		if (k && x->k[i].release[0])
			json_object_set_new(k, "release", json_string(x->k[i].release));
		json_object_set_new(out, i ? "candidate" : "baseline", k);
	}
	e = out ? mdl_json_write_atomic(out, x->a.json) : -ENOMEM;
	json_decref(out);
	return e;
}

/* Plan, settings, the backend's kernels; 0 or -errno with @ret_fail set. */
static int gate_begin(struct gate *g, enum kg_gate_fail *ret_fail)
{
	char err[4096];
	int r;

	*ret_fail = KG_GATE_USAGE;
	if ((r = gate_plan(g)) || (r = gate_settings(g)))
		return r;
	if (g->be->prepare && (r = g->be->prepare(g->be->priv, g->x, ret_fail, err, sizeof(err)))) {
		say(g, "%s", err);
		if (g->be->finish)
			g->be->finish(g->be->priv, g->x);
		return r;
	}
	if (g->obs->prepared)
		g->obs->prepared(g->arg, g->x, 2);
	return 0;
}

int kg_gate_run(struct kg_ctx *x, const struct kg_boot_backend *be,
		const struct kg_gate_observer *obs, void *arg, enum kg_gate_fail *ret_fail)
{
	struct gate *g = calloc(1, sizeof(*g));
	enum rpt_gate_status st;
	int r, status;

	*ret_fail = KG_GATE_SYSTEM;
	if (!g || !(g->boots = json_array())) {
		if (obs->error)
			obs->error(arg, strerror(ENOMEM));
		free(g);
		return -ENOMEM;
	}
	g->x = x;
	g->be = be;
	g->obs = obs;
	g->arg = arg;
	g->rep.x = x;
	g->rep.verdict = KG_VERDICT_CANNOT_JUDGE;
	if ((r = gate_begin(g, ret_fail)))
		goto done;
	base_install_signals();
	r = gate_boots(g);
	if (!r && !(r = gate_compare(g, &st)))
		gate_judge(g, st);
	status = obs->verdict ? obs->verdict(arg, &g->rep) : 0;
	if (x->workdir[0])
		gate_document(g, status);
	/* after the document: it is written beneath the work directory the backend holds */
	if (be->finish)
		be->finish(be->priv, x);
	r = 0;
done:
	for (int i = 0; i < 2 * KG_MAX_BOOTS; i++)
		kg_boot_res_free(&g->res[i]);
	rpt_cmp_free(g->cmp);
	rpt_cmp_free(g->aa);
	json_decref(g->gate);
	json_decref(g->boots);
	free(g);
	return r;
}
