/* Unit tests of knobs on a copy of the fake sysfs tree: the table, validation, apply and undo. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/knob/journal.h"
#include "probes/knob/knob.h"
#include "probes/knob/knob_session.h"
#include "tests/unit/knob_fixture.h"

static void test_target_identity(void **st)
{
	struct knob_target t;
	char v[KNOB_VALUE_MAX];

	(void)st;
	target("sda", "/srv/ext4", "ext4", &t);
	assert_int_equal(t.major, 8);
	assert_int_equal(t.minor, 0);
	assert_int_equal(t.diskseq, 5);
	assert_string_equal(t.scsi_dir, "/sys/block/sda/device/scsi_disk/0:0:0:0");
	assert_string_equal(t.mnt_dev, "8:3");
	assert_int_equal(knob_read(&t, "scheduler", v, sizeof(v)), 0);
	assert_string_equal(v, "mq-deadline");
	assert_int_equal(knob_read(&t, "drive_cache", v, sizeof(v)), 0);
	assert_string_equal(v, "write back");
	/* nobarrier in mountinfo reads as barriers off */
	assert_int_equal(knob_read(&t, "barrier", v, sizeof(v)), 0);
	assert_string_equal(v, "0");

	target("dm-0", "/srv/xfs", NULL, &t);
	assert_int_equal(t.diskseq, -1);
	assert_int_equal(t.nslaves, 2);
	assert_string_equal(t.fstype, "xfs");
	assert_int_equal(knob_read(&t, "drive_cache", v, sizeof(v)), -ENOENT);
	assert_int_equal(knob_read(&t, "barrier", v, sizeof(v)), 0);
	assert_string_equal(v, "1");

	target("loop3", NULL, NULL, &t);
	assert_string_equal(t.backing_file, "/var/tmp/img");
	assert_int_equal(knob_target_init(root, "sdz", NULL, NULL, &t), -ENOENT);
	assert_int_equal(knob_target_init(root, "../etc", NULL, NULL, &t), -EINVAL);
}

static void expect_valid(const struct knob_target *t, const char *name, const char *value,
			 const char *canon)
{
	char out[KNOB_VALUE_MAX], err[512];
	int r = knob_validate(t, name, value, out, sizeof(out), err, sizeof(err));

	if (r)
		fail_msg("%s=%s: %s", name, value, err);
	assert_string_equal(out, canon);
}

static void expect_invalid(const struct knob_target *t, const char *name, const char *value,
			   int want)
{
	char out[KNOB_VALUE_MAX], err[512] = "";

	assert_int_equal(knob_validate(t, name, value, out, sizeof(out), err, sizeof(err)), want);
	/* every refusal names the knob */
	assert_non_null(strstr(err, name));
}

static void test_validate(void **st)
{
	struct knob_target t, dm, tmp, btr;

	(void)st;
	target("sda", "/srv/ext4", "ext4", &t);
	expect_valid(&t, "scheduler", "bfq", "bfq");
	expect_invalid(&t, "scheduler", "cfq", -EINVAL);
	expect_invalid(&t, "scheduler", "", -EINVAL);
	expect_invalid(&t, "scheduler", "bfq kyber", -EINVAL);
	expect_valid(&t, "nr_requests", "128", "128");
	expect_invalid(&t, "nr_requests", "0", -EINVAL);
	expect_invalid(&t, "nr_requests", "12x", -EINVAL);
	expect_invalid(&t, "nr_requests", "70000", -EINVAL);
	expect_valid(&t, "write_cache", "off", "write through");
	expect_valid(&t, "write_cache", "write back", "write back");
	expect_invalid(&t, "write_cache", "maybe", -EINVAL);
	expect_valid(&t, "drive_cache", "0", "write through");
	expect_valid(&t, "max_sectors_kb", "32767", "32767");
	expect_invalid(&t, "max_sectors_kb", "32768", -EINVAL);
	expect_valid(&t, "nomerges", "2", "2");
	expect_invalid(&t, "nomerges", "3", -EINVAL);
	expect_valid(&t, "wbt_lat_usec", "-1", "-1");
	expect_valid(&t, "iosched/fifo_batch", "32", "32");
	expect_invalid(&t, "iosched/quantum", "4", -ENOENT);
	expect_valid(&t, "barrier", "on", "1");
	expect_invalid(&t, "barrier", "2", -EINVAL);
	expect_valid(&t, "dirty_ratio", "5", "5");
	expect_invalid(&t, "dirty_ratio", "101", -EINVAL);
	expect_invalid(&t, "dirty_bytes", "4096", -EINVAL);
	expect_invalid(&t, "no_such_knob", "1", -ENOENT);
	assert_null(knob_def_find("iosched/../../dev"));
	assert_null(knob_def_find("iosched/"));

	target("dm-0", NULL, NULL, &dm);
	expect_invalid(&dm, "drive_cache", "on", -ENOENT);
	expect_invalid(&dm, "barrier", "0", -ENOENT);
	expect_valid(&dm, "max_sectors_kb", "512", "512");
	expect_invalid(&dm, "max_sectors_kb", "1024", -EINVAL);
	/* no wbt_lat_usec in this kernel's queue: not available, not an error of the value */
	expect_invalid(&dm, "wbt_lat_usec", "0", -ENOENT);

	target(NULL, "/srv/tmp", "tmpfs", &tmp);
	expect_invalid(&tmp, "barrier", "0", -EOPNOTSUPP);
	expect_invalid(&tmp, "nr_requests", "64", -ENOENT);
	expect_valid(&tmp, "dirty_background_ratio", "5", "5");

	target("sda", "/srv/btrfs", NULL, &btr);
	expect_valid(&btr, "barrier", "off", "0");
}

/* A suite file's knobs, before any device: what the value alone decides. */
static void test_check_value_without_device(void **st)
{
	char err[256];

	(void)st;
	assert_int_equal(knob_check_value("dirty_ratio", "-1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(knob_check_value("dirty_ratio", "20", err, sizeof(err)), 0);
	assert_int_equal(knob_check_value("barrier", "maybe", err, sizeof(err)), -EINVAL);
	assert_int_equal(knob_check_value("barrier", "Off", err, sizeof(err)), 0);
	assert_int_equal(knob_check_value("nr_requests", "lots", err, sizeof(err)), -EINVAL);
	assert_int_equal(knob_check_value("no_such_knob", "1", err, sizeof(err)), -ENOENT);
	/* the device's max_hw_sectors_kb bounds it, so only the minimum is known here */
	assert_int_equal(knob_check_value("max_sectors_kb", "1048576", err, sizeof(err)), 0);
	assert_int_equal(knob_check_value("max_sectors_kb", "2", err, sizeof(err)), -EINVAL);
	/* a scheduler's name is the device's to judge */
	assert_int_equal(knob_check_value("scheduler", "anything", err, sizeof(err)), 0);
}

static void test_batch_validate_is_all_or_nothing(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	char err[512], v[64];

	(void)st;
	target("sda", NULL, NULL, &t);
	assert_int_equal(knob_batch_add(&b, "read_ahead_kb=1024", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "scheduler=cfq", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "read_ahead_kb=8", err, sizeof(err)), -EINVAL);
	assert_int_equal(knob_batch_add(&b, "nonsense", err, sizeof(err)), -EINVAL);
	assert_int_equal(knob_batch_add(&b, "=3", err, sizeof(err)), -EINVAL);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cfq"));
	slurp("/sys/block/sda/queue/read_ahead_kb", v, sizeof(v));
	assert_string_equal(v, "128");
}

static void test_apply_journal_restore(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	struct journal *j = new_journal();
	json_t *hdr, *entries, *results = json_array();
	char err[512], v[64];

	(void)st;
	target("sda", NULL, NULL, &t);
	assert_int_equal(knob_batch_add(&b, "nr_requests=32", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "write_cache=off", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "read_ahead_kb=128", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "dirty_expire_centisecs=100", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_apply(&b, j, err, sizeof(err)), 0);
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "32");
	slurp("/sys/block/sda/queue/write_cache", v, sizeof(v));
	assert_string_equal(v, "write through");
	slurp("/proc/sys/vm/dirty_expire_centisecs", v, sizeof(v));
	assert_string_equal(v, "100");
	assert_string_equal(b.ch[0].before, "64");
	assert_string_equal(b.ch[0].applied, "32");
	/* read_ahead_kb already was 128: not written, so nothing to restore */
	assert_false(b.ch[2].written);
	assert_int_equal(json_array_size(j->entries), 3);

	/* what is on disk is what a crashed process leaves behind */
	assert_int_equal(journal_load(j->path, &hdr, &entries), 0);
	assert_int_equal(json_integer_value(json_object_get(hdr, "pid")), getpid());
	assert_true(journal_owner_alive(hdr));
	assert_int_equal(json_array_size(entries), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(entries, 0), "value")),
			    "64");
	assert_string_equal(json_string_value(json_object_get(json_array_get(entries, 0), "dev")),
			    "8:0");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(entries, 0), "diskseq")),
			 5);

	assert_int_equal(knob_entries_restore(root, entries, 0, results), 0);
	assert_int_equal(json_array_size(results), 3);
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	slurp("/sys/block/sda/queue/write_cache", v, sizeof(v));
	assert_string_equal(v, "write back");
	slurp("/proc/sys/vm/dirty_expire_centisecs", v, sizeof(v));
	assert_string_equal(v, "3000");
	/* idempotent: a second replay finds the same values and says so */
	assert_int_equal(knob_entries_restore(root, entries, 0, NULL), 0);
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");

	assert_int_equal(journal_remove(j), 0);
	assert_int_equal(access(j->path, F_OK), -1);
	json_decref(hdr);
	json_decref(entries);
	json_decref(results);
	journal_close(j);
}

static void test_refused_value_rolls_back(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	struct journal *j = new_journal();
	char err[512] = "", v[64], path[PATH_MAX * 2];

	(void)st;
	/* /dev/full reads as zeros and refuses every write with ENOSPC: a kernel that says no */
	snprintf(path, sizeof(path), "%s/sys/block/sda/queue/rq_affinity", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/dev/full", path), 0);
	target("sda", NULL, NULL, &t);
	assert_int_equal(knob_batch_add(&b, "nr_requests=32", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "read_ahead_kb=512", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "rq_affinity=2", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_apply(&b, j, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "rq_affinity=2"));
	assert_non_null(strstr(err, strerror(ENOSPC)));
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	slurp("/sys/block/sda/queue/read_ahead_kb", v, sizeof(v));
	assert_string_equal(v, "128");
	journal_remove(j);
	journal_close(j);
}

static void test_scheduler_switch_restores_nr_requests(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	struct journal *j = new_journal();
	char err[512], v[64];

	(void)st;
	target("sda", NULL, NULL, &t);
	/* given after the scheduler, applied after it too */
	assert_int_equal(knob_batch_add(&b, "nr_requests=16", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "scheduler=bfq", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_apply(&b, j, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(j->entries), 3);
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(j->entries, 0), "knob")),
		"nr_requests");
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(j->entries, 1), "knob")),
		"scheduler");
	/* what a real scheduler switch does: nr_requests goes to the new scheduler's default */
	put("/sys/block/sda/queue/nr_requests", "256");
	assert_int_equal(knob_entries_restore(root, j->entries, 0, NULL), 0);
	slurp("/sys/block/sda/queue/scheduler", v, sizeof(v));
	assert_string_equal(v, "mq-deadline");
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	journal_remove(j);
	journal_close(j);
}

static void test_tunable_of_new_scheduler_refused(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	struct journal *j = new_journal();
	char err[512], v[64];

	(void)st;
	target("sda", NULL, NULL, &t);
	/* bfq's files appear only once it is active: the write decides, and undoes the switch */
	assert_int_equal(knob_batch_add(&b, "iosched/slice_idle", err, sizeof(err)), -EINVAL);
	assert_int_equal(knob_batch_add(&b, "iosched/slice_idle=0", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "scheduler=bfq", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_apply(&b, j, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "iosched/slice_idle=0"));
	slurp("/sys/block/sda/queue/scheduler", v, sizeof(v));
	assert_string_equal(v, "mq-deadline");
	journal_remove(j);
	journal_close(j);
}

static void test_journals_per_process_and_run(void **st)
{
	struct journal *a = new_journal(), *b = new_journal();
	json_t *list, *e = json_pack("{s:s}", "knob", "x");
	pid_t child;
	int status;

	(void)st;
	assert_string_not_equal(a->path, b->path);
	child = fork();
	if (child == 0) {
		struct journal *c = NULL;

		/* a concurrent run: its own file, left behind as by kill -9 */
		_exit(journal_open(state, &c) == 0 && journal_append(c, e) == 0 ? 0 : 1);
	}
	waitpid(child, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(journal_append(a, e), 0);
	assert_int_equal(journal_list(state, &list), 0);
	assert_int_equal(json_array_size(list), 3);
	json_decref(list);
	json_decref(e);
	journal_remove(a);
	journal_remove(b);
	journal_close(a);
	journal_close(b);
}

static void test_vm_pair(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	struct journal *j = new_journal();
	char err[512];
	json_t *e;

	(void)st;
	target(NULL, NULL, NULL, &t);
	assert_int_equal(knob_batch_add(&b, "dirty_bytes=100000000", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_apply(&b, j, err, sizeof(err)), 0);
	/* dirty_bytes was 0, so dirty_ratio was in force: writing it back restores both */
	e = json_array_get(j->entries, 0);
	assert_string_equal(json_string_value(json_object_get(e, "knob")), "dirty_ratio");
	assert_string_equal(json_string_value(json_object_get(e, "value")), "20");
	assert_null(json_object_get(e, "dev"));
	journal_remove(j);
	journal_close(j);
}

static void test_values_json(void **st)
{
	struct knob_target t;
	json_t *o, *info;

	(void)st;
	target("sda", "/srv/ext3", "ext3", &t);
	o = knob_values_json(&t);
	assert_int_equal(json_integer_value(json_object_get(o, "iosched/fifo_batch")), 16);
	assert_int_equal(json_integer_value(json_object_get(o, "nr_requests")), 64);
	assert_string_equal(json_string_value(json_object_get(o, "scheduler")), "mq-deadline");
	assert_string_equal(json_string_value(json_object_get(o, "drive_cache")), "write back");
	assert_int_equal(json_integer_value(json_object_get(o, "barrier")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "dirty_ratio")), 20);
	json_decref(o);
	info = knob_target_json(&t);
	assert_true(json_is_true(json_object_get(info, "rotational")));
	assert_int_equal(json_integer_value(json_object_get(info, "physical_block_size")), 4096);
	assert_string_equal(json_string_value(json_object_get(info, "scsi_disk")), "0:0:0:0");
	json_decref(info);
}

/* What `info` and `knobs` say a change of a knob touches. */
static void test_touch_words(void **st)
{
	(void)st;
	assert_non_null(strstr(knob_touch_words(knob_def_find("write_cache")), "whether it sends"));
	assert_string_equal(knob_touch_words(knob_def_find("read_ahead_kb")), "kernel");
	for (const struct knob_def *d = knob_defs; d->name; d++)
		assert_int_equal(strncmp(knob_touch_words(d), knob_touch_name(d->touch),
					 strlen(knob_touch_name(d->touch))),
				 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_target_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate, setup, teardown),
		cmocka_unit_test(test_check_value_without_device),
		cmocka_unit_test_setup_teardown(test_batch_validate_is_all_or_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_apply_journal_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_value_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scheduler_switch_restores_nr_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tunable_of_new_scheduler_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_journals_per_process_and_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values_json, setup, teardown),
		cmocka_unit_test(test_touch_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
