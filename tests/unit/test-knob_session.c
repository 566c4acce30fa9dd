/* Unit tests of knob locks and sessions: who holds a knob, begin and end, a dead run's journal. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lock_two_holders, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_dies_with_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owners_of_batch_and_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_begin_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_stale_journal, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
