/* Unit tests of a kernel fetched over http(s) (kgate/fetch.c): the bounded, hashing writer, the file's name, the options' refusals. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/url.h"
#include "fsbench/kgate/fetch.h"
#include "fsbench/kgate/preboot.h"

/* A file of its own for the writer; removed at once, the descriptor is all it needs. */
static int tmpfd(void)
{
	char path[] = "/tmp/test-kgate_fetch-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

/* Bytes up to the bound are written and hashed; one past it is refused and nothing written. */
static void test_sink_bound(void **state)
{
	struct kg_fetch_sink s;
	char hex[KG_SHA256_HEX];
	int fd = tmpfd();

	(void)state;
	assert_int_equal(kg_fetch_sink_init(&s, fd, 10), 0);
	assert_int_equal(kg_fetch_sink_write(&s, "abcdefgh", 8), 0);
	assert_int_equal(kg_fetch_sink_write(&s, "ij", 2), 0);
	assert_int_equal(kg_fetch_sink_write(&s, "k", 1), -EFBIG);
	assert_int_equal(s.len, 10);
	assert_int_equal(lseek(fd, 0, SEEK_END), 10);
	/* the failure sticks: no later write, no hash of a file cut short */
	assert_int_equal(kg_fetch_sink_write(&s, "", 0), -EFBIG);
	assert_int_equal(kg_fetch_sink_finish(&s, hex), -EFBIG);
	kg_fetch_sink_free(&s);
	kg_fetch_sink_free(&s);
	close(fd);
}

/* The hash is the SHA-256 of what was written, pieces or not (FIPS 180-2's "abc"). */
static void test_sink_sha256(void **state)
{
	struct kg_fetch_sink s;
	char hex[KG_SHA256_HEX];
	int fd = tmpfd();

	(void)state;
	assert_int_equal(kg_fetch_sink_init(&s, fd, KG_FETCH_MAX), 0);
	assert_int_equal(kg_fetch_sink_write(&s, "a", 1), 0);
	assert_int_equal(kg_fetch_sink_write(&s, "bc", 2), 0);
	assert_int_equal(kg_fetch_sink_finish(&s, hex), 0);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	kg_fetch_sink_free(&s);
	close(fd);
}

/* A write that fails is the writer's failure, with its errno. */
static void test_sink_write_error(void **state)
{
	struct kg_fetch_sink s;
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0)
		skip();
	assert_int_equal(kg_fetch_sink_init(&s, fd, KG_FETCH_MAX), 0);
	assert_int_equal(kg_fetch_sink_write(&s, "x", 1), -ENOSPC);
	kg_fetch_sink_free(&s);
	close(fd);
}

static void test_name(void **state)
{
	char n[96];

	(void)state;
	kg_fetch_name("https://ci.example.org/k/linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb", n,
		      sizeof(n));
	assert_string_equal(n, "linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb");
	kg_fetch_name("http://h/a/bzImage?token=1#x", n, sizeof(n));
	assert_string_equal(n, "bzImage");
	kg_fetch_name("http://h/a/b%20c$d", n, sizeof(n));
	assert_string_equal(n, "b_20c_d");
	kg_fetch_name("http://h/a/", n, sizeof(n));
	assert_string_equal(n, "kernel");
	kg_fetch_name("http://h", n, sizeof(n));
	assert_string_equal(n, "kernel");
	kg_fetch_name("http://h/..", n, sizeof(n));
	assert_string_equal(n, "kernel");
}

static void test_url_check(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(
		base_url_http_check("https://h/x.deb", "--kernel-url", 64, err, sizeof(err)), 0);
	assert_int_equal(base_url_http_check("file:///x.deb", "--kernel-url", 64, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err,
			    "--kernel-url file:///x.deb: not an http:// or https:// URL with a "
			    "host");
	assert_int_equal(base_url_http_check("http:///x", "--kernel-url", 64, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(base_url_http_check("http://h/\x01", "--kernel-url", 64, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--kernel-url: a space, quote, backslash or control character at "
				 "byte 9");
	assert_int_equal(base_url_http_check("http://h/abcdef", "--kernel-url", 10, err,
					     sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--kernel-url: longer than 10 bytes");
}

/* Each kernel by a file or a URL, not both and not neither; --*modules not with a .deb's URL. */
static void test_args(void **state)
{
	struct kg_args a = { 0 };
	char err[256];

	(void)state;
	a.vm.disk.kind = KG_DISK_MODEL;
	a.spec[0] = "/k/bzImage";
	a.url[1] = "https://h/bzImage";
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), 0);
	assert_int_equal(kg_args_kernels(&a), 2);
	a.spec[1] = "/k/bzImage2";
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--candidate and --candidate-url: one or the other");
	a.spec[1] = a.url[1] = NULL;
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--baseline and --candidate are both needed (or --baseline-url, "
				 "--candidate-url)");
	a.url[1] = "ftp://h/bzImage";
	assert_int_equal(kg_args_check(&a, true, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--candidate-url ftp://h/bzImage: not an http:// or https:// URL "
				 "with a host");
	a = (struct kg_args){ .vm.disk.kind = KG_DISK_MODEL,
			      .url[0] = "http://h/k.deb?x=1",
			      .modules[0] = "/m" };
	assert_int_equal(kg_args_check(&a, false, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/m: a .deb brings its own modules; --modules would be ignored");
	assert_int_equal(kg_args_kernels(&a), 1);
	a.modules[0] = NULL;
	assert_int_equal(kg_args_check(&a, false, err, sizeof(err)), 0);
	a.spec[0] = "/k/bzImage";
	assert_int_equal(kg_args_check(&a, false, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--kernel and --kernel-url: one or the other");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sink_bound),	 cmocka_unit_test(test_sink_sha256),
		cmocka_unit_test(test_sink_write_error), cmocka_unit_test(test_name),
		cmocka_unit_test(test_url_check),	 cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
