/* A dead run's journal replayed (knob_replay.h): locks, knobs, what the run made, the journal. */
#include "probes/knob/knob_replay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "base/errf.h"
#include "probes/knob/journal.h"
#include "probes/knob/knob.h"

/* The entries of @entries that are knobs: all but what the run made (kind "scratch"). */
static json_t *knob_entries(json_t *entries)
{
	json_t *knobs = json_array(), *e;
	size_t k;

	json_array_foreach(entries, k, e)
	{
		const char *kind = json_string_value(json_object_get(e, "kind"));

		if (!kind || strcmp(kind, "scratch"))
			json_array_append(knobs, e);
	}
	return knobs;
}

/* Restores and undoes what @entries hold, under @locks; the journal's fate after. */
static void replay_entries(int dfd, const char *name, json_t *knobs, json_t *entries, bool discard,
			   knob_replay_undo_fn *undo, struct knob_replay *x)
{
	int rs;

	if (!x->owners_r)
		x->r = knob_entries_restore("", knobs, 0, x->knobs);
	else
		x->r = x->owners_r;
	/* then what the run made: unmounted, detached, removed, each only if still its own */
	rs = undo(entries, x->undone);
	if (rs < 0 && x->r == 0)
		x->r = rs;
	if (x->r == 0 || discard) {
		x->removed = unlinkat(dfd, name, 0) == 0;
		x->remove_errno = x->removed ? 0 : errno;
	}
}

enum knob_replay_end knob_replay(int dfd, const char *name, int pass, const char *lock_dir,
				 int wait_ms, bool discard, knob_replay_undo_fn *undo,
				 struct knob_replay *ret)
{
	struct knob_locks locks = { 0 };
	enum knob_replay_end end = KNOB_REPLAY_DONE;
	json_t *hdr, *entries, *knobs;

	memset(ret, 0, sizeof(*ret));
	if (journal_load_at(dfd, name, &hdr, &entries, ret->err, sizeof(ret->err)) < 0)
		return pass == 0 ? KNOB_REPLAY_UNREADABLE : KNOB_REPLAY_OTHER_PASS;
	/* knobs first (of devices and mounts that scratch entries may then take away) */
	knobs = knob_entries(entries);
	ret->pid = (long long)json_integer_value(json_object_get(hdr, "pid"));
	if ((json_array_size(knobs) < json_array_size(entries)) != (pass == 1))
		end = KNOB_REPLAY_OTHER_PASS;
	else if (journal_owner_alive(hdr))
		end = KNOB_REPLAY_ALIVE;
	/* the same locks as a run: a run or a restore that holds one is still at work */
	else if ((ret->owners_r = knob_entries_owners(entries, &locks)) == 0 &&
		 knob_locks_take(&locks, lock_dir, "restore", wait_ms, ret->err, sizeof(ret->err)) <
			 0)
		end = KNOB_REPLAY_LOCKED;
	/* another restore may have finished it while we waited */
	else if (!ret->owners_r && faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
		 errno == ENOENT)
		end = KNOB_REPLAY_GONE;
	if (end == KNOB_REPLAY_DONE) {
		ret->knobs = json_array();
		ret->undone = json_array();
		replay_entries(dfd, name, knobs, entries, discard, undo, ret);
	}
	if (end == KNOB_REPLAY_DONE || end == KNOB_REPLAY_GONE)
		knob_locks_release(&locks, lock_dir);
	json_decref(knobs);
	json_decref(hdr);
	json_decref(entries);
	return end;
}

void knob_replay_free(struct knob_replay *x)
{
	json_decref(x->knobs);
	json_decref(x->undone);
	x->knobs = x->undone = NULL;
}

int knob_replay_dir(const char *dir, bool discard, knob_replay_undo_fn *undo,
		    knob_replay_said_fn *said, void *arg, char *err, size_t errlen)
{
	char lock_dir[PATH_MAX];
	json_t *names, *p;
	size_t i;
	int r, dfd;

	journal_lock_dir("", lock_dir, sizeof(lock_dir));
	/* one descriptor for the directory checked: no path is looked up again through it */
	r = journal_dir_open(dir, &dfd, err, errlen);
	if (r < 0)
		return r;
	r = journal_list_at(dfd, &names);
	if (r < 0) {
		close(dfd);
		return errf(err, errlen, r, "reading %s: %s", dir, strerror(-r));
	}
	/* two passes: knob journals first, then the scratch ones that take devices away */
	for (int pass = 0; pass < 2; pass++)
		json_array_foreach(names, i, p)
		{
			const char *name = json_string_value(p);
			struct knob_replay x;
			enum knob_replay_end end = knob_replay(
				dfd, name, pass, lock_dir, KNOB_REPLAY_WAIT_MS, discard, undo, &x);

			said(arg, name, end, &x);
			knob_replay_free(&x);
		}
	json_decref(names);
	close(dfd);
	return 0;
}
