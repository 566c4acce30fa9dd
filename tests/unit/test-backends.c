/* Unit tests of fsbench/cli/backends: which row the options select, its rules, a boot's words. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fsbench/cli/backends.h"

static void test_selected(void **state)
{
	struct cmd_backend_cfg c = { 0 };
	const struct cmd_backend *be;

	(void)state;
	assert_null(cmd_backend_selected(&c)); /* none: the local QEMU boot */
	c.lava = "https://lava.example/";
	be = cmd_backend_selected(&c);
	assert_non_null(be);
	assert_string_equal(be->option, "lava");
	assert_non_null(be->fixed);
	assert_string_equal(be->fixed_disk, "model");
}

/* A backend's options given without the one that selects it are refused, with a reason. */
static void test_check(void **state)
{
	struct cmd_backend_cfg c = { .lava_priority = "high" };
	const struct cmd_backend *be = cmd_backends;
	struct kg_args a = { 0 };
	char err[512];

	(void)state;
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--lava-priority goes with --lava");
	c = (struct cmd_backend_cfg){ .lava = "https://lava.example/" };
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--lava and --lava-token-file go together");
	c.lava_token_file = "/tok";
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), 0);
	/* the files' URL serves the work directory: given, an http(s) URL, nothing to quote */
	c.lava_files_url = "https://files.example.org/gates/g1/";
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err,
			    "--lava-files-url needs --workdir DIR, the directory that URL serves");
	a.workdir = "/srv/gates/g1";
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), 0);
	c.lava_files_url = "ftp://files.example.org/";
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an http:// or https:// URL with a host"));
	c.lava_files_url = "https:///gates/";
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), -EINVAL);
	c.lava_files_url = "https://files.example.org/a b/";
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at byte 27"));
	c = (struct cmd_backend_cfg){ .lava_files_url = "https://files.example.org/" };
	assert_int_equal(be->check(&c, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--lava-files-url goes with --lava");
}

/* A boot's line is the row's for its own records only: the local boot's is the printer's. */
static void test_boot_words(void **state)
{
	json_t *rec = json_pack("{s:{s:i, s:s}}", "lava", "job", 42, "url", "https://l.example/");
	json_t *local = json_pack("{s:s}", "qemu", "qemu-system-x86_64");
	struct kg_boot b = { .seconds = 12.4, .guest_status = 3 };
	const struct cmd_backend *be = cmd_backends;
	char out[256];

	(void)state;
	assert_int_equal(be->boot_words(rec, &b, out, sizeof(out)), 0);
	assert_string_equal(out, "LAVA job 42 (https://l.example/) done in 12 s, guest status 3");
	assert_int_equal(be->boot_words(local, &b, out, sizeof(out)), -ENOENT);
	json_decref(rec);
	json_decref(local);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selected),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_boot_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
