/* Knob owners and their locks (knob.h): who may change which knobs, one run at a time. */
#include "probes/knob/knob.h"
#include "probes/knob/knob_internal.h"
#include "base/errf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Adds an owner unless @l has it, keeping @l sorted by lock name: one order for everyone. */
static int owner_add(struct knob_locks *l, const char *lock, bool plural, const char *first,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int owner_add(struct knob_locks *l, const char *lock, bool plural, const char *first,
		     const char *fmt, ...)
{
	struct knob_owner o = { .plural = plural, .fd = -1 };
	va_list ap;
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->o[i].lock, lock))
			return 0;
	if (l->n >= KNOB_OWNERS_MAX)
		return -E2BIG;
	snprintf(o.lock, sizeof(o.lock), "%s", lock);
	snprintf(o.first, sizeof(o.first), "%s", first);
	va_start(ap, fmt);
	vsnprintf(o.desc, sizeof(o.desc), fmt, ap);
	va_end(ap);
	for (i = l->n; i > 0 && strcmp(l->o[i - 1].lock, lock) > 0; i--)
		l->o[i] = l->o[i - 1];
	l->o[i] = o;
	l->n++;
	return 0;
}

static void locks_init(struct knob_locks *l)
{
	memset(l, 0, sizeof(*l));
	l->busy = -1;
	for (int i = 0; i < KNOB_OWNERS_MAX; i++)
		l->o[i].fd = -1;
}

int knob_batch_owners(const struct knob_batch *b, struct knob_locks *ret)
{
	const struct knob_target *t = b->t;
	char lock[JOURNAL_LOCK_NAME_MAX], first[KNOB_VALUE_MAX + 80];
	int r = 0;

	locks_init(ret);
	for (int i = 0; i < b->n && r == 0; i++) {
		const struct knob_change *c = &b->ch[i];

		snprintf(first, sizeof(first), "%s=%s", c->name, c->value);
		switch (c->def->scope) {
		case KNOB_SCOPE_QUEUE:
		case KNOB_SCOPE_IOSCHED:
		case KNOB_SCOPE_DRIVE:
			if (!t->disk[0])
				return -ENOENT;
			if (t->diskseq >= 0)
				snprintf(lock, sizeof(lock), "dev-%u:%u-seq%lld", t->major,
					 t->minor, t->diskseq);
			else
				snprintf(lock, sizeof(lock), "dev-%u:%u", t->major, t->minor);
			r = owner_add(ret, lock, true, first, "the knobs of %s (%u:%u)", t->disk,
				      t->major, t->minor);
			break;
		case KNOB_SCOPE_MOUNT:
			if (!t->mnt_dev[0])
				return -ENOENT;
			snprintf(lock, sizeof(lock), "mnt-%s", t->mnt_dev);
			r = owner_add(ret, lock, false, first, "the barrier of %s (%s)",
				      t->mountpoint, t->mnt_dev);
			break;
		case KNOB_SCOPE_VM:
			r = owner_add(ret, "vm", true, first, "the vm dirty knobs");
			break;
		}
	}
	return r;
}

int knob_entries_owners(json_t *entries, struct knob_locks *ret)
{
	char lock[JOURNAL_LOCK_NAME_MAX], first[KNOB_VALUE_MAX + 80];
	json_t *e;
	size_t i;
	int r = 0;

	locks_init(ret);
	json_array_foreach(entries, i, e)
	{
		const char *kind = json_string_value(json_object_get(e, "kind"));
		const char *knob = json_string_value(json_object_get(e, "knob"));
		const char *value = json_string_value(json_object_get(e, "value"));
		const struct knob_def *d = knob ? knob_def_find(knob) : NULL;
		const char *mdev = json_string_value(json_object_get(e, "mnt_dev"));
		const char *dev = json_string_value(json_object_get(e, "dev"));
		json_t *seq = json_object_get(e, "diskseq");
		unsigned ma, mi;
		char tail;

		/* scratch resources are fsbench's own, not knobs: nobody else changes them */
		if (kind && !strcmp(kind, "scratch"))
			continue;
		/* not fsbench's to replay: knob_entries_restore() refuses it, saying why */
		if (!kind || !d || !value)
			continue;
		/* names rebuilt from numbers: nothing of the journal's text goes into a path */
		snprintf(first, sizeof(first), "%.80s=%.100s", knob, value);
		if (!strcmp(kind, "mount")) {
			const char *mp = json_string_value(json_object_get(e, "mountpoint"));

			if (d->scope != KNOB_SCOPE_MOUNT || !mp || !mdev ||
			    sscanf(mdev, "%u:%u%c", &ma, &mi, &tail) != 2)
				continue;
			snprintf(lock, sizeof(lock), "mnt-%u:%u", ma, mi);
			r = owner_add(ret, lock, false, first, "the barrier of %s (%u:%u)", mp, ma,
				      mi);
		} else if (!strcmp(kind, "file") && d->scope == KNOB_SCOPE_VM) {
			r = owner_add(ret, "vm", true, first, "the vm dirty knobs");
		} else if (!strcmp(kind, "file") && d->scope != KNOB_SCOPE_MOUNT && dev &&
			   sscanf(dev, "%u:%u%c", &ma, &mi, &tail) == 2 &&
			   (!seq || json_is_integer(seq))) {
			if (seq)
				snprintf(lock, sizeof(lock), "dev-%u:%u-seq%lld", ma, mi,
					 (long long)json_integer_value(seq));
			else
				snprintf(lock, sizeof(lock), "dev-%u:%u", ma, mi);
			const char *disk = json_string_value(json_object_get(e, "disk"));

			/* the journal's disk name only words the message, and only a plain one */
			if (disk && *disk && strlen(disk) < 32 &&
			    strspn(disk, "abcdefghijklmnopqrstuvwxyz0123456789-_") == strlen(disk))
				r = owner_add(ret, lock, true, first, "the knobs of %s (%u:%u)",
					      disk, ma, mi);
			else
				r = owner_add(ret, lock, true, first, "the knobs of %u:%u", ma, mi);
		} else {
			continue;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int knob_locks_take(struct knob_locks *l, const char *dir, const char *what, int wait_ms, char *err,
		    size_t errlen)
{
	l->busy = -1;
	for (int i = 0; i < l->n; i++) {
		struct journal_lock_holder h;
		struct knob_owner *o = &l->o[i];
		char pid[32];
		int r = journal_lock_take(dir, o->lock, what, wait_ms, &o->fd, &h);

		if (r == 0)
			continue;
		o->fd = -1;
		if (r == -EBUSY) {
			l->busy = i;
			if (h.pid > 0)
				snprintf(pid, sizeof(pid), "pid %d", (int)h.pid);
			else
				snprintf(pid, sizeof(pid), "pid unknown");
			errf(err, errlen, r, "%s %s held by another fsbench %s (%s)", o->desc,
			     o->plural ? "are" : "is", h.what, pid);
		} else {
			errf(err, errlen, r, "taking the lock %s/.lock-%s for %s: %s", dir, o->lock,
			     o->desc, strerror(-r));
		}
		knob_locks_release(l, dir);
		return r;
	}
	return 0;
}

void knob_locks_release(struct knob_locks *l, const char *dir)
{
	for (int i = l->n; i-- > 0;) {
		journal_lock_release(dir, l->o[i].lock, l->o[i].fd);
		l->o[i].fd = -1;
	}
}

int knob_batch_lock(struct knob_batch *b, const char *dir, const char *what, struct knob_locks *ret,
		    char *err, size_t errlen)
{
	char why[512];
	int r;

	r = knob_batch_owners(b, ret);
	if (r < 0)
		return errf(err, errlen, r, "finding whose knobs the batch changes: %s",
			    strerror(-r));
	r = knob_locks_take(ret, dir, what, 0, why, sizeof(why));
	if (r == -EBUSY)
		return errf(err, errlen, r,
			    "%s: %s; runs that change the same knobs cannot overlap",
			    ret->o[ret->busy].first, why);
	if (r < 0)
		return errf(err, errlen, r, "%s", why);
	r = knob_batch_validate(b, err, errlen);
	if (r < 0)
		knob_locks_release(ret, dir);
	return r;
}
