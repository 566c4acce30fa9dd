/* Target resolution on a fixture mountinfo and fake sysfs tree (tests/fixtures/target). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/target/target.h"

static char root[PATH_MAX];

static struct probe_target *resolve(const char *path)
{
	static struct probe_target t;

	memset(&t, 0xa5, sizeof(t));
	assert_int_equal(probe_target_resolve(root, path, &t), 0);
	return &t;
}

static void test_root_partition(void **state)
{
	struct probe_target *t = resolve("/var/lib/x");
	char want[PATH_MAX + 32];

	(void)state;
	assert_string_equal(t->path, "/var/lib/x");
	assert_string_equal(t->mountpoint, "/");
	assert_string_equal(t->fstype, "ext4");
	assert_string_equal(t->source, "/dev/sda2");
	assert_non_null(strstr(t->mount_options, "relatime"));
	assert_non_null(strstr(t->mount_options, "errors=remount-ro"));
	assert_int_equal(t->major, 8);
	assert_int_equal(t->minor, 2);
	assert_true(t->has_block_device);
	assert_string_equal(t->device, "sda2");
	assert_true(t->partition);
	assert_string_equal(t->disk, "sda");
	snprintf(want, sizeof(want), "%s/sys/block/sda", root);
	assert_string_equal(t->disk_sysfs, want);
	assert_false(t->bind);
	assert_string_equal(t->loop_backing_file, "");
	assert_non_null(strstr(t->note, "partition of sda"));
}

/* "/mnt/loopy" shares a prefix with "/mnt/loop" but is not under it. */
static void test_prefix_is_by_component(void **state)
{
	struct probe_target *t = resolve("/mnt/loopy/file");

	(void)state;
	assert_string_equal(t->mountpoint, "/");
	assert_string_equal(t->device, "sda2");
}

static void test_nvme_partition(void **state)
{
	struct probe_target *t = resolve("/boot/efi/EFI/debian");

	(void)state;
	assert_string_equal(t->fstype, "vfat");
	assert_string_equal(t->device, "nvme0n1p1");
	assert_string_equal(t->disk, "nvme0n1");
	assert_true(t->partition);
}

static void test_loop(void **state)
{
	struct probe_target *t = resolve("/mnt/loop/d");

	(void)state;
	assert_string_equal(t->mountpoint, "/mnt/loop");
	assert_string_equal(t->device, "loop3");
	assert_string_equal(t->disk, "loop3");
	assert_false(t->partition);
	assert_string_equal(t->loop_backing_file, "/var/tmp/fsbench-image.raw");
	assert_true(t->loop_direct_io);
	assert_int_equal(t->dev_major, 7);
	assert_int_equal(t->dev_minor, 3);
	assert_non_null(strstr(t->note, "loop device over /var/tmp/fsbench-image.raw"));
}

static void test_bind(void **state)
{
	struct probe_target *t = resolve("/srv/bind/a/b");

	(void)state;
	assert_string_equal(t->mountpoint, "/srv/bind");
	assert_string_equal(t->fsroot, "/data/export");
	assert_true(t->bind);
	assert_string_equal(t->device, "sda2");
	assert_non_null(strstr(t->note, "bind mount of /data/export"));
}

static void test_btrfs_subvolume(void **state)
{
	struct probe_target *t = resolve("/home/user");

	(void)state;
	assert_string_equal(t->fstype, "btrfs");
	assert_string_equal(t->subvol, "/@home");
	assert_string_equal(t->fsroot, "/@home");
	assert_false(t->bind);
	/* mountinfo's anonymous 0:45 names no device: the source does */
	assert_int_equal(t->major, 0);
	assert_int_equal(t->minor, 45);
	assert_true(t->has_block_device);
	assert_string_equal(t->device, "sdb1");
	assert_int_equal(t->dev_major, 8);
	assert_int_equal(t->dev_minor, 17);
	assert_string_equal(t->disk, "sdb");
	assert_non_null(strstr(t->note, "btrfs subvolume /@home"));
}

static void test_btrfs_bind_inside_subvolume(void **state)
{
	struct probe_target *t = resolve("/mnt/bsnap");

	(void)state;
	assert_string_equal(t->subvol, "/@home");
	assert_true(t->bind);
	assert_non_null(strstr(t->note, "bind mount of /@home/user/snap"));
}

static void test_tmpfs(void **state)
{
	struct probe_target *t = resolve("/tmp/fsbench.123");

	(void)state;
	assert_string_equal(t->fstype, "tmpfs");
	assert_false(t->has_block_device);
	assert_string_equal(t->device, "");
	assert_string_equal(t->disk, "");
	assert_string_equal(t->disk_sysfs, "");
	assert_string_equal(t->note, "tmpfs has no block device");
}

static void test_overlay(void **state)
{
	struct probe_target *t = resolve("/var/lib/docker/overlay2/abc/merged/etc");

	(void)state;
	assert_string_equal(t->fstype, "overlay");
	assert_false(t->has_block_device);
	assert_non_null(strstr(t->note, "overlay has no block device"));
	assert_non_null(strstr(t->note, "/var/lib/docker/overlay2/abc/diff"));
}

/* Of two mounts on one directory, the later one hides the earlier. */
static void test_stacked_mounts(void **state)
{
	struct probe_target *t = resolve("/mnt/stack/f");

	(void)state;
	assert_string_equal(t->fstype, "xfs");
	assert_string_equal(t->device, "loop3");
}

static void test_fuse_and_nfs(void **state)
{
	struct probe_target *t = resolve("/mnt/sshfs/x");

	(void)state;
	assert_false(t->has_block_device);
	assert_non_null(strstr(t->note, "FUSE"));
	t = resolve("/mnt/nfs/x");
	assert_false(t->has_block_device);
	assert_string_equal(t->source, "server:/export");
	assert_non_null(strstr(t->note, "network filesystem"));
}

static void test_json(void **state)
{
	struct probe_target *t = resolve("/mnt/loop/d");
	json_t *o = probe_target_json(t);

	(void)state;
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "device")), "loop3");
	assert_string_equal(json_string_value(json_object_get(o, "fstype")), "ext4");
	assert_true(json_is_true(json_object_get(o, "loop_direct_io")));
	assert_true(json_is_null(json_object_get(o, "subvol")));
	assert_int_equal(json_integer_value(json_object_get(o, "major")), 7);
	assert_string_equal(json_string_value(json_object_get(o, "model")), "loop");
	json_decref(o);

	/* a SCSI disk's model, its padding trimmed, through the device link as in sysfs */
	t = resolve("/var/lib/x");
	o = probe_target_json(t);
	assert_string_equal(json_string_value(json_object_get(o, "model")), "QEMU HARDDISK");
	json_decref(o);

	t = resolve("/tmp");
	o = probe_target_json(t);
	assert_true(json_is_false(json_object_get(o, "has_block_device")));
	assert_true(json_is_null(json_object_get(o, "device")));
	assert_true(json_is_null(json_object_get(o, "loop_direct_io")));
	assert_true(json_is_null(json_object_get(o, "model")));
	json_decref(o);
}

static void test_errors(void **state)
{
	struct probe_target t;
	char missing[PATH_MAX + 16];

	(void)state;
	assert_int_equal(probe_target_resolve(root, "", &t), -EINVAL);
	snprintf(missing, sizeof(missing), "%s/nonexistent", root);
	assert_true(probe_target_resolve(missing, "/x", &t) < 0);
}

/* The live system: "/" always resolves to some mount with a type. */
static void test_live_root(void **state)
{
	struct probe_target t;

	(void)state;
	assert_int_equal(probe_target_resolve(NULL, "/", &t), 0);
	assert_string_equal(t.path, "/");
	assert_string_equal(t.mountpoint, "/");
	assert_true(t.fstype[0] != 0);
	assert_int_equal(probe_target_resolve("", "/nonexistent/fsbench/path", &t), -ENOENT);
}

int main(void)
{
	const char *fx = getenv("FSB_FIXTURES");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_partition),
		cmocka_unit_test(test_prefix_is_by_component),
		cmocka_unit_test(test_nvme_partition),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_bind),
		cmocka_unit_test(test_btrfs_subvolume),
		cmocka_unit_test(test_btrfs_bind_inside_subvolume),
		cmocka_unit_test(test_tmpfs),
		cmocka_unit_test(test_overlay),
		cmocka_unit_test(test_stacked_mounts),
		cmocka_unit_test(test_fuse_and_nfs),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_live_root),
	};

	if (!fx) {
		fprintf(stderr, "FSB_FIXTURES is not set\n");
		return 1;
	}
	snprintf(root, sizeof(root), "%s/target", fx);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
