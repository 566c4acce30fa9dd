/* Unit tests of the eBPF side that need no kernel: bucket index, --probes, verifier logs. */
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

/*
 * The verifier's verdict out of its log. The first log is real (6.18, trimmed: the
 * Live regs table and most mark_precise lines cut), from the writeback program when clang
 * merged two ctx loads into one; the others are in 6.1's format, whose verdict was
 * "R0 unbounded memory access" for block and jbd2 there.
 */
static void test_log_error(void **state)
{
	static const char real_618[] =
		"func#0 @0\n"
		"Live regs before insn:\n"
		"      0: .1........ (bf) r7 = r1\n"
		"      1: .......7.. (18) r1 = 0xffffc900022ee000\n"
		"0: R1=ctx() R10=fp0\n"
		"; FSB_TP(balance_dirty_pages) @ writeback.bpf.c:38\n"
		"0: (bf) r7 = r1                       ; R1=ctx() R7=ctx()\n"
		"9: (15) if r2 == 0x6 goto pc+1\n"
		"mark_precise: frame0: last_idx 9 first_idx 0 subseq_idx -1 \n"
		"9: R2=0\n"
		"12: (0f) r2 += r1\n"
		"13: R1=80 R2=ctx(off=80)\n"
		"13: (79) r9 = *(u64 *)(r2 +0)\n"
		"dereference of modified ctx ptr R2 off=80 disallowed\n"
		"verification time 765 usec\n"
		"stack depth 0\n"
		"processed 12 insns (limit 1000000) max_states_per_insn 0 total_states 1 "
		"peak_states 1 mark_read 0\n";
	static const char unbounded_61[] =
		"0: R1=ctx(off=0,imm=0) R10=fp0\n"
		"; int fsb_block_rq_complete(unsigned long long *ctx)\n"
		"from 134 to 136: R0_w=map_value(off=0,ks=4,vs=18984,imm=0) R2_w=scalar()\n"
		"139: (0f) r0 += r2\n"
		"R0 unbounded memory access, make sure to bounds check any such access\n"
		"processed 140 insns (limit 1000000) max_states_per_insn 1 total_states 9\n";
	static const char two_lines[] =
		"141: (79) r1 = *(u64 *)(r0 +0)\n"
		"invalid access to map value, value_size=18984 off=18984 size=8\n"
		"R0 min value is outside of the allowed memory range\n"
		"processed 142 insns (limit 1000000)\n";
	static const char poisoned[] = "5: (85) call unknown#195896080\n"
				       "invalid func unknown#195896080\n"
				       "processed 6 insns (limit 1000000)\n";
	char line[200], tiny[8];

	(void)state;
	assert_true(probe_bpf_log_error(real_618, line, sizeof(line)));
	assert_string_equal(line, "dereference of modified ctx ptr R2 off=80 disallowed");
	assert_true(probe_bpf_log_error(unbounded_61, line, sizeof(line)));
	assert_string_equal(
		line, "R0 unbounded memory access, make sure to bounds check any such access");
	/* the first line of a verdict that takes two */
	assert_true(probe_bpf_log_error(two_lines, line, sizeof(line)));
	assert_string_equal(line, "invalid access to map value, value_size=18984 off=18984 size=8");
	assert_true(probe_bpf_log_error(poisoned, line, sizeof(line)));
	assert_non_null(strstr(line, "a CO-RE relocation failed"));
	/* refused before any walk: the one line is the verdict */
	assert_true(
		probe_bpf_log_error("attach_btf_id 4242 is not a typedef\n", line, sizeof(line)));
	assert_string_equal(line, "attach_btf_id 4242 is not a typedef");
	/* nothing but the walk, or nothing at all: no verdict to report */
	assert_false(
		probe_bpf_log_error("0: R1=ctx() R10=fp0\n1: (b7) r0 = 0\n", line, sizeof(line)));
	assert_false(probe_bpf_log_error("", line, sizeof(line)));
	/* cut to the buffer */
	assert_true(probe_bpf_log_error(unbounded_61, tiny, sizeof(tiny)));
	assert_string_equal(tiny, "R0 unbo");
}

/* sources.c's names against the objects' maps: a name too many or too few shifts the rest */
static void test_sources_match_objects(void **state)
{
	char err[256] = "";

	(void)state;
	if (probe_bpf_check_sources(err, sizeof(err)))
		fail_msg("%s", err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_matches_hist),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_log_error),
		cmocka_unit_test(test_sources_match_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
