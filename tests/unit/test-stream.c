/* Unit tests of the stream workload's chunk arithmetic: exact 64-bit offsets past 2 and 4 GiB. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_past_2g),
		cmocka_unit_test(test_offsets_contiguous),
		cmocka_unit_test(test_index_beyond_int),
		cmocka_unit_test(test_short_last_chunk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
