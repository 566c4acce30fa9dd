/* Unit tests of base/spawn.h: exec's errno, the kept line, output to a file, the watch, the parent's death. */
#include <errno.h>
#include <fcntl.h>
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
	/*
	 * a signal is 128 + its number. The tool is pid 1 of its own namespace, which only
	 * SIGKILL from outside ends (a watch's, the OOM killer's): a killer process sends it
	 * to the host pid the tool writes down.
	 */
	char pidf[] = "/tmp/fsbench-spawn.XXXXXX", cmd[128];
	int fd = mkstemp(pidf);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "read -r p x </proc/self/stat; echo $p >%s; exec sleep 30",
		 pidf);
	pid_t killer = fork();
	assert_true(killer >= 0);
	if (killer == 0) {
		for (int i = 0; i < 250; i++, usleep(20000)) {
			FILE *f = fopen(pidf, "re");
			int pid = 0;

			if (f && fscanf(f, "%d", &pid) == 1 && pid > 0 && !kill(pid, SIGKILL))
				_exit(0);
			if (f)
				fclose(f);
		}
		_exit(1);
	}
	char *killed[] = { "sh", "-c", cmd, NULL };
	assert_int_equal(base_spawn_tool(killed, NULL, BASE_SPAWN_LAST, msg, sizeof(msg)),
			 128 + SIGKILL);
	waitpid(killer, NULL, 0);
	unlink(pidf);
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

/*
 * base_spawn_tool_fd: stdin and stdout are the caller's descriptors (a dropped step reads a
 * file root opened and writes root's archive); the file need not be reachable by path.
 */
static void test_tool_fds(void **state)
{
	char dir[] = "/tmp/fsbench-spawn-fd.XXXXXX", in[PATH_MAX], out[PATH_MAX], buf[64];
	char *cat[] = { "cat", NULL };
	int ifd, ofd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	ifd = open(in, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ofd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(ifd >= 0 && ofd >= 0);
	assert_int_equal(write(ifd, "by descriptor\n", 14), 14);
	assert_int_equal(lseek(ifd, 0, SEEK_SET), 0);
	unlink(in); /* gone by name: only the descriptor leads to it */
	assert_int_equal(base_spawn_tool_fd(cat, ifd, ofd, BASE_SPAWN_LAST, NULL, 0), 0);
	assert_int_equal(base_read_line(out, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "by descriptor");
	/* -1: stdout to /dev/null, nothing more in the file */
	assert_int_equal(lseek(ifd, 0, SEEK_SET), 0);
	assert_int_equal(base_spawn_tool_fd(cat, ifd, -1, BASE_SPAWN_LAST, NULL, 0), 0);
	assert_int_equal(lseek(ofd, 0, SEEK_END), 14);
	close(ifd);
	close(ofd);
	unlink(out);
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

/* True once @pid is gone, or a zombie waiting for init, within 2 s. */
static bool gone_soon(pid_t pid)
{
	for (int i = 0; i < 100; i++) {
		char path[64], st = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		FILE *p = fopen(path, "re");
		if (!p || fscanf(p, "%*d %*s %c", &st) != 1 || st == 'Z') {
			if (p)
				fclose(p);
			return true;
		}
		fclose(p);
		usleep(20000);
	}
	kill(pid, SIGKILL);
	return false;
}

/*
 * A process that runs @argv through base_spawn_run with @ns, fd 3 its pipe; reads @n numbers
 * the program writes to fd 3 into @nums, then kills that process with SIGKILL.
 */
static void run_and_kill(char **argv, bool ns, int *nums, int n)
{
	int pfd[2];
	pid_t mid;

	assert_int_equal(pipe(pfd), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		int status;

		dup2(pfd[1], 3);
		struct base_spawn s = { .argv = argv, .die_with_parent = true, .own_pid_ns = ns };
		base_spawn_run(&s, &status);
		_exit(0);
	}
	close(pfd[1]);
	FILE *f = fdopen(pfd[0], "r");
	assert_non_null(f);
	for (int i = 0; i < n; i++)
		assert_int_equal(fscanf(f, "%d", &nums[i]), 1);
	fclose(f);
	kill(mid, SIGKILL);
	waitpid(mid, NULL, 0);
}

/* With die_with_parent, the child goes when the process that started it is killed. */
static void test_die_with_parent(void **state)
{
	char *argv[] = { "sh", "-c", "echo $$ >&3; exec sleep 30", NULL };
	int grandchild;

	(void)state;
	run_and_kill(argv, false, &grandchild, 1);
	if (!gone_soon(grandchild))
		fail_msg("the child outlived its parent's kill -9");
}

/*
 * With own_pid_ns the child is pid 1 of a new namespace, and what it forked dies with it:
 * the inner sh reads its host pid from the host's /proc before it becomes sleep.
 */
static void test_own_pid_ns(void **state)
{
	char *argv[] = { "sh", "-c",
			 "echo $$ >&3; sh -c 'read -r p x </proc/self/stat; echo $p >&3; "
			 "exec sleep 30' & wait",
			 NULL };
	int nums[2];

	(void)state;
	if (geteuid())
		skip(); /* CLONE_NEWPID needs root; the fallback is test_die_with_parent's fork */
	run_and_kill(argv, true, nums, 2);
	assert_int_equal(nums[0], 1);
	if (!gone_soon(nums[1]))
		fail_msg("the child's own child outlived the kill -9 of the child's parent");
}

/* A program is on PATH when an executable of its name is in one of PATH's directories. */
static void test_in_path(void **state)
{
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	(void)state;
	assert_int_equal(setenv("PATH", "/nonexistent:/bin:/usr/bin", 1), 0);
	assert_true(base_spawn_in_path("sh"));
	assert_false(base_spawn_in_path("fsbench-no-such-program"));
	assert_int_equal(setenv("PATH", "/nonexistent", 1), 0);
	assert_false(base_spawn_in_path("sh"));
	assert_int_equal(unsetenv("PATH"), 0);
	assert_false(base_spawn_in_path("sh"));
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_program), cmocka_unit_test(test_kept_line),
		cmocka_unit_test(test_in_path),		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_watch_stops),	cmocka_unit_test(test_die_with_parent),
		cmocka_unit_test(test_own_pid_ns),	cmocka_unit_test(test_tool_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
