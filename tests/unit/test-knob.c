/* Unit tests of knobs and the restore journal on a copy of the fake sysfs tree. */
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

static char root[PATH_MAX], state[PATH_MAX + 16];

static void slurp(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX * 2];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "re");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

static void put(const char *rel, const char *value)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(value, f);
	fclose(f);
}

/* Every test works on a fresh copy: knobs write into it. */
static int setup(void **st)
{
	char cmd[PATH_MAX * 3];

	(void)st;
	snprintf(root, sizeof(root), "%s/fsbench-knob.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	if (!getenv("FSB_FIXTURES"))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -a '%s/knobs-sysfs/.' '%s/'", getenv("FSB_FIXTURES"), root);
	if (system(cmd) != 0)
		return -1;
	snprintf(state, sizeof(state), "%s/state", root);
	return 0;
}

static int teardown(void **st)
{
	char cmd[PATH_MAX + 32];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void target(const char *disk, const char *mnt, const char *fstype, struct knob_target *t)
{
	assert_int_equal(knob_target_init(root, disk, mnt, fstype, t), 0);
}

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

static struct journal *new_journal(void)
{
	struct journal *j = NULL;

	assert_int_equal(journal_open(state, &j), 0);
	return j;
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

static void test_identity_mismatch_refused(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	struct journal *j = new_journal();
	json_t *results = json_array();
	char err[512], v[64];

	(void)st;
	target("loop3", NULL, NULL, &t);
	assert_int_equal(knob_batch_add(&b, "nr_requests=64", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_apply(&b, j, err, sizeof(err)), 0);
	/* the loop device was detached and attached to something else: new diskseq */
	put("/sys/block/loop3/diskseq", "43\n");
	assert_int_equal(knob_entries_restore(root, j->entries, 0, results), -ESTALE);
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(results, 0), "status")),
		"refused");
	assert_non_null(
		strstr(json_string_value(json_object_get(json_array_get(results, 0), "error")),
		       "diskseq"));
	slurp("/sys/block/loop3/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	/* same diskseq, other major:minor: refused too */
	put("/sys/block/loop3/diskseq", "42\n");
	put("/sys/block/loop3/dev", "7:4\n");
	assert_int_equal(knob_entries_restore(root, j->entries, 0, NULL), -ESTALE);
	put("/sys/block/loop3/dev", "7:3\n");
	assert_int_equal(knob_entries_restore(root, j->entries, 0, NULL), 0);
	slurp("/sys/block/loop3/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "128");
	json_decref(results);
	journal_remove(j);
	journal_close(j);
}

static void test_mount_entry_identity(void **st)
{
	json_t *entries = json_array(), *results = json_array();

	(void)st;
	/* the mount at /srv/ext4 is 8:3; a journal that saw 8:9 there must not remount it */
	json_array_append_new(entries,
			      json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "knob", "barrier", "kind",
					"mount", "value", "1", "mountpoint", "/srv/ext4", "fstype",
					"ext4", "mnt_dev", "8:9", "option", "barrier=1"));
	assert_int_equal(knob_entries_restore(root, entries, 0, results), -ESTALE);
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(results, 0), "status")),
		"refused");
	/* and one already in the journalled state needs no remount at all */
	json_object_set_new(json_array_get(entries, 0), "mnt_dev", json_string("8:3"));
	json_object_set_new(json_array_get(entries, 0), "value", json_string("0"));
	assert_int_equal(knob_entries_restore(root, entries, 0, NULL), 0);
	json_decref(entries);
	json_decref(results);
}

/* A journal in the state directory left by a process that has died, one entry in it. */
static FILE *dead_journal(char *path, size_t len)
{
	pid_t child;
	FILE *f;

	mkdir(state, 0700);
	child = fork();
	if (child == 0)
		_exit(0);
	assert_true(child > 0);
	waitpid(child, NULL, 0);
	snprintf(path, len, "%s/journal-%d.jsonl", state, (int)child);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "{\"journal\":\"fsbench-journal/1\",\"pid\":%d,\"start\":12345}\n", (int)child);
	fprintf(f,
		"{\"knob\":\"nr_requests\",\"kind\":\"file\",\"path\":\"/sys/block/sda/queue/nr_requests\",\"value\":\"64\"}\n");
	return f;
}

static void test_journal_torn_and_dead(void **st)
{
	char path[PATH_MAX * 2], other[PATH_MAX * 2];
	json_t *hdr, *entries, *list;
	FILE *f;

	(void)st;
	f = dead_journal(path, sizeof(path));
	fprintf(f, "{\"knob\":\"read_ahe");
	fclose(f);
	snprintf(other, sizeof(other), "%s/unrelated.txt", state);
	f = fopen(other, "we");
	fclose(f);
	assert_int_equal(journal_load(path, &hdr, &entries), 0);
	assert_int_equal(json_array_size(entries), 1);
	assert_false(journal_owner_alive(hdr));
	assert_int_equal(journal_list(state, &list), 0);
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(json_string_value(json_array_get(list, 0)), path);
	json_decref(list);
	json_decref(hdr);
	json_decref(entries);
	/* not ours: no header */
	assert_int_equal(journal_load(other, &hdr, &entries), -EBADMSG);
	snprintf(other, sizeof(other), "%s/none", root);
	assert_int_equal(journal_list(other, &list), 0);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
}

static bool lock_file_exists(const char *name)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/.lock-%s", state, name);
	return access(path, F_OK) == 0;
}

/* A session locks in the system-wide place under its target's root, whatever its state dir. */
static bool session_lock_exists(const char *name)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/run/fsbench/lock/.lock-%s", root, name);
	return access(path, F_OK) == 0;
}

/* flock locks belong to an open file description: a second one conflicts, in one process too. */
static void test_lock_two_holders(void **st)
{
	struct journal_lock_holder h;
	int a = -1, b = -1;

	(void)st;
	assert_int_equal(journal_lock_take(state, "dev-8:0-seq5", "run", 0, &a, &h), 0);
	assert_true(lock_file_exists("dev-8:0-seq5"));
	assert_int_equal(journal_lock_take(state, "dev-8:0-seq5", "knobs --set", 0, &b, &h),
			 -EBUSY);
	assert_int_equal(b, -1);
	assert_int_equal(h.pid, getpid());
	assert_string_equal(h.what, "run");
	/* waiting gives up after its time when the holder stays */
	assert_int_equal(journal_lock_take(state, "dev-8:0-seq5", "restore", 50, &b, &h), -EBUSY);
	/* another name is another lock */
	assert_int_equal(journal_lock_take(state, "dev-8:16", "run", 0, &b, &h), 0);
	journal_lock_release(state, "dev-8:16", b);
	assert_false(lock_file_exists("dev-8:16"));

	journal_lock_release(state, "dev-8:0-seq5", a);
	assert_false(lock_file_exists("dev-8:0-seq5"));
	assert_int_equal(journal_lock_take(state, "dev-8:0-seq5", "knobs --set", 0, &b, &h), 0);
	journal_lock_release(state, "dev-8:0-seq5", b);
	journal_lock_release(state, "dev-8:0-seq5", -1);

	assert_int_equal(journal_lock_take(state, "../etc", "run", 0, &a, &h), -EINVAL);
	assert_int_equal(journal_lock_take(state, "", "run", 0, &a, &h), -EINVAL);
}

/* The session: begin applies under locks with a journal, end restores, unlocks, removes it. */
static void test_session_begin_end(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t }, b2 = { .t = &t };
	struct knob_session s, s2;
	json_t *results = json_array(), *list;
	char err[512], v[64], state2[PATH_MAX + 16];

	(void)st;
	target("sda", "/srv/xfs", NULL, &t);
	assert_int_equal(knob_batch_add(&b, "nr_requests=32", err, sizeof(err)), 0);
	assert_int_equal(knob_session_begin(&s, &b, state, "run", err, sizeof(err)), 0);
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "32");
	assert_int_equal(json_integer_value(json_object_get(s.before, "nr_requests")), 64);
	assert_non_null(s.j);
	assert_true(session_lock_exists("dev-8:0-seq5"));

	/*
	 * a second session on the same knobs is turned away at the lock, changing nothing,
	 * even with a state directory of its own: the locks are one per system
	 */
	snprintf(state2, sizeof(state2), "%s/state2", root);
	assert_int_equal(knob_batch_add(&b2, "nr_requests=16", err, sizeof(err)), 0);
	assert_int_equal(knob_session_begin(&s2, &b2, state2, "knobs --set", err, sizeof(err)),
			 -EBUSY);
	assert_int_equal(s2.failed, KNOB_SESSION_LOCK);
	assert_non_null(strstr(err, "nr_requests=16"));
	knob_session_free(&s2);
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "32");

	assert_int_equal(knob_session_end(&s, true, results), 0);
	assert_int_equal(json_array_size(results), 1);
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	assert_int_equal(json_integer_value(json_object_get(s.after, "nr_requests")), 64);
	assert_false(session_lock_exists("dev-8:0-seq5"));
	assert_null(s.j);
	assert_string_equal(s.journal_left, "");
	assert_int_equal(journal_list(state, &list), 0);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	knob_session_free(&s);

	/* a bad value fails validation, before any lock or journal */
	b2.n = 0;
	assert_int_equal(knob_batch_add(&b2, "nr_requests=1", err, sizeof(err)), 0);
	assert_int_equal(knob_session_begin(&s2, &b2, state, "run", err, sizeof(err)), -EINVAL);
	assert_int_equal(s2.failed, KNOB_SESSION_VALIDATE);
	assert_false(session_lock_exists("dev-8:0-seq5"));
	knob_session_free(&s2);

	/* without restore (knobs --set) the value stays and the journal still goes */
	b2.n = 0;
	assert_int_equal(knob_batch_add(&b2, "nr_requests=16", err, sizeof(err)), 0);
	assert_int_equal(knob_session_begin(&s2, &b2, state, "knobs --set", err, sizeof(err)), 0);
	assert_int_equal(knob_session_end(&s2, false, NULL), 0);
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "16");
	assert_int_equal(journal_list(state, &list), 0);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	knob_session_free(&s2);
	json_decref(results);
}

/* A dead run's journal stops a session before it changes anything; an empty batch ignores it. */
static void test_session_stale_journal(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t }, empty = { .t = &t };
	struct knob_session s;
	char err[512], v[64], path[PATH_MAX * 2];
	FILE *f;

	(void)st;
	f = dead_journal(path, sizeof(path));
	fclose(f);
	target("sda", NULL, NULL, &t);
	assert_int_equal(knob_batch_add(&b, "nr_requests=32", err, sizeof(err)), 0);
	assert_int_equal(knob_session_begin(&s, &b, state, "run", err, sizeof(err)), -EBUSY);
	assert_int_equal(s.failed, KNOB_SESSION_APPLY);
	assert_non_null(strstr(err, "fsbench restore"));
	assert_false(session_lock_exists("dev-8:0-seq5"));
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	knob_session_free(&s);
	assert_int_equal(knob_session_begin(&s, &empty, state, "run", err, sizeof(err)), 0);
	assert_non_null(s.before);
	assert_null(s.j);
	assert_int_equal(knob_session_end(&s, true, NULL), 0);
	knob_session_free(&s);
}

/* kill -9 cannot leave a lock behind: its file stays, and the next taker simply locks it. */
static void test_lock_dies_with_process(void **st)
{
	struct journal_lock_holder h;
	int pfd[2], fd = -1, status;
	pid_t child;
	char c;

	(void)st;
	assert_int_equal(pipe(pfd), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int cfd;

		close(pfd[0]);
		if (journal_lock_take(state, "vm", "run", 0, &cfd, NULL) < 0)
			_exit(1);
		if (write(pfd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	assert_int_equal(journal_lock_take(state, "vm", "restore", 0, &fd, &h), -EBUSY);
	assert_int_equal(h.pid, child);
	assert_string_equal(h.what, "run");
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	assert_true(WIFSIGNALED(status));
	assert_true(lock_file_exists("vm"));
	assert_int_equal(journal_lock_take(state, "vm", "restore", 0, &fd, &h), 0);
	journal_lock_release(state, "vm", fd);
	assert_false(lock_file_exists("vm"));
}

/* A run and a restore of its journal must name the same locks, or they would not exclude. */
static void test_owners_of_batch_and_journal(void **st)
{
	struct knob_target t, t2;
	struct knob_batch b = { .t = &t }, b2 = { .t = &t }, b3 = { .t = &t2 }, b4 = { .t = &t2 };
	struct knob_locks l, l2, l3, le;
	struct journal *j = new_journal();
	json_t *entries, *m;
	char err[512], want[256];

	(void)st;
	target("sda", "/srv/ext4", "ext4", &t);
	assert_int_equal(knob_batch_add(&b, "dirty_expire_centisecs=100", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "barrier=1", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "nr_requests=32", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_add(&b, "read_ahead_kb=256", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_owners(&b, &l), 0);
	/* one per owner, in one order for all takers */
	assert_int_equal(l.n, 3);
	assert_string_equal(l.o[0].lock, "dev-8:0-seq5");
	assert_string_equal(l.o[0].desc, "the knobs of sda (8:0)");
	assert_string_equal(l.o[0].first, "nr_requests=32");
	assert_string_equal(l.o[1].lock, "mnt-8:3");
	assert_string_equal(l.o[1].desc, "the barrier of /srv/ext4 (8:3)");
	assert_string_equal(l.o[2].lock, "vm");

	assert_int_equal(knob_batch_lock(&b, state, "run", &l, err, sizeof(err)), 0);
	assert_true(lock_file_exists("dev-8:0-seq5") && lock_file_exists("mnt-8:3") &&
		    lock_file_exists("vm"));
	/* a second batch on the same device is refused and holds nothing */
	assert_int_equal(knob_batch_add(&b2, "nr_requests=48", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b2, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_lock(&b2, state, "run", &l2, err, sizeof(err)), -EBUSY);
	snprintf(want, sizeof(want),
		 "nr_requests=48: the knobs of sda (8:0) are held by another fsbench run (pid %d); "
		 "runs that change the same knobs cannot overlap",
		 (int)getpid());
	assert_string_equal(err, want);
	for (int i = 0; i < l2.n; i++)
		assert_int_equal(l2.o[i].fd, -1);
	/* another device is free; the vm knobs are one for the machine */
	target("dm-0", NULL, NULL, &t2);
	assert_int_equal(knob_batch_add(&b3, "nomerges=2", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b3, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_lock(&b3, state, "run", &l3, err, sizeof(err)), 0);
	assert_string_equal(l3.o[0].lock, "dev-254:0");
	knob_locks_release(&l3, state);
	assert_int_equal(knob_batch_add(&b4, "dirty_ratio=10", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b4, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_lock(&b4, state, "run", &l3, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "the vm dirty knobs are held by another fsbench run"));
	assert_false(lock_file_exists("dev-254:0"));

	/* the journal of what the batch changes names the same owners */
	b.n = 1; /* dirty_expire_centisecs */
	assert_int_equal(knob_batch_add(&b, "nr_requests=32", err, sizeof(err)), 0);
	assert_int_equal(knob_batch_validate(&b, err, sizeof(err)), 0);
	assert_int_equal(knob_batch_apply(&b, j, err, sizeof(err)), 0);
	entries = json_deep_copy(j->entries);
	m = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "knob", "barrier", "kind", "mount", "value",
		      "0", "mountpoint", "/srv/ext4", "fstype", "ext4", "mnt_dev", "8:3", "option",
		      "barrier=0");
	json_array_append_new(entries, m);
	assert_int_equal(knob_entries_owners(entries, &le), 0);
	assert_int_equal(le.n, 3);
	for (int i = 0; i < 3; i++)
		assert_string_equal(le.o[i].lock, l.o[i].lock);
	assert_string_equal(le.o[0].desc, "the knobs of sda (8:0)");
	assert_string_equal(le.o[0].first, "nr_requests=64");
	/* a restore waits a while, then names the holder */
	assert_int_equal(knob_locks_take(&le, state, "restore", 20, err, sizeof(err)), -EBUSY);
	assert_int_equal(le.busy, 0);
	knob_locks_release(&l, state);
	assert_int_equal(knob_locks_take(&le, state, "restore", 0, err, sizeof(err)), 0);
	knob_locks_release(&le, state);
	assert_false(lock_file_exists("dev-8:0-seq5") || lock_file_exists("mnt-8:3") ||
		     lock_file_exists("vm"));
	/* an entry of no known owner takes no lock (restore refuses it) */
	json_array_append_new(entries, json_pack("{s:s,s:s,s:s,s:s}", "knob", "x", "kind", "file",
						 "value", "1", "path", "/sys/kernel/x"));
	assert_int_equal(knob_entries_owners(entries, &le), 0);
	assert_int_equal(le.n, 3);
	json_decref(entries);
	knob_entries_restore(root, j->entries, 0, NULL);
	journal_remove(j);
	journal_close(j);
}

/* A journal entry for knob @knob of sda (8:0, diskseq 5), the fixture's disk. */
static json_t *sda_entry(const char *knob, const char *value)
{
	return json_pack("{s:s,s:s,s:s,s:i,s:s}", "knob", knob, "kind", "file", "dev", "8:0",
			 "diskseq", 5, "value", value);
}

/* The journal is untrusted: paths, disk names and options in it are never used. */
static void test_restore_untrusted(void **st)
{
	json_t *entries = json_array(), *results = json_array();
	char v[64];

	(void)st;
	/* identity sda, path and name of loop3: sda's own file is written, loop3's never */
	json_array_append_new(
		entries, json_pack("{s:s,s:s,s:s,s:i,s:s,s:s,s:s}", "knob", "nr_requests", "kind",
				   "file", "dev", "8:0", "diskseq", 5, "disk", "loop3", "path",
				   "/sys/block/loop3/queue/nr_requests", "value", "96"));
	assert_int_equal(knob_entries_restore(root, entries, 0, results), 0);
	slurp("/sys/block/loop3/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "128");
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "96");
	json_array_clear(entries);
	json_array_clear(results);

	/* no identity, a knob fsbench does not set, a value with more in it: all refused */
	json_array_append_new(entries, json_pack("{s:s,s:s,s:s,s:s}", "knob", "nr_requests", "kind",
						 "file", "disk", "loop3", "value", "1"));
	json_array_append_new(entries, json_pack("{s:s,s:s,s:s,s:s}", "knob", "overcommit_memory",
						 "kind", "file", "path",
						 "/proc/sys/vm/overcommit_memory", "value", "1"));
	json_array_append_new(entries, sda_entry("read_ahead_kb", "64\n128"));
	json_array_append_new(entries, json_pack("{s:s,s:s,s:s}", "knob", "dirty_ratio", "kind",
						 "mount", "value", "1"));
	assert_int_equal(knob_entries_restore(root, entries, 0, results), -EBADMSG);
	assert_int_equal(json_array_size(results), 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(
			json_string_value(json_object_get(json_array_get(results, i), "status")),
			"refused");
	assert_non_null(
		strstr(json_string_value(json_object_get(json_array_get(results, 0), "error")),
		       "no device identity"));
	slurp("/sys/block/loop3/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "128");
	slurp("/sys/block/sda/queue/read_ahead_kb", v, sizeof(v));
	assert_string_equal(v, "128");
	json_array_clear(entries);
	json_array_clear(results);

	/* the knob's name decides the file: "scheduler" never writes max_sectors_kb */
	json_array_append_new(entries,
			      json_pack("{s:s,s:s,s:s,s:i,s:s,s:s}", "knob", "scheduler", "kind",
					"file", "dev", "8:0", "diskseq", 5, "path",
					"/sys/block/sda/queue/max_sectors_kb", "value", "bfq"));
	assert_int_equal(knob_entries_restore(root, entries, 0, NULL), 0);
	slurp("/sys/block/sda/queue/max_sectors_kb", v, sizeof(v));
	assert_string_equal(v, "1280");
	slurp("/sys/block/sda/queue/scheduler", v, sizeof(v));
	assert_string_equal(v, "bfq");
	json_decref(entries);
	json_decref(results);
}

/*
 * A kill during a run's own restore leaves a journal half replayed: the scheduler is
 * back, nr_requests holds the new scheduler's default. Only the oldest value of a knob
 * is written (never the intermediate 256 that the old scheduler refuses), the scheduler
 * first, and a knob already at its value counts as restored.
 */
static void test_restore_dependency_order(void **st)
{
	json_t *entries = json_array(), *results = json_array();
	char v[64];

	(void)st;
	json_array_append_new(entries, sda_entry("nr_requests", "64"));
	json_array_append_new(entries, sda_entry("scheduler", "mq-deadline"));
	json_array_append_new(entries, sda_entry("nr_requests", "256"));
	/* dirty_bytes and dirty_ratio are one knob: the oldest of the pair wins */
	json_array_append_new(entries, json_pack("{s:s,s:s,s:s}", "knob", "dirty_ratio", "kind",
						 "file", "value", "20"));
	json_array_append_new(entries, json_pack("{s:s,s:s,s:s}", "knob", "dirty_bytes", "kind",
						 "file", "value", "100000000"));
	put("/sys/block/sda/queue/scheduler", "none");
	put("/sys/block/sda/queue/nr_requests", "128");
	put("/proc/sys/vm/dirty_ratio", "0");
	put("/proc/sys/vm/dirty_bytes", "50000000");
	assert_int_equal(knob_entries_restore(root, entries, 0, results), 0);
	assert_int_equal(json_array_size(results), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "knob")),
			    "scheduler");
	slurp("/sys/block/sda/queue/scheduler", v, sizeof(v));
	assert_string_equal(v, "mq-deadline");
	slurp("/sys/block/sda/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	slurp("/proc/sys/vm/dirty_ratio", v, sizeof(v));
	assert_string_equal(v, "20");
	slurp("/proc/sys/vm/dirty_bytes", v, sizeof(v));
	assert_string_equal(v, "50000000");
	/* replayed again: everything is already there */
	json_array_clear(results);
	assert_int_equal(knob_entries_restore(root, entries, 0, results), 0);
	assert_int_equal(json_array_size(results), 3);
	json_decref(entries);
	json_decref(results);
}

/* A journal with more entries than any run writes is refused, not compared pairwise. */
static void test_journal_too_many_entries(void **st)
{
	char path[PATH_MAX * 2];
	json_t *hdr, *entries;
	FILE *f;

	(void)st;
	mkdir(state, 0700);
	snprintf(path, sizeof(path), "%s/journal-1-0.jsonl", state);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "{\"journal\":\"fsbench-journal/1\",\"pid\":1,\"start\":1}\n");
	for (int i = 0; i < 4097; i++)
		fprintf(f, "{\"knob\":\"dirty_ratio\",\"kind\":\"file\",\"value\":\"20\"}\n");
	fclose(f);
	assert_int_equal(journal_load(path, &hdr, &entries), -EFBIG);
}

/* A state directory or journal another user could have written is refused. */
static void test_state_dir_trust(void **st)
{
	char err[512], jpath[PATH_MAX * 2], lnk[PATH_MAX * 2];
	json_t *hdr, *entries;
	struct journal *j = NULL;
	const char *base;
	int dfd;

	(void)st;
	assert_int_equal(journal_open(state, &j), 0);
	base = strrchr(j->path, '/');
	assert_non_null(base);
	assert_int_equal(journal_dir_open(state, &dfd, err, sizeof(err)), 0);
	snprintf(jpath, sizeof(jpath), "%s", base + 1);
	assert_int_equal(journal_load_at(dfd, jpath, &hdr, &entries, err, sizeof(err)), 0);
	json_decref(hdr);
	json_decref(entries);
	assert_int_equal(chmod(j->path, 0620), 0);
	assert_int_equal(journal_load_at(dfd, jpath, &hdr, &entries, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0620"));
	assert_int_equal(chmod(j->path, 0600), 0);
	assert_int_equal(chown(j->path, 65534, 65534), 0);
	assert_int_equal(journal_load_at(dfd, jpath, &hdr, &entries, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "owned by uid 65534"));
	assert_int_equal(chown(j->path, geteuid(), getegid()), 0);
	snprintf(lnk, sizeof(lnk), "%s/journal-link.jsonl", state);
	assert_int_equal(symlink(j->path, lnk), 0);
	assert_int_equal(journal_load_at(dfd, "journal-link.jsonl", &hdr, &entries, err,
					 sizeof(err)),
			 -ELOOP);
	/* a hard link elsewhere could be swapped for another file's content */
	assert_int_equal(unlink(lnk), 0);
	assert_int_equal(link(j->path, lnk), 0);
	assert_int_equal(journal_load_at(dfd, jpath, &hdr, &entries, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "single link"));
	close(dfd);
	assert_int_equal(chmod(state, 0757), 0);
	assert_int_equal(journal_dir_open(state, &dfd, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0757"));
	/* and a journal is not even created there */
	assert_int_equal(journal_dir_make(state, err, sizeof(err)), -EPERM);
	assert_int_equal(chmod(state, 0700), 0);
	unlink(lnk);
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
		cmocka_unit_test_setup_teardown(test_identity_mismatch_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_entry_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_torn_and_dead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_two_holders, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_dies_with_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owners_of_batch_and_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_untrusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_dependency_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_dir_trust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_too_many_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_begin_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_stale_journal, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
