/* The knob session: the one safe path from a validated batch to changed knobs and back. */
#ifndef PROBE_KNOB_SESSION_H
#define PROBE_KNOB_SESSION_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "probes/knob/journal.h"
#include "probes/knob/knob.h"

/* The step of knob_session_begin() that failed: callers word and rank errors by it. */
enum knob_session_step {
	KNOB_SESSION_OK,
	KNOB_SESSION_VALIDATE, /* a value or knob the target does not take: a usage error */
	KNOB_SESSION_LOCK, /* another run holds the knobs (-EBUSY), or the lock failed */
	KNOB_SESSION_APPLY, /* a stale journal, the journal itself, or the kernel refused */
};

struct knob_session {
	struct knob_batch *b;
	const char *dir; /* the state directory: journals */
	char lock_dir[PATH_MAX]; /* journal_lock_dir() of the target's root: one per system */
	struct knob_locks locks;
	struct journal *j; /* NULL for an empty batch */
	/* every knob of the target (knob_values_json) before the batch and after the end */
	json_t *before, *after;
	enum knob_session_step failed;
	char journal_left[4096]; /* the journal a failed restore kept for `fsbench restore` */
};

/*
 * Begins changing knobs with batch @b (filled by knob_batch_add, target set) for this
 * process doing @what ("run", "knobs --set"), in state directory @dir:
 * validates @b; takes the locks of its knobs' owners, never waiting, and validates again
 * under them; refuses while a journal of a dead run holds values; records @s->before;
 * opens this process's journal and applies @b, journalling each old value first.
 * An empty batch only records @s->before: no lock, no journal, no stale check.
 * Returns 0 with the locks and journal held until knob_session_end(), or -errno with
 * @err set, @s->failed naming the step, and nothing held or changed (the batch rolled
 * itself back). Either way knob_session_free() drops @s->before.
 */
int knob_session_begin(struct knob_session *s, struct knob_batch *b, const char *dir,
		       const char *what, char *err, size_t errlen);

/*
 * Ends a begun session. @restore puts every journalled value back, newest first (one
 * result object per entry appended to @results, which may be NULL: see
 * knob_entries_restore) and removes the journal when all came back; otherwise the
 * journal stays for `fsbench restore`, its path in @s->journal_left. Without @restore
 * the new values stay (`knobs --set`) and the journal goes. Then @s->after is read and
 * the locks released, in that order: whoever takes the knobs over finds them settled.
 * Returns 0, or the first failed restore's -errno. Calling it on an empty or failed
 * session only reads @s->after.
 */
int knob_session_end(struct knob_session *s, bool restore, json_t *results);

/*
 * `knobs --set`: the @n assignments ("NAME=VALUE") added to @b (its target set) and
 * applied as one session for @what that ends at once, leaving the new values: a lasting
 * change, its journal gone. 0, or -errno with @err set and @s->failed naming the step
 * (KNOB_SESSION_VALIDATE for an assignment refused), nothing changed.
 */
int knob_session_set(struct knob_session *s, struct knob_batch *b, char *const *assignments, int n,
		     const char *dir, const char *what, char *err, size_t errlen);

/* Drops @s->before and @s->after and anything still held. Accepts a zeroed session. */
void knob_session_free(struct knob_session *s);

#endif
