/* Unit tests of base/: root-relative file I/O, base_rm_tree, errf and base_mix64. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/errf.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "base/mix64.h"

static char root[PATH_MAX];

/* A file under the root, as a fixture tree holds it: base_write_under never creates one. */
static void put(const char *rel, const char *value)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(value, f);
	fclose(f);
}

static int setup(void **st)
{
	(void)st;
	snprintf(root, sizeof(root), "/tmp/fsb-test-base.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	base_rm_tree(root);
	return 0;
}

static void test_read_write_under(void **st)
{
	char buf[64], path[PATH_MAX + 32];

	(void)st;
	snprintf(path, sizeof(path), "%s/sys", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put("/sys/knob", "old value, longer than the new one");
	assert_int_equal(base_write_under(root, "/sys/knob", "mq-deadline \n\n"), 0);
	assert_int_equal(base_read_under(root, "/sys/knob", buf, sizeof(buf)), 0);
	/* trailing newlines and spaces go, as sysfs adds them */
	assert_string_equal(buf, "mq-deadline");
	/* the write replaces, it does not append */
	assert_int_equal(base_write_under(root, "/sys/knob", "4"), 0);
	assert_int_equal(base_read_under(root, "/sys/knob", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4");
	assert_int_equal(base_read_under(root, "/sys/none", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(base_write_under(root, "/nodir/knob", "1"), -ENOENT);
	assert_int_equal(base_write_under(root, "/sys/absent", "1"), -ENOENT);
	/* a small buffer truncates, never overruns */
	put("/sys/long", "abcdefgh");
	assert_int_equal(base_read_under(root, "/sys/long", buf, 4), 0);
	assert_string_equal(buf, "abc");
}

static void test_rm_tree(void **st)
{
	char path[PATH_MAX + 64];
	struct stat sb;

	(void)st;
	snprintf(path, sizeof(path), "%s/t", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/t/a", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put("/t/a/f", "x");
	put("/t/g", "y");
	/* a symlink out of the tree is removed, not followed */
	snprintf(path, sizeof(path), "%s/t/a/out", root);
	put("/keep", "z");
	assert_int_equal(symlink("../../keep", path), 0);
	snprintf(path, sizeof(path), "%s/t", root);
	assert_int_equal(base_rm_tree(path), 0);
	assert_int_equal(stat(path, &sb), -1);
	snprintf(path, sizeof(path), "%s/keep", root);
	assert_int_equal(stat(path, &sb), 0);
	snprintf(path, sizeof(path), "%s/missing", root);
	assert_int_equal(base_rm_tree(path), -ENOENT);
}

static void test_path_and_strcpy(void **st)
{
	char small[8];

	(void)st;
	assert_int_equal(base_path(small, sizeof(small), "%s/%s", "ab", "cd"), 0);
	assert_string_equal(small, "ab/cd");
	assert_int_equal(base_path(small, sizeof(small), "%s", "0123456789"), -ENAMETOOLONG);
	assert_string_equal(small, "");
	base_strcpy(small, sizeof(small), "0123456789");
	assert_string_equal(small, "0123456");
	base_strcpy(small, sizeof(small), NULL);
	assert_string_equal(small, "");
	/* pieces appended, cut at the end and terminated; past it, nothing more */
	size_t pos = 0;

	base_appendf(small, sizeof(small), &pos, "%s", "abc");
	base_appendf(small, sizeof(small), &pos, "-%d", 42);
	assert_string_equal(small, "abc-42");
	base_appendf(small, sizeof(small), &pos, "%s", "xyz");
	assert_string_equal(small, "abc-42x");
	assert_true(pos >= sizeof(small));
	base_appendf(small, sizeof(small), &pos, "%s", "more");
	assert_string_equal(small, "abc-42x");
}

static void test_errf(void **st)
{
	char err[64];

	(void)st;
	assert_int_equal(errf(err, sizeof(err), -EIO, "reading %s: %s", "/x", "boom"), -EIO);
	assert_string_equal(err, "reading /x: boom");
	assert_int_equal(errf(NULL, 0, -EINVAL, "ignored %d", 1), -EINVAL);
	/* cut to the buffer, still terminated */
	assert_int_equal(errf(err, 8, -EIO, "%s", "0123456789"), -EIO);
	assert_string_equal(err, "0123456");
}

static void test_mix64(void **st)
{
	(void)st;
	/* splitmix64's published first output for seed 0 (state advanced once) */
	assert_true(base_mix64(0) == UINT64_C(0xe220a8397b1dcdaf));
	assert_true(base_mix64(1) != base_mix64(2));
}

/* What a guest controls reaches a terminal escaped: controls, ESC, DEL, C1 and bad UTF-8. */
static void test_escape(void **st)
{
	char out[64];

	(void)st;
	assert_string_equal(base_escape_str(out, sizeof(out), "plain 6.1.0-47 ok"),
			    "plain 6.1.0-47 ok");
	assert_string_equal(base_escape_str(out, sizeof(out), "\x1b]0;title\x07\r\n\t"),
			    "\\x1b]0;title\\x07\\x0d\\x0a\\x09");
	assert_string_equal(base_escape_str(out, sizeof(out),
					    "a\x7f\xc2\x9b"
					    "2J\xff\xc3"),
			    "a\\x7f\\xc2\\x9b2J\\xff\\xc3");
	assert_string_equal(base_escape_str(out, sizeof(out), "caf\xc3\xa9 \xe2\x82\xac"),
			    "caf\xc3\xa9 \xe2\x82\xac");
	/* overlong '/' and a surrogate are not UTF-8 */
	assert_string_equal(base_escape_str(out, sizeof(out), "\xc0\xaf\xed\xa0\x80"),
			    "\\xc0\\xaf\\xed\\xa0\\x80");
	/* a NUL inside the bytes is escaped too; a full buffer cuts at a whole escape */
	assert_string_equal(base_escape(out, sizeof(out), "a\0b", 3), "a\\x00b");
	assert_string_equal(base_escape_str(out, 6, "\x1b\x1b"), "\\x1b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_write_under, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rm_tree, setup, teardown),
		cmocka_unit_test(test_path_and_strcpy),
		cmocka_unit_test(test_errf),
		cmocka_unit_test(test_mix64),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
