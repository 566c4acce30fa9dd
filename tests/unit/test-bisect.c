/* Unit tests of fsbench/bisect: dpkg's version order, the order of a list, the halving, the gate's answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsbench/bisect/bisect.h"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* pairs whose order `dpkg --compare-versions` gives (checked by hand against dpkg 1.21) */
static void test_dpkg_vercmp(void **state)
{
	static const struct {
		const char *a, *b;
		int want;
	} v[] = {
		{ "6.1.192-3", "6.1.192-3", 0 },
		{ "6.1.76-1", "6.1.192-3", -1 }, /* numbers, not text */
		{ "6.1.9-1", "6.1.10-1", -1 },
		{ "6.12.38-1", "6.1.192-3", 1 },
		{ "1.0~rc1-1", "1.0-1", -1 }, /* ~ before the end */
		{ "1.0-1", "1.0+b1-1", -1 },
		{ "1:1.0-1", "2.0-1", 1 }, /* the epoch first */
		{ "1.0-1", "1.0-1+deb12u1", -1 },
		{ "1.0-1~bpo12+1", "1.0-1", -1 },
		{ "1.0a", "1.0", 1 }, /* a letter after the end */
		{ "1.0", "1.0.0", -1 },
		{ "6.1.0-47", "6.1.0-57", -1 },
		{ "007", "7", 0 }, /* leading zeros */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(sign(bs_dpkg_vercmp(v[i].a, v[i].b)), v[i].want);
		assert_int_equal(sign(bs_dpkg_vercmp(v[i].b, v[i].a)), -v[i].want);
	}
}

/* the same pairs through dpkg itself, where it is installed */
static void test_dpkg_agrees(void **state)
{
	static const char *const vs[] = { "6.1.192-3", "6.1.76-1", "1.0~rc1-1", "1.0-1",
					  "1:0.9",     "1.0+b1",   "1.0a",	"6.12.38-1" };
	char cmd[256];

	(void)state;
	if (access("/usr/bin/dpkg", X_OK))
		skip();
	for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
		for (size_t j = 0; j < sizeof(vs) / sizeof(vs[0]); j++) {
			snprintf(cmd, sizeof(cmd), "dpkg --compare-versions '%s' lt '%s'", vs[i],
				 vs[j]);
			assert_int_equal(system(cmd) == 0, bs_dpkg_vercmp(vs[i], vs[j]) < 0);
		}
}

static void test_kernels_sort(void **state)
{
	struct bs_kernel k[] = {
		{ .path = "d/k10", .name = "k10" },
		{ .path = "d/k9", .name = "k9" },
		{ .path = "d/k1", .name = "k1" },
	};
	struct bs_kernel p[] = {
		/* file names that sort the other way than the versions */
		{ .path = "b.deb", .name = "b.deb", .version = "6.1.192-3" },
		{ .path = "a.deb", .name = "a.deb", .version = "6.12.38-1" },
		{ .path = "c.deb", .name = "c.deb", .version = "6.1.76-1" },
	};

	(void)state;
	bs_kernels_sort(k, 3);
	assert_string_equal(k[0].name, "k1");
	assert_string_equal(k[1].name, "k9");
	assert_string_equal(k[2].name, "k10");
	bs_kernels_sort(p, 3);
	assert_string_equal(p[0].name, "c.deb");
	assert_string_equal(p[1].name, "b.deb");
	assert_string_equal(p[2].name, "a.deb");
}

/*
 * Bisects a list of @n whose kernels from @first_bad on are bad and those in @skip cannot be
 * judged; returns the number of steps, and the answer in *@ret_bad (-1: cannot judge).
 */
static int halve(size_t n, size_t first_bad, const char *skip, ssize_t *ret_bad)
{
	enum bs_mark m[64] = { BS_GOOD };
	size_t good, bad;
	ssize_t i;
	int steps = 0;

	m[n - 1] = BS_BAD;
	while ((i = bs_next(m, n)) >= 0) {
		assert_true(i > 0 && (size_t)i < n - 1);
		assert_int_equal(m[i], BS_UNTESTED); /* never the same kernel twice */
		m[i] = skip && skip[i] == 's' ? BS_SKIP : (size_t)i >= first_bad ? BS_BAD : BS_GOOD;
		steps++;
	}
	*ret_bad = bs_bounds(m, n, &good, &bad) ? -1 : (ssize_t)bad;
	return steps;
}

static void test_halve(void **state)
{
	ssize_t bad;

	(void)state;
	/* every position of the first bad kernel in a list of 10: 9 answers, ceil(log2 9) steps */
	for (size_t fb = 1; fb < 10; fb++) {
		assert_true(halve(10, fb, NULL, &bad) <= 4);
		assert_int_equal(bad, (ssize_t)fb);
	}
	/* the two ends alone: nothing to gate */
	assert_int_equal(halve(2, 1, NULL, &bad), 0);
	assert_int_equal(bad, 1);
	/* a skip away from the change is passed over */
	halve(10, 7, "....s.....", &bad);
	assert_int_equal(bad, 7);
	/* a skip just before the first bad one: cannot judge */
	halve(10, 5, "....s.....", &bad);
	assert_int_equal(bad, -1);
	/* everything between skipped */
	halve(6, 3, ".ssss.", &bad);
	assert_int_equal(bad, -1);
}

static void test_bounds(void **state)
{
	enum bs_mark m[] = { BS_GOOD, BS_GOOD, BS_SKIP, BS_SKIP, BS_BAD, BS_UNTESTED, BS_BAD };
	size_t good, bad;

	(void)state;
	assert_int_equal(bs_bounds(m, 7, &good, &bad), 2);
	assert_int_equal(good, 1);
	assert_int_equal(bad, 4);
	assert_int_equal(bs_next(m, 7), -1);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_gate_read(void **state)
{
	char dir[] = "/tmp/test-bisect-XXXXXX", path[64], err[512];
	struct bs_gate g;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kernel-gate.json", dir);
	write_file(path,
		   "{\"compare\": {\"samples\": ["
		   "{\"label\": \"ext4\", \"metrics\": ["
		   "{\"name\": \"files/s\", \"comparisons\": [{\"verdict\": \"unchanged\", "
		   "\"gate\": true, \"change_pct\": -6.0, \"floor_pct\": 7.0}]},"
		   "{\"name\": \"fsync_p99\", \"comparisons\": [{\"verdict\": \"regression\", "
		   "\"gate\": true, \"change_pct\": 3.5, \"floor_pct\": 1.0}]},"
		   "{\"name\": \"MB/s\", \"comparisons\": [{\"verdict\": \"noisy\", "
		   "\"gate\": true, \"change_pct\": -30}]}]},"
		   "{\"label\": \"xfs\", \"metrics\": ["
		   "{\"name\": \"files/s\", \"comparisons\": [{\"verdict\": \"regression\", "
		   "\"gate\": false, \"change_pct\": -9.0, \"floor_pct\": 2.0}]}]}]}}");
	/* the gated regression decides, though a larger change is none */
	assert_int_equal(bs_gate_read(path, NULL, NULL, &g, err, sizeof(err)), 0);
	assert_true(g.found && g.regressed);
	assert_string_equal(g.metric, "fsync_p99");
	assert_string_equal(g.cell, "ext4");
	assert_true(fabs(g.change - 3.5) < 1e-9 && fabs(g.floor - 1.0) < 1e-9);
	/* --metric files/s: its regression on xfs counts, gated or not */
	assert_int_equal(bs_gate_read(path, "files/s", NULL, &g, err, sizeof(err)), 0);
	assert_true(g.regressed);
	assert_string_equal(g.cell, "xfs");
	/* --metric files/s@ext4: not regressed */
	assert_int_equal(bs_gate_read(path, "files/s", "ext4", &g, err, sizeof(err)), 0);
	assert_true(g.named && g.found && !g.regressed);
	/* a noisy metric is named but not judged */
	assert_int_equal(bs_gate_read(path, "MB/s", NULL, &g, err, sizeof(err)), 0);
	assert_true(g.named && !g.found);
	/* an unknown one is not even named */
	assert_int_equal(bs_gate_read(path, "ops/s", NULL, &g, err, sizeof(err)), 0);
	assert_false(g.named);
	write_file(path, "{not json");
	assert_true(bs_gate_read(path, NULL, NULL, &g, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "kernel-gate.json"));
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dpkg_vercmp),  cmocka_unit_test(test_dpkg_agrees),
		cmocka_unit_test(test_kernels_sort), cmocka_unit_test(test_halve),
		cmocka_unit_test(test_bounds),	     cmocka_unit_test(test_gate_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
