/* The conditions rule (report/hostload_rule.c): busy hosts, unequal load and a drifting canary are no verdict. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/gate.h"
#include "report/hostload_rule.h"

/* A complete run whose host had @others % taken by others and whose canary p50s were given. */
static json_t *run(double others, double before_us, double after_us)
{
	json_t *r = json_pack("{s:{s:b},s:{s:f,s:f}}", "summary", "complete", 1, "host_load",
			      "others_pct", others, "steal_pct", 0.0);

	if (before_us > 0)
		json_object_set_new(r, "canary",
				    json_pack("{s:{s:f},s:{s:f}}", "before", "p50_us", before_us,
					      "after", "p50_us", after_us));
	return r;
}

struct pair {
	json_t *runs[6];
	struct mdl_run_ref ref[6];
	size_t ia[3], ib[3];
};

static void pair_init(struct pair *p, double oa, double ob, double ca, double cb)
{
	for (int i = 0; i < 6; i++) {
		p->runs[i] = run(i < 3 ? oa : ob, i < 3 ? ca : cb, (i < 3 ? ca : cb) * 1.01);
		p->ref[i] = (struct mdl_run_ref){ .run = p->runs[i], .side = i >= 3 };
	}
	for (size_t i = 0; i < 3; i++) {
		p->ia[i] = i;
		p->ib[i] = i + 3;
	}
}

static void pair_free(struct pair *p)
{
	for (int i = 0; i < 6; i++)
		json_decref(p->runs[i]);
}

/* A judged comparison as the typed judge makes it, before the rule. */
static struct rpt_cmp_judged judged(enum rpt_verdict verdict, double change)
{
	return (struct rpt_cmp_judged){ .side = 1,
					.verdict = verdict,
					.stats = true,
					.change_pct = change,
					.q = NAN,
					.rule = {
						.alpha = 0.05, .threshold_pct = 5, .gate = true } };
}

static void judged_free(struct rpt_cmp_judged *j)
{
	free(j->reason);
	free(j->host_note);
	if (j->conditions)
		free(j->conditions->reason);
	free(j->conditions);
}

/* A comparison of one sample, one metric and @j, for the gate and the counts. */
struct one {
	struct rpt_cmp c;
	struct rpt_cmp_sample s;
	struct rpt_cmp_metric m;
};

static void one_init(struct one *o, struct rpt_cmp_judged *j, bool strict)
{
	*o = (struct one){ .m = { .name = "files_per_sec", .judged = j } };
	o->s = (struct rpt_cmp_sample){ .label = "smallfile", .metrics = &o->m, .nmetrics = 1 };
	o->c = (struct rpt_cmp){ .nsides = 2, .samples = &o->s, .nsamples = 1 };
	o->c.set.strict = strict;
}

static enum rpt_gate_status gate_of(struct rpt_cmp_judged *j, bool strict)
{
	struct one o;

	one_init(&o, j, strict);
	return rpt_cmp_gate_status(&o.c);
}

static size_t count_of(struct rpt_cmp_judged *j, bool notes, const char **first)
{
	struct one o;

	one_init(&o, j, false);
	return rpt_hostload_count(&o.c, notes, first);
}

/* Both sides' conditions from three runs each, the runs freed again. */
static void sides(double oa, double ob, double ca, double cb, struct rpt_hostload_side *a,
		  struct rpt_hostload_side *b)
{
	struct pair p;

	pair_init(&p, oa, ob, ca, cb);
	rpt_hostload_side(p.ref, p.ia, 3, a);
	rpt_hostload_side(p.ref, p.ib, 3, b);
	pair_free(&p);
}

static char why[400];

/* The rule with --max-host-load 50, for a throughput (@hib) or latency metric. */
static bool unjudgeable(const struct rpt_hostload_side *a, const struct rpt_hostload_side *b,
			bool canary, bool hib, bool changed, double change)
{
	return rpt_hostload_unjudgeable(a, b, "A", "B", 50, canary, hib, changed, change, why,
					sizeof(why));
}

static void test_busy_side(void **state)
{
	struct rpt_hostload_side a, b;

	(void)state;
	sides(2, 38, 0, 0, &a, &b);
	assert_int_equal(a.n_load, 3);
	assert_float_equal(a.others_pct, 2, 1e-9);
	assert_int_equal(a.n_canary, 0);
	/* 36 points apart: unequal, for every verdict (unchanged too) */
	assert_true(unjudgeable(&a, &b, true, true, false, 0));
	assert_non_null(strstr(
		why,
		"host load differs: others used 2 % of the CPU time on side 'A', 38 % on side 'B'"));
	/* both busy: the same share is still no verdict */
	sides(60, 62, 0, 0, &a, &b);
	assert_true(unjudgeable(&a, &b, true, true, true, -10));
	assert_non_null(strstr(why, "host busy on side 'B': others used 62 %"));
	/* a saturated host alike on both sides, but fsbench waited longer for a CPU on one */
	{
		struct pair p;

		pair_init(&p, 97, 98, 0, 0);
		for (int i = 0; i < 6; i++)
			json_object_set_new(json_object_get(p.runs[i], "host_load"),
					    "self_wait_pct", json_real(i < 3 ? 30 : 55));
		rpt_hostload_side(p.ref, p.ia, 3, &a);
		rpt_hostload_side(p.ref, p.ib, 3, &b);
		pair_free(&p);
	}
	assert_int_equal(b.n_wait, 3);
	assert_true(rpt_hostload_unjudgeable(&a, &b, "A", "B", 0, true, true, true, -10, why,
					     sizeof(why)));
	assert_non_null(
		strstr(why, "waited for a CPU 30 % of their runnable time on side 'A', 55 %"));
	b.self_wait_pct = 45;
	assert_false(rpt_hostload_unjudgeable(&a, &b, "A", "B", 0, true, true, true, -10, why,
					      sizeof(why)));
	/* a quiet pair a few points apart is judged */
	sides(3, 9, 0, 0, &a, &b);
	assert_false(unjudgeable(&a, &b, true, true, true, -41));
}

static void test_canary(void **state)
{
	struct rpt_hostload_side a, b;

	(void)state;
	sides(2, 2, 1000, 1350, &a, &b);
	assert_int_equal(a.n_canary, 6);
	assert_float_equal(a.canary_p50_us, 1005, 1e-9); /* median of 1000 x3, 1010 x3 */
	/* device 35 % slower, files/s -41 %: the device can explain it */
	assert_true(unjudgeable(&a, &b, true, true, true, -41));
	assert_non_null(strstr(
		why,
		"canary fsync p50 moved +35 % between sides (1.00 -> 1.36 ms, rank test p = 0.0039)"));
	assert_non_null(strstr(why, "as much as the metric's -41.0 %"));
	/* latency +50 % (lower is better): explained the same way */
	assert_true(unjudgeable(&a, &b, true, false, true, 50));
	/* files/s up while the device got slower: the device does not explain it */
	assert_false(unjudgeable(&a, &b, true, true, true, 41));
	/* a change twice and more the canary's move is the kernel's */
	assert_false(unjudgeable(&a, &b, true, true, true, -80));
	/* unchanged metrics, and kernel counters, are not the canary's business */
	assert_false(unjudgeable(&a, &b, true, true, false, -41));
	assert_false(unjudgeable(&a, &b, false, true, true, -41));
	/* two kernels: the canary runs through the kernel under test, so it is not judged */
	snprintf(b.kernel, sizeof(b.kernel), "6.19|#1 SMP|quiet");
	assert_false(unjudgeable(&a, &b, true, true, true, -41));
	/* a canary that moved as much, but whose readings overlap, is noise: the rank test */
	sides(2, 2, 1000, 1350, &a, &b);
	a.canary[0] = 1400; /* 1010 1010 1010 1000 1000 1400: the sides no longer apart */
	a.canary[1] = 2000;
	b.canary[0] = 200;
	b.canary[1] = 300;
	assert_false(unjudgeable(&a, &b, true, true, true, -41));
	/* a canary within 5 % is no drift, whatever the metric did */
	sides(2, 2, 1000, 1030, &a, &b);
	assert_false(unjudgeable(&a, &b, true, true, true, -4));
}

/* A judged @verdict of @change % marked by the rule; the caller frees it (judged_free). */
static struct rpt_cmp_judged marked(const struct pair *p, enum rpt_verdict verdict, double change,
				    int kind, double max_busy)
{
	struct rpt_cmp_judged j = judged(verdict, change);

	assert_int_equal(rpt_hostload_judge(&j, p->ref, p->ia, 3, p->ib, 3, "A", "B", kind,
					    kind != RPT_KIND_LATENCY, max_busy),
			 0);
	return j;
}

/* The judged comparison marked, and what a gate makes of it, strict or not. */
static void test_mark_and_gate(void **state)
{
	struct pair p;
	struct rpt_cmp_judged c;
	const char *first;

	(void)state;
	pair_init(&p, 2, 40, 1000, 1000);
	c = marked(&p, RPT_REGRESSION, -12, RPT_KIND_THROUGHPUT, 0);
	assert_int_equal(c.verdict, RPT_INSUFFICIENT);
	assert_true(c.cannot_judge);
	assert_true(c.stats); /* the figures stay for the reader */
	assert_non_null(strstr(c.reason, "cannot judge: "));
	assert_non_null(c.conditions);
	assert_int_equal(c.conditions->verdict_if_judged, RPT_REGRESSION);
	assert_true(c.conditions->side.load);
	assert_float_equal(c.conditions->side.others_pct, 40, 1e-9);
	assert_float_equal(c.conditions->baseline.others_pct, 2, 1e-9);
	/* a would-be regression on unequal conditions: cannot judge, also without --strict */
	assert_int_equal(gate_of(&c, false), RPT_GATE_UNJUDGED);
	assert_int_equal(gate_of(&c, true), RPT_GATE_UNJUDGED);
	assert_int_equal(count_of(&c, false, &first), 1);
	assert_non_null(strstr(first, "host load differs"));
	/* ... but not when the metric is not gated */
	c.rule.gate = false;
	assert_int_equal(gate_of(&c, false), RPT_GATE_PASS);
	judged_free(&c);
	/* an unchanged metric on unequal conditions: not judged, but a plain gate passes */
	c = marked(&p, RPT_UNCHANGED, 1, RPT_KIND_LATENCY, 0);
	assert_int_equal(c.verdict, RPT_INSUFFICIENT);
	assert_int_equal(c.conditions->verdict_if_judged, RPT_UNCHANGED);
	assert_int_equal(gate_of(&c, false), RPT_GATE_PASS);
	assert_int_equal(gate_of(&c, true), RPT_GATE_UNJUDGED);
	judged_free(&c);
	/* what has no verdict to take back is left alone */
	c = marked(&p, RPT_INSUFFICIENT, -12, RPT_KIND_THROUGHPUT, 0);
	assert_null(c.conditions);
	assert_null(c.reason);
	judged_free(&c);
	pair_free(&p);
	/* busy alike on both sides: judged with a note, unless --max-host-load says otherwise */
	pair_init(&p, 70, 72, 1000, 1000);
	c = marked(&p, RPT_REGRESSION, -12, RPT_KIND_THROUGHPUT, 0);
	assert_int_equal(c.verdict, RPT_REGRESSION);
	assert_null(c.conditions);
	assert_non_null(strstr(c.host_note, "host busy on side 'B': others used 72 %"));
	assert_int_equal(count_of(&c, true, &first), 1);
	assert_ptr_equal(first, c.host_note);
	assert_int_equal(count_of(&c, false, &first), 0);
	assert_int_equal(gate_of(&c, false), RPT_GATE_REGRESSED);
	judged_free(&c);
	for (int max = 60; max <= 80; max += 20) {
		c = marked(&p, RPT_REGRESSION, -12, RPT_KIND_THROUGHPUT, max);
		assert_int_equal(c.verdict, max == 60 ? RPT_INSUFFICIENT : RPT_REGRESSION);
		assert_int_equal(gate_of(&c, false),
				 max == 60 ? RPT_GATE_UNJUDGED : RPT_GATE_REGRESSED);
		judged_free(&c);
	}
	pair_free(&p);
	/* equal, quiet sides keep their verdict; so do results from before host_load */
	pair_init(&p, 2, 3, 1000, 1000);
	c = marked(&p, RPT_REGRESSION, -12, RPT_KIND_THROUGHPUT, 0);
	assert_int_equal(c.verdict, RPT_REGRESSION);
	assert_null(c.conditions);
	assert_null(c.host_note);
	for (int i = 0; i < 6; i++)
		json_object_del(p.runs[i], "host_load");
	json_object_set_new(p.runs[4], "host_load",
			    json_pack("{s:f,s:f}", "others_pct", 90.0, "steal_pct", 0.0));
	assert_int_equal(rpt_hostload_judge(&c, p.ref, p.ia, 3, p.ib, 3, "A", "B",
					    RPT_KIND_THROUGHPUT, true, 0),
			 0);
	assert_int_equal(c.verdict, RPT_REGRESSION);
	judged_free(&c);
	pair_free(&p);
}

/* The kernel each side ran comes from its result documents' host. */
static void test_kernel_of_docs(void **state)
{
	json_t *k1 = json_pack("{s:{s:s,s:s,s:s}}", "host", "kernel", "6.18", "kernel_version",
			       "#1", "cmdline", "quiet");
	json_t *k2 = json_pack("{s:{s:s,s:s,s:s}}", "host", "kernel", "6.18", "kernel_version",
			       "#1", "cmdline", "quiet init_on_free=1");
	struct pair p;
	struct rpt_cmp_judged c;

	(void)state;
	pair_init(&p, 2, 2, 1000, 1350);
	for (int i = 0; i < 6; i++)
		p.ref[i].doc = k1;
	c = marked(&p, RPT_REGRESSION, -41, RPT_KIND_THROUGHPUT, 0);
	assert_int_equal(c.verdict, RPT_INSUFFICIENT);
	assert_non_null(strstr(c.conditions->reason, "canary fsync p50 moved"));
	judged_free(&c);
	/* the candidate booted with another command line: another kernel, the canary is moot */
	for (int i = 3; i < 6; i++)
		p.ref[i].doc = k2;
	c = marked(&p, RPT_REGRESSION, -41, RPT_KIND_THROUGHPUT, 0);
	assert_int_equal(c.verdict, RPT_REGRESSION);
	judged_free(&c);
	/* one side's runs from two kernels: no one kernel to compare the canary on */
	p.ref[3].doc = k1;
	c = marked(&p, RPT_REGRESSION, -41, RPT_KIND_THROUGHPUT, 0);
	assert_int_equal(c.verdict, RPT_REGRESSION);
	judged_free(&c);
	pair_free(&p);
	json_decref(k1);
	json_decref(k2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_side),
		cmocka_unit_test(test_canary),
		cmocka_unit_test(test_mark_and_gate),
		cmocka_unit_test(test_kernel_of_docs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
