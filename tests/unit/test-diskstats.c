/* /proc/diskstats parsing for every field count the kernel has used, and the run deltas. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/sampler/diskstats.h"

static const char *fx;

static void read_at(const char *sub, const char *name, struct probe_diskstats *ret)
{
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/%s", fx, sub);
	assert_int_equal(probe_diskstats_read(root, name, ret), 0);
}

static json_int_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/* Two snapshots taken on Linux 6.18 around 200 small fsyncs and a 30 MiB write on ext4/loop1. */
static void test_delta_20_fields(void **state)
{
	struct probe_diskstats a, b;
	json_t *o;

	(void)state;
	read_at("fsstats/before", "loop1", &a);
	read_at("fsstats/after", "loop1", &b);
	assert_int_equal(a.nfields, 17);
	assert_int_equal(a.major, 7);
	assert_int_equal(a.minor, 1);
	assert_true(b.t_ns >= a.t_ns);
	/* fixed times make the queue depth exact: 330 ms weighted over 660 ms */
	a.t_ns = 1000000000;
	b.t_ns = a.t_ns + 660000000;
	o = probe_diskstats_delta_json(&a, &b);
	assert_string_equal(json_string_value(json_object_get(o, "name")), "loop1");
	assert_int_equal(jint(o, "write_ios"), 2306 - 1674);
	assert_int_equal(jint(o, "write_bytes"), (json_int_t)(765502 - 700418) * 512);
	assert_int_equal(jint(o, "flush_ios"), 1355 - 953);
	assert_int_equal(jint(o, "discard_ios"), 0);
	assert_int_equal(jint(o, "busy_ns"), (json_int_t)(640 - 556) * 1000000);
	assert_int_equal(jint(o, "queue_ns"), (json_int_t)(1357 - 1027) * 1000000);
	assert_int_equal(jint(o, "elapsed_ns"), 660000000);
	assert_float_equal(json_real_value(json_object_get(o, "mean_queue_depth")), 0.5, 1e-9);
	assert_int_equal(jint(o, "fields"), 17);
	json_decref(o);
}

/* Before 4.18 there are no discard or flush fields: absent is null, not 0. */
static void test_11_fields(void **state)
{
	struct probe_diskstats a;
	json_t *o;

	(void)state;
	read_at("diskstats/k4.4", "sda2", &a);
	assert_int_equal(a.nfields, 11);
	assert_int_equal(a.v[DS_SECTORS_WRITTEN], 8804096);
	assert_int_equal(a.v[DS_QUEUE_MS], 96290);
	o = probe_diskstats_delta_json(&a, &a);
	assert_true(json_is_null(json_object_get(o, "flush_ios")));
	assert_true(json_is_null(json_object_get(o, "discard_ios")));
	assert_int_equal(jint(o, "write_bytes"), 0);
	/* no time passed: no depth either */
	assert_true(json_is_null(json_object_get(o, "mean_queue_depth")));
	json_decref(o);
}

static void test_15_fields(void **state)
{
	struct probe_diskstats a, b;
	json_t *o;

	(void)state;
	read_at("diskstats/k5.4", "sda", &a);
	assert_int_equal(a.nfields, 15);
	assert_int_equal(a.v[DS_DISCARDS], 12);
	b = a;
	b.v[DS_DISCARDS] += 3;
	b.t_ns = a.t_ns + 1;
	o = probe_diskstats_delta_json(&a, &b);
	assert_int_equal(jint(o, "discard_ios"), 3);
	assert_true(json_is_null(json_object_get(o, "flush_ios")));
	json_decref(o);
}

/* "sda" must not match "sda2"'s line, nor the other way round. */
static void test_exact_name(void **state)
{
	struct probe_diskstats a;

	(void)state;
	read_at("diskstats/k4.4", "sda", &a);
	assert_int_equal(a.v[DS_READS], 9120);
	read_at("diskstats/k4.4", "sda1", &a);
	assert_int_equal(a.v[DS_READS], 120);
	assert_int_equal(probe_diskstats_parse("   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", "sd", &a),
			 -ENOENT);
}

static void test_errors(void **state)
{
	struct probe_diskstats a;
	char root[PATH_MAX];

	(void)state;
	assert_int_equal(probe_diskstats_parse("   8 0 sda 1 2 3 4 5 6 7 8 9 10\n", "sda", &a),
			 -EBADMSG);
	assert_int_equal(probe_diskstats_parse("", "sda", &a), -ENOENT);
	snprintf(root, sizeof(root), "%s/diskstats/k4.4", fx);
	assert_int_equal(probe_diskstats_read(root, "vdz", &a), -ENOENT);
	snprintf(root, sizeof(root), "%s/nonexistent", fx);
	assert_int_equal(probe_diskstats_read(root, "sda", &a), -ENOENT);
}

/* A counter that went backwards (the device was re-created) gives no figure. */
static void test_backwards(void **state)
{
	struct probe_diskstats a, b;
	json_t *o;

	(void)state;
	read_at("fsstats/after", "loop1", &a);
	read_at("fsstats/before", "loop1", &b);
	o = probe_diskstats_delta_json(&a, &b);
	assert_true(json_is_null(json_object_get(o, "write_bytes")));
	assert_true(json_is_null(json_object_get(o, "queue_ns")));
	assert_true(json_is_null(json_object_get(o, "mean_queue_depth")));
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_20_fields), cmocka_unit_test(test_11_fields),
		cmocka_unit_test(test_15_fields),	cmocka_unit_test(test_exact_name),
		cmocka_unit_test(test_errors),		cmocka_unit_test(test_backwards),
	};

	fx = getenv("FSB_FIXTURES");
	if (!fx) {
		fprintf(stderr, "FSB_FIXTURES is not set\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
