/* Unit tests of the workload interface: the one timing path and the run's stop state. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsbench/core/workload.h"

static int calls;

static int fake_call(int ret)
{
	calls++;
	return ret;
}

/* FSB_TIME_CALL runs the call once, between two ordered reads; fsb_record files it under its op. */
static void test_time_call_records_one_sample(void **unused)
{
	struct hist h;
	struct fsb_thread t = { .id = 0 };
	uint64_t t0 = 0, t1 = 0;
	int r;

	(void)unused;
	hist_init(&h);
	t.hist[OP_WRITE] = &h;
	calls = 0;
	FSB_TIME_CALL(t0, t1, r = fake_call(7));
	assert_int_equal(r, 7);
	assert_int_equal(calls, 1);
	assert_true(t0 > 0 && t1 >= t0);
	fsb_record(&t, OP_WRITE, t0, t1);
	fsb_record(&t, OP_WRITE, 1000, 1500);
	assert_int_equal(h.count, 2);
	assert_true(h.sum == (t1 - t0) + 500);
	assert_true(h.max >= 500);
}

/*
 * errno after the macro is the call's: workloads read it after the second clock read.
 * Real system calls, so that anything the macro or the clock did to errno after the call
 * (a reset, a call of its own) shows: the failing one's EBADF must survive, and a call
 * that succeeds must leave the ENOSPC set before it untouched.
 */
static void test_time_call_keeps_errno(void **unused)
{
	uint64_t t0 = 0, t1 = 0;
	int r;

	(void)unused;
	errno = 0;
	FSB_TIME_CALL(t0, t1, r = close(-1));
	assert_int_equal(r, -1);
	assert_int_equal(errno, EBADF);
	assert_true(t0 > 0 && t1 >= t0);

	errno = ENOSPC;
	FSB_TIME_CALL(t0, t1, r = (int)getppid());
	assert_true(r > 0);
	assert_int_equal(errno, ENOSPC);
	assert_true(t1 >= t0);
}

/* The stop state only moves up: an early end never hides a failure, a failure overrides an end. */
static void test_stop_state(void **unused)
{
	struct fsb_run run;

	(void)unused;
	memset(&run, 0, sizeof(run));
	atomic_init(&run.stop, FSB_RUNNING);
	assert_false(fsb_should_stop(&run));
	fsb_run_end(&run);
	assert_true(fsb_should_stop(&run));
	assert_false(fsb_run_failed(&run));
	fsb_run_fail(&run, -EIO, "first");
	assert_true(fsb_run_failed(&run));
	fsb_run_fail(&run, -ENOSPC, "second");
	fsb_run_end(&run);
	assert_true(fsb_run_failed(&run));
	assert_int_equal(run.err, -EIO);
	assert_string_equal(run.errmsg, "first");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_call_records_one_sample),
		cmocka_unit_test(test_time_call_keeps_errno),
		cmocka_unit_test(test_stop_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
