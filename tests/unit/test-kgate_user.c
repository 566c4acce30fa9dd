/* The kernel gate's transient uids (fsbench/kgate/user.c): the range, claims apart, a release that ends the uid's processes. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsbench/kgate/user.h"

/* Never root, nobody or the (uid_t)-1 that setresuid reads as "unchanged" (issue 40). */
static void test_in_range(void **state)
{
	(void)state;
	assert_false(kg_user_in_range(0));
	assert_false(kg_user_in_range(65534));
	assert_false(kg_user_in_range((uid_t)-1));
	assert_false(kg_user_in_range(4294967295UL));
	assert_false(kg_user_in_range(KG_UID_FIRST - 1));
	assert_false(kg_user_in_range(KG_UID_LAST + 1));
	assert_true(kg_user_in_range(KG_UID_FIRST));
	assert_true(kg_user_in_range(KG_UID_LAST));
}

static bool lock_exists(uid_t uid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%u.lock", KG_UID_LOCK_DIR, (unsigned)uid);
	return !stat(path, &st);
}

/* Two claims at once get two free uids, each with its lock; a release lets its lock go. */
static void test_claim(void **state)
{
	struct kg_user a, b;
	char err[512] = "";

	(void)state;
	if (geteuid()) {
		assert_int_equal(kg_user_claim(&a, err, sizeof(err)), 0);
		assert_false(a.drop);
		assert_int_equal(a.lock, -1);
		kg_user_release(&a);
		skip();
	}
	setenv("SUDO_UID", "-1", 1); /* not read: it made the steps root before */
	setenv("SUDO_GID", "-1", 1);
	assert_int_equal(kg_user_claim(&a, err, sizeof(err)), 0);
	assert_int_equal(kg_user_claim(&b, err, sizeof(err)), 0);
	assert_true(a.drop && b.drop);
	assert_true(kg_user_in_range(a.uid) && kg_user_in_range(b.uid));
	assert_int_not_equal(a.uid, b.uid);
	assert_int_equal(a.gid, a.uid);
	assert_null(getpwuid(a.uid));
	assert_null(getgrgid(a.gid));
	assert_true(lock_exists(a.uid) && lock_exists(b.uid));
	kg_user_release(&a);
	assert_false(lock_exists(a.uid));
	assert_int_equal(a.lock, -1);
	kg_user_release(&a); /* twice: nothing */
	kg_user_release(&b);
	assert_false(lock_exists(b.uid));
}

/* A process left running as the uid (a guest out of QEMU) does not outlive the release. */
static void test_release_kills(void **state)
{
	struct kg_user u;
	char err[512] = "";
	int st = 0, p[2];
	pid_t pid;

	(void)state;
	if (geteuid())
		skip();
	assert_int_equal(kg_user_claim(&u, err, sizeof(err)), 0);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(u.gid, u.gid, u.gid) ||
		    setresuid(u.uid, u.uid, u.uid))
			_exit(1);
		close(p[0]);
		close(p[1]); /* running as the uid now */
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &st, 1), 0);
	close(p[0]);
	kg_user_release(&u);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGKILL);
	assert_false(lock_exists(u.uid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_range),
		cmocka_unit_test(test_claim),
		cmocka_unit_test(test_release_kills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
