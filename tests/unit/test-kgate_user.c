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
#include <fcntl.h>
#include <sys/socket.h>
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

/* A tree of @top: "f" (0775, "hello"), "d/g", "d/l" -> "g", "d/e/" (and @extra's link). */
static int tree_make(const char *top, const char *extra)
{
	char p[512];
	int fd;

	if (mkdir(top, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/f", top);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0 || write(fd, "hello", 5) != 5 ||
	    fchmod(fd, 0775) || close(fd))
		return -1;
	snprintf(p, sizeof(p), "%s/d", top);
	if (mkdir(p, 0775))
		return -1;
	snprintf(p, sizeof(p), "%s/d/e", top);
	if (mkdir(p, 0700))
		return -1;
	snprintf(p, sizeof(p), "%s/d/g", top);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0666)) < 0 || close(fd))
		return -1;
	snprintf(p, sizeof(p), "%s/d/l", top);
	if (symlink("g", p))
		return -1;
	snprintf(p, sizeof(p), "%s/d/x", top);
	return extra ? symlink(extra, p) : 0;
}

/* Streams @top into a new @top.out under @rules, as @u: its result, @err. */
static int tree_stream_as(const struct kg_user *u, const char *top,
			  const struct kg_user_rules *rules, char *err, size_t errlen)
{
	char out[512];
	int dfd, ofd, r;

	snprintf(out, sizeof(out), "%s.out", top);
	assert_int_equal(mkdir(out, 0700), 0);
	dfd = open(top, O_RDONLY | O_DIRECTORY);
	ofd = open(out, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0 && ofd >= 0);
	r = kg_user_stream_back(u, dfd, top, ofd, out, rules, err, errlen);
	close(dfd);
	close(ofd);
	return r;
}

/* The same in this process, as this user. */
static int tree_stream(const char *top, const struct kg_user_rules *rules, char *err, size_t errlen)
{
	const struct kg_user u = { .drop = false, .lock = -1 };

	return tree_stream_as(&u, top, rules, err, errlen);
}

/* A tree @tmp/@name whose @node is made @mode (a FIFO, or a file's mode) is refused: @why. */
static void tree_refused(const char *tmp, const char *name, const char *node, mode_t mode,
			 const struct kg_user_rules *rules, const char *why)
{
	char top[256], p[512], err[1024] = "";

	snprintf(top, sizeof(top), "%s/%s", tmp, name);
	assert_int_equal(tree_make(top, NULL), 0);
	snprintf(p, sizeof(p), "%s/%s", top, node);
	assert_int_equal(S_ISFIFO(mode) ? mkfifo(p, mode & 0777) : chmod(p, mode), 0);
	assert_int_equal(tree_stream(top, rules, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, why));
}

/* A tree comes back as new files with masked modes; what the rules forbid is refused. */
static void test_stream_back(void **state)
{
	const struct kg_user_rules all = {
		.subdirs = true, .links = true, .max_entries = 10, .max_total_bytes = 1 << 20
	};
	struct kg_user_rules few = all, small = all, flat = all;
	char tmp[] = "/tmp/fsb-stream-XXXXXX", top[256], p[512], buf[16] = "", err[1024] = "";
	struct stat a, b;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(top, sizeof(top), "%s/t", tmp);
	assert_int_equal(tree_make(top, NULL), 0);
	assert_int_equal(tree_stream(top, &all, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s.out/f", top);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_mode & 07777, 0755); /* nothing others may write */
	fd = open(p, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), 5);
	close(fd);
	assert_string_equal(buf, "hello");
	snprintf(p, sizeof(p), "%s/f", top);
	assert_int_equal(stat(p, &b), 0);
	assert_true(a.st_ino != b.st_ino); /* a new file, not the step's */
	snprintf(p, sizeof(p), "%s.out/d", top);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_mode & 07777, 0755);
	snprintf(p, sizeof(p), "%s.out/d/e", top);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_mode & 07777, 0700);
	snprintf(p, sizeof(p), "%s.out/d/l", top);
	assert_int_equal(readlink(p, buf, sizeof(buf)), 1);
	snprintf(p, sizeof(p), "%s.out", top);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_mode & 07777, 0755);

	/* a link leading out, too many entries, too many bytes, subdirectories, a FIFO */
	snprintf(top, sizeof(top), "%s/out", tmp);
	assert_int_equal(tree_make(top, "../../etc"), 0);
	assert_int_equal(tree_stream(top, &all, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "d/x is a symlink leading outside the tree"));
	snprintf(top, sizeof(top), "%s/many", tmp);
	few.max_entries = 3;
	assert_int_equal(tree_make(top, NULL), 0);
	assert_int_equal(tree_stream(top, &few, err, sizeof(err)), -E2BIG);
	snprintf(top, sizeof(top), "%s/big", tmp);
	small.max_total_bytes = 4;
	assert_int_equal(tree_make(top, NULL), 0);
	assert_int_equal(tree_stream(top, &small, err, sizeof(err)), -EFBIG);
	snprintf(top, sizeof(top), "%s/flat", tmp);
	flat.subdirs = false;
	assert_int_equal(tree_make(top, NULL), 0);
	assert_int_equal(tree_stream(top, &flat, err, sizeof(err)), -EPERM);
	tree_refused(tmp, "suid", "d/g", 04755, &all, "d/g is a setuid or setgid file");
	tree_refused(tmp, "fifo", "d/e/p", S_IFIFO | 0600, &all, "d/e/p is a FIFO");

	/* as root: the sending step runs as a claimed uid, on a tree that uid owns */
	if (!geteuid()) {
		struct kg_user u;

		assert_int_equal(kg_user_claim(&u, err, sizeof(err)), 0);
		snprintf(top, sizeof(top), "%s/dropped", tmp);
		assert_int_equal(tree_make(top, NULL), 0);
		snprintf(p, sizeof(p), "chown -hR %u:%u %s", (unsigned)u.uid, (unsigned)u.gid, top);
		assert_int_equal(system(p), 0);
		assert_int_equal(tree_stream_as(&u, top, &all, err, sizeof(err)), 0);
		snprintf(p, sizeof(p), "%s.out/d/g", top);
		assert_int_equal(lstat(p, &a), 0);
		assert_int_equal(a.st_uid, 0);
		kg_user_release(&u);
	}
	snprintf(p, sizeof(p), "rm -rf %s", tmp);
	assert_int_equal(system(p), 0);
}

struct into_step {
	int out;
	size_t n;
};

/* A step that writes @n bytes of 'x' where kg_user_run_into says. */
static int into_step(int dfd, const char *dir, void *arg, char *err, size_t errlen)
{
	struct into_step *a = arg;
	char buf[4096];

	(void)dfd, (void)dir, (void)err, (void)errlen;
	memset(buf, 'x', sizeof(buf));
	for (size_t done = 0; done < a->n;) {
		size_t k = a->n - done < sizeof(buf) ? a->n - done : sizeof(buf);
		/* MSG_NOSIGNAL: the step runs in this process when not dropped */
		ssize_t w = send(a->out, buf, k, MSG_NOSIGNAL);

		if (w <= 0)
			return -errno;
		done += (size_t)w;
	}
	return 0;
}

/* A step's output comes to root's file over a socket, bounded. */
static void test_run_into(void **state)
{
	const struct kg_user u = { .drop = false, .lock = -1 };
	struct into_step a = { .out = -1, .n = 300000 };
	struct kg_user_ran ran;
	char tmp[] = "/tmp/fsb-into-XXXXXX", err[512] = "";
	struct stat st;
	int out = mkstemp(tmp);

	(void)state;
	assert_true(out >= 0);
	unlink(tmp);
	assert_int_equal(kg_user_run_into(&u, AT_FDCWD, ".", into_step, &a, &a.out, out, 1 << 20,
					  &ran, err, sizeof(err)),
			 0);
	assert_int_equal(fstat(out, &st), 0);
	assert_int_equal(st.st_size, 300000);
	assert_int_equal(ftruncate(out, 0), 0);
	/* past the bound: refused, and the step's next write fails rather than hang */
	assert_int_equal(kg_user_run_into(&u, AT_FDCWD, ".", into_step, &a, &a.out, out, 1000, &ran,
					  err, sizeof(err)),
			 -EFBIG);
	close(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_range),      cmocka_unit_test(test_claim),
		cmocka_unit_test(test_release_kills), cmocka_unit_test(test_stream_back),
		cmocka_unit_test(test_run_into),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
