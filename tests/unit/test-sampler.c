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
#include <unistd.h>

#include <cmocka.h>

#include "probes/sampler/canary.h"
#include "probes/sampler/hostload.h"
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

/* Two saved /proc/stat and thermal_throttle trees: others' share with fsbench's own time out. */
static void test_hostload_fixture(void **state)
{
	char a_root[PATH_MAX], b_root[PATH_MAX];
	struct probe_hostload_snap a, b;
	struct probe_hostload h;
	json_t *j;

	(void)state;
	fixture(a_root, sizeof(a_root), "hostload/a");
	fixture(b_root, sizeof(b_root), "hostload/b");
	assert_int_equal(probe_hostload_read(a_root, &a), 0);
	assert_int_equal(probe_hostload_read(b_root, &b), 0);
	assert_int_equal(a.cpus, 2);
	assert_int_equal(a.cpu.steal, 0);
	assert_int_equal(b.cpu.steal, 100);
	assert_true(a.has_throttle);
	assert_int_equal(a.throttle, 8); /* core 2 + 0, package 3 + 3 */
	assert_int_equal(b.throttle, 14);
	/* busy 1500 -> 1900 ticks, all 9600 -> 10650: 4 s of 10.5 at 100 Hz, 1 s fsbench's */
	assert_int_equal(probe_hostload_delta(&a, &b, 1.0, 100, &h), 0);
	assert_float_equal(h.total_s, 10.5, 1e-9);
	assert_float_equal(h.busy_s, 4.0, 1e-9);
	assert_float_equal(h.others_pct, 3.0 / 10.5 * 100, 1e-9);
	assert_float_equal(h.steal_pct, 1.0 / 10.5 * 100, 1e-9);
	assert_float_equal(h.iowait_pct, 0.5 / 10.5 * 100, 1e-9);
	assert_int_equal(h.throttle_events, 6);
	/* fsbench's rusage past the sampled ticks: others are none, never negative */
	assert_int_equal(probe_hostload_delta(&a, &b, 9.0, 100, &h), 0);
	assert_float_equal(h.others_pct, 0, 1e-9);
	/* counters that went backwards, or no time: refused */
	assert_int_equal(probe_hostload_delta(&b, &a, 1.0, 100, &h), -EINVAL);
	assert_int_equal(probe_hostload_delta(&a, &a, 0.0, 100, &h), -EINVAL);
	assert_int_equal(probe_hostload_delta(&a, &b, 1.0, 0, &h), -EINVAL);
	assert_int_equal(probe_hostload_delta(&a, &b, 1.0, 100, &h), 0);
	j = probe_hostload_json(&h);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "throttle_events")), 6);
	json_decref(j);
}

static void test_hostload_errors(void **state)
{
	char root[PATH_MAX];
	struct probe_hostload_snap s, later;
	struct probe_cpu_times t;
	struct probe_hostload h;
	json_t *j;
	int cpus;

	(void)state;
	/* no steal field (before 2.6.11): refused, not read as zero steal */
	fixture(root, sizeof(root), "hostload/short");
	assert_int_equal(probe_hostload_read(root, &s), -EBADMSG);
	assert_int_equal(probe_hostload_parse_stat("intr 1\nctxt 2\n", &t, &cpus), -EBADMSG);
	assert_int_equal(probe_hostload_parse_stat("", &t, &cpus), -EBADMSG);
	fixture(root, sizeof(root), "nonexistent");
	assert_int_equal(probe_hostload_read(root, &s), -ENOENT);
	/* a tree without thermal_throttle (a VM): no throttle count, recorded as null */
	fixture(root, sizeof(root), "hostload/vm");
	assert_int_equal(probe_hostload_read(root, &s), 0);
	assert_false(s.has_throttle);
	later = s;
	later.cpu.idle += 100; /* 100 idle ticks, summed over the CPUs: one second */
	assert_int_equal(probe_hostload_delta(&s, &later, 0, 100, &h), 0);
	assert_float_equal(h.total_s, 1.0, 1e-9);
	assert_false(h.has_throttle);
	j = probe_hostload_json(&h);
	assert_true(json_is_null(json_object_get(j, "throttle_events")));
	assert_float_equal(json_number_value(json_object_get(j, "others_pct")), 0, 1e-9);
	json_decref(j);
}

/* A thread's schedstat: on a CPU and waiting for one, ns. */
static void test_schedstat(void **state)
{
	uint64_t run = 0, wait = 0;

	(void)state;
	assert_int_equal(probe_hostload_parse_schedstat("1234567 89012 42\n", &run, &wait), 0);
	assert_int_equal(run, 1234567);
	assert_int_equal(wait, 89012);
	assert_int_equal(probe_hostload_parse_schedstat("1234567\n", &run, &wait), -EBADMSG);
	assert_int_equal(probe_hostload_parse_schedstat("", &run, &wait), -EBADMSG);
	/* the live thread, where the kernel has schedstats */
	if (probe_hostload_thread(&run, &wait) == 0) {
		uint64_t run2 = 0, wait2 = 0;
		volatile uint64_t x = 0;

		for (int i = 0; i < 10000000; i++)
			x += (uint64_t)i;
		assert_int_equal(probe_hostload_thread(&run2, &wait2), 0);
		/* monotonic; a running thread's own time is only brought up to date at a tick */
		assert_true(run2 >= run && wait2 >= wait);
	}
}

/* The live system: a second reading after some work is a valid delta. */
static void test_hostload_live(void **state)
{
	struct probe_hostload_snap a, b;
	struct probe_hostload h;

	(void)state;
	assert_int_equal(probe_hostload_read(NULL, &a), 0);
	assert_true(a.cpus >= 1);
	sleep_ms(50);
	assert_int_equal(probe_hostload_read(NULL, &b), 0);
	if (probe_hostload_delta(&a, &b, 0, 100, &h) == 0) {
		assert_true(h.others_pct >= 0 && h.others_pct <= 100);
		assert_true(h.steal_pct >= 0 && h.steal_pct <= 100);
	}
}

static void test_canary_summary(void **state)
{
	uint64_t v[10] = { 10000, 1000, 9000, 2000, 8000, 3000, 7000, 4000, 6000, 5000 };
	struct probe_canary c = { 0 };

	(void)state;
	probe_canary_summarise(v, 10, &c);
	assert_int_equal(c.n, 10);
	assert_float_equal(c.p10_us, 1.0, 1e-9);
	assert_float_equal(c.p50_us, 5.0, 1e-9);
	assert_float_equal(c.p90_us, 9.0, 1e-9);
	assert_float_equal(c.mean_us, 5.5, 1e-9);
	assert_float_equal(c.spread_pct, 160.0, 1e-9);
}

/* A real canary in a temporary directory: its own file, fsynced, and gone afterwards. */
static void test_canary_live(void **state)
{
	char dir[] = "/tmp/fsb-canary.XXXXXX";
	struct probe_canary c = { 0 };
	json_t *j;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(probe_canary_run(dir, 20, &c), 0);
	assert_int_equal(c.n, 20);
	assert_true(c.p10_us > 0 && c.p10_us <= c.p50_us && c.p50_us <= c.p90_us);
	assert_true(c.elapsed_s > 0);
	j = probe_canary_json(&c);
	assert_int_equal(json_integer_value(json_object_get(j, "n")), 20);
	json_decref(j);
	assert_int_equal(probe_canary_run(dir, 0, &c), -EINVAL);
	assert_int_equal(probe_canary_run(dir, PROBE_CANARY_MAX + 1, &c), -EINVAL);
	assert_int_equal(rmdir(dir), 0); /* nothing left behind */
	assert_int_equal(probe_canary_run(dir, 5, &c), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_one),	cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_thread_fixture),	cmocka_unit_test(test_decimation),
		cmocka_unit_test(test_stop_is_prompt),	cmocka_unit_test(test_hostload_fixture),
		cmocka_unit_test(test_hostload_errors), cmocka_unit_test(test_hostload_live),
		cmocka_unit_test(test_schedstat),	cmocka_unit_test(test_canary_summary),
		cmocka_unit_test(test_canary_live),
	};

	fx = getenv("FSB_FIXTURES");
	if (!fx) {
		fprintf(stderr, "FSB_FIXTURES is not set\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
