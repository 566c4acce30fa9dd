/* Unit tests of the restore journal: entries' identities, dead runs' journals, untrusted input. */
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
#include "probes/knob/knob_replay.h"
#include "probes/knob/knob_session.h"
#include "tests/unit/knob_fixture.h"

static void test_identity_mismatch_refused(void **st)
{
	struct knob_target t;
	struct knob_batch b = { .t = &t };
	struct journal *j = new_journal();
	json_t *results = json_array();
	char err[512], v[64], backing[256];

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
	/* the same number and diskseq, but detached (no backing file): no one's, refused */
	slurp("/sys/block/loop3/loop/backing_file", backing, sizeof(backing));
	assert_true(backing[0] != 0);
	assert_non_null(json_object_get(json_array_get(j->entries, 0), "loop_backing_file"));
	{
		char path[PATH_MAX * 2];

		snprintf(path, sizeof(path), "%s/sys/block/loop3/loop/backing_file", root);
		assert_int_equal(unlink(path), 0);
	}
	json_array_clear(results);
	assert_int_equal(knob_entries_restore(root, j->entries, 0, results), -ESTALE);
	assert_non_null(
		strstr(json_string_value(json_object_get(json_array_get(results, 0), "error")),
		       "detached loop device"));
	/* attached again, over another file: refused */
	put("/sys/block/loop3/loop/backing_file", "/srv/other.img\n");
	assert_int_equal(knob_entries_restore(root, j->entries, 0, NULL), -ESTALE);
	slurp("/sys/block/loop3/queue/nr_requests", v, sizeof(v));
	assert_string_equal(v, "64");
	put("/sys/block/loop3/loop/backing_file", backing);
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

/* knob_replay_dir's ends, in order: "NAME END" per journal and pass. */
static void said(void *arg, const char *name, enum knob_replay_end end, const struct knob_replay *x)
{
	size_t len = strlen(arg);

	(void)x;
	snprintf((char *)arg + len, 1024 - len, "%s %d;", strncmp(name, "journal-", 8) ? "?" : "j",
		 (int)end);
}

/* `fsbench restore`'s walk: two passes over the state directory, each journal's end said. */
static void test_replay_dir(void **st)
{
	char err[512], seen[1024] = "", path[PATH_MAX * 2], none[PATH_MAX * 2];
	struct journal *j = NULL;
	FILE *f;

	(void)st;
	snprintf(none, sizeof(none), "%s/none", root);
	assert_int_equal(knob_replay_dir(none, false, NULL, said, seen, err, sizeof(err)), -ENOENT);
	/* a live run's journal (ours) and one with no header: neither is touched */
	assert_int_equal(journal_open(state, &j), 0);
	snprintf(path, sizeof(path), "%s/journal-1.jsonl", state);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "not a journal\n");
	fclose(f);
	assert_int_equal(knob_replay_dir(state, false, NULL, said, seen, err, sizeof(err)), 0);
	/* pass 0: each said once (alive, unreadable, in name order); pass 1: not theirs */
	assert_int_equal(strlen(seen), strlen("j 2;j 0;j 1;j 1;"));
	assert_non_null(strstr(seen, "j 2;"));
	assert_non_null(strstr(seen, "j 0;"));
	assert_string_equal(seen + strlen(seen) - strlen("j 1;j 1;"), "j 1;j 1;");
	assert_true(access(path, F_OK) == 0);
	assert_int_equal(chmod(state, 0757), 0);
	assert_int_equal(knob_replay_dir(state, false, NULL, said, seen, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0757"));
	assert_int_equal(chmod(state, 0700), 0);
	unlink(path);
	journal_remove(j);
	journal_close(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity_mismatch_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_entry_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_torn_and_dead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_untrusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_dependency_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_dir_trust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_too_many_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
