/* The sampler on fixture files (fixed values) and on the live system (a real thread). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "probes/sampler/sampler.h"

static const char *fx;

static void fixture(char *buf, size_t len, const char *sub)
{
	snprintf(buf, len, "%s/%s", fx, sub);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void test_read_one(void **state)
{
	char root[PATH_MAX], disk[PATH_MAX + 32];
	struct probe_sample s;

	(void)state;
	fixture(root, sizeof(root), "sampler");
	snprintf(disk, sizeof(disk), "%s/sys/block/sdz", root);
	assert_int_equal(probe_sample_read(root, disk, &s), 0);
	assert_int_equal(s.dirty_bytes, 262144ull * 1024);
	assert_int_equal(s.writeback_bytes, 16384ull * 1024);
	assert_true(s.has_inflight);
	assert_int_equal(s.inflight_read, 3);
	assert_int_equal(s.inflight_write, 17);
	assert_int_equal(probe_sample_read(root, NULL, &s), 0);
	assert_false(s.has_inflight);
	/* the fixture lists "WritebackTmp" and "DirtyX" first: whole keys only */
	assert_int_equal(s.dirty_bytes, 262144ull * 1024);
	assert_int_equal(s.writeback_bytes, 16384ull * 1024);
}

static void test_read_errors(void **state)
{
	char root[PATH_MAX], disk[PATH_MAX + 32];
	struct probe_sample s;
	struct probe_sampler *p = NULL;

	(void)state;
	fixture(root, sizeof(root), "sampler-bad");
	assert_int_equal(probe_sample_read(root, NULL, &s), -ENOENT);
	assert_int_equal(probe_sampler_start(root, NULL, 100000000, &p), -ENOENT);
	assert_null(p);
	fixture(root, sizeof(root), "sampler");
	snprintf(disk, sizeof(disk), "%s/sys/block/nonexistent", root);
	assert_int_equal(probe_sample_read(root, disk, &s), -ENOENT);
	assert_int_equal(probe_sampler_start(root, NULL, 1000, &p), -EINVAL);
}

/* A thread over fixed files: every sample equal, times increasing, maxima the values. */
static void test_thread_fixture(void **state)
{
	char root[PATH_MAX], disk[PATH_MAX + 32];
	struct probe_sampler *p = NULL;
	struct probe_sampler_max m;
	json_t *o, *t, *d;
	size_t n;

	(void)state;
	fixture(root, sizeof(root), "sampler");
	snprintf(disk, sizeof(disk), "%s/sys/block/sdz", root);
	assert_int_equal(probe_sampler_start(root, disk, 10000000, &p), 0);
	sleep_ms(120);
	assert_int_equal(probe_sampler_stop(p), 0);
	assert_int_equal(probe_sampler_stop(p), 0);
	probe_sampler_maxima(p, &m);
	assert_int_equal(m.dirty_bytes, 262144ull * 1024);
	assert_int_equal(m.writeback_bytes, 16384ull * 1024);
	assert_int_equal(m.inflight, 20);
	assert_int_equal(m.inflight_write, 17);
	/* start, ~11 ticks, stop: a loose bound, the VM may be slow */
	assert_true(m.samples >= 3 && m.samples <= 15);

	o = probe_sampler_json(p);
	t = json_object_get(o, "t_ns");
	d = json_object_get(o, "dirty_bytes");
	n = json_array_size(t);
	assert_int_equal(n, m.samples);
	assert_int_equal(json_array_size(d), n);
	assert_int_equal(json_array_size(json_object_get(o, "inflight_write")), n);
	assert_int_equal(json_integer_value(json_array_get(t, 0)), 0);
	for (size_t i = 1; i < n; i++)
		assert_true(json_integer_value(json_array_get(t, i)) >
			    json_integer_value(json_array_get(t, i - 1)));
	assert_int_equal(json_integer_value(json_array_get(d, n - 1)), 262144 * 1024);
	assert_int_equal(json_integer_value(json_object_get(o, "interval_ns")), 10000000);
	assert_true(json_is_false(json_object_get(o, "decimated")));
	json_decref(o);
	p = probe_sampler_free(p);
	assert_null(p);
}

/* Past the cap the series is halved: bounded, still ordered, still spanning the run. */
static void test_decimation(void **state)
{
	struct probe_sampler *p = NULL;
	struct probe_sampler_max m;
	json_t *o, *t;
	size_t n;

	(void)state;
	assert_int_equal(probe_sampler_start_n(NULL, NULL, 1000000, 8, &p), 0);
	sleep_ms(100);
	assert_int_equal(probe_sampler_stop(p), 0);
	probe_sampler_maxima(p, &m);
	o = probe_sampler_json(p);
	t = json_object_get(o, "t_ns");
	n = json_array_size(t);
	assert_true(m.samples > 16);
	assert_true(n >= 2 && n <= 8);
	assert_true(json_is_true(json_object_get(o, "decimated")));
	assert_true(json_integer_value(json_object_get(o, "interval_ns")) >= 2000000);
	for (size_t i = 1; i < n; i++)
		assert_true(json_integer_value(json_array_get(t, i)) >
			    json_integer_value(json_array_get(t, i - 1)));
	/* the last sample is the one taken at stop */
	assert_true(json_integer_value(json_array_get(t, n - 1)) >= 90000000);
	/* no device: no in-flight series */
	assert_true(json_is_null(json_object_get(o, "inflight_read")));
	json_decref(o);
	probe_sampler_free(p);
}

/* Stopping does not wait for the next tick. */
static void test_stop_is_prompt(void **state)
{
	struct probe_sampler *p = NULL;
	struct timespec a, b;
	double ms;

	(void)state;
	assert_int_equal(probe_sampler_start(NULL, NULL, 10ull * 1000000000, &p), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	probe_sampler_free(p);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	assert_true(ms < 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_one),       cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_thread_fixture), cmocka_unit_test(test_decimation),
		cmocka_unit_test(test_stop_is_prompt),
	};

	fx = getenv("FSB_FIXTURES");
	if (!fx) {
		fprintf(stderr, "FSB_FIXTURES is not set\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
