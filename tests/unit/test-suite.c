/* Unit tests of suite files: parsing, positioned errors, labels, matrix expansion, mkfs argv. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "probes/scratch/scratch.h"
#include "base/fileio.h"
#include "fsbench/suite/suite_run.h"
#include "fsbench/suite/suite.h"

#include <jansson.h>
#include <unistd.h>

static char err[1024];

static int load(struct suite *s, const char *name)
{
	const char *dir = getenv("FSB_FIXTURES");
	char path[512];

	/* meson passes the fixture tree; by hand, run from the source directory */
	snprintf(path, sizeof(path), "%s/suites/%s", dir ? dir : "tests/fixtures", name);
	err[0] = 0;
	return suite_load(s, path, err, sizeof(err));
}

static int parse(struct suite *s, const char *text)
{
	err[0] = 0;
	return suite_parse(s, "t.json", text, strlen(text), err, sizeof(err));
}

/* The message must point at FILE:LINE:COL and name the JSON path. */
static void assert_err(const char *file_line_col, const char *path, const char *what)
{
	char *at = strstr(err, file_line_col);

	if (!at || !strstr(err, path) || !strstr(err, what))
		fail_msg("error '%s' lacks '%s' / '%s' / '%s'", err, file_line_col, path, what);
	/* file:line:col comes first (after the fixture directory), so editors can jump to it */
	assert_null(memchr(err, ' ', (size_t)(at - err)));
}

static void test_good(void **state)
{
	struct suite s;
	struct suite_cell *cells;
	int n, skipped = 0;

	(void)state;
	assert_int_equal(load(&s, "good.json"), 0);
	assert_string_equal(s.name, "good");
	assert_string_equal(s.description, "a good suite: every kind of entry");
	assert_int_equal(s.nfs, 5);
	assert_int_equal(s.nwl, 2);
	assert_int_equal(s.repetitions, 3);
	assert_int_equal(s.image_size, INT64_C(1) << 30);
	assert_int_equal(s.nthreads, 2);
	/* ambiguous types are told apart by what differs; a given label leaves "xfs" alone */
	assert_string_equal(s.fs[0].label, "xfs");
	assert_string_equal(s.fs[2].label, "ext3:data=ordered");
	assert_string_equal(s.fs[3].label, "ext3:data=journal");
	assert_string_equal(s.fs[3].mkfs_argv[0], "-J");
	assert_string_equal(s.fs[3].mkfs_argv[1], "size=64");
	assert_null(s.fs[3].mkfs_argv[2]);
	assert_string_equal(s.wl[1].label, "smallfile:sync=0");

	assert_int_equal(suite_expand(&s, &cells, &n, err, sizeof(err)), 0);
	/* 5 filesystem entries, ext4 twice for barriers: 6 x (2 threads + 1 thread) */
	assert_int_equal(n, 18);
	assert_string_equal(cells[0].name,
			    "xfs/smallfile:files-per-subdir=50,subdirs=64,sync=1/t=1");
	assert_string_equal(cells[2].name, "xfs/smallfile:sync=0/t=8");
	assert_int_equal(cells[2].threads, 8);
	assert_string_equal(cells[3].name,
			    "ext4/barrier=1/smallfile:files-per-subdir=50,subdirs=64,sync=1/t=1");
	assert_string_equal(cells[3].mount_options, "barrier=1");
	assert_string_equal(cells[6].mount_options, "barrier=0");
	assert_int_equal(cells[6].barrier, 0);
	assert_string_equal(cells[9].mount_options, "data=ordered");
	assert_string_equal(cells[12].mount_options, "data=journal");
	for (int i = 0; i < n; i++) {
		if (cells[i].skip) {
			skipped++;
			assert_string_equal(s.fs[cells[i].fs].label, "xfs-nb");
		}
		assert_null(cells[i].skip ? NULL : strstr(cells[i].name, "xfs-nb"));
	}
	assert_int_equal(skipped, 3);
	free(cells);
	suite_free(&s);
}

static void test_coords(void **state)
{
	struct suite s;
	struct suite_cell *cells;
	struct fsb_job job;
	json_t *co;
	int n;

	(void)state;
	assert_int_equal(load(&s, "good.json"), 0);
	assert_int_equal(suite_expand(&s, &cells, &n, err, sizeof(err)), 0);
	co = suite_coords(&s, &cells[7], 2);
	assert_string_equal(json_string_value(json_object_get(co, "fs")), "ext4");
	assert_int_equal(json_integer_value(json_object_get(co, "barrier")), 0);
	assert_int_equal(json_integer_value(json_object_get(co, "threads")), 2);
	assert_int_equal(json_integer_value(json_object_get(co, "repetition")), 2);
	assert_string_equal(json_string_value(json_object_get(co, "cell")), cells[7].name);
	assert_string_equal(json_string_value(json_object_get(co, "mount_options")), "barrier=0");
	assert_true(json_is_null(json_object_get(co, "knob_set")));
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(co, "params"), "size")), "4k");
	json_decref(co);

	/* the job carries the cell's values through the option tables */
	assert_int_equal(suite_job(&s, &cells[7], &job, err, sizeof(err)), 0);
	fsb_job_free(&job);
	free(cells);
	suite_free(&s);
}

static void test_unknown_key(void **state)
{
	struct suite s;

	(void)state;
	assert_int_equal(load(&s, "unknown-key.json"), -EINVAL);
	assert_err("unknown-key.json:4:7: ", "filesystems[0].mount_option", "unknown key");
	assert_non_null(strstr(err, "mount_options")); /* says what was expected */
	suite_free(&s);
}

static void test_bad_unit(void **state)
{
	struct suite s;

	(void)state;
	assert_int_equal(load(&s, "bad-unit.json"), -EINVAL);
	/* points at the value, not the key */
	assert_err("bad-unit.json:5:40: ", "workloads[0].params.size", "'4q' is not a size");
	suite_free(&s);
}

static void test_bad_type(void **state)
{
	struct suite s;

	(void)state;
	assert_int_equal(load(&s, "bad-type.json"), -EINVAL);
	assert_err("bad-type.json:4:14: ", "threads", "expected a non-empty array");
	suite_free(&s);
}

static void test_syntax(void **state)
{
	struct suite s;

	(void)state;
	assert_int_equal(load(&s, "syntax.json"), -EINVAL);
	assert_non_null(strstr(err, "syntax.json:4:"));
	suite_free(&s);
}

static void test_semantic_errors(void **state)
{
	struct suite s;

	(void)state;
	assert_int_equal(
		parse(&s, "{\"filesystems\":[\"ext4\"],\n \"workloads\":[{\"name\":\"nope\"}]}"),
		-EINVAL);
	assert_err("t.json:2:23: ", "workloads[0].name", "no workload 'nope'");
	suite_free(&s);

	assert_int_equal(parse(&s,
			       "{\"filesystems\":[\"ext4\"],\"workloads\":[{\"name\":\"smallfile\","
			       "\"params\":{\"bogus\":1}}]}"),
			 -EINVAL);
	assert_err("t.json:1:", "workloads[0].params.bogus", "smallfile has no option 'bogus'");
	suite_free(&s);

	/* a range error comes from the option table exactly as on the command line */
	assert_int_equal(parse(&s,
			       "{\"filesystems\":[\"ext4\"],\"workloads\":[{\"name\":\"smallfile\","
			       "\"params\":{\"sync\":9}}]}"),
			 -EINVAL);
	assert_non_null(strstr(err, "workloads[0].params.sync"));
	suite_free(&s);

	assert_int_equal(parse(&s,
			       "{\"filesystems\":[\"ext4\"],\"workloads\":[{\"name\":\"smallfile\","
			       "\"params\":{\"threads\":2}}]}"),
			 -EINVAL);
	assert_non_null(strstr(err, "set by the suite itself"));
	suite_free(&s);

	assert_int_equal(parse(&s, "{\"filesystems\":[{\"type\":\"ext4\",\"barrier\":\"maybe\"}],"
				   "\"workloads\":[{\"name\":\"smallfile\"}]}"),
			 -EINVAL);
	assert_non_null(strstr(err, "filesystems[0].barrier"));
	suite_free(&s);

	assert_int_equal(
		parse(&s, "{\"filesystems\":[\"ext4\"],\"workloads\":[{\"name\":\"smallfile\"}],"
			  "\"image_size\":\"1x\"}"),
		-EINVAL);
	assert_non_null(strstr(err, "image_size"));
	suite_free(&s);

	assert_int_equal(parse(&s, "{\"filesystems\":[\"ext4\", \"ext4\"],"
				   "\"workloads\":[{\"name\":\"smallfile\"}]}"),
			 -EINVAL);
	assert_err("t.json:1:25: ", "filesystems[1]", "the same filesystem as filesystems[0]");
	suite_free(&s);

	assert_int_equal(parse(&s,
			       "{\"filesystems\":[\"ext4\", {\"type\":\"xfs\",\"label\":\"ext4\"}],"
			       "\"workloads\":[{\"name\":\"smallfile\"}]}"),
			 -EINVAL);
	assert_non_null(strstr(err, "give it a \"label\""));
	suite_free(&s);

	assert_int_equal(parse(&s, "{\"filesystems\":[],\"workloads\":[{\"name\":\"smallfile\"}]}"),
			 -EINVAL);
	assert_non_null(strstr(err, "filesystems: expected a non-empty array"));
	suite_free(&s);

	assert_int_equal(parse(&s, "[1]"), -EINVAL);
	assert_non_null(strstr(err, "expected an object"));
	suite_free(&s);

	/* issue 11: a suite refuses the knob values the CLI refuses */
	assert_int_equal(parse(&s, "{\"filesystems\":[\"ext4\"],\"knob_sets\":[{\"name\":\"a\","
				   "\"knobs\":{\"dirty_ratio\":-1}}],\"workloads\":[{\"name\":"
				   "\"smallfile\"}]}"),
			 -EINVAL);
	assert_non_null(
		strstr(err, "knob_sets[0].knobs.dirty_ratio: dirty_ratio: -1 is out of range"));
	suite_free(&s);
	assert_int_equal(parse(&s, "{\"filesystems\":[\"ext4\"],\"knob_sets\":[{\"name\":\"a\","
				   "\"knobs\":{\"write_cache\":\"on\",\"nomerges\":7}}],"
				   "\"workloads\":[{\"name\":\"smallfile\"}]}"),
			 -EINVAL);
	assert_non_null(strstr(err, "nomerges: 7 is out of range"));
	suite_free(&s);
	/* an empty --fs selects nothing: refused, not a suite of 0 cells */
	assert_int_equal(parse(&s, "{\"filesystems\":[\"ext4\"],\"workloads\":[{\"name\":"
				   "\"smallfile\"}]}"),
			 0);
	assert_int_equal(suite_select_fs(&s, "", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--fs: an empty list selects nothing"));
	suite_free(&s);

	/* issue 11: `{}` reached json_typeof(NULL) through the missing filesystems key */
	assert_int_equal(parse(&s, "{}"), -EINVAL);
	assert_non_null(strstr(err, "filesystems: expected a non-empty array, found nothing"));
	suite_free(&s);
	assert_int_equal(parse(&s, "{\"filesystems\":[\"ext4\"]}"), -EINVAL);
	assert_non_null(strstr(err, "workloads"));
	assert_non_null(strstr(err, "found nothing"));
	suite_free(&s);
}

static void test_knob_sets(void **state)
{
	struct suite s;
	struct suite_cell *cells;
	int n;

	(void)state;
	assert_int_equal(load(&s, "knobs.json"), 0);
	assert_int_equal(s.nks, 2);
	assert_string_equal(s.ks[1].knob[0], "write_cache=write through");
	assert_int_equal(suite_expand(&s, &cells, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	/* several knob sets are a dimension, named in the cell */
	assert_string_equal(cells[0].name, "ext4/wc-on/smallfile/t=1");
	assert_string_equal(cells[1].name, "ext4/wc-off/smallfile/t=1");
	free(cells);
	suite_free(&s);

	/* a misspelt knob is caught in the file, not on the device halfway through */
	assert_int_equal(load(&s, "bad-knob.json"), -EINVAL);
	assert_err("bad-knob.json:3:44: ", "knob_sets[0].knobs.write_cach", "no knob 'write_cach'");
	suite_free(&s);
}

static void test_overrides(void **state)
{
	struct suite s;
	struct suite_cell *cells;
	int n;

	(void)state;
	assert_int_equal(load(&s, "good.json"), 0);
	assert_int_equal(suite_select_fs(&s, "zfs", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'zfs' is not in suite"));
	/* by type (both ext3 entries) or by label */
	assert_int_equal(suite_select_fs(&s, "ext3,xfs-nb", err, sizeof(err)), 0);
	assert_int_equal(s.nfs, 3);
	assert_string_equal(s.fs[0].label, "ext3:data=ordered");
	assert_string_equal(s.fs[2].label, "xfs-nb");
	assert_int_equal(suite_set_threads(&s, "1,x", err, sizeof(err)), -EINVAL);
	assert_int_equal(suite_set_threads(&s, "4,16", err, sizeof(err)), 0);
	assert_int_equal(suite_expand(&s, &cells, &n, err, sizeof(err)), 0);
	/* --threads replaces the workloads' own lists too: 3 fs x 2 workloads x 2 */
	assert_int_equal(n, 12);
	assert_int_equal(cells[1].threads, 16);
	assert_int_equal(cells[3].threads, 16);
	free(cells);
	suite_free(&s);
}

static void test_barrier_options(void **state)
{
	const char *o;

	(void)state;
	assert_int_equal(suite_barrier_option("ext3", 0, &o), 0);
	assert_string_equal(o, "barrier=0");
	assert_int_equal(suite_barrier_option("btrfs", 0, &o), 0);
	assert_string_equal(o, "nobarrier");
	assert_int_equal(suite_barrier_option("xfs", 1, &o), 0);
	assert_string_equal(o, "");
	assert_int_equal(suite_barrier_option("xfs", 0, &o), -EOPNOTSUPP);
}

static void test_mkfs_argv(void **state)
{
	char *argv[PROBE_SCRATCH_ARGV_MAX];
	const char *opts[] = { "-E", "stride=16", "-b", "4096", NULL };

	(void)state;
	assert_int_equal(probe_scratch_mkfs_argv("ext4", "/dev/loop9", NULL, argv, 16), 0);
	assert_string_equal(argv[0], "mkfs.ext4");
	assert_string_equal(argv[3], "-E");
	assert_string_equal(argv[4], "lazy_itable_init=0,lazy_journal_init=0");
	assert_string_equal(argv[5], "/dev/loop9");
	assert_null(argv[6]);
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	/* mke2fs keeps only the last -E: lazy init joins the user's */
	assert_int_equal(probe_scratch_mkfs_argv("ext4", "D", opts, argv, 16), 0);
	assert_string_equal(argv[4], "stride=16,lazy_itable_init=0,lazy_journal_init=0");
	assert_string_equal(argv[5], "-b");
	assert_string_equal(argv[7], "D");
	assert_null(argv[8]);
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	assert_int_equal(probe_scratch_mkfs_argv("xfs", "D", NULL, argv, 16), 0);
	assert_string_equal(argv[1], "-f");
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	assert_int_equal(probe_scratch_mkfs_argv("../x", "D", NULL, argv, 16), -EINVAL);
}

/* What the observer saw, in order: one letter per call (s skipped, b begin, d done). */
struct seen {
	char calls[64];
	int n, complete, warnings;
};

static void seen_warn(void *arg, const char *msg)
{
	(void)msg;
	((struct seen *)arg)->warnings++;
}

static void seen_start(void *arg, const struct suite_run *x, const struct suite_cell *c, int rep,
		       double elapsed)
{
	struct seen *w = arg;

	(void)c;
	(void)elapsed;
	/* told before the repetition runs: done counts the ones before it */
	assert_int_equal(x->done, w->n / 2);
	assert_true(rep >= 1 && rep <= x->s.repetitions);
	w->calls[w->n++] = 'b';
}

static void seen_done(void *arg, const struct suite_run *x, const struct suite_cell *c, int rep,
		      const json_t *run)
{
	struct seen *w = arg;

	(void)x;
	(void)c;
	(void)rep;
	w->calls[w->n++] = 'd';
	w->complete += json_is_true(json_object_get(json_object_get(run, "summary"), "complete"));
}

static const struct suite_observer seen_obs = {
	.warn = seen_warn,
	.cell_start = seen_start,
	.cell_done = seen_done,
};

/*
 * A whole suite in a directory (no mkfs, no root): two repetitions of one small-file cell,
 * each told to the observer before and after, and the result on disk, complete, with both.
 */
/* test_run_dir's temporary directory, removed also when an assertion stops the test */
static char run_dir[] = "/tmp/fsb-test-suite-run.XXXXXX";

static int run_dir_teardown(void **st)
{
	(void)st;
	if (strcmp(run_dir + strlen(run_dir) - 6, "XXXXXX"))
		base_rm_tree(run_dir);
	return 0;
}

static void test_run_dir(void **st)
{
	char *dir = run_dir, work[64], json_path[80];
	struct suite_run x;
	struct seen w = { 0 };
	json_t *doc;
	char *argv[] = { "suite", "t.json", NULL };
	static const char text[] = "{\"filesystems\":[\"ext4\"],\"workloads\":[{\"name\":"
				   "\"smallfile\",\"params\":{\"size\":\"0\",\"files\":5}}],"
				   "\"threads\":[1],\"repetitions\":2}";

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(work, sizeof(work), "%s/d", dir);
	snprintf(json_path, sizeof(json_path), "%s/r.json", dir);
	assert_int_equal(mkdir(work, 0755), 0);
	suite_run_init(&x);
	err[0] = 0;
	assert_int_equal(suite_parse(&x.s, "t.json", text, strlen(text), err, sizeof(err)), 0);
	x.dir = work;
	x.json = json_path;
	x.quiet = true;
	x.obs = &seen_obs;
	x.obs_arg = &w;
	assert_int_equal(suite_use_dir(&x, err, sizeof(err)), 0);
	assert_int_equal(suite_expand(&x.s, &x.cells, &x.ncells, err, sizeof(err)), 0);
	assert_int_equal(x.ncells, 1);
	x.nrun = x.s.repetitions;
	assert_int_equal(suite_result_path(&x, err, sizeof(err)), 0);
	assert_int_equal(suite_run_begin(&x, 2, argv, err, sizeof(err)), 0);
	/* on disk before any work, and not complete */
	doc = json_load_file(json_path, 0, NULL);
	assert_non_null(doc);
	assert_true(json_is_false(json_object_get(doc, "complete")));
	json_decref(doc);

	assert_int_equal(suite_run(&x, err, sizeof(err)), 0);
	assert_string_equal(w.calls, "bdbd");
	assert_int_equal(w.complete, 2);
	assert_int_equal(w.warnings, 0);
	assert_int_equal(x.done, 2);
	assert_false(x.failed || x.interrupted);
	doc = json_load_file(json_path, 0, NULL);
	assert_non_null(doc);
	assert_true(json_is_true(json_object_get(doc, "complete")));
	assert_int_equal(json_array_size(json_object_get(doc, "runs")), 2);
	json_decref(doc);
	/* the closing table: one column, one row of threads; the ETA from the pace so far */
	{
		struct suite_table t;
		char eta[32], col[256];

		suite_table_axes(&x, 0, &t);
		suite_cell_column(&x, &x.cells[0], col, sizeof(col));
		assert_int_equal(t.ncols, 1);
		assert_string_equal(t.cols[0], col);
		assert_int_equal(t.width, 10 > (int)strlen(col) + 2 ? 10 : (int)strlen(col) + 2);
		assert_int_equal(t.nth, 1);
		assert_int_equal(t.th[0], 1);
		x.done = 0;
		suite_eta(&x, 10, eta, sizeof(eta));
		assert_string_equal(eta, "?");
		x.done = 1;
		x.nrun = 3;
		suite_eta(&x, 30, eta, sizeof(eta));
		assert_string_equal(eta, "1:00");
		suite_eta(&x, 2000.4, eta, sizeof(eta));
		assert_string_equal(eta, "1:06:41");
	}
	/* the dry run's lines: in a directory no mkfs, the workload as a command line */
	{
		char *mkfs = (char *)"untouched", *cmd = NULL;

		assert_int_equal(suite_cell_lines(&x, &x.cells[0], &mkfs, &cmd), 0);
		assert_null(mkfs);
		assert_string_equal(cmd, "smallfile --threads 1 --size 0 --files 5");
		free(cmd);
		x.dir = NULL;
		assert_int_equal(suite_cell_lines(&x, &x.cells[0], &mkfs, &cmd), 0);
		assert_non_null(strstr(mkfs, "mkfs.ext4 "));
		assert_non_null(strstr(mkfs, " DEVICE"));
		free(mkfs);
		free(cmd);
		x.dir = work;
	}
	suite_run_free(&x);
	unlink(json_path);
	assert_int_equal(rmdir(work), 0); /* the runs removed their files */
}

/*
 * The order a suite runs in: repetitions go round the matrix, every other round backwards,
 * so two cells run A B B A A B, every cell is run once a round, and each cell's mean place
 * over two rounds is the middle (linear drift hits every cell alike).
 */
static void test_interleave(void **state)
{
	static const int two[][2] = { { 0, 1 }, { 1, 1 }, { 1, 2 }, { 0, 2 }, { 0, 3 }, { 1, 3 } };
	int cell, rep;

	(void)state;
	for (int i = 0; i < 6; i++) {
		suite_slot(2, i, &cell, &rep);
		assert_int_equal(cell, two[i][0]);
		assert_int_equal(rep, two[i][1]);
	}
	for (int n = 1; n <= 7; n++) {
		int seen[7][4] = { { 0 } }, place[7] = { 0 };

		for (int i = 0; i < n * 4; i++) {
			suite_slot(n, i, &cell, &rep);
			assert_true(cell >= 0 && cell < n && rep >= 1 && rep <= 4);
			assert_int_equal(rep, i / n + 1);
			seen[cell][rep - 1]++;
			place[cell] += i % n;
		}
		for (int c = 0; c < n; c++) {
			for (int r = 0; r < 4; r++)
				assert_int_equal(seen[c][r], 1);
			assert_int_equal(place[c], 2 * (n - 1));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_coords),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_unit),
		cmocka_unit_test(test_bad_type),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_semantic_errors),
		cmocka_unit_test(test_knob_sets),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_barrier_options),
		cmocka_unit_test(test_mkfs_argv),
		cmocka_unit_test(test_interleave),
		cmocka_unit_test_teardown(test_run_dir, run_dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
