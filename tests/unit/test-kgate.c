/* Unit tests of the kernel under test: modules resolved through modules.dep, bzImage release, the model disk. */
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

static const struct kg_disk model = { .kind = KG_DISK_MODEL,
				      .bytes = INT64_C(2) << 30,
				      .latency_ns = 50000,
				      .cache_bytes = INT64_C(64) << 20,
				      .mbps = 100,
				      .queue_depth = 32 };

/* the model's parameters as the guest's /init and a built-in null_blk read them */
static void test_disk_cmdline(void **unused)
{
	struct kg_disk d = model, v = { .kind = KG_DISK_VIRTIO, .bytes = INT64_C(2) << 30 };
	const char *words[] = { "fsbench.disk=model",
				"null_blk.memory_backed=1",
				"null_blk.irqmode=2",
				"null_blk.queue_mode=2",
				"null_blk.completion_nsec=50000",
				"null_blk.gb=2",
				"null_blk.cache_size=64",
				"null_blk.mbps=100",
				"null_blk.hw_queue_depth=32",
				"null_blk.bs=4096" };
	char out[1024];

	(void)unused;
	kg_disk_cmdline(&d, out, sizeof(out));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		assert_non_null(strstr(out, words[i]));
	assert_null(strstr(out, "fsbench.flush_ms"));
	assert_string_equal(kg_disk_device(&d), "/dev/nullb0");
	assert_string_equal(kg_disk_results_device(&d), "/dev/vda");
	d.flush_latency_ms = 4;
	kg_disk_cmdline(&d, out, sizeof(out));
	assert_non_null(strstr(out, " fsbench.flush_ms=4"));
	assert_string_equal(kg_disk_device(&d), "/dev/dm-0");
	kg_disk_cmdline(&v, out, sizeof(out));
	assert_string_equal(out, "");
	assert_string_equal(kg_disk_device(&v), "/dev/vda");
	/* memory_backed: the disk and its cache in guest RAM, on top of the guest's own */
	assert_int_equal(kg_disk_memory_mib(&model, 1024), 1024 + 2048 + 64);
	assert_int_equal(kg_disk_memory_mib(&v, 1024), 1024);
}

/* a kernel without null_blk cannot run the model; built in is as good as a module */
static void test_disk_check(void **unused)
{
	char err[1024] = "", dir[] = "/tmp/fsbench-test-kgate.XXXXXX", path[4200];
	struct kg_disk v = { .kind = KG_DISK_VIRTIO };
	FILE *f;

	(void)unused;
	assert_int_equal(kg_disk_check(&model, moddir, "6.1.0-test", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "has no null_blk driver"));
	assert_non_null(strstr(err, "--disk virtio"));
	assert_int_equal(kg_disk_check(&v, moddir, "6.1.0-test", err, sizeof(err)), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	assert_int_equal(kg_disk_check(&model, dir, "6.1.0-test", err, sizeof(err)), -ENOENT);
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("kernel/drivers/block/null_blk/null_blk.ko\n", f);
	fclose(f);
	assert_int_equal(kg_disk_check(&model, dir, "6.1.0-test", err, sizeof(err)), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	unlink(path);
	rmdir(dir);
}

/* what cannot fit is refused before any boot: sizes in null_blk's units, the suite, memory */
static void test_disk_fits(void **unused)
{
	struct kg_disk d = model;
	char err[1024];

	(void)unused;
	assert_int_equal(kg_disk_fits(&d, 256, 1, INT64_C(512) << 20, err, sizeof(err)), 0);
	assert_int_equal(kg_disk_fits(&d, 256, 1, INT64_C(4) << 30, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than the model disk's 2048 MiB"));
	d.bytes = INT64_C(3) << 29; /* 1.5 GiB */
	assert_int_equal(kg_disk_fits(&d, 256, 1, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "whole GiB"));
	d = model;
	d.cache_bytes = (INT64_C(64) << 20) + 4096;
	assert_int_equal(kg_disk_fits(&d, 256, 1, 0, err, sizeof(err)), -EINVAL);
	d = model;
	d.bytes = INT64_C(1) << 40; /* a TiB a boot, 64 at a time: no host has that free */
	assert_int_equal(kg_disk_fits(&d, 256, 64, 0, err, sizeof(err)), -ENOMEM);
	assert_non_null(strstr(err, "keeps its data in the guest's memory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_resolve_order, setup),
		cmocka_unit_test_setup(test_resolve_names, setup),
		cmocka_unit_test_setup(test_resolve_missing, setup),
		cmocka_unit_test(test_bzimage_release),
		cmocka_unit_test_setup(test_disk_cmdline, setup),
		cmocka_unit_test_setup(test_disk_check, setup),
		cmocka_unit_test(test_disk_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
