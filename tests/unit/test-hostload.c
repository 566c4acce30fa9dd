/* The conditions rule (report/hostload.c): busy hosts, unequal load and a drifting canary are no verdict. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "report/gate.h"
#include "report/hostload.h"

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

/* A judged comparison as compare.c makes it. */
static json_t *judged(const char *verdict, double change)
{
	return json_pack("{s:s,s:s,s:s,s:f,s:b}", "side", "B", "baseline", "A", "verdict", verdict,
			 "change_pct", change, "gate", 1);
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
		"canary fsync p50 moved +35 % between sides (1005 -> 1357 us, rank test p = 0.0039)"));
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

/* A judged @verdict of @change % marked by the rule; the caller frees it. */
static json_t *marked(const struct pair *p, const char *verdict, double change, int kind,
		      double max_busy)
{
	json_t *c = judged(verdict, change);

	rpt_hostload_mark(c, p->ref, p->ia, 3, p->ib, 3, kind, kind != RPT_KIND_LATENCY, max_busy);
	return c;
}

static const char *verdict_of(const json_t *c)
{
	return json_string_value(json_object_get(c, "verdict"));
}

/* The judged object marked, and what a gate makes of it, strict or not. */
static void test_mark_and_gate(void **state)
{
	struct pair p;
	json_t *c, *doc;
	const char *first;

	(void)state;
	pair_init(&p, 2, 40, 1000, 1000);
	c = marked(&p, "regression", -12, RPT_KIND_THROUGHPUT, 0);
	assert_string_equal(verdict_of(c), "insufficient");
	assert_non_null(strstr(json_string_value(json_object_get(c, "reason")), "cannot judge: "));
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "conditions"),
							      "verdict_if_judged")),
			    "regression");
	assert_float_equal(
		json_number_value(json_object_get(
			json_object_get(json_object_get(c, "conditions"), "side"), "others_pct")),
		40, 1e-9);
	assert_true(rpt_hostload_blocks(c));
	doc = json_pack("{s:{s:b},s:[{s:[{s:[O]}]}]}", "settings", "strict", 0, "samples",
			"metrics", "comparisons", c);
	/* a would-be regression on unequal conditions: cannot judge, also without --strict */
	assert_int_equal(rpt_gate_status(doc), RPT_GATE_UNJUDGED);
	assert_int_equal(rpt_hostload_count(doc, false, &first), 1);
	assert_non_null(strstr(first, "host load differs"));
	json_decref(doc);
	json_decref(c);
	/* an unchanged metric on unequal conditions: not judged, but a plain gate passes */
	c = marked(&p, "unchanged", 1, RPT_KIND_LATENCY, 0);
	assert_string_equal(verdict_of(c), "insufficient");
	assert_false(rpt_hostload_blocks(c));
	doc = json_pack("{s:{s:b},s:[{s:[{s:[O]}]}]}", "settings", "strict", 0, "samples",
			"metrics", "comparisons", c);
	assert_int_equal(rpt_gate_status(doc), RPT_GATE_PASS);
	json_object_set_new(json_object_get(doc, "settings"), "strict", json_true());
	assert_int_equal(rpt_gate_status(doc), RPT_GATE_UNJUDGED);
	json_decref(doc);
	json_decref(c);
	pair_free(&p);
	/* busy alike on both sides: judged with a note, unless --max-host-load says otherwise */
	pair_init(&p, 70, 72, 1000, 1000);
	c = marked(&p, "regression", -12, RPT_KIND_THROUGHPUT, 0);
	assert_string_equal(verdict_of(c), "regression");
	assert_non_null(strstr(json_string_value(json_object_get(c, "host_note")),
			       "host busy on side 'B': others used 72 %"));
	doc = json_pack("{s:[{s:[{s:[O]}]}]}", "samples", "metrics", "comparisons", c);
	assert_int_equal(rpt_hostload_count(doc, true, &first), 1);
	assert_int_equal(rpt_hostload_count(doc, false, &first), 0);
	json_decref(doc);
	json_decref(c);
	for (int max = 60; max <= 80; max += 20) {
		c = marked(&p, "regression", -12, RPT_KIND_THROUGHPUT, max);
		assert_string_equal(verdict_of(c), max == 60 ? "insufficient" : "regression");
		assert_true(rpt_hostload_blocks(c) == (max == 60));
		json_decref(c);
	}
	pair_free(&p);
	/* equal, quiet sides keep their verdict; so do results from before host_load */
	pair_init(&p, 2, 3, 1000, 1000);
	c = marked(&p, "regression", -12, RPT_KIND_THROUGHPUT, 0);
	assert_string_equal(verdict_of(c), "regression");
	assert_null(json_object_get(c, "conditions"));
	for (int i = 0; i < 6; i++)
		json_object_del(p.runs[i], "host_load");
	json_object_set_new(p.runs[4], "host_load",
			    json_pack("{s:f,s:f}", "others_pct", 90.0, "steal_pct", 0.0));
	rpt_hostload_mark(c, p.ref, p.ia, 3, p.ib, 3, RPT_KIND_THROUGHPUT, true, 0);
	assert_string_equal(verdict_of(c), "regression");
	json_decref(c);
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
	json_t *c;

	(void)state;
	pair_init(&p, 2, 2, 1000, 1350);
	for (int i = 0; i < 6; i++)
		p.ref[i].doc = k1;
	c = marked(&p, "regression", -41, RPT_KIND_THROUGHPUT, 0);
	assert_string_equal(verdict_of(c), "insufficient");
	json_decref(c);
	/* the candidate booted with another command line: another kernel, the canary is moot */
	for (int i = 3; i < 6; i++)
		p.ref[i].doc = k2;
	c = marked(&p, "regression", -41, RPT_KIND_THROUGHPUT, 0);
	assert_string_equal(verdict_of(c), "regression");
	json_decref(c);
	/* one side's runs from two kernels: no one kernel to compare the canary on */
	p.ref[3].doc = k1;
	c = marked(&p, "regression", -41, RPT_KIND_THROUGHPUT, 0);
	assert_string_equal(verdict_of(c), "regression");
	json_decref(c);
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
