/* Unit tests of the attribution table's sentences, from slow calls as fsbench writes them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "report/attrib.h"

static json_t *call(const char *kernel_json, long long duration_ns)
{
	json_error_t e;
	json_t *k = json_loads(kernel_json, 0, &e);

	assert_non_null(k);
	return json_pack("{s:s,s:i,s:I,s:I,s:o}", "op", "fsync", "thread", 0, "start_ns",
			 (json_int_t)1000000, "duration_ns", (json_int_t)duration_ns, "kernel", k);
}

#define REQS(nfl, flns, nwr)                                                                             \
	"\"requests\": {\"read\": {\"count\": 0, \"bytes\": 0, \"ns\": 0}, \"write\": {\"count\": " #nwr \
	", \"bytes\": 36864, \"ns\": 110000}, \"flush\": {\"count\": " #nfl                              \
	", \"bytes\": 0, \"ns\": " #flns                                                                 \
	"}, \"discard\": {\"count\": 0, \"bytes\": 0, \"ns\": 0}}"

/* The sentence: the commit, its phases, the flushes inside it, on the device. */
static void test_one_commit(void **state)
{
	char s[1024];
	json_t *c = call(
		"{\"complete\": true, " REQS(
			2, 19782517,
			3) ", \"commits_total\": 1, "
			   "\"commits\": [{\"tid\": 391, \"start_ns\": 102292, \"duration_ns\": "
			   "20469952, \"handles\": 3, \"flushes\": 2, \"flush_ns\": 19782517, "
			   "\"locked_ns\": 5298, \"flushing_ns\": 1552, \"logging_ns\": 20463102}]}",
		20593395);

	(void)state;
	rpt_attrib_sentence(c, "loop3", s, sizeof(s));
	assert_string_equal(s, "fsync 20.59 ms = jbd2 commit 20.47 ms (locked 0.01, flushing 0.00, "
			       "logging 20.46; 2 flushes 19.78 ms on loop3, 3 handles) + 3 writes "
			       "(36 KiB) 0.11 ms");
	json_decref(c);
}

/* With two threads: the commit waited for ends last inside the call; the one before it and
 * one that began as the call ended are not it. */
static void test_waited_commit(void **state)
{
	char s[1024];
	json_t *c =
		call("{\"complete\": false, " REQS(
			     4, 900000,
			     6) ", \"commits_total\": 3, "
				"\"commits\": ["
				"{\"tid\": 1, \"start_ns\": -2691000, \"duration_ns\": 6600680, "
				"\"handles\": 3, \"flushes\": 2, \"flush_ns\": 400000},"
				"{\"tid\": 2, \"start_ns\": 3921898, \"duration_ns\": 4003774, "
				"\"handles\": 3, \"flushes\": 2, \"flush_ns\": 500000},"
				"{\"tid\": 3, \"start_ns\": 7940284, \"duration_ns\": 4002352, "
				"\"handles\": 3, \"flushes\": 0, \"flush_ns\": 0}]}",
		     8011214);

	(void)state;
	rpt_attrib_sentence(c, "loop1", s, sizeof(s));
	assert_string_equal(s,
			    "fsync 8.01 ms = jbd2 commit 4.00 ms (2 flushes 0.50 ms on loop1, 3 "
			    "handles) + 1 earlier commit 3.91 ms + 2 flushes 0.40 ms on loop1 + 6 "
			    "writes (36 KiB) 0.11 ms [events of this window were dropped]");
	json_decref(c);
}

static void test_nothing_on_device(void **state)
{
	char s[1024];
	json_t *c = call("{\"complete\": true, " REQS(0, 0, 0) ", \"commits_total\": 0, "
							       "\"commits\": []}",
			 90000);

	(void)state;
	rpt_attrib_sentence(c, "sda", s, sizeof(s));
	assert_string_equal(s, "fsync 0.09 ms: nothing on sda (CPU, locks or the page cache)");
	json_decref(c);
}

static void test_xfs(void **state)
{
	char s[1024];
	json_t *c = call(
		"{\"complete\": true, " REQS(
			4, 4260000,
			3) ", \"commits_total\": 0, "
			   "\"commits\": [], \"xfs\": {\"log_forces\": 2, \"iclog_writes\": 2, "
			   "\"iclog_ns\": 4970000, \"cil_waits\": 0}}",
		8570000);

	(void)state;
	rpt_attrib_sentence(c, "loop0", s, sizeof(s));
	assert_string_equal(s, "fsync 8.57 ms = xfs 2 log forces, 2 iclog writes 4.97 ms + 4 "
			       "flushes 4.26 ms on loop0 + 3 writes (36 KiB) 0.11 ms");
	json_decref(c);
}

/*
 * A result file is anyone's: times at INT64_MAX (and a negative flush count) are read as
 * they are, and the sums saturate instead of overflowing (UBSan stops the suite on those).
 */
static void test_extreme_times(void **state)
{
	char s[1024];
	json_t *c = call("{\"complete\": true, " REQS(
				 5, 100, 0) ", \"commits_total\": 2, \"commits\": ["
					    "{\"start_ns\": 0, \"duration_ns\": "
					    "9223372036854775807, \"handles\": 1, \"flushes\": 0, "
					    "\"flush_ns\": 0},"
					    "{\"start_ns\": 9223372036854775807, \"duration_ns\": "
					    "9223372036854775807, \"handles\": 1, \"flushes\": "
					    "-9223372036854775807, \"flush_ns\": "
					    "-9223372036854775807}]}",
			 INT64_MAX);

	(void)state;
	rpt_attrib_sentence(c, "sda", s, sizeof(s));
	/* both end at the limit, inside the call: the later one in the list is the one waited for */
	assert_non_null(
		strstr(s, "= jbd2 commit 9223372036854.78 ms (-9223372036854775807 flushes"));
	assert_null(strstr(s, "during"));
	/* the other ran from the call's start until that one began */
	assert_non_null(strstr(s, "+ 1 earlier commit 9223372036854.78 ms"));
	/* 5 flushes against -INT64_MAX in the commit: counts that saturate, not ones that wrap */
	assert_non_null(strstr(s, "+ 9223372036854775807 flushes 9223372036854.78 ms on sda"));
	json_decref(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_commit),	  cmocka_unit_test(test_waited_commit),
		cmocka_unit_test(test_nothing_on_device), cmocka_unit_test(test_xfs),
		cmocka_unit_test(test_extreme_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
