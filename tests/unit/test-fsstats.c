/* jbd2, xfs and btrfs statistics from snapshots taken on Linux 6.18, and absent sources. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/sampler/fsstats.h"

static const char *fx;

static void at(char *buf, size_t len, const char *sub)
{
	snprintf(buf, len, "%s/fsstats/%s", fx, sub);
}

static struct probe_target target(const char *fstype, const char *device)
{
	struct probe_target t;

	memset(&t, 0, sizeof(t));
	snprintf(t.fstype, sizeof(t.fstype), "%s", fstype);
	snprintf(t.device, sizeof(t.device), "%s", device);
	t.has_block_device = device[0] != 0;
	return t;
}

/* The before/after pair around 200 small fsync'ed files and 30 MiB written, for one fs. */
static json_t *run(const struct probe_target *t, const char *kind)
{
	char a_root[PATH_MAX], b_root[PATH_MAX];
	struct probe_fs_snap a, b;
	json_t *o, *k;

	at(a_root, sizeof(a_root), "before");
	at(b_root, sizeof(b_root), "after");
	assert_int_equal(probe_fsstats_read(a_root, t, &a), 0);
	assert_int_equal(probe_fsstats_read(b_root, t, &b), 0);
	o = probe_fsstats_json(&a, &b);
	assert_non_null(o);
	assert_int_equal(json_object_size(o), 1);
	k = json_incref(json_object_get(o, kind));
	assert_non_null(k);
	json_decref(o);
	return k;
}

static json_int_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static double jreal(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	assert_true(json_is_real(v));
	return json_real_value(v);
}

static void test_jbd2(void **state)
{
	struct probe_target t = target("ext4", "loop1");
	json_t *o = run(&t, "jbd2");

	(void)state;
	assert_true(json_is_true(json_object_get(o, "available")));
	assert_non_null(strstr(json_string_value(json_object_get(o, "source")),
			       "/proc/fs/jbd2/loop1-8/info"));
	assert_int_equal(jint(o, "transactions"), 201);
	assert_int_equal(jint(o, "requested_transactions"), 201);
	/* 3 x 202 handles after, 14 x 1 before: 592 handles in 201 transactions */
	assert_float_equal(jreal(o, "handles_per_transaction"), 592.0 / 201, 1e-9);
	assert_float_equal(jreal(o, "blocks_per_transaction"), (6.0 * 202 - 9) / 201, 1e-9);
	assert_float_equal(jreal(o, "logged_blocks_per_transaction"), (8.0 * 202 - 12) / 201, 1e-9);
	assert_float_equal(jreal(o, "per_transaction_uncertainty"), 203.0 / 201, 1e-9);
	assert_int_equal(jint(o, "average_commit_time_ns"), 2602000);
	assert_int_equal(jint(json_object_get(o, "before"), "commit_time_ns"), 4085000);
	assert_int_equal(jint(json_object_get(o, "before"), "running_ns"), 16000000);
	assert_int_equal(jint(json_object_get(o, "after"), "max_transaction_blocks"), 2730);
	json_decref(o);
}

static void test_jbd2_fresh(void **state)
{
	char root[PATH_MAX];
	struct probe_target t = target("ext4", "sda2");
	struct probe_fs_snap s;
	uint64_t v;

	(void)state;
	at(root, sizeof(root), "fresh");
	assert_int_equal(probe_fsstats_read(root, &t, &s), 0);
	assert_true(s.available);
	assert_int_equal(probe_fs_snap_get(&s, "transactions", &v), 0);
	assert_int_equal(v, 0);
	/* no transaction yet: the kernel prints no averages, and none are made up */
	assert_int_equal(probe_fs_snap_get(&s, "handles_per_transaction", &v), -ENOENT);
}

static void test_xfs(void **state)
{
	struct probe_target t = target("xfs", "loop2");
	json_t *o = run(&t, "xfs");

	(void)state;
	assert_true(json_is_true(json_object_get(o, "available")));
	assert_int_equal(jint(o, "log_writes"), 201);
	assert_int_equal(jint(o, "log_bytes"), (2108 - 6) * 512);
	assert_int_equal(jint(o, "log_forces"), 201);
	assert_int_equal(jint(o, "log_force_sleeps"), 201);
	assert_int_equal(jint(o, "log_noiclogs"), 0);
	assert_int_equal(jint(o, "push_ail_try_logspace"), 818 - 7);
	assert_int_equal(jint(o, "push_ail_pushes"), 110 - 91);
	assert_int_equal(jint(o, "push_ail_flush"), 0);
	assert_int_equal(jint(o, "write_bytes"), 41943640 - 10485760);
	json_decref(o);
}

/* Found through devices/<name>, since no UUID was given. */
static void test_btrfs(void **state)
{
	struct probe_target t = target("btrfs", "loop3");
	json_t *o = run(&t, "btrfs");

	(void)state;
	assert_true(json_is_true(json_object_get(o, "available")));
	assert_int_equal(jint(o, "commits"), 1);
	assert_int_equal(jint(o, "total_commit_ns"), 12000000);
	assert_float_equal(jreal(o, "mean_commit_ns"), 12e6, 1e-3);
	assert_int_equal(jint(o, "last_commit_ns"), 12000000);
	assert_int_equal(jint(o, "max_commit_ns_since_mount"), 12000000);
	json_decref(o);

	snprintf(t.uuid, sizeof(t.uuid), "4995a6ee-d138-4105-a04e-a977e782c0b0");
	snprintf(t.device, sizeof(t.device), "sdq");
	o = run(&t, "btrfs");
	assert_true(json_is_true(json_object_get(o, "available")));
	json_decref(o);
}

static void expect_absent(const char *sub, struct probe_target *t, const char *kind,
			  const char *reason)
{
	char root[PATH_MAX];
	struct probe_fs_snap s;
	json_t *o, *k;

	at(root, sizeof(root), sub);
	assert_int_equal(probe_fsstats_read(root, t, &s), 0);
	assert_false(s.available);
	assert_string_equal(s.kind, kind);
	o = probe_fsstats_json(&s, &s);
	k = json_object_get(o, kind);
	assert_non_null(k);
	assert_true(json_is_false(json_object_get(k, "available")));
	assert_non_null(strstr(json_string_value(json_object_get(k, "reason")), reason));
	/* absent is absent: no figure, not even a zero */
	assert_null(json_object_get(k, "transactions"));
	assert_null(json_object_get(k, "commits"));
	assert_null(json_object_get(k, "log_writes"));
	json_decref(o);
}

static void test_absent(void **state)
{
	struct probe_target t;

	(void)state;
	t = target("tmpfs", "");
	expect_absent("after", &t, "tmpfs", "no journal or commit statistics for tmpfs");
	t = target("ext4", "loop9");
	expect_absent("after", &t, "jbd2", "no /proc/fs/jbd2/loop9-*");
	t = target("ext3", "sda2");
	expect_absent("old-btrfs", &t, "jbd2", "no /proc/fs/jbd2/sda2-*");
	t = target("btrfs", "sdb1");
	expect_absent("old-btrfs", &t, "btrfs", "Linux before 6.0");
	t = target("xfs", "sdc");
	expect_absent("after", &t, "xfs", "CONFIG_XFS_STATS");
	t = target("btrfs", "sdq");
	expect_absent("after", &t, "btrfs", "no /sys/fs/btrfs/<uuid>");
}

/* Available before but gone after (unmounted mid-run): absent, with the reason. */
static void test_vanished(void **state)
{
	char root[PATH_MAX];
	struct probe_target t = target("ext4", "loop1");
	struct probe_fs_snap a, b;
	json_t *o;

	(void)state;
	at(root, sizeof(root), "before");
	assert_int_equal(probe_fsstats_read(root, &t, &a), 0);
	at(root, sizeof(root), "old-btrfs");
	assert_int_equal(probe_fsstats_read(root, &t, &b), 0);
	o = probe_fsstats_json(&a, &b);
	assert_true(json_is_false(json_object_get(json_object_get(o, "jbd2"), "available")));
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jbd2),   cmocka_unit_test(test_jbd2_fresh),
		cmocka_unit_test(test_xfs),    cmocka_unit_test(test_btrfs),
		cmocka_unit_test(test_absent), cmocka_unit_test(test_vanished),
	};

	fx = getenv("FSB_FIXTURES");
	if (!fx) {
		fprintf(stderr, "FSB_FIXTURES is not set\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
