/* The knob session (knob_session.h): validate, lock, check, journal, apply; restore, unlock. */
#include "probes/knob/knob_session.h"
#include "base/errf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int begin_failed(struct knob_session *s, enum knob_session_step step, int r)
{
	s->failed = step;
	if (s->j) {
		/* the batch rolled itself back: the journal holds nothing left to restore */
		journal_remove(s->j);
		s->j = journal_close(s->j);
	}
	knob_locks_release(&s->locks, s->lock_dir);
	return r;
}

int knob_session_begin(struct knob_session *s, struct knob_batch *b, const char *dir,
		       const char *what, char *err, size_t errlen)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->b = b;
	s->dir = dir;
	journal_lock_dir(b->t->root, s->lock_dir, sizeof(s->lock_dir));
	r = knob_batch_validate(b, err, errlen);
	if (r < 0)
		return begin_failed(s, KNOB_SESSION_VALIDATE, r);
	if (b->n) {
		/* validated again under the locks: "before" is not a run's that was just ending */
		r = knob_batch_lock(b, s->lock_dir, what, &s->locks, err, errlen);
		if (r < 0) {
			/* knob_batch_lock holds nothing when it fails */
			s->locks.n = 0;
			return begin_failed(s, KNOB_SESSION_LOCK, r);
		}
	}
	s->before = knob_values_json(b->t);
	if (!b->n)
		return 0;
	/* a journal where others may write is one root would later act on: not there */
	r = journal_dir_make(dir, err, errlen);
	if (r == 0)
		r = journal_check_stale(dir, err, errlen);
	if (r < 0)
		return begin_failed(s, KNOB_SESSION_APPLY, r);
	/* journalled only while the batch is in flight: a crash half-way can be undone */
	r = journal_open(dir, &s->j);
	if (r < 0) {
		s->j = NULL;
		return begin_failed(s, KNOB_SESSION_APPLY,
				    errf(err, errlen, r, "creating the restore journal in %s: %s",
					 dir, strerror(-r)));
	}
	r = knob_batch_apply(b, s->j, err, errlen);
	if (r < 0)
		return begin_failed(s, KNOB_SESSION_APPLY, r);
	return 0;
}

int knob_session_end(struct knob_session *s, bool restore, json_t *results)
{
	int r = 0;

	if (s->j) {
		if (restore)
			r = knob_entries_restore(s->b->t->root, s->j->entries, 0, results);
		if (r == 0)
			journal_remove(s->j);
		else
			snprintf(s->journal_left, sizeof(s->journal_left), "%s", s->j->path);
		s->j = journal_close(s->j);
	}
	if (s->b)
		s->after = knob_values_json(s->b->t);
	/* only now, "after" read: a run that takes them over finds the values we put back */
	knob_locks_release(&s->locks, s->lock_dir);
	s->locks.n = 0;
	return r;
}

void knob_session_free(struct knob_session *s)
{
	if (s->j)
		knob_session_end(s, true, NULL);
	json_decref(s->before);
	json_decref(s->after);
	s->before = s->after = NULL;
}

int knob_session_set(struct knob_session *s, struct knob_batch *b, char *const *assignments, int n,
		     const char *dir, const char *what, char *err, size_t errlen)
{
	int r = 0;

	for (int i = 0; i < n && r == 0; i++)
		r = knob_batch_add(b, assignments[i], err, errlen);
	if (r < 0) {
		s->failed = KNOB_SESSION_VALIDATE;
		return r;
	}
	r = knob_session_begin(s, b, dir, what, err, errlen);
	if (r == 0)
		/* the new values stay: the journal only covered the batch in flight */
		knob_session_end(s, false, NULL);
	return r;
}
