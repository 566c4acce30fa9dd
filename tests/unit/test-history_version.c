/* Unit tests of fsbench/history/version: dpkg's version order, release order, the sort key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fsbench/history/ident.h"
#include "fsbench/history/version.h"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* What dpkg --compare-versions says of each pair (dpkg --compare-versions on bookworm). */
static const struct {
	const char *a, *b;
	int cmp;
} pairs[] = {
	{ "1.0", "1.0", 0 },
	{ "1.0", "1.00", 0 },
	{ "1.0-1", "1.0-01", 0 },
	{ "0:1.0", "1.0", 0 },
	{ "1.0~rc1", "1.0", -1 },
	{ "1.0~rc1", "1.0~rc2", -1 },
	{ "1.0~~", "1.0~", -1 },
	{ "1.0", "1.0a", -1 },
	{ "1.0a", "1.0.", -1 }, /* letters before other characters */
	{ "1.0", "1.0.0", -1 },
	{ "1.9", "1.10", -1 }, /* digits as numbers */
	{ "1:0.1", "2.0", 1 }, /* the epoch first */
	{ "2.0-1", "2.0-1+b1", -1 },
	{ "2.0-1", "2.0-10", -1 },
	{ "6.1.158-1", "6.12.57-1~bpo12+1", -1 },
	{ "6.12.57-1~bpo12+1", "6.12.57-1", -1 },
	{ "6.1.0-47", "6.1.0-57", -1 },
	{ "a", "", 1 },
	{ "1.0+dfsg", "1.0-1", 1 }, /* "1.0+dfsg" has no revision: upstream 1.0+dfsg > 1.0 */
};

static void dpkg_order(void **state)
{
	char ka[HIST_KEY_MAX], kb[HIST_KEY_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		int c = sign(hist_version_cmp(pairs[i].a, pairs[i].b));
		int r = sign(hist_version_cmp(pairs[i].b, pairs[i].a));

		if (c != pairs[i].cmp)
			fail_msg("%s vs %s: %d, dpkg says %d", pairs[i].a, pairs[i].b, c,
				 pairs[i].cmp);
		assert_int_equal(r, -c);
		/* the key sorts as the comparison does */
		assert_true(hist_version_key(pairs[i].a, 0, ka, sizeof(ka)) > 0);
		assert_true(hist_version_key(pairs[i].b, 0, kb, sizeof(kb)) > 0);
		if (sign(strcmp(ka, kb)) != c)
			fail_msg("key of %s (%s) vs %s (%s): %d, expected %d", pairs[i].a, ka,
				 pairs[i].b, kb, sign(strcmp(ka, kb)), c);
	}
}

/* Debian's 6.1 stable updates and 6.12 backports in release order; an -rc before its release. */
static void release_order(void **state)
{
	static const char *const order[] = {
		"6.1.0-rc7",
		"6.1.0",
		"6.1.0-47-amd64",
		"6.1.0-57-amd64",
		"6.12.100+deb12-amd64",
		"6.12.117+deb12-amd64",
		"6.13-rc1",
		"6.13",
	};
	size_t n = sizeof(order) / sizeof(order[0]);
	char ka[HIST_KEY_MAX], kb[HIST_KEY_MAX];

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int want = sign((int)i - (int)j);

			assert_int_equal(sign(hist_release_cmp(order[i], order[j])), want);
			assert_true(hist_version_key(order[i], 1, ka, sizeof(ka)) > 0);
			assert_true(hist_version_key(order[j], 1, kb, sizeof(kb)) > 0);
			assert_int_equal(sign(strcmp(ka, kb)), want);
		}
}

static void key_too_long(void **state)
{
	char small[8], big[400];

	(void)state;
	assert_int_equal(hist_version_key("6.1.0-47", 0, small, sizeof(small)), -ENAMETOOLONG);
	memset(big, '1', sizeof(big) - 1); /* a 399-digit number: longer than a key's length byte */
	big[sizeof(big) - 1] = 0;
	assert_int_equal(hist_version_key(big, 0, (char[HIST_KEY_MAX]){ 0 }, HIST_KEY_MAX),
			 -ENAMETOOLONG);
}

/* The kernel a result names: the boot record's .deb, Debian's uname -v, a -gHASH release. */
static void kernel_identity(void **state)
{
	struct hist_kernel k;
	json_t *doc;

	(void)state;
	doc = json_pack("{s:{s:s}, s:{s:{s:s, s:s}}}", "host", "kernel", "6.18.0", "vm", "kernel",
			"release", "6.1.0-47-amd64", "spec",
			"/srv/linux-image-6.1.0-47-amd64_6.1.158-1_amd64.deb");
	hist_kernel_of(doc, &k);
	assert_string_equal(k.release, "6.1.0-47-amd64");
	assert_string_equal(k.package, "6.1.158-1");
	assert_int_equal(k.sort_key[0], 'p');
	json_decref(doc);
	doc = json_pack("{s:{s:s, s:s}}", "host", "kernel", "6.1.0-57-amd64", "kernel_version",
			"#1 SMP PREEMPT_DYNAMIC Debian 6.1.170-1 (2026-05-01)");
	hist_kernel_of(doc, &k);
	assert_string_equal(k.package, "6.1.170-1");
	json_decref(doc);
	doc = json_pack("{s:{s:s}}", "host", "kernel", "6.13.0-rc1-00042-gabcdef123456");
	hist_kernel_of(doc, &k);
	assert_string_equal(k.package, "");
	assert_string_equal(k.commit, "abcdef123456");
	assert_int_equal(k.sort_key[0], 'r');
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dpkg_order),
		cmocka_unit_test(release_order),
		cmocka_unit_test(key_too_long),
		cmocka_unit_test(kernel_identity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
