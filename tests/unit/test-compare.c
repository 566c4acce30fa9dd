/* Unit tests of report/compare: verdict rules, A/A false alarms, power on a 10 % regression, sample matching, the gate's explanations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "model/doc.h"
#include "report/compare.h"
#include "tests/unit/compare_doc.h"
#include "report/gate.h"
#include "compare_fixture.h"

/* Identical distributions, 5 samples a side, 2 % CoV: the gate must pass at least 95 % of the time. */
static void aa_passes_the_gate(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int pass = 0, trials = 2000, lat_pass = 0;

	(void)state;
	gsl_rng_set(r, 20240601);
	for (int t = 0; t < trials; t++) {
		double a[5], b[5];
		struct rpt_judgement j;

		draw(r, a, 5, 1000, 0.02);
		draw(r, b, 5, 1000, 0.02);
		assert_int_equal(rpt_judge(a, 5, b, 5, RPT_HIGHER_IS_BETTER, RPT_KIND_THROUGHPUT,
					   RPT_TEST_AUTO, &rule, &j),
				 0);
		pass += j.verdict != RPT_REGRESSION;
		/* skewed latency-like data through the rank test */
		for (int i = 0; i < 5; i++) {
			a[i] = gsl_ran_lognormal(r, log(1000), 0.3);
			b[i] = gsl_ran_lognormal(r, log(1000), 0.3);
		}
		assert_int_equal(rpt_judge(a, 5, b, 5, RPT_LOWER_IS_BETTER, RPT_KIND_LATENCY,
					   RPT_TEST_AUTO, &rule, &j),
				 0);
		assert_int_equal(j.test.kind, RPT_TEST_MANN_WHITNEY);
		lat_pass += j.verdict != RPT_REGRESSION;
	}
	gsl_rng_free(r);
	print_message("A/A: %d/%d throughput and %d/%d latency comparisons passed\n", pass, trials,
		      lat_pass, trials);
	assert_true(pass >= trials * 95 / 100);
	assert_true(lat_pass >= trials * 95 / 100);
}

/* A 10 % drop with 5 samples a side and 2 % CoV is a regression (in every trial of this seed, and >= 99 % by design). */
static void ten_percent_regression_is_caught(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int caught = 0, trials = 500;

	(void)state;
	gsl_rng_set(r, 7);
	for (int t = 0; t < trials; t++) {
		double a[5], b[5];
		struct rpt_judgement j;

		draw(r, a, 5, 1000, 0.02);
		draw(r, b, 5, 900, 0.02);
		assert_int_equal(rpt_judge(a, 5, b, 5, RPT_HIGHER_IS_BETTER, RPT_KIND_THROUGHPUT,
					   RPT_TEST_AUTO, &rule, &j),
				 0);
		caught += j.verdict == RPT_REGRESSION;
	}
	gsl_rng_free(r);
	assert_true(caught >= trials * 99 / 100);
}

static void verdict_rules(void **state)
{
	static const double base[] = { 100, 101, 99, 100, 100 }, up[] = { 120, 121, 119, 120, 120 };
	static const double small[] = { 102, 103, 101, 102, 102 },
			    beyond[] = { 103, 104, 102, 103, 103 },
			    noisy[] = { 70, 130, 100, 85, 115 };
	struct rpt_judgement j;
	struct rpt_rule strict = rule;

	(void)state;
	/* fewer than 3 on a side */
	assert_int_equal(rpt_judge(base, 2, up, 5, RPT_HIGHER_IS_BETTER, RPT_KIND_THROUGHPUT,
				   RPT_TEST_AUTO, &rule, &j),
			 0);
	assert_int_equal(j.verdict, RPT_INSUFFICIENT);
	/* +20 %: good for throughput, bad for latency */
	assert_int_equal(rpt_judge(base, 5, up, 5, RPT_HIGHER_IS_BETTER, RPT_KIND_THROUGHPUT,
				   RPT_TEST_AUTO, &rule, &j),
			 0);
	assert_int_equal(j.verdict, RPT_IMPROVEMENT);
	assert_true(fabs(j.change_pct - 20) < 1e-9);
	assert_int_equal(rpt_judge(base, 5, up, 5, RPT_LOWER_IS_BETTER, RPT_KIND_LATENCY,
				   RPT_TEST_AUTO, &rule, &j),
			 0);
	assert_int_equal(j.verdict, RPT_REGRESSION);
	assert_int_equal(j.test.kind, RPT_TEST_MANN_WHITNEY);
	assert_true(j.p_welch < 0.001);
	/*
	 * +2 %, significant but under the 5 % threshold: unchanged. With a 1 % threshold it is
	 * still no regression: each side's own repetitions span 2 % (99-101, 101-103), and a
	 * change inside that spread is noisy; +3 %, beyond it, is a regression.
	 */
	assert_int_equal(rpt_judge(base, 5, small, 5, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
				   RPT_TEST_AUTO, &rule, &j),
			 0);
	assert_true(j.test.p < 0.05);
	assert_int_equal(j.verdict, RPT_UNCHANGED);
	strict.threshold_pct = 1;
	assert_int_equal(rpt_judge(base, 5, small, 5, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
				   RPT_TEST_AUTO, &strict, &j),
			 0);
	assert_true(j.test.p < 0.05);
	assert_true(fabs(j.spread_pct - 2) < 1e-9);
	assert_int_equal(j.verdict, RPT_NOISY);
	assert_int_equal(rpt_judge(base, 5, beyond, 5, RPT_LOWER_IS_BETTER, RPT_KIND_KERNEL,
				   RPT_TEST_AUTO, &strict, &j),
			 0);
	assert_int_equal(j.verdict, RPT_REGRESSION);
	/* no significant change, CoV 21 %: noisy, not unchanged */
	assert_int_equal(rpt_judge(base, 5, noisy, 5, RPT_HIGHER_IS_BETTER, RPT_KIND_THROUGHPUT,
				   RPT_TEST_AUTO, &rule, &j),
			 0);
	assert_int_equal(j.verdict, RPT_NOISY);
	/* latency with 3 a side falls back to Welch: the rank test could not reach p < 0.05 */
	assert_int_equal(rpt_judge(base, 3, up, 3, RPT_LOWER_IS_BETTER, RPT_KIND_LATENCY,
				   RPT_TEST_AUTO, &rule, &j),
			 0);
	assert_int_equal(j.test.kind, RPT_TEST_WELCH);
	assert_int_equal(j.verdict, RPT_REGRESSION);
}

static const json_t *metric(const json_t *cmp, const char *name)
{
	const json_t *m;
	size_t i;

	json_array_foreach(
		json_object_get(json_array_get(json_object_get(cmp, "samples"), 0), "metrics"), i,
		m) if (!strcmp(json_string_value(json_object_get(m, "name")), name)) return m;
	return NULL;
}

static const char *verdict(const json_t *cmp, const char *name)
{
	return json_string_value(json_object_get(
		json_array_get(json_object_get(metric(cmp, name), "comparisons"), 0), "verdict"));
}

static void build_matches_runs_ignoring_dir(void **state)
{
	static const double fa[] = { 1000, 1010, 990 }, fb[] = { 700, 707, 693 };
	struct fixture f = { 0 };
	struct rpt_compare_opts o;
	json_t *cmp = NULL;
	char err[512];

	(void)state;
	rpt_compare_opts_init(&o);
	for (int i = 0; i < 3; i++) {
		char d[32];

		snprintf(d, sizeof(d), "/tmp/a%d", i);
		add(&f, mkrun(d, 100, fa[i], 2e6, true, NULL, 0), "a.json", 0);
		snprintf(d, sizeof(d), "/tmp/b%d", i);
		add(&f, mkrun(d, 100, fb[i], 2e6 + i, true, NULL, 0), "b.json", 1);
	}
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(json_object_get(cmp, "samples")), 1);
	assert_string_equal(json_string_value(json_object_get(cmp, "schema")), MDL_COMPARE_SCHEMA);
	assert_string_equal(verdict(cmp, "files_per_sec"), "regression");
	assert_string_equal(
		json_string_value(json_object_get(metric(cmp, "files_per_sec"), "unit")),
		"files/s");
	assert_string_equal(json_string_value(json_object_get(metric(cmp, "fsync.p99"), "unit")),
			    "us");
	assert_string_equal(verdict(cmp, "fsync.p99"), "unchanged");
	assert_null(metric(cmp, "bytes_per_sec"));
	assert_true(json_is_true(json_object_get(cmp, "regressed")));
	assert_int_equal(rpt_compare_count(cmp, RPT_REGRESSION, true), 1);
	json_decref(cmp);

	/* the gate file takes files/s out of the gate; the verdict stays */
	o.gate = json_pack("{s:{s:{s:b}}}", "metrics", "files_*", "gate", 0);
	assert_int_equal(rpt_gate_check(o.gate, err, sizeof(err)), 0);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_string_equal(verdict(cmp, "files_per_sec"), "regression");
	assert_true(json_is_false(json_object_get(cmp, "regressed")));
	json_decref(cmp);
	json_decref((json_t *)o.gate);

	/* a 31 % threshold for files/s: the 30 % drop no longer counts */
	o.gate = json_pack("{s:{s:{s:f}}}", "metrics", "files_per_sec", "threshold_pct", 31.0);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_string_equal(verdict(cmp, "files_per_sec"), "unchanged");
	json_decref(cmp);
	json_decref((json_t *)o.gate);
	fixture_free(&f);
}

static void build_rejects_bad_gate_files(void **state)
{
	json_t *g = json_pack("{s:f}", "alpha", 2.0);
	char err[256];

	(void)state;
	assert_int_equal(rpt_gate_check(g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "alpha"));
	json_decref(g);
	g = json_pack("{s:{s:{s:i}}}", "metrics", "files_per_sec", "treshold", 3);
	assert_int_equal(rpt_gate_check(g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "treshold"));
	json_decref(g);
	/* strict is gate-wide: a boolean at the top level, refused per metric */
	g = json_pack("{s:i}", "strict", 1);
	assert_int_equal(rpt_gate_check(g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "strict must be true or false"));
	json_decref(g);
	g = json_pack("{s:{s:{s:b}}}", "metrics", "files_per_sec", "allow_noisy", 1);
	assert_int_equal(rpt_gate_check(g, err, sizeof(err)), -EINVAL);
	assert_non_null(
		strstr(err, "metrics.files_per_sec: allow_noisy applies to the whole gate"));
	json_decref(g);
}

static void build_unmatched_and_incomplete(void **state)
{
	struct fixture f = { 0 };
	struct rpt_compare_opts o;
	json_t *cmp = NULL;
	char err[512];

	(void)state;
	rpt_compare_opts_init(&o);
	for (int i = 0; i < 3; i++)
		add(&f, mkrun("/a", 100, 1000 + i, 2e6, true, NULL, 0), "a.json", 0);
	add(&f, mkrun("/b", 200, 1000, 2e6, true, NULL, 0), "b.json", 1);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "a.json: run 0"));
	assert_non_null(strstr(err, "files=100 vs 200"));
	o.allow_unmatched = true;
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(json_object_get(cmp, "samples")), 0);
	assert_int_equal(json_array_size(json_object_get(cmp, "unmatched")), 2);
	json_decref(cmp);
	fixture_free(&f);

	/* an incomplete run is left out and listed: 2 complete runs are too few */
	memset(&f, 0, sizeof(f));
	o.allow_unmatched = false;
	for (int i = 0; i < 3; i++) {
		add(&f, mkrun("/a", 100, 1000 + i, 2e6, true, NULL, 0), "a.json", 0);
		add(&f, mkrun("/b", 100, 1000 + i, 2e6, i != 1, NULL, 0), "b.json", 1);
	}
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(json_object_get(cmp, "excluded")), 1);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(cmp, "excluded"), 0), "reason")),
			    "No space left on device");
	assert_string_equal(verdict(cmp, "files_per_sec"), "insufficient");
	json_decref(cmp);
	fixture_free(&f);
}

static json_int_t unjudged(const json_t *cmp)
{
	return json_integer_value(json_object_get(cmp, "unjudged"));
}

/*
 * Two families (issue 41): the seeds' metrics (files/s, fsync p50 and p99 here) gate and
 * are corrected among themselves; every other one (write.p50 here) is judged, reported,
 * corrected apart, and gates only when a gate file names it.
 */
static void seeds_gate_others_report(void **state)
{
	static const double wa[] = { 10000, 10100, 9900 }, wb[] = { 13000, 13130, 12870 };
	struct fixture f = { 0 };
	struct rpt_compare_opts o;
	json_t *cmp = NULL, *settings;
	char err[512];

	(void)state;
	rpt_compare_opts_init(&o);
	for (int i = 0; i < 3; i++) {
		json_t *a = mkrun("/a", 100, 1000 + i, 2e6 + i, true, NULL, 0),
		       *b = mkrun("/b", 100, 1001 - i, 2e6 - i, true, NULL, 0);

		json_object_set_new(json_object_get(a, "ops"), "write",
				    json_pack("{s:f,s:I}", "p50_ns", wa[i], "count", 100));
		json_object_set_new(json_object_get(b, "ops"), "write",
				    json_pack("{s:f,s:I}", "p50_ns", wb[i], "count", 100));
		add(&f, a, "a.json", 0);
		add(&f, b, "b.json", 1);
	}
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	/* write.p50 +30 %: a regression, reported, not gated: the gate passes */
	assert_string_equal(verdict(cmp, "write.p50"), "regression");
	assert_true(json_is_false(json_object_get(
		json_array_get(json_object_get(metric(cmp, "write.p50"), "comparisons"), 0),
		"gate")));
	assert_string_equal(verdict(cmp, "files_per_sec"), "unchanged");
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_PASS);
	/* corrected apart: the seeds' three, and the other one */
	settings = json_object_get(cmp, "settings");
	assert_int_equal(json_integer_value(json_object_get(settings, "family")), 3);
	assert_int_equal(json_integer_value(json_object_get(settings, "family_other")), 1);
	json_decref(cmp);
	/* named by a gate file, it gates */
	o.gate = json_pack("{s:{s:{}}}", "metrics", "write.*");
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_string_equal(verdict(cmp, "write.p50"), "regression");
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_REGRESSED);
	json_decref(cmp);
	json_decref((json_t *)o.gate);
	/* a seed's metric taken out of the gate is corrected with the others */
	o.gate = json_pack("{s:{s:{s:b}}}", "metrics", "files_per_sec", "gate", 0);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	settings = json_object_get(cmp, "settings");
	assert_int_equal(json_integer_value(json_object_get(settings, "family")), 2);
	assert_int_equal(json_integer_value(json_object_get(settings, "family_other")), 2);
	json_decref(cmp);
	json_decref((json_t *)o.gate);
	fixture_free(&f);
}

/* A strict gate fails (status 2) on what it could not judge; a plain gate lets it pass. */
static void strict_gate_insufficient(void **state)
{
	struct fixture f = { 0 };
	struct rpt_compare_opts o;
	struct rpt_cmp *typed;
	json_t *cmp = NULL;
	char err[512];

	(void)state;
	rpt_compare_opts_init(&o);
	add(&f, mkrun("/a", 100, 1000, 2e6, true, NULL, 0), "a.json", 0);
	add(&f, mkrun("/b", 100, 700, 2e6, true, NULL, 0), "b.json", 1);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_string_equal(verdict(cmp, "files_per_sec"), "insufficient");
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_PASS);
	assert_int_equal(unjudged(cmp), 0);
	assert_true(json_is_false(json_object_get(json_object_get(cmp, "settings"), "strict")));
	json_decref(cmp);

	o.strict = true;
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_UNJUDGED);
	/* files/s and fsync p50/p99: every metric of the sample */
	assert_int_equal(unjudged(cmp), 3);
	json_decref(cmp);
	assert_int_equal(rpt_compare_judge(sides, 2, f.refs, f.n, &o, &typed, err, sizeof(err)), 0);
	assert_true(rpt_cmp_blocks(
		typed, rpt_cmp_metric_find(&typed->samples[0], "files_per_sec"),
		&rpt_cmp_metric_find(&typed->samples[0], "files_per_sec")->judged[0]));
	rpt_cmp_free(typed);

	/* a metric out of the gate does not block it; with none gated, nothing was judged */
	o.gate = json_pack("{s:{s:{s:b}}}", "metrics", "fsync.*", "gate", 0);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(unjudged(cmp), 1);
	json_decref(cmp);
	assert_int_equal(rpt_compare_judge(sides, 2, f.refs, f.n, &o, &typed, err, sizeof(err)), 0);
	assert_false(
		rpt_cmp_blocks(typed, rpt_cmp_metric_find(&typed->samples[0], "fsync.p99"),
			       &rpt_cmp_metric_find(&typed->samples[0], "fsync.p99")->judged[0]));
	rpt_cmp_free(typed);
	json_decref((json_t *)o.gate);
	o.gate = json_pack("{s:{s:{s:b}}}", "metrics", "*", "gate", 0);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(unjudged(cmp), 0);
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_UNJUDGED);
	json_decref(cmp);
	json_decref((json_t *)o.gate);
	o.gate = NULL;

	/* a proven regression elsewhere is still exit 1: it is a finding */
	for (int i = 0; i < 3; i++) {
		add(&f, mkrun("/a", 200, 1000 + 10 * i, 2e6, true, NULL, 0), "a.json", 0);
		add(&f, mkrun("/b", 200, 700 + 7 * i, 2e6, true, NULL, 0), "b.json", 1);
	}
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(json_object_get(cmp, "samples")), 2);
	assert_int_equal(unjudged(cmp), 3);
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_REGRESSED);
	json_decref(cmp);
	fixture_free(&f);
}

/* rpt_gate_explain's lines, one a line, into a buffer. */
static void collect(void *arg, const char *line)
{
	size_t len = strlen(arg);

	snprintf((char *)arg + len, 4096 - len, "%s\n", line);
}

/* What the gate says about what it could not judge, and the decision it returns. */
static void gate_explains_itself(void **state)
{
	static const double fa[] = { 600, 1000, 1400 }, fb[] = { 620, 1010, 1420 };
	struct fixture one = { 0 }, noisy = { 0 };
	struct rpt_compare_opts o;
	struct rpt_cmp *c;
	char err[512], text[4096];

	(void)state;
	rpt_compare_opts_init(&o);
	add(&one, mkrun("/a", 100, 1000, 2e6, true, NULL, 0), "a.json", 0);
	add(&one, mkrun("/b", 100, 700, 2e6, true, NULL, 0), "b.json", 1);
	assert_int_equal(rpt_compare_judge(sides, 2, one.refs, one.n, &o, &c, err, sizeof(err)), 0);
	text[0] = 0;
	assert_int_equal(rpt_gate_explain(c, collect, text), RPT_GATE_PASS);
	assert_string_equal(text, "3 metric(s) had fewer than 3 samples a side and were not judged "
				  "(--strict fails the gate on them)\n");
	rpt_cmp_free(c);
	o.strict = true;
	assert_int_equal(rpt_compare_judge(sides, 2, one.refs, one.n, &o, &c, err, sizeof(err)), 0);
	text[0] = 0;
	assert_int_equal(rpt_gate_explain(c, collect, text), RPT_GATE_UNJUDGED);
	assert_non_null(strstr(text,
			       "': complete runs baseline 1, candidate 1; 3 a side are needed "
			       "to judge it (repeat each side's runs, or suite --repetitions "
			       "3)\ngate --strict: 3 metric(s) in 1 sample(s) could not be "
			       "judged\n"));
	rpt_cmp_free(c);

	for (int i = 0; i < 3; i++) {
		add(&noisy, mkrun("/a", 100, fa[i], 2e6, true, NULL, 0), "a.json", 0);
		add(&noisy, mkrun("/b", 100, fb[i], 2e6, true, NULL, 0), "b.json", 1);
	}
	assert_int_equal(rpt_compare_judge(sides, 2, noisy.refs, noisy.n, &o, &c, err, sizeof(err)),
			 0);
	text[0] = 0;
	assert_int_equal(rpt_gate_explain(c, collect, text), RPT_GATE_UNJUDGED);
	assert_non_null(strstr(text, "': noisy, CoV above 10% and no proven change: files_per_sec "
				     "(CoV baseline "));
	assert_non_null(strstr(text, "gate --strict: 1 metric(s) in 1 sample(s) could not be"));
	rpt_cmp_free(c);
	o.allow_noisy = true;
	assert_int_equal(rpt_compare_judge(sides, 2, noisy.refs, noisy.n, &o, &c, err, sizeof(err)),
			 0);
	text[0] = 0;
	assert_int_equal(rpt_gate_explain(c, collect, text), RPT_GATE_PASS);
	assert_string_equal(text, "1 metric(s) were noisy (CoV above the noise limit, no proven "
				  "change) and were not judged (--allow-noisy)\n");
	rpt_cmp_free(c);
	fixture_free(&one);
	fixture_free(&noisy);
}

static void strict_gate_noisy(void **state)
{
	/* CoV about 40 % a side, means within 2 %: no proven change, too noisy to call unchanged */
	static const double fa[] = { 600, 1000, 1400 }, fb[] = { 620, 1010, 1420 };
	struct fixture f = { 0 };
	struct rpt_compare_opts o;
	json_t *cmp = NULL;
	char err[512];

	(void)state;
	rpt_compare_opts_init(&o);
	for (int i = 0; i < 3; i++) {
		add(&f, mkrun("/a", 100, fa[i], 2e6, true, NULL, 0), "a.json", 0);
		add(&f, mkrun("/b", 100, fb[i], 2e6, true, NULL, 0), "b.json", 1);
	}
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_string_equal(verdict(cmp, "files_per_sec"), "noisy");
	assert_string_equal(verdict(cmp, "fsync.p99"), "unchanged");
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_PASS);
	json_decref(cmp);

	/* the gate file turns strict on */
	o.gate = json_pack("{s:b}", "strict", 1);
	assert_int_equal(rpt_gate_check(o.gate, err, sizeof(err)), 0);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_true(json_is_true(json_object_get(json_object_get(cmp, "settings"), "strict")));
	assert_int_equal(unjudged(cmp), 1);
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_UNJUDGED);
	json_decref(cmp);

	o.allow_noisy = true;
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(unjudged(cmp), 0);
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_PASS);
	json_decref(cmp);
	json_decref((json_t *)o.gate);

	/* allow_noisy from the gate file, strict from the flag */
	o.allow_noisy = false;
	o.strict = true;
	o.gate = json_pack("{s:b}", "allow_noisy", 1);
	assert_int_equal(cmp_doc_build(sides, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(rpt_gate_status(cmp), RPT_GATE_PASS);
	json_decref(cmp);
	json_decref((json_t *)o.gate);
	fixture_free(&f);
}

/* One suite result across filesystems: coords.fs is the side, repetitions are samples. */
static void build_across_coords(void **state)
{
	static const char *const fs[] = { "ext4", "xfs" };
	struct fixture f = { 0 };
	struct rpt_compare_opts o;
	json_t *cmp = NULL;
	char err[512];

	(void)state;
	rpt_compare_opts_init(&o);
	o.across = "fs";
	for (int r = 0; r < 3; r++) {
		add(&f, mkrun("/x", 100, 1000 + r, 2e6, true, "ext4", r), "suite.json", 0);
		add(&f, mkrun("/y", 100, 2000 + r, 2e6, true, "xfs", r), "suite.json", 1);
	}
	assert_int_equal(cmp_doc_build(fs, 2, f.refs, f.n, &o, &cmp, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(json_object_get(cmp, "samples")), 1);
	assert_string_equal(verdict(cmp, "files_per_sec"), "improvement");
	assert_null(json_object_get(
		json_object_get(json_array_get(json_object_get(cmp, "samples"), 0), "key"), "fs"));
	json_decref(cmp);
	fixture_free(&f);
}

/*
 * Three samples with one base label (smallfile t=2) apart only in -N: each label names its
 * files= once, however many others share the base (it was once a name per other sample:
 * "files=100 files=100").
 */
static void labels_say_a_difference_once(void **state)
{
	struct fixture f = { 0 };
	struct rpt_compare_opts o;
	struct rpt_cmp *c;
	char err[512];
	int seen = 0;

	(void)state;
	rpt_compare_opts_init(&o);
	for (int k = 1; k <= 3; k++)
		for (int side = 0; side < 2; side++)
			add(&f, mkrun("/a", 100 * k, 1000, 2e6, true, NULL, 0), "x.json", side);
	assert_int_equal(rpt_compare_judge(sides, 2, f.refs, f.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c->nsamples, 3);
	for (size_t i = 0; i < c->nsamples; i++) {
		const char *l = c->samples[i].label, *at = strstr(l, "files=");

		assert_non_null(at);
		assert_null(strstr(at + 1, "files="));
		seen |= strstr(l, "files=100") ? 1 : strstr(l, "files=200") ? 2 : 4;
	}
	assert_int_equal(seen, 7);
	rpt_cmp_free(c);
	fixture_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aa_passes_the_gate),
		cmocka_unit_test(ten_percent_regression_is_caught),
		cmocka_unit_test(verdict_rules),
		cmocka_unit_test(build_matches_runs_ignoring_dir),
		cmocka_unit_test(build_rejects_bad_gate_files),
		cmocka_unit_test(build_unmatched_and_incomplete),
		cmocka_unit_test(build_across_coords),
		cmocka_unit_test(seeds_gate_others_report),
		cmocka_unit_test(strict_gate_insufficient),
		cmocka_unit_test(strict_gate_noisy),
		cmocka_unit_test(gate_explains_itself),
		cmocka_unit_test(labels_say_a_difference_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
