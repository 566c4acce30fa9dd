/* Replaying a dead run's journal: its knobs put back under the run's locks, then what it made. */
#ifndef PROBE_KNOB_REPLAY_H
#define PROBE_KNOB_REPLAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * How long a restore waits for a knob's lock. Its holder can only be another restore or a
 * run that is about to refuse (it finds this dead run's journal): both let go at once.
 */
#define KNOB_REPLAY_WAIT_MS 5000

/* How replaying one journal ended; the caller says it. */
enum knob_replay_end {
	KNOB_REPLAY_UNREADABLE, /* not loaded (@err says why): it stays */
	KNOB_REPLAY_OTHER_PASS, /* not this pass's: knob journals first, then scratch ones */
	KNOB_REPLAY_ALIVE, /* its run still lives and restores its own knobs */
	KNOB_REPLAY_LOCKED, /* a lock was not had in time (@err): it stays */
	KNOB_REPLAY_GONE, /* another restore finished it while this one waited */
	KNOB_REPLAY_DONE, /* replayed: @r, @removed and @remove_errno say how it went */
};

/*
 * The entries that are not knobs (kind "scratch": what the run made), undone by the layer
 * that made them (probes/scratch/'s probe_scratch_entries_restore), with one result
 * object each in @results. 0 or -errno.
 */
typedef int knob_replay_undo_fn(json_t *entries, json_t *results);

struct knob_replay {
	long long pid; /* the dead run's */
	json_t *knobs; /* knob_entries_restore()'s results, one object per knob */
	json_t *undone; /* @undo's results */
	int owners_r; /* finding whose knobs it holds failed (-errno): none restored */
	int r; /* 0: everything restored; else the first failure */
	bool removed; /* the journal is gone: all restored, or dropped with @discard */
	int remove_errno; /* removing it failed */
	char err[1024];
};

/*
 * Replays the journal @name in the state directory open on @dfd, in pass @pass (0: the
 * journals with knobs only, 1: those with scratch entries, which may take away devices
 * that the knobs live on). Its knobs are restored under the same locks as a run takes in
 * @lock_dir (waiting up to @wait_ms), then @undo undoes the rest; the journal is removed
 * when all was restored, or with @discard whatever was. Fills @ret (knob_replay_free()).
 */
enum knob_replay_end knob_replay(int dfd, const char *name, int pass, const char *lock_dir,
				 int wait_ms, bool discard, knob_replay_undo_fn *undo,
				 struct knob_replay *ret);

void knob_replay_free(struct knob_replay *x);

/* How one journal of knob_replay_dir() ended (@x is freed after the call): the caller says it. */
typedef void knob_replay_said_fn(void *arg, const char *name, enum knob_replay_end end,
				 const struct knob_replay *x);

/*
 * `fsbench restore`: knob_replay() of every journal in the state directory @dir (opened
 * once and checked, journal_dir_open), in two passes, knob journals first; each end goes to
 * @said. Returns 0, -ENOENT when @dir does not exist (nothing to restore), or -errno with
 * @err (opening or reading @dir).
 */
int knob_replay_dir(const char *dir, bool discard, knob_replay_undo_fn *undo,
		    knob_replay_said_fn *said, void *arg, char *err, size_t errlen);

#endif
