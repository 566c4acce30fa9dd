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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_matches_hist),
		cmocka_unit_test(test_select),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
