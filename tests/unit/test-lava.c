/* Unit tests of fsbench/lava/import: the run index, cases into runs, a real lava-run's results. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsbench/lava/import.h"
#include "fsbench/lava/client.h"
#include "fsbench/lava/jobdef.h"
#include "fsbench/lava/submit_matrix.h"
#include "fsbench/suite/suite.h"

static json_t *tc(const char *name, const char *value)
{
	return json_pack("{s:s, s:s, s:s}", "name", name, "result", "pass", "measurement", value);
}

/* A case as LAVA records lava-test-case's --units. */
static json_t *tc_unit(const char *name, const char *value, const char *unit)
{
	json_t *t = tc(name, value);

	json_object_set_new(t, "unit", json_string(unit));
	return t;
}

/* One run per (repetition, cell), whatever else the case says, found again by the index. */
static void test_index(void **unused)
{
	struct lava_import im = { 0 };
	json_t *a, *b, *c, *d;

	(void)unused;
	a = lava_import_run(&im, "smallfile", 1, "ext4", 0);
	b = lava_import_run(&im, "smallfile", 1, "ext4", 1);
	c = lava_import_run(&im, "smallfile", 1, "xfs", 0);
	assert_non_null(a);
	assert_ptr_not_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_ptr_equal(lava_import_run(&im, "smallfile", 1, "ext4", 1), b);
	assert_ptr_equal(lava_import_run(&im, "stream", 4, "ext4", 0), a); /* as a scan matched */
	/* the key's colon cannot join two coordinates into one: rep 1 of "2:x", rep 12 of ":x" */
	d = lava_import_run(&im, "smallfile", 1, "2:x", 1);
	assert_ptr_not_equal(d, lava_import_run(&im, "smallfile", 1, ":x", 12));
	assert_ptr_not_equal(d, lava_import_run(&im, "smallfile", 1, "x", 12));
	assert_int_equal(json_array_size(im.runs), 6);
	/* first seen, first listed */
	assert_ptr_equal(json_array_get(im.runs, 0), a);
	assert_ptr_equal(json_array_get(im.runs, 3), d);
	lava_import_free(&im);
	assert_null(im.runs);
}

/* @cases into @im: @used of @seen cases taken, in @runs runs. */
static void import_expect(struct lava_import *im, const json_t *cases, size_t used, size_t seen,
			  size_t runs)
{
	char err[512];

	assert_int_equal(lava_import_cases(im, cases, err, sizeof(err)), 0);
	assert_int_equal(im->used, used);
	assert_int_equal(im->seen, seen);
	assert_int_equal(json_array_size(im->runs), runs);
}

/* The cell in @run's coords. */
static const char *run_cell(const json_t *run)
{
	return json_string_value(json_object_get(json_object_get(run, "coords"), "cell"));
}

/* Many cases land in their runs: values where compare reads them, others counted and left. */
static void test_cases(void **unused)
{
	struct lava_import im = { 0 };
	json_t *cases = json_array(), *run;
	char name[128], err[256];

	(void)unused;
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "smallfile.t1.cell-%d.r%d.files_per_sec", i / 3,
			 i % 3);
		json_array_append_new(cases, tc(name, "1000"));
		snprintf(name, sizeof(name), "smallfile.t1.cell-%d.r%d.fsync.p99", i / 3, i % 3);
		/* jobs before base units said us; `lava cases` now says s: both are read */
		if (i % 2)
			json_array_append_new(cases, tc_unit(name, "250", "us"));
		else
			json_array_append_new(cases, tc_unit(name, "0.00025", "s"));
	}
	json_array_append_new(cases, tc("boot", "1"));
	import_expect(&im, cases, 6000, 6001, 3000);
	run = json_array_get(im.runs, 2999);
	assert_string_equal(run_cell(run), "cell-999");
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(run, "coords"), "repetition")),
		2);
	assert_true(json_number_value(json_object_get(json_object_get(run, "summary"),
						      "files_per_sec")) == 1000);
	/* 250 us as nanoseconds beside the op */
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(run, "ops"), "fsync"), "p99_ns")),
			 250000);
	/* 0.00025 s likewise */
	run = json_array_get(im.runs, 2998);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(run, "ops"), "fsync"), "p99_ns")),
			 250000);
	/* a latency without its unit, or in one neither spelling has, would be read 10^3 off */
	json_decref(cases);
	lava_import_free(&im);
	memset(&im, 0, sizeof(im));
	cases = json_array();
	json_array_append_new(cases, tc("smallfile.t1.c.r0.fsync.p99", "250"));
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "unit '(none)' is neither s (fsbench lava cases) nor us"));
	json_array_clear(cases);
	json_array_append_new(cases, tc_unit("smallfile.t1.c.r0.fsync.p99", "250", "ms"));
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "unit 'ms'"));
	json_array_clear(cases);
	/* a case with values no run can have refuses the whole import */
	json_array_append_new(cases, tc("smallfile.t0.x.r0.files_per_sec", "1"));
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "out of range"));
	json_decref(cases);
	lava_import_free(&im);

	/* a hostile server: an ESC in a cell's name, a measurement that is not a number */
	cases = json_array();
	json_array_append_new(cases, tc("smallfile.t1.ok\x1b]0;pwned\x07.r0.files_per_sec", "1"));
	memset(&im, 0, sizeof(im));
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "a character fsbench never writes"));
	assert_null(strchr(err, '\x1b')); /* escaped in the message too */
	lava_import_free(&im);
	json_decref(cases);
	cases = json_array();
	json_array_append_new(cases, json_pack("{s:s, s:s, s:{s:i}}", "name",
					       "smallfile.t1.c.r0.files_per_sec", "result", "pass",
					       "measurement", "a", 1));
	memset(&im, 0, sizeof(im));
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "measurement is not a number"));
	lava_import_free(&im);
	json_decref(cases);
	cases = json_array();
	json_array_append_new(cases, tc("smallfile.t1.c.r0.files_per_sec", "12abc"));
	memset(&im, 0, sizeof(im));
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), -ERANGE);
	lava_import_free(&im);
	json_decref(cases);
}

/*
 * Imported runs take the coords a local run of the suite has (so compare pairs them with
 * local runs): every cell of the kgate suite, named as job.c names its test cases, comes
 * back with suite_coords()'s coordinates; a cell the suite does not have is refused.
 */
static void test_suite_coords(void **unused)
{
	struct lava_import im = { 0 };
	struct suite s;
	struct suite_cell *cells = NULL;
	json_t *cases = json_array(), *run;
	char path[4096], err[512], name[400];
	int n = 0;
	size_t i;

	(void)unused;
	assert_int_equal(suite_find("kgate", path, sizeof(path)), 0);
	assert_int_equal(suite_load(&s, path, err, sizeof(err)), 0);
	assert_int_equal(suite_expand(&s, &cells, &n, err, sizeof(err)), 0);
	assert_true(n >= 2);
	for (int c = 0; c < n; c++)
		for (int rep = 0; rep < 2; rep++) {
			lava_case_prefix(s.wl[cells[c].wl].wl->name, cells[c].threads,
					 cells[c].name, rep, name, sizeof(name));
			strcat(name, ".files_per_sec");
			json_array_append_new(cases, tc(name, "1000"));
		}
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(im.runs), 2 * (size_t)n);
	assert_int_equal(lava_import_suite(&im, &s, err, sizeof(err)), 0);
	json_array_foreach(im.runs, i, run)
	{
		json_t *want = suite_coords(&s, &cells[i / 2], (int)(i % 2));

		assert_true(json_equal(json_object_get(run, "coords"), want));
		assert_string_equal(json_string_value(json_object_get(run, "workload")),
				    s.wl[cells[i / 2].wl].wl->name);
		json_decref(want);
	}
	/* again: the same coords (a run's own cell names it now) */
	json_t *first = json_deep_copy(json_object_get(json_array_get(im.runs, 0), "coords"));
	assert_int_equal(lava_import_suite(&im, &s, err, sizeof(err)), 0);
	assert_true(json_equal(json_object_get(json_array_get(im.runs, 0), "coords"), first));
	json_decref(first);
	/* a run of a cell the suite does not have: refused, naming it */
	lava_import_free(&im);
	json_decref(cases);
	cases = json_array();
	json_array_append_new(cases, tc("smallfile.t1.xfs-smallfile-t-1.r0.files_per_sec", "1"));
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), 0);
	assert_int_equal(lava_import_suite(&im, &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "smallfile.t1.xfs-smallfile-t-1.r0"));
	json_decref(cases);
	lava_import_free(&im);
	free(cells);
	suite_free(&s);
}

/* The results of a real lava-run: fsbench's cases among LAVA's own. */
static void test_fixture(void **unused)
{
	const char *fx = getenv("FSB_FIXTURES");
	struct lava_import im = { 0 };
	char path[4096], err[512];
	json_t *cases, *doc;

	(void)unused;
	snprintf(path, sizeof(path), "%s/lava/lava-run-results.yaml", fx ? fx : "tests/fixtures");
	assert_int_equal(lava_results_load(path, &cases, err, sizeof(err)), 0);
	assert_int_equal(lava_import_cases(&im, cases, err, sizeof(err)), 0);
	assert_true(im.used > 0);
	assert_true(im.seen > im.used);
	doc = lava_import_doc(&im, (char *const[]){ path }, 1, NULL, NULL, NULL);
	assert_non_null(doc);
	assert_ptr_equal(json_object_get(doc, "runs"), im.runs);
	json_decref(doc);
	json_decref(cases);
	lava_import_free(&im);
	assert_int_equal(lava_results_load("/nonexistent.yaml", &cases, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "/nonexistent.yaml: "));
}

/* @text into a new temporary file, its name into @path (64 bytes). */
static void write_tmp(char *path, const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/fsbench-test-lava.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * 50,000 cases read from YAML (as lava_results_load streams it) land in their runs: five
 * metrics a run, one run after another as LAVA lists them, then cases of earlier runs
 * again, which find the runs made for them rather than making new ones.
 */
static void test_many(void **unused)
{
	static const char *const metric[] = { "files_per_sec", "write_amplification", "fsync.p99",
					      "create.p50", "write.p99.9" };
	static const char *const unit[] = { "files/s", "x", "us", "s", "us" };
	struct lava_import im = { 0 };
	size_t cap = 8 << 20, len = 0;
	char *text = malloc(cap), path[64], err[512];
	json_t *cases, *run;

	(void)unused;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "- {name: job, result: pass}\n");
	for (int i = 0; i < 50000; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"- {name: smallfile.t1.cell-%d.r%d.%s, result: pass, "
					"measurement: '%d', unit: %s}\n",
					i / 5 / 4, i / 5 % 4, metric[i % 5], 100 + i % 5,
					unit[i % 5]);
	for (int i = 0; i < 40; i++) /* cell-0's r0..r3, cell-1's r0..r3, ... again */
		len += (size_t)snprintf(text + len, cap - len,
					"- {name: smallfile.t1.cell-%d.r%d.dirty_max, "
					"result: pass, measurement: '2', unit: MiB}\n",
					i / 4, i % 4);
	assert_true(len < cap);
	write_tmp(path, text);
	free(text);
	assert_int_equal(lava_results_load(path, &cases, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(json_array_size(cases), 50041);
	import_expect(&im, cases, 50040, 50041, 10000);
	run = json_array_get(im.runs, 9999);
	assert_string_equal(run_cell(run), "cell-2499");
	assert_true(json_number_value(json_object_get(json_object_get(run, "summary"),
						      "files_per_sec")) == 100);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(run, "ops"), "fsync"), "p99_ns")),
			 102000);
	run = json_array_get(im.runs,
			     5); /* cell-1's r1: its fifth metric came 49,975 cases later */
	assert_string_equal(run_cell(run), "cell-1");
	assert_non_null(json_object_get(json_object_get(run, "kernel"), "dirty_max_bytes"));
	json_decref(cases);
	lava_import_free(&im);
}

/*
 * What the streaming reader keeps of YAML: an alias stands for its anchor's node (here a
 * measurement and a key), only the first document is read, a value under a collection key
 * is dropped; an alias inside its own anchor, nodes past the budget once aliases are
 * expanded and nesting past the bound are refused, each naming the file.
 */
static void test_load_yaml(void **unused)
{
	char path[64], err[512];
	json_t *cases;
	struct {
		const char *text;
		int r;
		const char *why;
	} bad[] = {
		{ "- &x [*x, *x]\n", -EPROTO, ":1: found undefined alias" },
		{ "[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]\n", -E2BIG, ":1: nested deeper than 16" },
		{ NULL, -E2BIG, ": more than 4000000 nodes once aliases are expanded" },
	};
	char *big = malloc(400000), *e;

	(void)unused;
	write_tmp(path, "- {name: &n n, result: pass, measurement: &m '12.5'}\n"
			"- {*n : x, result: pass, measurement: *m, [a]: b}\n"
			"---\n"
			"- {name: second}\n");
	assert_int_equal(lava_results_load(path, &cases, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(json_array_size(cases), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 1), "n")), "x");
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(cases, 1), "measurement")),
		"12.5");
	assert_int_equal(json_object_size(json_array_get(cases, 1)), 3);
	json_decref(cases);

	/* 70,000 nodes aliased 60 times: 4.2 million once expanded */
	assert_non_null(big);
	e = big + sprintf(big, "- &a [x");
	for (int i = 1; i < 70000; i++)
		e += sprintf(e, ",x");
	e += sprintf(e, "]\n- [*a");
	for (int i = 1; i < 60; i++)
		e += sprintf(e, ",*a");
	sprintf(e, "]\n");
	bad[2].text = big;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_tmp(path, bad[i].text);
		assert_int_equal(lava_results_load(path, &cases, err, sizeof(err)), bad[i].r);
		unlink(path);
		assert_non_null(strstr(err, path));
		assert_non_null(strstr(err, bad[i].why));
	}
	free(big);
}

/* The files_per_sec of @cell's repetition @rep among @im's runs, -1 when there is no such run. */
static double files_at(const struct lava_import *im, const char *cell, long rep)
{
	const json_t *run;
	size_t i;

	json_array_foreach(im->runs, i, run)
	{
		const json_t *co = json_object_get(run, "coords");

		if (!strcmp(run_cell(run), cell) &&
		    json_integer_value(json_object_get(co, "repetition")) == rep)
			return json_number_value(
				json_object_get(json_object_get(run, "summary"), "files_per_sec"));
	}
	return -1;
}

/*
 * Several files (issue 43): each file's runs are new repetitions of their cells, after the
 * earlier files' ones (a cell the first file lacks starts at 0), so no file's values are
 * lost; two files holding one LAVA job's cases are refused, naming both.
 */
static void test_files(void **unused)
{
	struct lava_import im = { 0 };
	char a[64], b[64], c[64], err[1024], *paths[3] = { a, b, c };
	json_t *all;

	(void)unused;
	write_tmp(a, "- {job: '5', name: smallfile.t1.ext4.r0.files_per_sec, result: pass, "
		     "measurement: '100'}\n"
		     "- {job: '5', name: smallfile.t1.ext4.r1.files_per_sec, result: pass, "
		     "measurement: '101'}\n");
	write_tmp(b, "- {job: '6', name: smallfile.t1.ext4.r0.files_per_sec, result: pass, "
		     "measurement: '200'}\n"
		     "- {job: '6', name: smallfile.t1.ext4.r1.files_per_sec, result: pass, "
		     "measurement: '201'}\n"
		     "- {job: '6', name: smallfile.t1.xfs.r0.files_per_sec, result: pass, "
		     "measurement: '300'}\n");
	write_tmp(c, "- {job: 5, name: smallfile.t1.ext4.r0.files_per_sec, result: pass, "
		     "measurement: '100'}\n");
	assert_int_equal(lava_results_load_all(paths, 2, &all, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(all), 2);
	for (size_t i = 0; i < 2; i++) {
		if (i)
			assert_int_equal(lava_import_next_file(&im), 0);
		assert_int_equal(lava_import_cases(&im, json_array_get(all, i), err, sizeof(err)),
				 0);
	}
	assert_int_equal(json_array_size(im.runs), 5);
	assert_true(files_at(&im, "ext4", 0) == 100);
	assert_true(files_at(&im, "ext4", 1) == 101);
	assert_true(files_at(&im, "ext4", 2) == 200);
	assert_true(files_at(&im, "ext4", 3) == 201);
	assert_true(files_at(&im, "xfs", 0) == 300);
	json_decref(all);
	lava_import_free(&im);
	/* job 5 again (an integer here, a string there): the same runs twice */
	assert_int_equal(lava_results_load_all(paths, 3, &all, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, a));
	assert_non_null(strstr(err, c));
	assert_non_null(strstr(err, "LAVA job 5"));
	unlink(a);
	unlink(b);
	unlink(c);
}

static char lines[4][512];
static int nlines;

static void keep_line(void *data, const char *fmt, ...)
{
	va_list ap;

	(void)data;
	va_start(ap, fmt);
	if (nlines < 4)
		vsnprintf(lines[nlines++], sizeof(lines[0]), fmt, ap);
	va_end(ap);
}

/* A kernel whose job gave nothing has no result, said; the first kernel's failure is returned. */
static void test_matrix_results(void **unused)
{
	struct lava_matrix_job j[4] = { { .release = "6.1" },
					{ .release = "6.1" },
					{ .release = "6.2" },
					{ .release = "6.2" } };
	const long ids[4] = { 11, 12, 13, 14 };
	const bool saved[4] = { true, false, true, true };

	(void)unused;
	assert_int_equal(lava_matrix_results(j, ids, saved, 2, 2, "/nonexistent", keep_line, NULL),
			 -ENODATA);
	assert_int_equal(nlines, 2);
	assert_string_equal(
		lines[0],
		"kernel 0 (6.1): no result, a job of it did not give its results (above)");
	assert_non_null(strstr(lines[1], "kernel 1 (6.2): "));
	assert_non_null(strstr(lines[1], "/nonexistent/job-13.yaml"));
	nlines = 0;
	assert_int_equal(lava_matrix_results(j + 2, ids + 2, saved + 2, 1, 2, "/nonexistent",
					     keep_line, NULL),
			 -EPROTO);
	assert_int_equal(nlines, 1);
}

static json_t *jc(const char *job, const char *name)
{
	return json_pack("{s:s, s:s, s:s}", "job", job, "name", name, "result", "pass");
}

/*
 * Results bound to their job (issue 40): a server that answers with another job's results,
 * results without the job's token, or from another kernel, are refused; the job's own pass.
 */
static void test_bound(void **unused)
{
	json_t *good = json_pack("[o, o, o]", jc("7", "fsbench-suite"),
				 jc("7", "fsbench-token-00ff"),
				 jc("7", "fsbench-release-6.1.0-57-amd64"));
	json_t *other = json_pack("[o, o, o]", jc("6", "fsbench-suite"),
				  jc("6", "fsbench-token-00ff"),
				  jc("6", "fsbench-release-6.1.0-57-amd64"));
	json_t *notoken = json_pack("[o, o]", jc("7", "fsbench-token-1234"),
				    jc("7", "fsbench-release-6.1.0-57-amd64"));
	json_t *norel = json_pack("[o]", jc("7", "fsbench-token-00ff"));
	char rel[128], err[512];

	(void)unused;
	assert_int_equal(lava_cases_bound(good, 7, "00ff", "6.1.0-57-amd64", rel, sizeof(rel), err,
					  sizeof(err)),
			 0);
	assert_string_equal(rel, "6.1.0-57-amd64");
	/* a replayed answer: job 6's results for job 7 */
	assert_int_equal(lava_cases_bound(other, 7, "00ff", "6.1.0-57-amd64", rel, sizeof(rel), err,
					  sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "of job '6'"));
	assert_int_equal(lava_cases_bound(notoken, 7, "00ff", "6.1.0-57-amd64", rel, sizeof(rel),
					  err, sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "lack the job's token"));
	assert_int_equal(lava_cases_bound(norel, 7, "00ff", "6.1.0-57-amd64", rel, sizeof(rel), err,
					  sizeof(err)),
			 -EBADMSG);
	/* the job's own token, but another kernel booted */
	assert_int_equal(lava_cases_bound(good, 7, "00ff", "6.12.100+deb12-amd64", rel, sizeof(rel),
					  err, sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "booted kernel 6.1.0-57-amd64, not 6.12.100+deb12-amd64"));
	/* a release with a '+' comes back as lava-test-case takes it, with a '_' */
	json_decref(norel);
	norel = json_pack("[o, o]", jc("7", "fsbench-token-00ff"),
			  jc("7", "fsbench-release-6.12.100_deb12-amd64"));
	assert_int_equal(lava_cases_bound(norel, 7, "00ff", "6.12.100+deb12-amd64", rel,
					  sizeof(rel), err, sizeof(err)),
			 0);
	assert_string_equal(rel, "6.12.100+deb12-amd64");
	json_decref(good);
	json_decref(other);
	json_decref(notoken);
	json_decref(norel);
}

/* The job's definition carries its token and reports the release the guest booted. */
static void test_job_token(void **unused)
{
	struct lava_job_spec s = { .device_type = "qemu",
				   .kernel_url = "http://x/vmlinuz",
				   .ramdisk_url = "http://x/initrd",
				   .suite = "kgate",
				   .release = "6.1.0-57-amd64",
				   .timeout_min = 30,
				   .token = "0123abcd" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)unused;
	assert_non_null(f);
	assert_int_equal(lava_job_write(&s, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "lava-test-case fsbench-token-0123abcd --result pass"));
	assert_non_null(strstr(buf, "fsbench-release-$(uname -r"));
	free(buf);
}

/*
 * A gate's job says whose it is in LAVA's metadata (issue 43): the kernel, the suite,
 * fsbench's version, the gate (its work directory), the side and the boot; and carries the
 * priority and tags asked for, each tag quoted (an unquoted "1" would be a number).
 */
static void test_job_metadata(void **unused)
{
	struct lava_job_spec s = { .device_type = "qemu",
				   .kernel_url = "http://x/vmlinuz",
				   .ramdisk_url = "http://x/initrd",
				   .suite = "configs/kgate.json",
				   .release = "6.1.0-57-amd64",
				   .timeout_min = 30,
				   .priority = "high",
				   .tags = "rack-2,1",
				   .gate = "/w/fsbench-kgate-x",
				   .side = "candidate",
				   .boot = "3/8" };
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)unused;
	assert_non_null(f);
	assert_int_equal(lava_job_write(&s, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\nmetadata:\n  fsbench.version: \"" FSB_VERSION "\"\n"
				    "  fsbench.suite: \"kgate\"\n"
				    "  fsbench.kernel: \"6.1.0-57-amd64\"\n"
				    "  fsbench.gate: \"/w/fsbench-kgate-x\"\n"
				    "  fsbench.side: \"candidate\"\n"
				    "  fsbench.boot: \"3/8\"\n"
				    "priority: high\ntags:\n- \"rack-2\"\n- \"1\"\n"));
	free(buf);
	assert_int_equal(lava_job_controls_check("100", "a", "--p", "--t", err, sizeof(err)), 0);
	assert_int_equal(lava_job_controls_check("101", NULL, "--p", "--t", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--p '101'"));
	assert_int_equal(lava_job_controls_check(NULL, "a,", "--p", "--t", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(lava_job_controls_check(NULL, "a;b", "--p", "--t", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--t 'a;b'"));
}

/*
 * A kernel and its initramfs copied beside the job: their URLs are file:// paths, or, with
 * the URL where the workers fetch the directory (--lava-files-url), that URL and the name.
 */
static void test_images_urls(void **unused)
{
	struct kg_ctx *x = calloc(1, sizeof(*x));
	char kernel[64], initramfs[64], dir[64], kurl[4500], rurl[4500], err[1024], cmd[128];
	const char *urls[] = { NULL, "https://files.example.org/g1/",
			       "https://files.example.org/g1" };

	(void)unused;
	assert_non_null(x);
	write_tmp(kernel, "a kernel");
	write_tmp(initramfs, "an initramfs");
	strcpy(dir, "/tmp/fsbench-test-lava.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(x->k[0].image, sizeof(x->k[0].image), "%s", kernel);
	snprintf(x->k[0].release, sizeof(x->k[0].release), "6.1.0-57-amd64");
	snprintf(x->initramfs_at[0], sizeof(x->initramfs_at[0]), "%s", initramfs);
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		assert_int_equal(lava_job_images(x, 0, dir, "baseline-", urls[i], kurl, rurl,
						 sizeof(kurl), err, sizeof(err)),
				 0);
		if (!urls[i]) {
			assert_true(!strncmp(kurl, "file:///tmp/fsbench-test-lava.", 30));
			assert_non_null(strstr(kurl, "/vmlinuz-baseline-6.1.0-57-amd64-"));
			assert_non_null(
				strstr(rurl, "/fsbench-initramfs-baseline-6.1.0-57-amd64-"));
			continue;
		}
		/* one slash between the URL and the name, whether the URL ends in one or not */
		const char *k = "https://files.example.org/g1/vmlinuz-baseline-6.1.0-57-amd64-";
		const char *r =
			"https://files.example.org/g1/fsbench-initramfs-baseline-6.1.0-57-amd64-";

		assert_true(!strncmp(kurl, k, strlen(k)));
		assert_null(strchr(kurl + strlen(k), '/'));
		assert_true(!strncmp(rurl, r, strlen(r)));
		assert_non_null(strstr(rurl, ".cpio"));
	}
	unlink(kernel);
	unlink(initramfs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(x);
}

/*
 * A qemu job's command line and QEMU options are a local boot's (kgate.h), and what the
 * worker's boot command has beside them is named: LAVA 2023.01's, from a real job's log.
 */
static void test_same_boot(void **unused)
{
	struct lava_job_spec s = { .device_type = "qemu",
				   .kernel_url = "http://x/vmlinux",
				   .ramdisk_url = "http://x/initrd",
				   .suite = "configs/kgate.json",
				   .timeout_min = 30 };
	char *buf = NULL, cmdline[KG_CMDLINE_MAX], booted[KG_CMDLINE_MAX], want[KG_CMDLINE_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct kg_kernel k = { 0 };

	(void)unused;
	assert_non_null(f);
	assert_int_equal(lava_job_write(&s, f), 0);
	fclose(f);
	/* the local boot's words, the model disk's, LAVA's shell, a seed of the job's own */
	assert_int_equal(lava_job_cmdline(&s, cmdline, sizeof(cmdline)), 0);
	kg_cmdline(&k, want, sizeof(want));
	assert_int_equal(strncmp(cmdline, want, strlen(want)), 0);
	assert_non_null(strstr(cmdline, " fsbench.shell fsbench.disk=model null_blk."));
	assert_non_null(strstr(buf, cmdline));
	assert_non_null(strstr(strstr(buf, cmdline), " " KG_SEED_PARAM));
	for (const char *o = "-smp 1\0-cpu qemu64\0-icount shift=0,sleep=off\0-nodefaults\0"
			     "-no-reboot\0-serial stdio\0";
	     *o; o += strlen(o) + 1) {
		char line[64];

		snprintf(line, sizeof(line), "\n  - %s\n", o);
		assert_non_null(strstr(buf, line));
	}
	free(buf);

	const char *cmd =
		"/usr/bin/qemu-system-x86_64 -nographic -net "
		"nic,model=virtio,macaddr=52:54:00:12:34:58 -net user -m 3072 -monitor none -smp 1 "
		"-cpu qemu64 -icount shift=0,sleep=off -nodefaults -no-reboot -serial stdio -kernel "
		"/var/lib/lava/dispatcher/tmp/2/deployimages-akwjrpkx/kernel/vmlinux-baseline-6.1.0-"
		"57-amd64-c3718796ffdb206cc149543cf925b868 -append \"console=ttyS0 quiet tsc=reliable "
		"panic=-1 oops=panic cryptomgr.notests rdinit=/init fsbench.shell fsbench.disk=model "
		"null_blk.nr_devices=1 null_blk.memory_backed=1 null_blk.irqmode=2 "
		"null_blk.queue_mode=2 null_blk.bs=4096 null_blk.completion_nsec=50000 null_blk.gb=2 "
		"null_blk.cache_size=0 null_blk.mbps=0 null_blk.hw_queue_depth=64 "
		"fsbench.seed=e0a569989d7c8301337da8715908521d\" -initrd "
		"/var/lib/lava/dispatcher/tmp/2/deployimages-akwjrpkx/ramdisk/fsbench-initramfs-"
		"baseline-6.1.0-57-amd64-aef489f84ad0748716580217c898d4f8.cpio";
	json_t *d = lava_boot_command_diff(&s, cmd, booted, sizeof(booted));
	char *got = json_dumps(d, JSON_COMPACT);

	assert_string_equal(got, "[\"-nographic\",\"-net "
				 "nic,model=virtio,macaddr=52:54:00:12:34:58\",\"-net user\","
				 "\"-monitor none\"]");
	free(got);
	json_decref(d);
	assert_int_equal(strncmp(booted, cmdline, strlen(cmdline)), 0);
	assert_string_equal(booted + strlen(cmdline),
			    " fsbench.seed=e0a569989d7c8301337da8715908521d");
	/* a device whose QEMU differs from the job's: named with its value */
	d = lava_boot_command_diff(&s,
				   "qemu -m 512 -smp 2 -cpu max -icount shift=0,sleep=off "
				   "-nodefaults -append \"x y\"",
				   booted, sizeof(booted));
	got = json_dumps(d, JSON_COMPACT);
	assert_string_equal(got, "[\"-m 512\",\"-smp 2\",\"-cpu max\"]");
	assert_string_equal(booted, "x y");
	free(got);
	json_decref(d);
}

/*
 * A job's log (LAVA 2023.01's lines) read for its boot command and the guest's own result,
 * base64 between the markers, the shell's trace lines left out; a broken one is said.
 */
static void test_log_facts(void **unused)
{
	const char *head =
		"- {\"dt\": \"t\", \"lvl\": \"info\", \"msg\": \"Boot command: /usr/bin/qemu-system-x86_64 "
		"-m 3072 -append \\\"a b\\\"\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"+ echo FSBENCH-RESULT-BEGIN\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"FSBENCH-RESULT-BEGIN\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"+ base64 /tmp/fsbench-result.json\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"info\", \"msg\": \"eyJ4IjoxfQ==\"}\n";
	const char *tail =
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"FSBENCH-RESULT-END\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"eyJ4IjoxfQ==\"}\n";
	const char *body[] = {
		/* two lines of one document */
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"eyJhIjoxLCJi\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"IjpbMSwyXX0=\"}\n",
		/* cut short */
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"eyJhIjoxLCJ\"}\n",
	};
	struct lava_log_facts f;
	char log[2048];

	(void)unused;
	for (int i = 0; i < 2; i++) {
		snprintf(log, sizeof(log), "%s%s%s", head, body[i], tail);
		assert_int_equal(lava_log_facts_parse(log, strlen(log), &f), 0);
		assert_string_equal(f.boot_command,
				    "/usr/bin/qemu-system-x86_64 -m 3072 -append \"a b\"");
		if (i == 0) {
			assert_int_equal(f.result_len, 17);
			assert_memory_equal(f.result, "{\"a\":1,\"b\":[1,2]}", 17);
			assert_string_equal(f.result_why, "");
		} else {
			assert_null(f.result);
			assert_non_null(strstr(f.result_why, "11 base64 bytes: not whole quads"));
		}
		lava_log_facts_free(&f);
	}
	/* no markers: no result, nothing to say */
	snprintf(log, sizeof(log), "%s", head);
	assert_int_equal(lava_log_facts_parse(log, strlen(log), &f), 0);
	assert_null(f.result);
	assert_string_equal(f.result_why, "");
	lava_log_facts_free(&f);
}

/* The kernel's failure in a job's log: job 104 of a real LAVA (a kernel without its init). */
static void test_kernel_fault(void **unused)
{
	const char *panic =
		"- {\"dt\": \"2026-12-03T05:56:28.537692\", \"lvl\": \"target\", \"msg\": \"\"}\n"
		"- {\"dt\": \"2026-12-03T05:56:34.950614\", \"lvl\": \"target\", \"msg\": \"Booting "
		"from ROM..[    0.792951] Kernel panic - not syncing: VFS: Unable to mount root fs on "
		"unknown-block(0,0)\"}\n"
		"- {\"dt\": \"2026-12-03T05:56:34.951484\", \"lvl\": \"target\", \"msg\": \"[    "
		"0.792960] CPU: 0 PID: 1 Comm: swapper/0 Not tainted 6.1.0-57-amd64 #1  Debian "
		"6.1.192-3\"}\n"
		"- {\"dt\": \"2026-12-03T05:56:34.965074\", \"lvl\": \"exception\", \"msg\": "
		"\"Connection closed\"}\n";
	/* an oops under oops=panic: the BUG line first, not the panic it ends in; LAVA's own
	 * messages naming such words are not the guest's */
	const char *oops =
		"- {\"dt\": \"1\", \"lvl\": \"info\", \"msg\": \"Kernel panic strings: BUG: \"}\n"
		"- {\"dt\": \"2\", \"lvl\": \"target\", \"msg\": \"[    3.1] BUG: kernel NULL pointer "
		"dereference, address: 0000000000000008\\u001b[2J\"}\n"
		"- {\"dt\": \"3\", \"lvl\": \"target\", \"msg\": \"[    3.1] Oops: 0000 [#1] PREEMPT "
		"SMP NOPTI\"}\n"
		"- {\"dt\": \"4\", \"lvl\": \"target\", \"msg\": \"[    3.2] Kernel panic - not "
		"syncing: Fatal exception\"}\n";
	const char *none =
		"- {\"dt\": \"1\", \"lvl\": \"target\", \"msg\": \"fsbench-guest: ready\"}\n";
	char out[256];

	(void)unused;
	lava_log_kernel_fault(panic, strlen(panic), out, sizeof(out));
	assert_string_equal(
		out,
		"Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)");
	lava_log_kernel_fault(oops, strlen(oops), out, sizeof(out));
	assert_string_equal(
		out, "BUG: kernel NULL pointer dereference, address: 0000000000000008\\x1b[2J");
	lava_log_kernel_fault(none, strlen(none), out, sizeof(out));
	assert_string_equal(out, "");
	/* a log cut short (no newline at its end) and an empty one */
	lava_log_kernel_fault(panic, 120, out, sizeof(out));
	assert_string_equal(out, "");
	lava_log_kernel_fault(NULL, 0, out, sizeof(out));
	assert_string_equal(out, "");
}

/*
 * A gate's verdict job: a case per gated comparison (fail a regression, pass unchanged, skip
 * what was not judged), none for what the gate does not judge, then the verdict's; the job
 * runs them instead of the suite and says the verdict in its metadata.
 */
static void test_verdict_job(void **unused)
{
	json_t *doc = json_loads(
		"{\"schema\": \"fsbench-kernel-gate/1\", \"verdict\": \"regressed\", \"compare\": "
		"{\"samples\": [{\"label\": \"ext4/smallfile/t=1\", \"metrics\": ["
		"{\"name\": \"files_per_sec\", \"comparisons\": [{\"gate\": true, \"verdict\": "
		"\"regression\", \"change_pct\": -2.326}]},"
		"{\"name\": \"fsync.p50\", \"comparisons\": [{\"gate\": true, \"verdict\": "
		"\"unchanged\", \"change_pct\": 0.004}]},"
		"{\"name\": \"fsync.p99\", \"comparisons\": [{\"gate\": true, \"verdict\": \"noisy\", "
		"\"change_pct\": 1.1}]},"
		"{\"name\": \"create.p99.9\", \"comparisons\": [{\"gate\": true, \"not_gated\": "
		"\"tail\", \"verdict\": \"regression\", \"change_pct\": 7.4}]},"
		"{\"name\": \"dirty_max\", \"comparisons\": [{\"gate\": false, \"verdict\": "
		"\"regression\", \"change_pct\": 90}]}]}]}}",
		0, NULL);
	const char *want[] = {
		"lava-test-case fsbench-gate-ext4_smallfile_t_1-files_per_sec --result fail "
		"--measurement -2.3260 --units %",
		"lava-test-case fsbench-gate-ext4_smallfile_t_1-fsync.p50 --result pass "
		"--measurement 0.0040 --units %",
		"lava-test-case fsbench-gate-ext4_smallfile_t_1-fsync.p99 --result skip "
		"--measurement 1.1000 --units %",
		"lava-test-case fsbench-gate-verdict --result fail",
	};
	size_t n = 0, len = 0;
	char **steps, *buf = NULL;
	FILE *f;

	(void)unused;
	assert_non_null(doc);
	steps = lava_verdict_steps(doc, &n);
	assert_non_null(steps);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(steps[i], want[i]);
	assert_null(steps[4]);

	/* long cells: each case within LAVA's 100 characters, and two cells cut alike differ */
	json_t *samples = json_object_get(json_object_get(doc, "compare"), "samples");
	json_t *s0 = json_array_get(samples, 0), *s1 = json_deep_copy(s0);
	char *lab0 = NULL, *lab1 = NULL, **long_steps;
	size_t ln = 0;

	assert_true(asprintf(&lab0, "ext4/%0120d/a", 0) > 0 &&
		    asprintf(&lab1, "ext4/%0120d/b", 0) > 0);
	json_object_set_new(s0, "label", json_string(lab0));
	json_object_set_new(s1, "label", json_string(lab1));
	json_array_append_new(samples, s1);
	long_steps = lava_verdict_steps(doc, &ln);
	assert_non_null(long_steps);
	assert_int_equal(ln, 7);
	for (size_t i = 0; i + 1 < ln; i++) {
		const char *cs = long_steps[i] + strlen("lava-test-case ");
		size_t nl = strcspn(cs, " ");

		assert_true(nl <= 100);
		assert_true(nl > 90); /* cut to fit, not emptied */
		assert_true(!strncmp(cs, "fsbench-gate-ext4_000", 21));
	}
	/* the same metric in the two cells: fsync.p50 is the second case of each */
	assert_non_null(strstr(long_steps[1], "-fsync.p50 --result pass"));
	assert_non_null(strstr(long_steps[4], "-fsync.p50 --result pass"));
	assert_string_not_equal(long_steps[1], long_steps[4]);
	lava_steps_free(long_steps);
	free(lab0);
	free(lab1);

	struct lava_job_spec s = { .device_type = "qemu",
				   .kernel_url = "http://x/vmlinux",
				   .ramdisk_url = "http://x/initrd",
				   .suite = "kgate",
				   .release = "6.12.117+deb12-amd64",
				   .timeout_min = 10,
				   .gate = "/w/g",
				   .side = "verdict",
				   .steps = steps,
				   .verdict = "regressed" };
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(lava_job_write(&s, f), 0);
	fclose(f);
	assert_non_null(
		strstr(buf, "  fsbench.side: \"verdict\"\n  fsbench.verdict: \"regressed\"\n"));
	assert_non_null(strstr(buf, "      name: fsbench-verdict\n"));
	assert_non_null(
		strstr(buf, "          - \"lava-test-case fsbench-gate-verdict --result fail\"\n"));
	assert_null(strstr(buf, "fsbench suite"));
	/* no model disk: the guest's /init runs no suite before the shell, and no memory for it */
	assert_null(strstr(buf, "fsbench.disk=model"));
	assert_non_null(strstr(buf, "  memory: 1024\n"));
	free(buf);
	lava_steps_free(steps);
	/* a good gate's verdict passes; cannot judge is skipped */
	json_object_set_new(doc, "verdict", json_string("good"));
	steps = lava_verdict_steps(doc, &n);
	assert_string_equal(steps[n - 1], "lava-test-case fsbench-gate-verdict --result pass");
	lava_steps_free(steps);
	json_object_set_new(doc, "verdict", json_string("cannot judge"));
	steps = lava_verdict_steps(doc, &n);
	assert_string_equal(steps[n - 1], "lava-test-case fsbench-gate-verdict --result skip");
	lava_steps_free(steps);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound),	     cmocka_unit_test(test_job_token),
		cmocka_unit_test(test_job_metadata), cmocka_unit_test(test_index),
		cmocka_unit_test(test_cases),	     cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_suite_coords), cmocka_unit_test(test_matrix_results),
		cmocka_unit_test(test_many),	     cmocka_unit_test(test_load_yaml),
		cmocka_unit_test(test_files),	     cmocka_unit_test(test_images_urls),
		cmocka_unit_test(test_same_boot),    cmocka_unit_test(test_log_facts),
		cmocka_unit_test(test_verdict_job),  cmocka_unit_test(test_kernel_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
