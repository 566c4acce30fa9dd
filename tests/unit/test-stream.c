/* Unit tests of the stream workload's arithmetic: 64-bit offsets past 2 and 4 GiB, iozone's figures. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cmocka.h>

#include "fsbench/workloads/stream.h"

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

static void test_offsets_past_2g(void **unused)
{
	struct stream_range r;
	uint64_t chunk = 8 * MiB, size = 6 * GiB;

	(void)unused;
	/*
	 * index 256 is the first chunk at 2^31, where the seed thread's int arithmetic went
	 * negative: the offset that reaches sync_file_range() (an off_t) must stay positive
	 */
	assert_int_equal(stream_chunk(size, chunk, 256, &r), 0);
	assert_true(r.off == UINT64_C(2147483648));
	assert_true((off_t)r.off > 0);
	assert_true(r.len == chunk);

	assert_int_equal(stream_chunk(size, chunk, 255, &r), 0);
	assert_true(r.off == UINT64_C(2139095040));

	/* past 4 GiB: 2^32 would wrap to 0 in 32 bits */
	assert_int_equal(stream_chunk(size, chunk, 512, &r), 0);
	assert_true(r.off == UINT64_C(4294967296));
	assert_int_equal(stream_chunk(size, chunk, 513, &r), 0);
	assert_true(r.off == UINT64_C(4303355904));

	/* the last chunk of 6 GiB */
	assert_true(stream_nchunks(size, chunk) == 768);
	assert_int_equal(stream_chunk(size, chunk, 767, &r), 0);
	assert_true(r.off == UINT64_C(6434062336));
	assert_true(r.off + r.len == size);
	assert_int_equal(stream_chunk(size, chunk, 768, &r), -ERANGE);
}

/*
 * Every chunk on either side of 2^31 and 2^32, for chunk sizes that are not powers of two
 * (so that no boundary falls on a chunk's start by luck): each offset is i * chunk exactly,
 * each chunk starts where the previous one ended, and none goes negative as an off_t.
 */
static void test_offsets_contiguous(void **unused)
{
	const uint64_t chunks[] = { 8 * MiB, 3 * MiB + 512, 1000000, 4096 * 1021 };
	const uint64_t size = 5 * GiB;

	(void)unused;
	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		const uint64_t chunk = chunks[k];
		const uint64_t marks[] = { UINT64_C(1) << 31, UINT64_C(1) << 32 };

		for (size_t m = 0; m < 2; m++) {
			uint64_t first = marks[m] / chunk - 3, end = 0;

			for (uint64_t i = first; i < first + 7; i++) {
				struct stream_range r;

				assert_int_equal(stream_chunk(size, chunk, i, &r), 0);
				assert_true(r.off == i * chunk);
				assert_true((off_t)r.off > 0);
				assert_true(i == first || r.off == end);
				end = r.off + r.len;
			}
			assert_true(end > marks[m]);
		}
	}
}

static void test_index_beyond_int(void **unused)
{
	struct stream_range r;
	uint64_t chunk = 64 * MiB;

	(void)unused;
	/* an index that does not fit in an int at all: 2^31 + 3 chunks of 64 MiB is 2^57 + 192 MiB */
	assert_int_equal(stream_chunk(STREAM_UNBOUNDED, chunk, (UINT64_C(1) << 31) + 3, &r), 0);
	assert_true(r.off == (UINT64_C(1) << 57) + 3 * chunk);
	assert_true(r.len == chunk);
	/* past what an off_t can hold */
	assert_int_equal(stream_chunk(STREAM_UNBOUNDED, chunk, UINT64_C(1) << 37, &r), -ERANGE);
	assert_int_equal(stream_chunk(STREAM_UNBOUNDED, 0, 1, &r), -ERANGE);
}

static void test_short_last_chunk(void **unused)
{
	struct stream_range r;
	uint64_t chunk = 8 * MiB, size = 4 * GiB + 4096;

	(void)unused;
	assert_true(stream_nchunks(size, chunk) == 513);
	assert_int_equal(stream_chunk(size, chunk, 512, &r), 0);
	assert_true(r.off == 4 * GiB);
	assert_true(r.len == 4096);
	assert_true(stream_nchunks(16 * MiB, chunk) == 2);
	assert_true(stream_nchunks(STREAM_UNBOUNDED, chunk) == UINT64_MAX);
	assert_true(stream_nchunks(size, 0) == 0);
}

/*
 * Two writers of 100 MB: one in 1 s, one in 2 s, the wall time 2 s. iozone's sums: children
 * see 100 + 50 MB/s, parent sees 200 MB / 2 s, min 50, max 100, avg 75, min xfer 100 MB.
 */
static void test_iozone_figures(void **unused)
{
	const uint64_t bytes[] = { 100000000, 100000000 }, ns[] = { 1000000000, 2000000000 };
	struct stream_figures f;

	(void)unused;
	assert_int_equal(stream_figures(bytes, ns, 2, 200000000, 2000000000, &f), 0);
	assert_int_equal(f.writers, 2);
	assert_true(f.children_see == 150e6);
	assert_true(f.parent_sees == 100e6);
	assert_true(f.min_writer == 50e6);
	assert_true(f.max_writer == 100e6);
	assert_true(f.avg_writer == 75e6);
	assert_true(f.min_xfer == 100000000);
	assert_true(f.parent_sees <= f.children_see);
}

/* A writer that never ran has no rate: it is left out of min, max and avg, not counted as 0 MB/s. */
static void test_iozone_idle_writer(void **unused)
{
	const uint64_t bytes[] = { 0, 3000000, 1000000 }, ns[] = { 0, 1000000000, 1000000000 };
	struct stream_figures f;

	(void)unused;
	assert_int_equal(stream_figures(bytes, ns, 3, 4000000, 1000000000, &f), 0);
	assert_int_equal(f.writers, 2);
	assert_true(f.min_writer == 1e6);
	assert_true(f.max_writer == 3e6);
	assert_true(f.children_see == 4e6);
	assert_true(f.avg_writer == 2e6);
	assert_true(f.min_xfer == 0);
	assert_true(f.parent_sees == 4e6);
	/* no time at all: no rates, and no division by zero */
	assert_int_equal(stream_figures(bytes, ns, 1, 0, 0, &f), 0);
	assert_int_equal(f.writers, 0);
	assert_true(f.children_see == 0 && f.parent_sees == 0 && f.avg_writer == 0);
	assert_int_equal(stream_figures(bytes, ns, 0, 0, 0, &f), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_past_2g),	 cmocka_unit_test(test_offsets_contiguous),
		cmocka_unit_test(test_index_beyond_int), cmocka_unit_test(test_short_last_chunk),
		cmocka_unit_test(test_iozone_figures),	 cmocka_unit_test(test_iozone_idle_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
