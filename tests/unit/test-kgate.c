/* Unit tests of the kernel under test: modules resolved through modules.dep, bzImage release. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsbench/kgate/kgate.h"

static char moddir[4096];

static int setup(void **unused)
{
	const char *fx = getenv("FSB_FIXTURES");

	(void)unused;
	snprintf(moddir, sizeof(moddir), "%s/kmod/lib/modules/6.1.0-test",
		 fx ? fx : "tests/fixtures");
	return 0;
}

static void free_paths(char **p, int n)
{
	for (int i = 0; i < n; i++)
		free(p[i]);
}

/* dependencies first, in modules.dep's reverse order; each once; built-ins left out */
static void test_resolve_order(void **unused)
{
	const char *names[] = { "?crc32c_generic", "ext4", "virtio_pci", "virtio_blk", "ext4" };
	char *p[16], err[256];
	int n;

	(void)unused;
	n = kg_modules_resolve(moddir, names, 5, p, 16, err, sizeof(err));
	assert_int_equal(n, 6);
	assert_string_equal(p[0], "kernel/crypto/crc32c_generic.ko");
	assert_string_equal(p[1], "kernel/fs/jbd2/jbd2.ko");
	assert_string_equal(p[2], "kernel/fs/mbcache.ko");
	assert_string_equal(p[3], "kernel/lib/crc16.ko");
	assert_string_equal(p[4], "kernel/fs/ext4/ext4.ko");
	assert_string_equal(p[5],
			    "kernel/drivers/block/virtio_blk.ko"); /* virtio_pci is built in */
	free_paths(p, n);
}

/* compressed modules and dashes in file names match their module name */
static void test_resolve_names(void **unused)
{
	const char *names[] = { "xfs", "virtio_pci_legacy_dev" };
	char *p[16], err[256];
	int n;

	(void)unused;
	n = kg_modules_resolve(moddir, names, 2, p, 16, err, sizeof(err));
	assert_int_equal(n, 3);
	assert_string_equal(p[0], "kernel/lib/libcrc32c.ko");
	assert_string_equal(p[1], "kernel/fs/xfs/xfs.ko.xz");
	assert_string_equal(p[2], "kernel/drivers/virtio/virtio-pci-legacy-dev.ko");
	free_paths(p, n);
}

static void test_resolve_missing(void **unused)
{
	const char *must[] = { "btrfs" }, *optional[] = { "?btrfs" };
	char *p[16], err[256];

	(void)unused;
	assert_int_equal(kg_modules_resolve(moddir, must, 1, p, 16, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "module btrfs: neither in"));
	assert_int_equal(kg_modules_resolve(moddir, optional, 1, p, 16, err, sizeof(err)), 0);
	assert_int_equal(kg_modules_resolve("/nonexistent", must, 1, p, 16, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "run depmod"));
}

/* the release is the boot protocol's kernel_version string, up to the first space */
static void test_bzimage_release(void **unused)
{
	char path[] = "/tmp/fsbench-bzimage.XXXXXX", rel[128];
	unsigned char img[0x400] = { 0 };
	const char *ver = "6.1.0-47-amd64 (debian-kernel@lists.debian.org) #1 SMP";
	int fd = mkstemp(path);

	(void)unused;
	assert_true(fd >= 0);
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00; /* kernel_version: 0x100 + 0x200 */
	img[0x20f] = 0x01;
	memcpy(img + 0x300, ver, strlen(ver));
	assert_int_equal(write(fd, img, sizeof(img)), (int)sizeof(img));
	close(fd);
	assert_int_equal(kg_bzimage_release(path, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "6.1.0-47-amd64");
	img[0x202] = 'X'; /* no setup header: not a bzImage */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, img, sizeof(img)), (int)sizeof(img));
	close(fd);
	assert_int_equal(kg_bzimage_release(path, rel, sizeof(rel)), -ENOEXEC);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_resolve_order, setup),
		cmocka_unit_test_setup(test_resolve_names, setup),
		cmocka_unit_test_setup(test_resolve_missing, setup),
		cmocka_unit_test(test_bzimage_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
