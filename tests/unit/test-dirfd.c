/* Unit tests of base/dirfd: the trusted walk, private directories, opens beneath a descriptor. */
#include <errno.h>
#include <fcntl.h>
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

#include "base/dirfd.h"
#include "base/fileio.h"

/* Another user's uid, for what a hostile user would plant (the tests that need it run as root). */
#define OTHER_UID 65534

static char root[256];

static void path(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", root, rel);
}

static void make_dir(const char *rel, mode_t mode)
{
	char p[PATH_MAX];

	path(p, rel);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, mode), 0); /* past the umask */
}

static int setup(void **st)
{
	(void)st;
	snprintf(root, sizeof(root), "/tmp/fsb-test-dirfd.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	base_rm_tree(root);
	return 0;
}

static void test_trusted_ok(void **st)
{
	char p[PATH_MAX], err[512];
	struct stat a, b;
	int fd;

	(void)st;
	make_dir("mine", 0755);
	path(p, "mine/../mine/.");
	fd = base_dir_open_trusted(p, geteuid(), false, err, sizeof(err));
	assert_true(fd >= 0);
	path(p, "mine");
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(fstat(fd, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	close(fd);
}

static void test_other_writable_parent(void **st)
{
	char p[PATH_MAX], err[512];

	(void)st;
	make_dir("open", 0777);
	make_dir("open/sub", 0755);
	path(p, "open/sub");
	assert_int_equal(base_dir_open_trusted(p, geteuid(), false, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "group or others may write it"));
	assert_non_null(strstr(err, "/open"));
	/* sticky, as /tmp: an ancestor may be; the directory itself only when shared */
	make_dir("sticky", 01777);
	make_dir("sticky/sub", 0755);
	path(p, "sticky/sub");
	int fd = base_dir_open_trusted(p, geteuid(), false, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	path(p, "sticky");
	assert_int_equal(base_dir_open_trusted(p, geteuid(), false, err, sizeof(err)), -EPERM);
	fd = base_dir_open_trusted(p, geteuid(), true, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
}

static void test_symlink_component(void **st)
{
	char p[PATH_MAX], link[PATH_MAX], err[512];
	int fd;

	(void)st;
	make_dir("real", 0755);
	make_dir("real/sub", 0755);
	path(link, "link");
	assert_int_equal(symlink("real", link), 0);
	/* this user's own link (or root's) is followed, and its target walked */
	path(p, "link/sub");
	fd = base_dir_open_trusted(p, geteuid(), false, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	if (geteuid() != 0)
		skip(); /* planting another user's link needs root */
	assert_int_equal(lchown(link, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(base_dir_open_trusted(p, geteuid(), false, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "symlink another user owns"));
}

static void test_other_owner(void **st)
{
	char p[PATH_MAX], err[512];

	(void)st;
	if (geteuid() != 0)
		skip();
	make_dir("theirs", 0755);
	make_dir("theirs/sub", 0755);
	path(p, "theirs");
	assert_int_equal(chown(p, OTHER_UID, OTHER_UID), 0);
	path(p, "theirs/sub");
	assert_int_equal(base_dir_open_trusted(p, 0, false, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "another user owns it"));
}

static void test_beneath(void **st)
{
	int (*open_fn[2])(int, const char *, int, mode_t) = { base_open_beneath,
							      base_open_beneath_walk };
	char p[PATH_MAX], link[PATH_MAX];
	int dfd, fd;

	(void)st;
	make_dir("top", 0755);
	make_dir("top/a", 0755);
	make_dir("outside", 0755);
	path(link, "top/a/out");
	assert_int_equal(symlink("../../outside", link), 0);
	path(p, "top");
	dfd = open(p, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(open_fn[i](dfd, "../outside", O_RDONLY | O_DIRECTORY, 0), -EXDEV);
		assert_int_equal(open_fn[i](dfd, "a/../../outside", O_RDONLY | O_DIRECTORY, 0),
				 -EXDEV);
		assert_int_equal(open_fn[i](dfd, "/etc/passwd", O_RDONLY, 0), -EXDEV);
		assert_int_equal(open_fn[i](dfd, "a/out/f", O_WRONLY | O_CREAT | O_EXCL, 0600),
				 -ELOOP);
		assert_int_equal(open_fn[i](dfd, "a/out", O_RDONLY, 0), -ELOOP);
		/* O_DIRECTORY on a last name that is a symlink: ELOOP too, not ENOTDIR */
		assert_int_equal(open_fn[i](dfd, "a/out", O_PATH | O_DIRECTORY, 0), -ELOOP);
		/* a mode without O_CREAT (dbench passes 0600 always): openat2 would say EINVAL */
		fd = open_fn[i](dfd, "a", O_RDONLY | O_DIRECTORY, 0600);
		assert_true(fd >= 0);
		close(fd);
		fd = open_fn[i](dfd, i ? "a/g" : "a/f", O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(open_fn[i](dfd, "a/f", O_WRONLY | O_CREAT | O_EXCL, 0600),
				 -EEXIST);
	}
	path(p, "outside/f");
	assert_int_equal(access(p, F_OK), -1);
	close(dfd);
}

/* A path's directory beneath a descriptor and its last name: no symlink on the way followed. */
static void test_parent_beneath(void **st)
{
	char p[PATH_MAX], link[PATH_MAX];
	const char *last = NULL;
	struct stat a, b;
	int dfd, pfd;

	(void)st;
	make_dir("pb", 0755);
	make_dir("pb/a", 0755);
	make_dir("pb/a/b", 0755);
	make_dir("victim", 0700);
	make_dir("victim/f", 0700); /* the name the paths below end in, outside pb */
	path(link, "pb/a/out");
	assert_int_equal(symlink("../../victim", link), 0);
	path(p, "pb");
	dfd = open(p, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	/* one name: -D's own descriptor, not a new one */
	assert_int_equal(base_parent_beneath(dfd, "f", &last), dfd);
	assert_string_equal(last, "f");
	/* several: a new descriptor on the directory, the last name a pointer into the path */
	const char *rel = "a/b/f";
	pfd = base_parent_beneath(dfd, rel, &last);
	assert_true(pfd >= 0 && pfd != dfd);
	assert_ptr_equal(last, rel + 4);
	path(p, "pb/a/b");
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(fstat(pfd, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	assert_int_equal(mkdirat(pfd, last, 0700), 0);
	assert_int_equal(unlinkat(pfd, last, AT_REMOVEDIR), 0);
	close(pfd);
	/* through the link: refused, so victim/f is neither removed nor renamed */
	last = NULL;
	assert_int_equal(base_parent_beneath(dfd, "a/out/f", &last), -ELOOP);
	assert_null(last);
	assert_int_equal(base_parent_beneath(dfd, "a/out/x/f", &last), -ELOOP);
	/* the link as the last name is the caller's to treat (AT_SYMLINK_NOFOLLOW, unlinkat) */
	pfd = base_parent_beneath(dfd, "a/out", &last);
	assert_true(pfd >= 0);
	assert_int_equal(fstatat(pfd, last, &a, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISLNK(a.st_mode));
	close(pfd);
	/* the errors a call by path would have had, and what would leave pb */
	assert_int_equal(base_parent_beneath(dfd, "none/f", &last), -ENOENT);
	assert_int_equal(base_parent_beneath(dfd, "a/none/f", &last), -ENOENT);
	assert_int_equal(base_parent_beneath(dfd, "../victim/f", &last), -EXDEV);
	assert_int_equal(base_parent_beneath(dfd, "a/..", &last), -EXDEV);
	assert_int_equal(base_parent_beneath(dfd, "..", &last), -EXDEV);
	assert_int_equal(base_parent_beneath(dfd, "/tmp/f", &last), -EXDEV);
	assert_int_equal(base_parent_beneath(dfd, "a/", &last), -EINVAL);
	assert_int_equal(base_parent_beneath(dfd, "", &last), -EINVAL);
	path(p, "pb/a/file");
	close(open(p, O_WRONLY | O_CREAT, 0600));
	assert_int_equal(base_parent_beneath(dfd, "a/file/f", &last), -ENOTDIR);
	path(p, "victim/f");
	assert_int_equal(stat(p, &a), 0);
	close(dfd);
}

static void test_make(void **st)
{
	char p[PATH_MAX], name[64], err[512];
	int dfd, fd;

	(void)st;
	make_dir("mk", 0755);
	path(p, "mk");
	dfd = open(p, O_RDONLY | O_DIRECTORY);
	fd = base_dir_make(dfd, "new", 0755, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	/* one already there, even this user's own, is refused and not adopted */
	assert_int_equal(base_dir_make(dfd, "new", 0755, err, sizeof(err)), -EEXIST);
	fd = base_dir_make_temp(dfd, "t.", name, sizeof(name), err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(strncmp(name, "t.", 2), 0);
	assert_int_equal((int)strlen(name), 14);
	close(fd);
	close(dfd);
}

static void test_rm_at(void **st)
{
	char p[PATH_MAX], link[PATH_MAX];
	int dfd, fd;

	(void)st;
	make_dir("keep", 0755);
	make_dir("gone", 0755);
	make_dir("gone/d", 0755);
	path(p, "keep/file");
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	close(fd);
	path(link, "gone/d/link");
	assert_int_equal(symlink("../../keep", link), 0);
	dfd = open(root, O_RDONLY | O_DIRECTORY);
	assert_int_equal(base_rm_at(dfd, "gone"), 0);
	assert_int_equal(base_rm_at(dfd, "gone"), 0); /* absent: nothing to do */
	close(dfd);
	path(p, "gone");
	assert_int_equal(access(p, F_OK), -1);
	path(p, "keep/file");
	assert_int_equal(access(p, F_OK), 0); /* the link was removed, not followed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trusted_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_writable_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_component, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_beneath, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parent_beneath, setup, teardown),
		cmocka_unit_test_setup_teardown(test_make, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rm_at, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
