/* Unit tests of base/spawn.h: exec's errno, the kept line, output to a file, the watch, the parent's death. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "base/spawn.h"

/* A missing program is exec's own ENOENT, not a guess from exit status 127. */
static void test_missing_program(void **state)
{
	char *argv[] = { "fsbench-no-such-program", NULL };
	char msg[128] = "untouched";

	(void)state;
	assert_int_equal(base_spawn_tool(argv, NULL, BASE_SPAWN_LAST, msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "");
	/* a program that exits 127 itself is a status, not "missing" */
	char *sh[] = { "sh", "-c", "echo fsbench-no-such-program >&2; exit 127", NULL };
	assert_int_equal(base_spawn_tool(sh, NULL, BASE_SPAWN_LAST, msg, sizeof(msg)), 127);
	assert_string_equal(msg, "fsbench-no-such-program");
}

/* FIRST keeps the reason a tool prints first, LAST the last words; blank lines skipped. */
static void test_kept_line(void **state)
{
	char *argv[] = { "sh", "-c", "printf '\\n first\\nmiddle\\nlast  \\n\\n' >&2; exit 3",
			 NULL };
	char msg[64];

	(void)state;
	assert_int_equal(base_spawn_tool(argv, NULL, BASE_SPAWN_FIRST, msg, sizeof(msg)), 3);
	assert_string_equal(msg, "first");
	assert_int_equal(base_spawn_tool(argv, NULL, BASE_SPAWN_LAST, msg, sizeof(msg)), 3);
	assert_string_equal(msg, "last");
	/* more than the capture holds: the tail is still the last line */
	char *lots[] = { "sh", "-c",
			 "i=0; while [ $i -lt 2000 ]; do echo line$i >&2; i=$((i+1)); done", NULL };
	assert_int_equal(base_spawn_tool(lots, NULL, BASE_SPAWN_LAST, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "line1999");
	assert_int_equal(base_spawn_tool(lots, NULL, BASE_SPAWN_FIRST, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "line0");
	/* a signal is 128 + its number */
	char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };
	assert_int_equal(base_spawn_tool(killed, NULL, BASE_SPAWN_LAST, msg, sizeof(msg)),
			 128 + SIGTERM);
}

/* stdout into a file; never through a symlink, and with excl never over an existing file. */
static void test_output_file(void **state)
{
	char dir[] = "/tmp/fsbench-test-spawn.XXXXXX", path[PATH_MAX], link[PATH_MAX], buf[64];
	char *argv[] = { "echo", "hello", NULL };
	int status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	assert_int_equal(base_spawn_tool(argv, path, BASE_SPAWN_LAST, NULL, 0), 0);
	assert_int_equal(base_read_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hello");
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(base_spawn_tool(argv, link, BASE_SPAWN_LAST, NULL, 0), -ELOOP);
	struct base_spawn s = { .argv = argv,
				.out = BASE_SPAWN_FILE,
				.err = BASE_SPAWN_FILE,
				.path = path,
				.excl = true };
	assert_int_equal(base_spawn_run(&s, &status), -EEXIST);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

static int stop_after_three(pid_t pid, void *arg)
{
	int *calls = arg;

	(void)pid;
	return ++*calls >= 3 ? -ETIMEDOUT : 0;
}

/* The watch is called while the child runs; its errno stops and reaps the child. */
static void test_watch_stops(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	int calls = 0, status = 0;
	struct base_spawn s = {
		.argv = argv, .watch = stop_after_three, .watch_arg = &calls, .watch_ms = 20
	};

	(void)state;
	assert_int_equal(base_spawn_run(&s, &status), -ETIMEDOUT);
	assert_int_equal(calls, 3);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* a child that ends on its own: 0 and its status */
	char *quick[] = { "sh", "-c", "exit 4", NULL };
	calls = -1000;
	s.argv = quick;
	assert_int_equal(base_spawn_run(&s, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 4);
}

/* With die_with_parent, the child goes when the process that started it is killed. */
static void test_die_with_parent(void **state)
{
	int pfd[2];
	pid_t mid, grandchild = 0;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		char *argv[] = { "sh", "-c", "echo $$ >&3; exec sleep 30", NULL };
		int status;

		dup2(pfd[1], 3);
		struct base_spawn s = { .argv = argv, .die_with_parent = true };
		base_spawn_run(&s, &status);
		_exit(0);
	}
	close(pfd[1]);
	FILE *f = fdopen(pfd[0], "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &grandchild), 1);
	fclose(f);
	kill(mid, SIGKILL);
	waitpid(mid, NULL, 0);
	for (int i = 0; i < 100; i++) { /* gone, or a zombie waiting for init */
		char path[64], st = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)grandchild);
		FILE *p = fopen(path, "re");
		if (!p || fscanf(p, "%*d %*s %c", &st) != 1 || st == 'Z') {
			if (p)
				fclose(p);
			return;
		}
		fclose(p);
		usleep(20000);
	}
	kill(grandchild, SIGKILL);
	fail_msg("the child outlived its parent's kill -9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_program), cmocka_unit_test(test_kept_line),
		cmocka_unit_test(test_output_file),	cmocka_unit_test(test_watch_stops),
		cmocka_unit_test(test_die_with_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
