/* Option and unit parsing, fs_mark flag compatibility, file names, sync-method table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "fsbench/core/opt.h"
#include "fsbench/workloads/smallfile.h"
#include "fsbench/core/workload.h"
#include "fsbench/workloads/table.h"

static void test_sizes(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(opt_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(opt_parse_size("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(opt_parse_size("8M", &v), 0);
	assert_int_equal(v, 8 << 20);
	assert_int_equal(opt_parse_size("1G", &v), 0);
	assert_int_equal(v, 1 << 30);
	assert_int_equal(opt_parse_size("2GiB", &v), 0);
	assert_int_equal(v, INT64_C(2) << 30);
	assert_int_equal(opt_parse_size("5T", &v), 0);
	assert_int_equal(v, INT64_C(5) << 40);
	assert_int_equal(opt_parse_size("4x", &v), -EINVAL);
	assert_int_equal(opt_parse_size("", &v), -EINVAL);
	assert_int_equal(opt_parse_size("-1", &v), -EINVAL);
	assert_int_equal(opt_parse_size("k", &v), -EINVAL);
	assert_int_equal(opt_parse_size("99999999999T", &v), -ERANGE);
}

static void test_durations(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(opt_parse_duration("30", &v), 0);
	assert_int_equal(v, INT64_C(30) * 1000000000);
	assert_int_equal(opt_parse_duration("500ms", &v), 0);
	assert_int_equal(v, 500000000);
	assert_int_equal(opt_parse_duration("2m", &v), 0);
	assert_int_equal(v, INT64_C(120) * 1000000000);
	assert_int_equal(opt_parse_duration("1h", &v), 0);
	assert_int_equal(v, INT64_C(3600) * 1000000000);
	assert_int_equal(opt_parse_duration("10parsecs", &v), -EINVAL);
}

struct cfg {
	int64_t n, size;
	bool flag;
	char *name;
	struct opt_strlist dirs;
	int mode;
	double ratio, any;
};

#define O(f) offsetof(struct cfg, f)
static const char *const modes[] = { "a", "bb", NULL };
static const struct fsb_opt tbl[] = {
	{ .name = "files",
	  .short_name = 'n',
	  .type = OPT_INT,
	  .offset = O(n),
	  .min = 1,
	  .max = 100,
	  .def = "10",
	  .help = "n" },
	{ .name = "size",
	  .short_name = 's',
	  .type = OPT_SIZE,
	  .offset = O(size),
	  .max = 1 << 20,
	  .def = "4k",
	  .unit = "bytes",
	  .help = "s" },
	{ .name = "keep",
	  .short_name = 'k',
	  .type = OPT_BOOL,
	  .offset = O(flag),
	  .max = 1,
	  .help = "k" },
	{ .name = "name", .type = OPT_STRING, .offset = O(name), .def = "x", .help = "name" },
	{ .name = "dir", .short_name = 'd', .type = OPT_STRLIST, .offset = O(dirs), .help = "d" },
	{ .name = "mode",
	  .type = OPT_ENUM,
	  .offset = O(mode),
	  .def = "a",
	  .help = "m",
	  .choices = modes },
	{ .name = "ratio",
	  .type = OPT_DOUBLE,
	  .offset = O(ratio),
	  .dmin = 0,
	  .dmax = 0.5,
	  .def = "0.05",
	  .help = "r" },
	{ .name = "any",
	  .type = OPT_DOUBLE,
	  .offset = O(any),
	  .dmin = -1,
	  .dmax = 1,
	  .nonfinite = true,
	  .help = "a" },
	{ 0 }
};
#undef O

static int parse(struct cfg *c, char *err, int argc, char **argv)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(opt_set_defaults(tbl, c, err, OPT_ERR_MAX), 0);
	return opt_parse_argv(tbl, c, argc, argv, err, OPT_ERR_MAX);
}

static void test_argv_fs_mark_style(void **state)
{
	char err[OPT_ERR_MAX];
	struct cfg c;
	char *argv[] = { "x",  "-d", "/a", "-s",     "8k", "-n", "50",
			 "-d", "/b", "-k", "--mode", "bb", NULL };

	(void)state;
	assert_int_equal(parse(&c, err, 12, argv), 12);
	assert_int_equal(c.size, 8192);
	assert_int_equal(c.n, 50);
	assert_true(c.flag);
	assert_int_equal(c.dirs.n, 2);
	assert_string_equal(c.dirs.v[1], "/b");
	assert_int_equal(c.mode, 1);
	assert_string_equal(c.name, "x");
	opt_free(tbl, &c);
}

static void test_argv_errors_name_the_flag(void **state)
{
	char err[OPT_ERR_MAX];
	struct cfg c;
	char *a1[] = { "x", "-n", "101", NULL };
	char *a2[] = { "x", "-s", "4q", NULL };
	char *a3[] = { "x", "-Z", NULL };
	char *a4[] = { "x", "--mode", "c", NULL };
	char *a5[] = { "x", "-n", NULL };

	(void)state;
	assert_int_equal(parse(&c, err, 3, a1), -EINVAL);
	assert_non_null(strstr(err, "-n"));
	assert_non_null(strstr(err, "out of range 1..100"));
	opt_free(tbl, &c);
	assert_int_equal(parse(&c, err, 3, a2), -EINVAL);
	assert_non_null(strstr(err, "-s: '4q' is not a size"));
	opt_free(tbl, &c);
	assert_int_equal(parse(&c, err, 2, a3), -EINVAL);
	assert_non_null(strstr(err, "-Z: unknown option"));
	opt_free(tbl, &c);
	assert_int_equal(parse(&c, err, 3, a4), -EINVAL);
	assert_non_null(strstr(err, "not one of a, bb"));
	opt_free(tbl, &c);
	assert_int_equal(parse(&c, err, 2, a5), -EINVAL);
	assert_non_null(strstr(err, "-n: a value is required"));
	opt_free(tbl, &c);
}

/* --json with no value once said "-: a value is required" (the long option's val as a char) */
static void test_argv_long_missing_value(void **state)
{
	char err[OPT_ERR_MAX];
	struct cfg c;
	char *a1[] = { "x", "--name", NULL };
	char *a2[] = { "x", "--ratio", NULL };

	(void)state;
	assert_int_equal(parse(&c, err, 2, a1), -EINVAL);
	assert_string_equal(err, "--name: a value is required");
	opt_free(tbl, &c);
	assert_int_equal(parse(&c, err, 2, a2), -EINVAL);
	assert_string_equal(err, "--ratio: a value is required");
	opt_free(tbl, &c);
}

/* nan passes every "v < lo || v > hi" check: the parser must refuse it itself */
static void test_doubles(void **state)
{
	static const char *const bad[] = { "nan",      "NaN",	"-nan",	 "inf",	 "-inf",
					   "infinity", "1e999", "0.6",	 "-0.1", "",
					   " 0.1",     "0.1x",	"1e-400" };
	char err[OPT_ERR_MAX];
	struct cfg c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(opt_set_defaults(tbl, &c, err, sizeof(err)), 0);
	assert_true(c.ratio == 0.05);
	assert_int_equal(opt_set(tbl, &c, "ratio", "0.5", err, sizeof(err)), 0);
	assert_true(c.ratio == 0.5);
	assert_int_equal(opt_set(tbl, &c, "ratio", "1e-3", err, sizeof(err)), 0);
	assert_true(c.ratio == 1e-3);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c.ratio = 0.25;
		assert_int_equal(opt_set(tbl, &c, "ratio", bad[i], err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--ratio: "));
		assert_true(c.ratio == 0.25);
	}
	assert_int_equal(opt_set(tbl, &c, "ratio", "nan", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a finite number"));
	assert_int_equal(opt_set(tbl, &c, "ratio", "0.6", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of range 0..0.5"));
	/* an option that allows them takes nan and inf, and still range-checks the rest */
	assert_int_equal(opt_set(tbl, &c, "any", "nan", err, sizeof(err)), 0);
	assert_true(isnan(c.any));
	assert_int_equal(opt_set(tbl, &c, "any", "-inf", err, sizeof(err)), 0);
	assert_true(isinf(c.any) && c.any < 0);
	assert_int_equal(opt_set(tbl, &c, "any", "2", err, sizeof(err)), -EINVAL);
	opt_free(tbl, &c);
}

static void test_set_by_name(void **state)
{
	char err[OPT_ERR_MAX];
	struct cfg c;
	char *argv[] = { "x", NULL };

	(void)state;
	parse(&c, err, 1, argv);
	assert_int_equal(opt_set(tbl, &c, "size", "1M", err, sizeof(err)), 0);
	assert_int_equal(c.size, 1 << 20);
	assert_int_equal(opt_set(tbl, &c, "nosuch", "1", err, sizeof(err)), -ENOENT);
	assert_int_equal(opt_set(tbl, &c, "keep", "maybe", err, sizeof(err)), -EINVAL);
	opt_free(tbl, &c);
}

/* --help's text column: a name too wide for it puts its text on the next line, aligned */
static void test_help_columns(void **state)
{
	static const struct fsb_opt wide[] = {
		{ .name = "n", .type = OPT_BOOL, .help = "short" },
		{ .name = "clients-per-process-and-more", .type = OPT_INT, .help = "wide" },
		{ 0 },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	opt_print_help(wide, f);
	fclose(f);
	assert_non_null(strstr(buf, "      --n                      short\n"));
	assert_non_null(strstr(buf, "      --clients-per-process-and-more VALUE\n"
				    "                               wide"));
	free(buf);
}

static void test_smallfile_flags(void **state)
{
	const struct fsb_workload *wl = fsb_workload_find("smallfile");
	const char *flags = "sdwnNDtSLkrpFvl";

	(void)state;
	assert_non_null(wl);
	/* every fs_mark 3.3 flag is accepted with its letter (-d lives in the common table) */
	for (const char *f = flags; *f; f++) {
		bool found = false;

		for (const struct fsb_opt *o = wl->opts; o->name; o++)
			found |= o->short_name == *f;
		if (*f == 'd')
			found = true;
		if (!found)
			fail_msg("fs_mark flag -%c is missing", *f);
	}
}

static void test_names(void **state)
{
	char a[64], b[64];

	(void)state;
	smallfile_name(a, 0x1234, 40, 24, 42);
	assert_int_equal(strlen(a), 40);
	assert_memory_equal(a, "0000000000001234", 16);
	for (int i = 16; i < 40; i++)
		assert_true((a[i] >= 'A' && a[i] <= 'Z') || (a[i] >= '0' && a[i] <= '9'));
	/* same file number and seed: same name (so post-loop phases can find it again) */
	smallfile_name(b, 0x1234, 40, 24, 42);
	assert_string_equal(a, b);
	smallfile_name(b, 0x1235, 40, 24, 42);
	assert_string_not_equal(a, b);
	/* no random part: names are the sequence number alone, still unique */
	smallfile_name(a, 7, 8, 0, 1);
	assert_string_equal(a, "00000007");
	/* long names beyond fs_mark's 40-byte path limits */
	smallfile_name(a, 1, 60, 10, 1);
	assert_int_equal(strlen(a), 60);
}

static void test_sync_methods(void **state)
{
	(void)state;
	/* fs_mark 3.3's fs_mark.h, -S 0..6 */
	assert_int_equal(smallfile_sync_bits[0], 0);
	assert_int_equal(smallfile_sync_bits[1], SF_FSYNC_BEFORE_CLOSE);
	assert_int_equal(smallfile_sync_bits[2], SF_SYNC_SYSCALL | SF_FIRST_FILE);
	assert_int_equal(smallfile_sync_bits[3], SF_POST_REVERSE);
	assert_int_equal(smallfile_sync_bits[4], SF_POST_REVERSE | SF_SYNC_SYSCALL);
	assert_int_equal(smallfile_sync_bits[5], SF_POST_IN_ORDER);
	assert_int_equal(smallfile_sync_bits[6], SF_POST_IN_ORDER | SF_SYNC_SYSCALL);
}

/* What --lava refuses rests on these: each type compared by value, nans alike, NULLs alike. */
static void test_next_changed(void **state)
{
	static const char *const names[] = { "files", "nope", "name", "mode", "any", "keep", NULL };
	struct cfg a, def;
	char err[OPT_ERR_MAX];

	(void)state;
	memset(&def, 0, sizeof(def));
	memset(&a, 0, sizeof(a));
	assert_int_equal(opt_set_defaults(tbl, &def, err, sizeof(err)), 0);
	assert_int_equal(opt_set_defaults(tbl, &a, err, sizeof(err)), 0);
	def.any = a.any = NAN;
	assert_true(opt_same_value(opt_find(tbl, "any"), &a, &def));
	assert_true(opt_same_value(opt_find(tbl, "name"), &a, &def)); /* two copies of "x" */
	assert_int_equal(opt_next_changed(tbl, &a, &def, names, 0), -1);
	assert_int_equal(opt_set(tbl, &a, "mode", "bb", err, sizeof(err)), 0);
	assert_int_equal(opt_set(tbl, &a, "name", "y", err, sizeof(err)), 0);
	a.any = 0.5;
	assert_int_equal(opt_next_changed(tbl, &a, &def, names, 0), 2);
	assert_int_equal(opt_next_changed(tbl, &a, &def, names, 3), 3);
	assert_int_equal(opt_next_changed(tbl, &a, &def, names, 4), 4);
	assert_int_equal(opt_next_changed(tbl, &a, &def, names, 5), -1); /* keep: both false */
	a.flag = true;
	assert_int_equal(opt_next_changed(tbl, &a, &def, names, 5), 5);
	opt_free(tbl, &a);
	opt_free(tbl, &def);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_argv_fs_mark_style),
		cmocka_unit_test(test_argv_errors_name_the_flag),
		cmocka_unit_test(test_argv_long_missing_value),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_set_by_name),
		cmocka_unit_test(test_help_columns),
		cmocka_unit_test(test_smallfile_flags),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_sync_methods),
		cmocka_unit_test(test_next_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
