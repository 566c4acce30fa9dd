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
#include <elf.h>
#include <lzma.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "base/fileio.h"
#include "fsbench/kgate/kgate.h"
#include "fsbench/kgate/pvh.h"
#include "fsbench/kgate/util.h"

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
	/* a release string that would be a path or an escape sequence: refused */
	img[0x202] = 'H';
	memcpy(img + 0x300, "../\x1b[2J ", 8);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, img, sizeof(img)), (int)sizeof(img));
	close(fd);
	assert_int_equal(kg_bzimage_release(path, rel, sizeof(rel)), -EBADMSG);
	unlink(path);
}

/* The guest's status: a decimal 0-255 and nothing else (issue 29: 256 was 0 mod 256). */
static void test_guest_status(void **unused)
{
	(void)unused;
	assert_int_equal(kg_guest_status("0\n", 2), 0);
	assert_int_equal(kg_guest_status("255", 3), 255);
	assert_int_equal(kg_guest_status("3\n", 2), 3);
	assert_int_equal(kg_guest_status("256\n", 4), -1);
	assert_int_equal(kg_guest_status("0x1", 3), -1);
	assert_int_equal(kg_guest_status("", 0), -1);
	assert_int_equal(kg_guest_status("\n", 1), -1);
	assert_int_equal(kg_guest_status(" 0", 2), -1);
	assert_int_equal(kg_guest_status("00", 2), -1);
	assert_int_equal(kg_guest_status("0\n\n", 3), -1);
	assert_true(kg_release_ok("6.1.0-47-amd64"));
	assert_false(kg_release_ok("../x"));
	assert_false(kg_release_ok(".hidden"));
	assert_false(kg_release_ok("a b"));
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

/* A minimal x86-64 ELF executable with one PT_NOTE holding a Xen note of type @type. */
static size_t fake_vmlinux(unsigned char *p, uint32_t type)
{
	Elf64_Ehdr eh = { .e_type = ET_EXEC,
			  .e_machine = EM_X86_64,
			  .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr),
			  .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = 1 };
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = 4, .n_type = type };
	size_t off = sizeof(eh) + sizeof(Elf64_Phdr);
	Elf64_Phdr ph = { .p_type = PT_NOTE, .p_offset = off, .p_filesz = sizeof(nh) + 8 };

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(p, &eh, sizeof(eh));
	memcpy(p + sizeof(eh), &ph, sizeof(ph));
	memcpy(p + off, &nh, sizeof(nh));
	memcpy(p + off + sizeof(nh), "Xen\0\0\0\0\1", 8);
	return off + sizeof(nh) + 8;
}

enum fake_z { FZ_XZ, FZ_GZIP, FZ_ZSTD, FZ_NONE };

static size_t fake_compress(enum fake_z z, const unsigned char *in, size_t n, unsigned char *out,
			    size_t cap)
{
	size_t pos = 0;
	z_stream s = { 0 };

	switch (z) {
	case FZ_XZ:
		assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in, n, out,
							 &pos, cap),
				 LZMA_OK);
		return pos;
	case FZ_GZIP:
		assert_int_equal(deflateInit2(&s, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
				 Z_OK);
		s.next_in = (unsigned char *)in;
		s.avail_in = (unsigned)n;
		s.next_out = out;
		s.avail_out = (unsigned)cap;
		assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
		pos = s.total_out;
		deflateEnd(&s);
		return pos;
	case FZ_ZSTD:
		pos = ZSTD_compress(out, cap, in, n, 3);
		assert_false(ZSTD_isError(pos));
		return pos;
	default:
		memset(out, 0x5a, 64);
		return 64;
	}
}

/*
 * A bzImage as the boot protocol lays it out: one setup sector after the boot sector, the
 * payload at payload_offset after them, the kernel's 4-byte size_append after the payload.
 */
static void fake_bzimage(const char *path, enum fake_z z, uint32_t note, uint32_t bad_offset)
{
	unsigned char elf[512] = { 0 }, img[8192] = { 0 };
	size_t n = fake_vmlinux(elf, note), base = 2 * 512, off = 0x100;
	uint32_t len =
		(uint32_t)fake_compress(z, elf, n, img + base + off, sizeof(img) - base - off - 4);
	uint32_t o = bad_offset ? bad_offset : (uint32_t)off;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	img[0x1f1] = 1;
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x0f; /* protocol 2.15 */
	img[0x207] = 0x02;
	memcpy(img + 0x248, &o, 4);
	memcpy(img + 0x24c, &len, 4);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, base + off + len + 4), (int)(base + off + len + 4));
	close(fd);
}

static void pvh_case(const char *dir, enum fake_z z, uint32_t note, uint32_t bad_offset,
		     const char *entry, const char *why)
{
	struct kg_kernel k = { .release = "6.0-test" };
	char err[512] = "";

	snprintf(k.image, sizeof(k.image), "%s/bzImage", dir);
	fake_bzimage(k.image, z, note, bad_offset);
	assert_int_equal(kg_pvh_resolve(&k, dir, err, sizeof(err)), 0);
	assert_string_equal(k.entry, entry);
	if (why) {
		assert_non_null(strstr(k.entry_why, why));
		assert_string_equal(k.boot_image, k.image);
	} else {
		unsigned char want[512] = { 0 }, got[512] = { 0 };
		char path[4200];
		size_t n = fake_vmlinux(want, note);
		int fd = open(k.boot_image, O_RDONLY);

		/* the decompressed kernel itself, beneath the cache's pvh/ held by descriptor */
		assert_true(!strncmp(k.boot_image, "/proc/self/fd/", 14));
		assert_non_null(strstr(k.boot_image, "/vmlinux-6.0-test-"));
		snprintf(path, sizeof(path), "%s/pvh/%s", dir, strrchr(k.boot_image, '/') + 1);
		assert_int_equal(access(path, F_OK), 0);
		assert_true(fd >= 0);
		assert_int_equal(read(fd, got, sizeof(got)), (int)n);
		close(fd);
		assert_memory_equal(got, want, n);
	}
}

/* bzImage -> vmlinux for a PVH boot: each compressor, and every way it falls back */
static void test_pvh(void **unused)
{
	char dir[] = "/tmp/fsbench-pvh.XXXXXX", path[4200];
	struct kg_kernel k = { .release = "6.0-test" };
	char err[512];

	(void)unused;
	assert_non_null(mkdtemp(dir));
	pvh_case(dir, FZ_XZ, 18, 0, "pvh", NULL);
	pvh_case(dir, FZ_GZIP, 18, 0, "pvh", NULL);
	pvh_case(dir, FZ_ZSTD, 18, 0, "pvh", NULL);
	pvh_case(dir, FZ_XZ, 6, 0, "bzimage", "no PVH entry");
	pvh_case(dir, FZ_NONE, 18, 0, "bzimage", "neither xz, gzip nor zstd");
	pvh_case(dir, FZ_XZ, 18, 1u << 30, "bzimage", "outside the file");
	/* a cached vmlinux another user could have written is refused, not booted */
	pvh_case(dir, FZ_XZ, 18, 0, "pvh", NULL);
	snprintf(k.image, sizeof(k.image), "%s/bzImage", dir);
	assert_int_equal(kg_pvh_resolve(&k, dir, err, sizeof(err)), 0);
	assert_int_equal(chmod(k.boot_image, 0666), 0);
	assert_int_equal(kg_pvh_resolve(&k, dir, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "group or others may write it"));
	snprintf(path, sizeof(path), "%s", dir);
	assert_int_equal(base_rm_tree(path), 0);
}

/* A cache seal: what kg_seal_write wrote checks; another line is refused, shown escaped. */
static void test_seal(void **unused)
{
	char dir[] = "/tmp/fsbench-seal.XXXXXX", err[512];
	int dfd, fd;

	(void)unused;
	if (geteuid() != 0)
		skip(); /* a seal is root's (kg_trusted_at) */
	assert_non_null(mkdtemp(dir));
	assert_true((dfd = open(dir, O_RDONLY | O_DIRECTORY)) >= 0);
	assert_int_equal(kg_seal_write(dfd, "s", 0x1234), 0);
	assert_int_equal(kg_seal_check(dfd, "s", 0x1234, "s", err, sizeof(err)), 0);
	assert_int_equal(kg_seal_check(dfd, "s", 0x1235, "s", err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "recorded fnv1a64 0000000000001234"));
	/* a line that is no seal, with a terminal's escape in it: shown as \xNN */
	assert_int_equal(unlinkat(dfd, "s", 0), 0);
	assert_true((fd = openat(dfd, "s", O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0);
	assert_int_equal(write(fd, "fnv1a64 \x1b]0;owned\x07\n", 19), 19);
	close(fd);
	assert_int_equal(kg_seal_check(dfd, "s", 0x1234, "s", err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "recorded fnv1a64 \\x1b]0;owned\\x07\\x0a)"));
	assert_null(strchr(err, '\x1b'));
	unlinkat(dfd, "s", 0);
	close(dfd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_resolve_order, setup),
		cmocka_unit_test_setup(test_resolve_names, setup),
		cmocka_unit_test_setup(test_resolve_missing, setup),
		cmocka_unit_test(test_bzimage_release),
		cmocka_unit_test(test_guest_status),
		cmocka_unit_test_setup(test_disk_cmdline, setup),
		cmocka_unit_test_setup(test_disk_check, setup),
		cmocka_unit_test(test_disk_fits),
		cmocka_unit_test(test_pvh),
		cmocka_unit_test(test_seal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
