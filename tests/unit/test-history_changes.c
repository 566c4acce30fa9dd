/* Unit tests of fsbench/history/changes: change points in seeded synthetic series over kernels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "base/mix64.h"
#include "fsbench/history/changes.h"
#include "report/metric.h"

/* A normal deviate (Box-Muller) from the stream @s. */
static double gauss(uint64_t *s)
{
	double u1, u2;

	*s = base_mix64(*s);
	u1 = ((double)(*s >> 11) + 1) / 9007199254740993.0;
	*s = base_mix64(*s);
	u2 = (double)(*s >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * @nk kernels of @boots samples each around 1000, with @noise_pct relative noise; from
 * kernel @step_at on, the level moves by @step_pct. Judged with the defaults.
 */
static struct hist_cp_result judge(size_t nk, size_t boots, double noise_pct, size_t step_at,
				   double step_pct, uint64_t seed, double floor_multiple)
{
	size_t *n = calloc(nk, sizeof(*n));
	double *x = calloc(nk * boots, sizeof(*x));
	struct hist_cp_series s = { .nk = nk, .n = n, .x = x };
	struct hist_cp_opts o;
	struct hist_cp_result r;

	assert_non_null(n);
	assert_non_null(x);
	for (size_t k = 0; k < nk; k++) {
		double level = 1000 * (k >= step_at ? 1 + step_pct / 100 : 1);

		n[k] = boots;
		for (size_t b = 0; b < boots; b++)
			x[k * boots + b] = level * (1 + noise_pct / 100 * gauss(&seed));
	}
	hist_cp_opts_init(&o);
	o.floor_multiple = floor_multiple;
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	free(n);
	free(x);
	return r;
}

/* A/A: 0.2 % noise, 18 kernels of 2 boots, no step: no change point, over many seeds. */
static void aa_no_change(void **state)
{
	size_t found = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 50; seed++) {
		struct hist_cp_result r = judge(18, 2, 0.2, 18, 0, seed, HIST_CP_FLOOR_MULTIPLE);

		assert_int_equal(r.status, HIST_CP_JUDGED);
		assert_true(r.spread_pct > 0.1 && r.spread_pct < 0.35);
		found += r.ncps;
		free(r.cps);
	}
	assert_int_equal(found, 0);
}

/* A 1 % step in 0.2 % noise, 2 boots a kernel: found between the right kernels, every time. */
static void one_pct_step(void **state)
{
	int covered = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		for (size_t at = 1; at < 18; at += 4) {
			struct hist_cp_result r =
				judge(18, 2, 0.2, at, -1, seed, HIST_CP_FLOOR_MULTIPLE);

			assert_int_equal(r.status, HIST_CP_JUDGED);
			if (r.ncps != 1)
				fail_msg("seed %llu, step after kernel %zu: %zu change points",
					 (unsigned long long)seed, at - 1, r.ncps);
			assert_int_equal(r.cps[0].before, at - 1);
			assert_true(r.cps[0].change_pct < -0.5 && r.cps[0].change_pct > -1.5);
			covered += r.cps[0].lo_pct < -1 && r.cps[0].hi_pct > -1;
			assert_true(r.cps[0].p < HIST_CP_ALPHA);
			assert_int_equal(r.cps[0].n_before, 2 * at);
			free(r.cps);
		}
	}
	/* a 95 % interval: about 95 of the 100 hold the true step */
	assert_true(covered >= 88);
}

/* The newest kernel alone after a 1 % step, 10 kernels before it. */
static void one_kernel_after(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct hist_cp_result r = judge(11, 2, 0.2, 10, 1, seed, HIST_CP_FLOOR_MULTIPLE);

		assert_int_equal(r.ncps, 1);
		assert_int_equal(r.cps[0].before, 9);
		assert_int_equal(r.cps[0].n_after, 2);
		free(r.cps);
	}
}

/*
 * A 20 % step in 10 % noise, 20 kernels of 3 boots: significant, but inside 3 times the
 * boots' own spread, so not reported by default; with the floor at 1 spread it is found at
 * the right kernel.
 */
static void noisy_step(void **state)
{
	struct hist_cp_result r = judge(20, 3, 10, 10, 20, 3, HIST_CP_FLOOR_MULTIPLE);

	(void)state;
	assert_int_equal(r.status, HIST_CP_JUDGED);
	assert_true(r.spread_pct > 7 && r.spread_pct < 13);
	assert_int_equal(r.ncps, 0);
	r = judge(20, 3, 10, 10, 20, 3, 1);
	assert_int_equal(r.ncps, 1);
	assert_int_equal(r.cps[0].before, 9);
	assert_true(r.cps[0].change_pct > 10 && r.cps[0].change_pct < 30);
	free(r.cps);
}

/* Two steps in one series: both, each at its kernel. */
static void two_steps(void **state)
{
	size_t n[12];
	double x[24];
	uint64_t seed = 11;
	struct hist_cp_series s = { .nk = 12, .n = n, .x = x };
	struct hist_cp_opts o;
	struct hist_cp_result r;

	(void)state;
	for (size_t k = 0; k < 12; k++) {
		double level = k < 4 ? 1000 : k < 8 ? 1050 : 1010;

		n[k] = 2;
		x[2 * k] = level * (1 + 0.002 * gauss(&seed));
		x[2 * k + 1] = level * (1 + 0.002 * gauss(&seed));
	}
	hist_cp_opts_init(&o);
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.ncps, 2);
	assert_int_equal(r.cps[0].before, 3);
	assert_int_equal(r.cps[1].before, 7);
	free(r.cps);
}

/* Too short (one kernel; no kernel with two samples) and too noisy cannot be judged. */
static void cannot_judge(void **state)
{
	struct hist_cp_result r = judge(1, 4, 0.2, 1, 0, 1, HIST_CP_FLOOR_MULTIPLE);
	size_t n[3] = { 1, 1, 1 };
	double x[3] = { 1, 2, 3 };
	struct hist_cp_series s = { .nk = 3, .n = n, .x = x };
	struct hist_cp_opts o;

	(void)state;
	assert_int_equal(r.status, HIST_CP_SHORT);
	hist_cp_opts_init(&o);
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.status, HIST_CP_SHORT);
	r = judge(10, 2, 40, 10, 0, 1, HIST_CP_FLOOR_MULTIPLE);
	assert_int_equal(r.status, HIST_CP_NOISY);
	assert_int_equal(r.ncps, 0);
}

/* Equal values everywhere (the model disk's fsync p50): judged, spread 0, no change. */
static void constant_series(void **state)
{
	size_t n[10];
	double x[20];
	struct hist_cp_series s = { .nk = 10, .n = n, .x = x };
	struct hist_cp_opts o;
	struct hist_cp_result r;

	(void)state;
	for (size_t i = 0; i < 10; i++)
		n[i] = 2;
	for (size_t i = 0; i < 20; i++)
		x[i] = 0.1 * 3; /* not exact in binary: sums of it round */
	hist_cp_opts_init(&o);
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.status, HIST_CP_JUDGED);
	assert_int_equal(r.ncps, 0);
}

/*
 * fsync p50 on the model disk: every boot of a kernel the same value, a bucket's midpoint
 * of the latency histogram (64 buckets to a power of two: 256 ns wide at 20 us). A step
 * of one bucket (1.28 %) is within the histogram's resolution and no change; two are one.
 */
static struct hist_cp_result latency_step(double step_ns, const char *metric)
{
	size_t n[16];
	double x[32];
	struct hist_cp_series s = { .nk = 16, .n = n, .x = x };
	struct hist_cp_opts o;
	struct hist_cp_result r;

	for (size_t k = 0; k < 16; k++) {
		n[k] = 2;
		x[2 * k] = x[2 * k + 1] = 20000 + (k >= 8 ? step_ns : 0);
	}
	x[0] += 256; /* one boot a bucket off: a spread, so the series is judged */
	hist_cp_opts_init(&o);
	o.metric = metric;
	o.scale = metric ? rpt_metric_lookup(metric)->scale : 1;
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.status, HIST_CP_JUDGED);
	return r;
}

static void latency_bucket(void **state)
{
	struct hist_cp_result r;

	(void)state;
	r = latency_step(256, "fsync.p50");
	assert_int_equal(r.ncps, 0);
	free(r.cps);
	/* the same series as a metric without buckets: the step is a change */
	r = latency_step(256, NULL);
	assert_int_equal(r.ncps, 1);
	assert_true(r.cps[0].bar_pct == r.cps[0].floor_pct);
	free(r.cps);
	r = latency_step(512, "fsync.p50");
	assert_int_equal(r.ncps, 1);
	assert_int_equal(r.cps[0].before, 7);
	assert_true(r.cps[0].bar_pct > 1.27 && r.cps[0].bar_pct < 1.29);
	free(r.cps);
}

/* --min-change: a 4 % step found at the default, not when at least 5 % is asked. */
static void min_change(void **state)
{
	size_t n[18];
	double x[36];
	struct hist_cp_series s = { .nk = 18, .n = n, .x = x };
	struct hist_cp_opts o;
	struct hist_cp_result r;
	uint64_t seed = 7;

	(void)state;
	for (size_t k = 0; k < 18; k++) {
		n[k] = 2;
		for (size_t b = 0; b < 2; b++)
			x[2 * k + b] = 1000 * (k >= 9 ? 0.96 : 1) * (1 + 0.002 * gauss(&seed));
	}
	hist_cp_opts_init(&o);
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.ncps, 1);
	assert_int_equal(r.cps[0].before, 8);
	free(r.cps);
	o.min_change_pct = 3;
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.ncps, 1);
	assert_true(r.cps[0].bar_pct == 3);
	free(r.cps);
	o.min_change_pct = 5;
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.ncps, 0);
}

/*
 * The stream's fdatasync p50 on the model disk: each boot's first repetition 87.8 ms, the
 * later two 61.5 ms (a cold first run, every boot alike), 0.2 % noise, 18 kernels of 2
 * boots, +25 % from the 12th kernel on. Pooled over repetitions the boots' spread is the
 * two modes (about 17 %, a floor of 50 %): the step hides. Taken per repetition, as the
 * gate's floor pairs like with like, it is found at its kernel.
 */
static void repetitions_two_modes(void **state)
{
	enum { NK = 18, PER = 6 };
	size_t n[NK];
	double x[NK * PER];
	int rep[NK * PER];
	struct hist_cp_series s = { .nk = NK, .n = n, .x = x };
	struct hist_cp_opts o;
	struct hist_cp_result r;
	uint64_t seed = 11;

	(void)state;
	for (size_t k = 0; k < NK; k++) {
		n[k] = PER;
		for (size_t b = 0; b < 2; b++)
			for (int i = 0; i < 3; i++) {
				size_t j = k * PER + b * 3 + (size_t)i;

				rep[j] = i;
				x[j] = (i ? 61.5e6 : 87.8e6) * (k >= 11 ? 1.25 : 1) *
				       (1 + 0.002 * gauss(&seed));
			}
	}
	hist_cp_opts_init(&o);
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_true(r.spread_pct > 10);
	assert_true(r.ncps == 0 || r.status != HIST_CP_JUDGED);
	free(r.cps);
	s.rep = rep;
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.status, HIST_CP_JUDGED);
	assert_true(r.spread_pct < 0.5);
	assert_int_equal(r.ncps, 1);
	assert_int_equal(r.cps[0].before, 10);
	assert_true(r.cps[0].change_pct > 24 && r.cps[0].change_pct < 26);
	free(r.cps);
	/* one boot a kernel (3 repetitions): no two runs share one, the repetitions are the
	 * spread as before, and a series is judged, not "too short" */
	for (size_t k = 0; k < NK; k++)
		n[k] = 3;
	for (size_t j = 0; j < NK * 3; j++) {
		rep[j] = (int)(j % 3);
		x[j] = 1000 * (j / 3 >= 11 ? 1.25 : 1) * (1 + 0.002 * gauss(&seed));
	}
	assert_int_equal(hist_cp_find(&s, &o, &r), 0);
	assert_int_equal(r.status, HIST_CP_JUDGED);
	assert_int_equal(r.ncps, 1);
	assert_int_equal(r.cps[0].before, 10);
	free(r.cps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aa_no_change),	    cmocka_unit_test(one_pct_step),
		cmocka_unit_test(one_kernel_after), cmocka_unit_test(noisy_step),
		cmocka_unit_test(two_steps),	    cmocka_unit_test(cannot_judge),
		cmocka_unit_test(constant_series),  cmocka_unit_test(latency_bucket),
		cmocka_unit_test(min_change),	    cmocka_unit_test(repetitions_two_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
