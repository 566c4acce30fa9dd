/* Unit tests of the mount lookup, the filesystem traits table and drop_caches, on fixtures. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/knob/drop_caches.h"
#include "base/fileio.h"
#include "probes/target/fs_traits.h"
#include "probes/target/mount.h"
#include "probes/scratch/scratch.h"
#include "probes/target/target.h"

static char root[PATH_MAX];

static void test_find_target(void **st)
{
	struct probe_mount m;

	(void)st;
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_TARGET, "/home", 0, &m), 0);
	assert_string_equal(m.target, "/home");
	assert_string_equal(m.fstype, "btrfs");
	assert_string_equal(m.source, "/dev/sdb1");
	assert_string_equal(m.fsroot, "/@home");
	assert_int_equal(m.major, 0);
	assert_int_equal(m.minor, 45);
	assert_false(m.netfs);
	/* of two mounts on one directory, the top (later) one */
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_TARGET, "/mnt/stack", 0, &m), 0);
	assert_string_equal(m.fstype, "xfs");
	/* a directory below a mount point is not a mount point */
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_TARGET, "/home/user", 0, &m), -ENOENT);
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_TARGET, "/mnt/nfs", 0, &m), 0);
	assert_true(m.netfs);
}

static void test_find_path(void **st)
{
	struct probe_mount m;

	(void)st;
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_PATH, "/home/user/x", 0, &m), 0);
	assert_string_equal(m.target, "/home");
	/* by whole components: /homework is on / */
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_PATH, "/homework", 0, &m), 0);
	assert_string_equal(m.target, "/");
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_PATH, "/mnt/stack/f", 0, &m), 0);
	assert_string_equal(m.fstype, "xfs");
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_PATH, "", 0, &m), -EINVAL);
}

static void test_find_devno(void **st)
{
	struct probe_mount m;

	(void)st;
	/* 7:3 is mounted twice: the first in mountinfo's order */
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_DEVNO, NULL, makedev(7, 3), &m), 0);
	assert_string_equal(m.target, "/mnt/loop");
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_DEVNO, NULL, makedev(9, 9), &m),
			 -ENOENT);
}

static void test_options(void **st)
{
	struct probe_mount m;
	char v[64];

	(void)st;
	assert_int_equal(probe_mount_find(root, PROBE_MOUNT_TARGET, "/home", 0, &m), 0);
	assert_int_equal(probe_mount_option(&m, "subvol", v, sizeof(v)), 0);
	assert_string_equal(v, "/@home");
	assert_int_equal(probe_mount_option(&m, "relatime", v, sizeof(v)), 0);
	assert_string_equal(v, "");
	assert_int_equal(probe_mount_option(&m, "nobarrier", NULL, 0), -ENOENT);
}

static void test_no_mountinfo(void **st)
{
	struct probe_mount m;

	(void)st;
	assert_int_equal(probe_mount_find("/nonexistent-fsb-root", PROBE_MOUNT_TARGET, "/", 0, &m),
			 -ENOENT);
}

/*
 * fixtures/holders: pid 100 in the host's namespace (self's); 200 ("sleep") and 201 in one
 * other namespace that mounts 7:5 on /tmp/held; 300 with no ns link (a namespace of its
 * own) mounting 7:6, which device-mapper also holds (sys/dev/block/7:6/holders/dm-0).
 */
static char holders[PATH_MAX];

static void test_holders_other_ns(void **st)
{
	struct probe_mount_holder h[4];
	size_t n = 99;
	bool cut = true;

	(void)st;
	assert_int_equal(probe_mount_holders(holders, makedev(7, 5), h, 4, &n, &cut), 0);
	assert_int_equal(n, 1);
	assert_false(cut);
	/* the namespace's lowest pid and its comm, whatever /proc's order */
	assert_int_equal(h[0].pid, 200);
	assert_string_equal(h[0].comm, "sleep");
	assert_int_equal(h[0].nprocs, 2);
	assert_false(h[0].own_ns);
	assert_string_equal(h[0].target, "/tmp/held");
	/* a process without an ns link is a namespace of its own */
	assert_int_equal(probe_mount_holders(holders, makedev(7, 6), h, 4, &n, &cut), 0);
	assert_int_equal(n, 1);
	assert_int_equal(h[0].pid, 300);
	assert_string_equal(h[0].target, "/mnt/six");
}

static void test_holders_own_ns(void **st)
{
	struct probe_mount_holder h[4];
	size_t n = 99;
	bool cut = false;

	(void)st;
	/* the root filesystem, mounted in every namespace: one holder per namespace */
	assert_int_equal(probe_mount_holders(holders, makedev(8, 2), h, 4, &n, NULL), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(h[i].own_ns, h[i].pid == 100);
	/* @max bounds what is named, and says so */
	assert_int_equal(probe_mount_holders(holders, makedev(8, 2), h, 1, &n, &cut), 0);
	assert_int_equal(n, 1);
	assert_true(cut);
	assert_int_equal(probe_mount_holders(holders, makedev(9, 9), h, 4, &n, &cut), 0);
	assert_int_equal(n, 0);
	assert_false(cut);
	assert_int_equal(probe_mount_holders("/nonexistent-fsb-root", makedev(9, 9), h, 4, &n,
					     NULL),
			 -ENOENT);
}

static void test_busy_why(void **st)
{
	char why[1024];

	(void)st;
	probe_scratch_busy_why(holders, makedev(7, 5), why, sizeof(why));
	assert_string_equal(why, "mounted on /tmp/held in the mount namespace of pid 200 (sleep) "
				 "and 1 other process");
	probe_scratch_busy_why(holders, makedev(7, 6), why, sizeof(why));
	assert_string_equal(why, "held by dm-0 (/sys/dev/block/7:6/holders); mounted on /mnt/six "
				 "in the mount namespace of pid 300 (unshare)");
	probe_scratch_busy_why(holders, makedev(9, 9), why, sizeof(why));
	assert_non_null(strstr(why, "no holder in /sys/dev/block/9:9/holders, and no running"));
	/* cut to the buffer, never overrun */
	probe_scratch_busy_why(holders, makedev(7, 6), why, 12);
	assert_string_equal(why, "held by dm-");
}

/* A mount's options for fs_traits_barrier_off(): "name" or "name=value" items. */
static bool opts_have(const char *name, const char *value, void *arg)
{
	char want[64];

	if (value)
		snprintf(want, sizeof(want), ",%s=%s,", name, value);
	else
		snprintf(want, sizeof(want), ",%s,", name);
	return strstr(arg, want) != NULL;
}

static void test_traits_barrier_off(void **st)
{
	(void)st;
	/* ext4 shows nobarrier after a barrier=0 mount; older kernels barrier=0 */
	assert_true(fs_traits_barrier_off("ext4", opts_have, ",rw,nobarrier,"));
	assert_true(fs_traits_barrier_off("ext3", opts_have, ",rw,barrier=0,"));
	assert_false(fs_traits_barrier_off("ext4", opts_have, ",rw,barrier=1,"));
	assert_false(fs_traits_barrier_off("ext4", opts_have, ",rw,data=ordered,"));
	assert_true(fs_traits_barrier_off("btrfs", opts_have, ",rw,nobarrier,"));
	/* spellings of other types are not this one's */
	assert_false(fs_traits_barrier_off("btrfs", opts_have, ",rw,barrier=0,"));
	assert_false(fs_traits_barrier_off("xfs", opts_have, ",rw,nobarrier,"));
	assert_false(fs_traits_barrier_off("tmpfs", opts_have, ",rw,nobarrier,"));
	assert_false(fs_traits_barrier_off(NULL, opts_have, ",rw,nobarrier,"));
}

static void test_traits(void **st)
{
	const struct fs_traits *t;

	(void)st;
	assert_string_equal(fs_traits_barrier_option("ext4", true), "barrier=1");
	assert_string_equal(fs_traits_barrier_option("ext3", false), "barrier=0");
	assert_string_equal(fs_traits_barrier_option("btrfs", false), "nobarrier");
	assert_string_equal(fs_traits_barrier_option("btrfs", true), "barrier");
	/* xfs: on needs no option, off is gone from the kernel */
	assert_string_equal(fs_traits_barrier_option("xfs", true), "");
	assert_null(fs_traits_barrier_option("xfs", false));
	assert_non_null(fs_traits_find("xfs")->barrier_why);
	assert_null(fs_traits_barrier_option("tmpfs", true));
	assert_null(fs_traits_barrier_option("ext2", true));
	assert_null(fs_traits_find(NULL));
	t = fs_traits_find("ext4");
	assert_non_null(t);
	assert_string_equal(t->mkfs_force, "-F");
	assert_non_null(t->mkfs_eager_init);
	assert_null(fs_traits_find("xfs")->mkfs_eager_init);
	/* a guest kernel (kernel-gate) loads ext4's module for the whole ext family */
	assert_string_equal(fs_traits_find("ext2")->kmod, "ext4");
	assert_string_equal(fs_traits_find("ext3")->kmod, "ext4");
	assert_string_equal(fs_traits_find("btrfs")->kmod, "btrfs");
	assert_string_equal(fs_traits_find("xfs")->kmod, "xfs");
	assert_string_equal(t->mkfs_config, "/etc/mke2fs.conf");
	assert_null(fs_traits_find("xfs")->mkfs_config);
}

/* mkfs argv comes from the same table */
static void test_mkfs_argv(void **st)
{
	char *argv[PROBE_SCRATCH_ARGV_MAX] = { 0 };
	const char *opts[] = { "-E", "stride=4", NULL };

	(void)st;
	assert_int_equal(probe_scratch_mkfs_argv("xfs", "/dev/x", NULL, argv, 16), 0);
	assert_string_equal(argv[0], "mkfs.xfs");
	assert_string_equal(argv[1], "-f");
	assert_string_equal(argv[2], "-q");
	assert_string_equal(argv[3], "/dev/x");
	assert_null(argv[4]);
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	assert_int_equal(probe_scratch_mkfs_argv("ext4", "/dev/x", opts, argv, 16), 0);
	assert_string_equal(argv[1], "-F");
	assert_string_equal(argv[3], "-E");
	assert_string_equal(argv[4], "stride=4,lazy_itable_init=0,lazy_journal_init=0");
	assert_string_equal(argv[5], "/dev/x");
	assert_null(argv[6]);
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	/* a type without traits gets no flags it may not know */
	assert_int_equal(probe_scratch_mkfs_argv("vfat", "/dev/x", NULL, argv, 16), 0);
	assert_string_equal(argv[1], "/dev/x");
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
}

static void test_dir_json(void **st)
{
	char fstype[64];
	json_t *o;

	(void)st;
	o = probe_target_dir_json(root, "/srv/bind/x", fstype, sizeof(fstype));
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "path")), "/srv/bind/x");
	assert_string_equal(json_string_value(json_object_get(o, "mountpoint")), "/srv/bind");
	assert_string_equal(json_string_value(json_object_get(o, "fstype")), "ext4");
	assert_string_equal(json_string_value(json_object_get(o, "source")), "/dev/sda2");
	assert_string_equal(json_string_value(json_object_get(o, "mount_options")),
			    "rw,relatime,errors=remount-ro");
	assert_string_equal(fstype, "ext4");
	json_decref(o);
	o = probe_target_dir_json("/nonexistent-fsb-root", "/x", fstype, sizeof(fstype));
	assert_int_equal(json_object_size(o), 1);
	assert_string_equal(fstype, "");
	json_decref(o);
}

static void test_drop_caches(void **st)
{
	char tmp[] = "/tmp/fsb-test-drop.XXXXXX", path[PATH_MAX], buf[16];
	FILE *f;

	(void)st;
	assert_non_null(mkdtemp(tmp));
	for (const char *const *d =
		     (const char *const[]){ "/proc", "/proc/sys", "/proc/sys/vm", NULL };
	     *d; d++) {
		snprintf(path, sizeof(path), "%s%s", tmp, *d);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	/* without the file (no such knob) the errno comes back */
	assert_int_equal(probe_drop_caches(tmp), -ENOENT);
	snprintf(path, sizeof(path), "%s/proc/sys/vm/drop_caches", tmp);
	f = fopen(path, "we");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(probe_drop_caches(tmp), 0);
	assert_int_equal(base_read_under(tmp, "/proc/sys/vm/drop_caches", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3");
	base_rm_tree(tmp);
}

int main(void)
{
	const char *fx = getenv("FSB_FIXTURES");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_target),	   cmocka_unit_test(test_find_path),
		cmocka_unit_test(test_find_devno),	   cmocka_unit_test(test_options),
		cmocka_unit_test(test_no_mountinfo),	   cmocka_unit_test(test_traits),
		cmocka_unit_test(test_traits_barrier_off), cmocka_unit_test(test_mkfs_argv),
		cmocka_unit_test(test_dir_json),	   cmocka_unit_test(test_drop_caches),
		cmocka_unit_test(test_holders_other_ns),   cmocka_unit_test(test_holders_own_ns),
		cmocka_unit_test(test_busy_why),
	};

	if (!fx) {
		fprintf(stderr, "FSB_FIXTURES is not set\n");
		return 1;
	}
	snprintf(root, sizeof(root), "%s/target", fx);
	snprintf(holders, sizeof(holders), "%s/holders", fx);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
