/* Unit tests of the slow-call capture (fsbench/core/slowcall.h) through the one timing path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fsbench/core/slowcall.h"
#include "fsbench/core/workload.h"

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int by_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* After many calls, each op's table holds exactly the FSB_SLOW_N longest, with their times. */
static void test_slow_capture(void **state)
{
	struct fsb_thread t = { 0 };
	struct fsb_slow_top *slow = calloc(OP_COUNT, sizeof(*slow));
	struct hist *h = malloc(sizeof(*h));
	uint64_t all[5000], kept[FSB_SLOW_N], s = 12345, now = 1000;

	(void)state;
	assert_non_null(slow);
	assert_non_null(h);
	hist_init(h);
	t.hist[OP_FSYNC] = h;
	t.slow = slow;
	for (int i = 0; i < 5000; i++) {
		all[i] = 1 + next_rand(&s) % 1000000;
		fsb_record(&t, OP_FSYNC, now, now + all[i]);
		now += all[i] + 10;
	}
	assert_int_equal(h->count, 5000);
	assert_int_equal(slow[OP_FSYNC].n, FSB_SLOW_N);
	assert_int_equal(slow[OP_WRITE].n, 0);
	qsort(all, 5000, sizeof(all[0]), by_desc);
	for (int i = 0; i < FSB_SLOW_N; i++)
		kept[i] = slow[OP_FSYNC].v[i].t1 - slow[OP_FSYNC].v[i].t0;
	qsort(kept, FSB_SLOW_N, sizeof(kept[0]), by_desc);
	for (int i = 0; i < FSB_SLOW_N; i++)
		assert_int_equal(kept[i], all[i]);
	assert_int_equal(slow[OP_FSYNC].floor, all[FSB_SLOW_N - 1]);
	free(h);
	free(slow);
}

/* Below FSB_SLOW_N calls every one is kept; the floor is the fastest once the table is full. */
static void test_slow_fill(void **state)
{
	struct fsb_slow_top top = { 0 };

	(void)state;
	for (uint64_t i = 0; i < FSB_SLOW_N - 1; i++)
		fsb_slow_note(&top, 100 * i, 100 * i + 50 + i);
	assert_int_equal(top.n, FSB_SLOW_N - 1);
	assert_true(top.v[3].t0 == 300 && top.v[3].t1 == 353);
	fsb_slow_note(&top, 10000, 10000 + 7);
	assert_int_equal(top.n, FSB_SLOW_N);
	assert_true(top.floor == 7);
	assert_int_equal(top.floor_i, FSB_SLOW_N - 1);
	/* no faster than the floor: not kept */
	fsb_slow_note(&top, 20000, 20000 + 7);
	assert_true(top.v[top.floor_i].t0 == 10000);
	/* slower: replaces the fastest, and the floor moves up to the next fastest (50) */
	fsb_slow_note(&top, 30000, 30000 + 1000);
	assert_true(top.v[FSB_SLOW_N - 1].t0 == 30000);
	assert_true(top.floor == 50);
	assert_int_equal(top.floor_i, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_capture),
		cmocka_unit_test(test_slow_fill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
