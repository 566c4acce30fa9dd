/* Unit tests of the exporters' shared helpers: slugs and unit spellings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report/export.h"

static const char *slug(const char *in, char sep, size_t len)
{
	static char buf[256];

	assert_true(len <= sizeof(buf));
	memset(buf, 'X', sizeof(buf));
	rpt_slug(in, sep, buf, len);
	return buf;
}

/* '_' (export --format lava, KCIDB): '-' and '_' kept, everything else one '_' per run. */
static void test_slug_underscore(void **state)
{
	(void)state;
	assert_string_equal(slug("smallfile t=4 fs=ext4", '_', 64), "smallfile_t_4_fs_ext4");
	assert_string_equal(slug("fsync.p99", '_', 64), "fsync_p99");
	assert_string_equal(slug("a-b_c", '_', 64), "a-b_c");
	assert_string_equal(slug("  (x)  ", '_', 64), "x");
	assert_string_equal(slug("a__b", '_', 64), "a__b");
	assert_string_equal(slug("$(id)\n/etc>", '_', 64), "id_etc");
}

/* '-' (lava cases' cell): '_' is not kept, so a cell reads "fs-ext4-small-file". */
static void test_slug_dash(void **state)
{
	(void)state;
	assert_string_equal(slug("fs=ext4,workload=small_file", '-', 64),
			    "fs-ext4-workload-small-file");
	/* a kept "-" is the input's own, beside the one a blank became */
	assert_string_equal(slug("a - b", '-', 64), "a--b");
	assert_string_equal(slug("a  b", '-', 64), "a-b");
	assert_string_equal(slug("a--b", '-', 64), "a--b");
	assert_string_equal(slug("-x-", '-', 64), "-x");
	assert_string_equal(slug("v1.2", '-', 64), "v1-2");
}

/* What LAVA allows, whatever the input: [-_a-zA-Z0-9] (and never a dot, the caller's joint). */
static void test_slug_alphabet(void **state)
{
	char in[256];

	(void)state;
	for (int i = 0; i < 255; i++)
		in[i] = (char)(i + 1);
	in[255] = 0;
	for (int k = 0; k < 2; k++) {
		const char *s = slug(in, k ? '-' : '_', 256);

		assert_true(strlen(s) > 0);
		assert_int_equal(strspn(s, "-_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789"),
				 strlen(s));
	}
}

/* The output is cut to @len - 1 bytes and always ended; a zero length writes nothing. */
static void test_slug_bounds(void **state)
{
	(void)state;
	assert_string_equal(slug("abcdef", '_', 4), "abc");
	assert_string_equal(slug("ab cd", '_', 4), "ab");
	assert_int_equal(slug("abc", '_', 0)[0], 'X');
}

/* Names over LAVA's 100 characters: cut to exactly the bound, head and tail kept, apart. */
static void test_slug_shorten(void **state)
{
	char a[256], b[256], ok[] = "short_name";
	(void)state;

	memset(a, 'x', 150);
	a[150] = 0;
	memcpy(a, "head_", 5);
	memcpy(a + 150 - 14, "side_candidate", 14);
	strcpy(b, a);
	b[70] = 'y'; /* differs only in the part that is cut away */
	rpt_slug_shorten(a, RPT_LAVA_NAME_MAX, '_');
	rpt_slug_shorten(b, RPT_LAVA_NAME_MAX, '_');
	assert_int_equal(strlen(a), RPT_LAVA_NAME_MAX);
	assert_int_equal(strlen(b), RPT_LAVA_NAME_MAX);
	assert_memory_equal(a, "head_", 5);
	assert_string_equal(a + RPT_LAVA_NAME_MAX - 14, "side_candidate");
	assert_string_not_equal(a, b);
	rpt_slug_shorten(ok, RPT_LAVA_NAME_MAX, '_');
	assert_string_equal(ok, "short_name");
}

/* One spelling per quantity, whatever the metric's display unit (us, MiB, MB/s). */
static void test_base_unit(void **state)
{
	static const struct {
		const char *metric, *unit;
	} want[] = {
		{ "files_per_sec", "files/s" }, { "bytes_per_sec", "B/s" },
		{ "write_amplification", "x" }, { "dirty_max", "B" },
		{ "fsync.p99", "s" },		{ "bpf.flush.p99", "s" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct rpt_point p = { .metric = want[i].metric,
				       .def = rpt_metric_lookup(want[i].metric) };

		assert_non_null(p.def);
		assert_string_equal(rpt_point_base_unit(&p), want[i].unit);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slug_underscore), cmocka_unit_test(test_slug_dash),
		cmocka_unit_test(test_slug_alphabet),	cmocka_unit_test(test_slug_bounds),
		cmocka_unit_test(test_slug_shorten),	cmocka_unit_test(test_base_unit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
