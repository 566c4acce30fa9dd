/* Unit tests of report/why: the why lines of changed metrics, and sides with other probes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "tests/unit/compare_doc.h"
#include "report/why.h"
#include "report/why_text.h"
#include "report/compare_text.h"
#include "report/cmp.h"

#define NRUNS 3

/*
 * A doctored smallfile run: 100 fsyncs of p99 @p99_us, a jbd2 commit per fsync whose
 * logging phase takes @logging_us, @flushes device flushes in all; jbd2's status @jbd2.
 */
static json_t *run(double p99_us, double flushes, double logging_us, const char *jbd2, int rep)
{
	json_t *r = json_pack(
		"{s:s,s:i,s:{s:b,s:i,s:f},s:{s:{s:i,s:f,s:f,s:f,s:f}},s:{s:s,s:i},"
		"s:{s:{s:{s:s,s:{s:f,s:f,s:f,s:f}},s:{s:s,s:{s:f,s:f},s:{s:{s:f,s:f}}}}}}",
		"workload", "smallfile", "threads", 1, "summary", "complete", 1, "files", 100,
		"files_per_sec", 1000.0, "ops", "fsync", "count", 100, "p50_ns", p99_us * 500,
		"p99_ns", p99_us * 1000, "p99_9_ns", p99_us * 1000, "mean_ns", p99_us * 600,
		"coords", "fs", "ext4", "repetition", rep, "probes", "sources", "block", "status",
		"ok", "counters", "issued", 300.0, "write_bytes", 409600.0, "flush_issued", flushes,
		"bio_fua", 100.0, "jbd2", "status", jbd2, "counters", "commits", 100.0, "handles",
		300.0, "hists", "logging", "sum_ns", logging_us * 1000 * 100, "count", 100.0);

	assert_non_null(r);
	return r;
}

static json_t *build(json_t **runs, size_t n)
{
	static const char *const names[] = { "baseline", "candidate" };
	struct mdl_run_ref refs[2 * NRUNS];
	struct rpt_compare_opts o;
	json_t *cmp = NULL;
	char err[256];

	for (size_t i = 0; i < n; i++)
		refs[i] = (struct mdl_run_ref){ .run = runs[i],
						.file = i < NRUNS ? "a" : "b",
						.index = i % NRUNS,
						.side = i >= NRUNS };
	rpt_compare_opts_init(&o);
	assert_int_equal(cmp_doc_build(names, 2, refs, n, &o, &cmp, err, sizeof(err)), 0);
	return cmp;
}

static const json_t *comparison(const json_t *cmp, const char *metric)
{
	const json_t *m;
	size_t i;

	json_array_foreach(
		json_object_get(json_array_get(json_object_get(cmp, "samples"), 0), "metrics"), i,
		m) if (!strcmp(json_string_value(json_object_get(m, "name")),
			       metric)) return json_array_get(json_object_get(m, "comparisons"), 0);
	fail_msg("no metric %s", metric);
	return NULL;
}

/* fsync p99 +50 %: the line says the commit flushed 3 times instead of 2, logging 210 -> 290 */
static void test_why_regression(void **state)
{
	json_t *runs[2 * NRUNS], *cmp;
	const json_t *c, *why;
	const char *text;
	char *items;

	(void)state;
	for (int i = 0; i < NRUNS; i++) {
		runs[i] = run(1000 + i * 10, 200, 210, "ok", i);
		runs[NRUNS + i] = run(1500 + i * 10, 300, 290, "ok", i);
	}
	cmp = build(runs, 2 * NRUNS);
	c = comparison(cmp, "fsync.p99");
	assert_string_equal(json_string_value(json_object_get(c, "verdict")), "regression");
	why = json_object_get(c, "why");
	assert_non_null(why);
	assert_string_equal(json_string_value(json_object_get(why, "per")), "fsync");
	text = json_string_value(json_object_get(why, "text"));
	assert_non_null(text);
	assert_non_null(strstr(text, "fsync.p99 +49."));
	assert_non_null(strstr(text, "commits per fsync 1.00 -> 1.00"));
	assert_non_null(strstr(text, "flushes per commit 2.00 -> 3.00"));
	assert_non_null(strstr(text, "logging 210 -> 290 us"));
	/* what did not move stays out of the text, but is an item */
	assert_null(strstr(text, "FUA"));
	items = json_dumps(json_object_get(why, "items"), 0);
	assert_non_null(strstr(items, "FUA writes per fsync"));
	free(items);
	/* throughput did not move: nothing to explain */
	assert_null(json_object_get(comparison(cmp, "files_per_sec"), "why"));
	assert_null(json_object_get(json_array_get(json_object_get(cmp, "samples"), 0),
				    "instrumentation"));
	json_decref(cmp);
	for (int i = 0; i < 2 * NRUNS; i++)
		json_decref(runs[i]);
}

/* jbd2 loaded on the candidate only: its fsync latencies are not judged, and it is said */
static void test_why_instrumentation(void **state)
{
	json_t *runs[2 * NRUNS], *cmp, *inst;
	const json_t *c;

	(void)state;
	for (int i = 0; i < NRUNS; i++) {
		runs[i] = run(1000 + i * 10, 200, 210,
			      "skipped: loading jbd2.bpf.o: Permission denied", i);
		runs[NRUNS + i] = run(1500 + i * 10, 300, 290, "ok", i);
	}
	cmp = build(runs, 2 * NRUNS);
	c = comparison(cmp, "fsync.p99");
	assert_string_equal(json_string_value(json_object_get(c, "verdict")), "insufficient");
	assert_string_equal(json_string_value(json_object_get(c, "reason")),
			    "cannot judge: source jbd2 loaded on the candidate only");
	inst = json_object_get(json_array_get(json_object_get(cmp, "samples"), 0),
			       "instrumentation");
	assert_int_equal(json_array_size(inst), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(inst, 0), "differs")),
			    "source jbd2 loaded on the candidate only");
	/* throughput is still judged (the same, here) */
	assert_string_equal(
		json_string_value(json_object_get(comparison(cmp, "files_per_sec"), "verdict")),
		"unchanged");
	assert_false(json_is_true(json_object_get(cmp, "regressed")));
	json_decref(cmp);
	for (int i = 0; i < 2 * NRUNS; i++)
		json_decref(runs[i]);
}

/* No probes on either side: no why, and no claim of different instrumentation */
static void test_why_no_probes(void **state)
{
	json_t *r = json_pack("{s:s,s:{s:b}}", "workload", "smallfile", "summary", "complete", 1);
	struct mdl_run_ref refs[2] = { { .run = r, .side = 0 }, { .run = r, .side = 1 } };
	size_t a = 0, b = 1;
	json_t *sa = rpt_why_sources(refs, &a, 1), *sb = rpt_why_sources(refs, &b, 1);
	char buf[64];

	(void)state;
	assert_null(rpt_why_build(refs, &a, 1, &b, 1, "fsync", "fsync.p99", 10));
	assert_int_equal(rpt_why_sources_diff(sa, sb, "baseline", "candidate", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "");
	json_decref(sa);
	json_decref(sb);
	json_decref(r);
}

/* One side alone: the same quantities per fsync, summed over its runs; jbd2 refused on one run: none of jbd2's */
static void test_why_side(void **state)
{
	struct rpt_why_value v[RPT_WHY_ITEMS];
	struct mdl_run_ref refs[NRUNS];
	json_t *runs[NRUNS];
	const size_t idx[NRUNS] = { 0, 1, 2 };
	bool flushes = false, commits = false;

	(void)state;
	for (int i = 0; i < NRUNS; i++) {
		/* 200, 300, 400 flushes over 100 fsyncs each: 3 per fsync in all */
		runs[i] = run(1000, 200 + 100 * i, 210, "ok", i);
		refs[i] = (struct mdl_run_ref){ .run = runs[i], .file = "a", .index = (size_t)i };
	}
	assert_string_equal(rpt_why_side(refs, idx, NRUNS, "fsync", v), "fsync");
	for (size_t q = 0; q < RPT_WHY_ITEMS; q++) {
		if (!strcmp(v[q].name, "flushes per fsync")) {
			assert_true(v[q].have);
			assert_float_equal(v[q].v, 3.0, 1e-9);
			flushes = true;
		}
		if (!strcmp(v[q].name, "commits per fsync")) {
			assert_true(v[q].have);
			assert_float_equal(v[q].v, 1.0, 1e-9);
			commits = true;
		}
		if (!strcmp(v[q].name, "KB written per fsync"))
			assert_float_equal(v[q].v, 4.0, 1e-9);
	}
	assert_true(flushes && commits);
	json_decref(runs[1]);
	runs[1] = run(1000, 300, 210, "skipped: no BTF", 1);
	refs[1].run = runs[1];
	rpt_why_side(refs, idx, NRUNS, "fsync", v);
	for (size_t q = 0; q < RPT_WHY_ITEMS; q++)
		if (!strcmp(v[q].name, "commits per fsync") || !strcmp(v[q].name, "logging"))
			assert_false(v[q].have);
		else if (!strcmp(v[q].name, "flushes per fsync"))
			assert_true(v[q].have);
	for (int i = 0; i < NRUNS; i++)
		json_decref(runs[i]);
}

/*
 * One of run()'s runs with device times (100 us a write request, 1 ms a flush) and 100
 * closes of p99.9 @close_us: what a why line's share and a call that does not commit need.
 */
static json_t *run_d2c(double p99_us, double flushes, double close_us, int rep)
{
	json_t *r = run(p99_us, flushes, 210, "ok", rep);
	json_t *block = json_object_get(
		json_object_get(json_object_get(json_object_get(r, "probes"), "sources"), "block"),
		"hists");

	if (!block) {
		block = json_object();
		json_object_set_new(
			json_object_get(json_object_get(json_object_get(r, "probes"), "sources"),
					"block"),
			"hists", block);
	}
	json_object_set_new(block, "write.d2c",
			    json_pack("{s:f,s:f}", "sum_ns", 300 * 100e3, "count", 300.0));
	json_object_set_new(block, "flush.d2c",
			    json_pack("{s:f,s:f}", "sum_ns", flushes * 1e6, "count", flushes));
	json_object_set_new(json_object_get(r, "ops"), "close",
			    json_pack("{s:i,s:f,s:f,s:f,s:f}", "count", 100, "p50_ns", 10e3,
				      "p99_ns", 20e3, "p99_9_ns", close_us * 1000, "mean_ns",
				      12e3));
	return r;
}

/*
 * Which verdicts of fsync.p99 (+49.5 %, its why per fsync) get a line: a regression; an
 * unchanged metric never; a noisy one only when its change is past the runs' own spread.
 */
static void why_verdicts(const struct rpt_cmp *cmp)
{
	const struct rpt_cmp_metric *m = NULL;
	struct rpt_cmp_judged j;

	for (size_t i = 0; i < cmp->samples[0].nmetrics; i++)
		if (!strcmp(cmp->samples[0].metrics[i].name, "fsync.p99"))
			m = &cmp->samples[0].metrics[i];
	assert_non_null(m);
	j = m->judged[0];
	assert_string_equal(rpt_why_per(m, &j), "fsync");
	j.verdict = RPT_UNCHANGED;
	assert_null(rpt_why_per(m, &j));
	j.verdict = RPT_NOISY;
	j.spread_pct = 60;
	assert_null(rpt_why_per(m, &j));
	j.spread_pct = 10;
	assert_string_equal(rpt_why_per(m, &j), "fsync");
	j.change_pct = 2; /* under the threshold */
	assert_null(rpt_why_per(m, &j));
}

/*
 * The text output's why lines (report/why_text.c, as the HTML report's): the call that
 * commits gets the quantities that moved and the device's share of the change; its next
 * metric only the share; close.p99.9, a call that does not commit, none.
 */
static void test_why_text(void **state)
{
	json_t *runs[2 * NRUNS], *doc;
	struct rpt_cmp *cmp = NULL;
	struct rpt_why_lines w = { .style = RPT_WHY_TEXT };
	const struct rpt_cmp_metric *close = NULL;
	char err[256], line[1024], *out = NULL;
	size_t len = 0, n;
	FILE *f;

	(void)state;
	for (int i = 0; i < NRUNS; i++) {
		runs[i] = run_d2c(1000 + i * 10, 200, 100 + i, i);
		runs[NRUNS + i] = run_d2c(1500 + i * 10, 300, 200 + i, i);
	}
	doc = build(runs, 2 * NRUNS);
	assert_int_equal(rpt_cmp_from_json(doc, "", &cmp, err, sizeof(err)), 0);
	for (size_t m = 0; m < cmp->samples[0].nmetrics; m++)
		if (!strcmp(cmp->samples[0].metrics[m].name, "close.p99.9"))
			close = &cmp->samples[0].metrics[m];
	assert_non_null(close);
	assert_int_equal(close->judged[0].verdict, RPT_REGRESSION);
	assert_non_null(close->judged[0].why); /* the document has it; the line does not */
	assert_null(rpt_why_per(close, &close->judged[0]));
	assert_false(rpt_why_line(&w, &cmp->samples[0], close, &close->judged[0], 1, line,
				  sizeof(line)));
	assert_string_equal(line, "");
	rpt_why_lines_free(&w);
	why_verdicts(cmp);

	f = open_memstream(&out, &len);
	assert_non_null(f);
	n = rpt_cmp_why_print(cmp, f, false);
	assert_int_equal(fclose(f), 0);
	/* fsync.p50, p99 and p99.9 moved: three lines, the kernel side's account once */
	assert_int_equal(n, 3);
	assert_non_null(strstr(out, "\n  smallfile t=1 [regression]: fsync.p50 +49.5 %: Kernel "
				    "side per fsync: flushes per commit 2.00 -> 3.00; flushes per "
				    "fsync 2.00 -> 3.00. Device time per fsync +1.00 ms is more "
				    "than the +250 us change.\n"));
	assert_non_null(strstr(out, "\n  smallfile t=1 [regression]: fsync.p99 +49.5 %: Kernel "
				    "side as for fsync.p50. Device time per fsync +1.00 ms is more "
				    "than the +500 us change.\n"));
	assert_ptr_equal(strstr(strstr(out, "flushes per commit") + 1, "flushes per commit"), NULL);
	/* nothing that did not move, no call that does not commit */
	assert_null(strstr(out, "1.00 -> 1.00"));
	assert_null(strstr(out, "close"));
	free(out);
	rpt_cmp_free(cmp);
	json_decref(doc);
	for (int i = 0; i < 2 * NRUNS; i++)
		json_decref(runs[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_why_regression), cmocka_unit_test(test_why_instrumentation),
		cmocka_unit_test(test_why_no_probes),  cmocka_unit_test(test_why_side),
		cmocka_unit_test(test_why_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
