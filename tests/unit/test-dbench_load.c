/* Unit tests of the NBENCH loadfile parser (workloads/dbench_load.c): what it keeps, what it refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fsbench/workloads/dbench_load.h"

static int parse(const char *text, struct nb_load *l, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	err[0] = 0;
	r = nb_load_parse(f, "test.load", l, err, errlen);
	fclose(f);
	return r;
}

/* Every operation client.txt uses, as dbench reads them: paths, numbers, status, REPEAT. */
static void test_parses_every_operation(void **unused)
{
	static const char text[] =
		"# a comment line\n"
		"Deltree \"\\clients\\client1\" NT_STATUS_OK\n"
		"Mkdir \"\\clients\" NT_STATUS_OK\n"
		"NTCreateX \"\\clients\\client1\\a.doc\" 0x40 0x2 9938 NT_STATUS_OK\n"
		"\n"
		"REPEAT 3\n"
		"WriteX 9938 0 65536 65536 NT_STATUS_OK\n"
		"ReadX 9938 0 4096 4096 NT_STATUS_OK\n"
		"LockX 9938 0 1 NT_STATUS_OK\n"
		"UnlockX 9938 0 1 NT_STATUS_OK\n"
		"Flush 9938 NT_STATUS_OK\n"
		"QUERY_FILE_INFORMATION 9938 258 NT_STATUS_OK\n"
		"SET_FILE_INFORMATION 9938 1004 NT_STATUS_OK\n"
		"Close 9938 NT_STATUS_OK\n"
		"QUERY_PATH_INFORMATION \"\\clients\\client1\\x\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
		"FIND_FIRST \"\\clients\\client1\\*.doc\" 260 1366 0 NT_STATUS_OK\n"
		"QUERY_FS_INFORMATION 1 NT_STATUS_OK\n"
		"Rename \"\\clients\\client1\\a.doc\" \"\\clients\\client1\\b.doc\" NT_STATUS_OK\n"
		"Unlink \"\\clients\\client1\\b.doc\" 0x6 NT_STATUS_OK\n"
		"Rmdir \"\\clients\\client1\\gone\" NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
		"1.5 Sleep 1000 NT_STATUS_OK\n";
	struct nb_load l;
	char err[512];

	(void)unused;
	assert_int_equal(parse(text, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 18);
	assert_int_equal(l.nlines, 21);
	assert_int_equal(l.count[NB_WRITEX], 3);
	assert_int_equal(l.v[3].repeat, 3);
	assert_int_equal(l.v[4].repeat, 1);
	assert_int_equal(l.count[NB_READX], 1);
	assert_int_equal(l.count[NB_NTCREATEX], 1);
	assert_int_equal(l.max_io, 65536);
	assert_int_equal(l.v[0].op, NB_DELTREE);
	assert_int_equal(l.v[0].lineno, 2);
	/* the path below -D, "client1" marked for each client's own name */
	assert_string_equal(nb_path(&l, l.v[0].path), "clients/\001");
	assert_string_equal(nb_path(&l, l.v[1].path), "clients");
	assert_string_equal(nb_path(&l, l.v[2].path), "clients/\001/a.doc");
	assert_int_equal(l.v[2].p[0], 0x40);
	assert_int_equal(l.v[2].p[1], 2);
	assert_int_equal(l.v[2].p[2], 9938);
	assert_true(l.v[2].ok);
	assert_false(l.v[11].ok);
	assert_int_equal(l.v[14].op, NB_RENAME);
	assert_string_equal(nb_path(&l, l.v[14].path2), "clients/\001/b.doc");
	assert_int_equal(l.v[17].op, NB_SLEEP);
	assert_int_equal(l.v[17].target_ns, 1500000000u);
	assert_true(l.timed);
	nb_load_free(&l);
}

/* Each fault names the file and its line, and is refused with -EINVAL. */
static void test_refuses_with_line_number(void **unused)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "Close 1 NT_STATUS_OK\nFrobnicate 1 NT_STATUS_OK\n",
		  "line 2: unknown operation" },
		{ "Close 1 OK\n", "line 1: 'OK' is not a status" },
		{ "ReadX 1 0 10 NT_STATUS_OK\n", "line 1: expected ReadX HANDLE" },
		{ "Unlink \\clients\\x NT_STATUS_OK\n", "line 1: '/clients/x': a path is written" },
		{ "Unlink \"\\clients\\..\\..\\etc\" NT_STATUS_OK\n", "line 1: a '..' component" },
		{ "Unlink \"\\\" NT_STATUS_OK\n", "line 1: the path names -D itself" },
		{ "Unlink \"clients\" NT_STATUS_OK\n", "line 1: a path must start with" },
		{ "\n\nLOOP 3\n", "line 3: LOOP is not supported" },
		{ "ReadX 1 * 10 10 NT_STATUS_OK\n", "line 1: '*': dbench's random" },
		{ "Close one NT_STATUS_OK\n", "line 1: 'one' is not a number" },
		{ "Unlink \"\\a NT_STATUS_OK\n", "line 1: a \" without its closing" },
		{ "WriteX 1 0 99999999 99999999 NT_STATUS_OK\n", "sizes at most 16 MiB" },
		{ "REPEAT 0\nClose 1 NT_STATUS_OK\n", "line 1: expected REPEAT N" },
		{ "Close 1 NT_STATUS_OK\nREPEAT 2\n", "REPEAT on the last line" },
		{ "# nothing\n", "no operations" },
		{ "SMBopenX x y NT_STATUS_OK\n", "line 1: this is a dbench 1 loadfile" },
		{ "x 1.5 Close 1 NT_STATUS_OK\n", "line 1: unknown operation 'x'" },
	};
	char err[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nb_load l;
		int r = parse(bad[i].text, &l, err, sizeof(err));

		if (r != -EINVAL || !strstr(err, bad[i].says) || !strstr(err, "test.load"))
			fail_msg("case %zu: got %d '%s', expected -EINVAL saying '%s'", i, r, err,
				 bad[i].says);
		nb_load_free(&l);
	}
}

/* A line past 1024 characters is refused rather than read as two. */
static void test_refuses_long_line(void **unused)
{
	char text[2100], err[512];
	struct nb_load l;

	(void)unused;
	memset(text, 'x', sizeof(text) - 2);
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = 0;
	assert_int_equal(parse(text, &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1: longer than 1024"));
	nb_load_free(&l);
}

/* Debian's client.txt, when the dbench package is installed: every line of it parses. */
static void test_parses_client_txt(void **unused)
{
	struct nb_load l;
	char err[512];
	FILE *f = fopen("/usr/share/dbench/client.txt", "r");

	(void)unused;
	if (!f)
		skip();
	fclose(f);
	assert_int_equal(nb_load_read("/usr/share/dbench/client.txt", &l, err, sizeof(err)), 0);
	assert_true(l.n > 400000);
	assert_true(l.count[NB_NTCREATEX] > 0 && l.count[NB_READX] > 0);
	nb_load_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parses_every_operation),
		cmocka_unit_test(test_refuses_with_line_number),
		cmocka_unit_test(test_refuses_long_line),
		cmocka_unit_test(test_parses_client_txt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
