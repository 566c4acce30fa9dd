/* Unit tests of the eBPF side that need no kernel: bucket index, --probes, slow-call capture. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/types.h>

#include "probes/bpf/fsb_bpf.h"
#include "model/hist.h"
#include "probes/bpf/probe_bpf.h"
#include "fsbench/core/workload.h"

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The BPF programs' index must be model/hist.h's, or kernel histograms would lie. */
static void test_index_matches_hist(void **state)
{
	uint64_t s = 88172645463325252ull;

	(void)state;
	for (uint64_t v = 0; v < 70000; v++)
		assert_int_equal(fsb_khist_index(v), hist_index(v));
	for (unsigned e = 6; e < HIST_MAX_EXP; e++) {
		uint64_t p = UINT64_C(1) << e;

		assert_int_equal(fsb_khist_index(p - 1), hist_index(p - 1));
		assert_int_equal(fsb_khist_index(p), hist_index(p));
		assert_int_equal(fsb_khist_index(p + 1), hist_index(p + 1));
	}
	for (int i = 0; i < 1000000; i++) {
		uint64_t v = next_rand(&s) >> (22 + next_rand(&s) % 42);

		assert_int_equal(fsb_khist_index(v), hist_index(v));
	}
	assert_int_equal(fsb_khist_index(HIST_RANGE_NS - 1), HIST_NBINS - 1);
}

static void test_select(void **state)
{
	char err[256] = "";
	uint32_t m = 7;

	(void)state;
	assert_int_equal(probe_bpf_select(NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(m, PROBE_BPF_ALL);
	assert_int_equal(probe_bpf_select("none", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 0);
	assert_int_equal(probe_bpf_select("jbd2,block", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 3); /* block and jbd2 are the first two sources */
	assert_int_equal(probe_bpf_select("block,nosuch", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'nosuch'"));
	assert_non_null(strstr(err, "jbd2"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_matches_hist),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_slow_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
