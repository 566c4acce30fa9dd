/* Applying a knob batch (knob.h): journal each old value, write, roll back on refusal. */
#include "probes/knob/knob.h"
#include "probes/knob/knob_internal.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "probes/target/fs_traits.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The journal entry that puts knob @name of @t back as it is now. */
static int entry_for(const struct knob_target *t, const char *name, json_t **ret)
{
	const struct knob_def *d = knob_def_find(name);
	char cur[KNOB_VALUE_MAX], rel[PATH_MAX + 128];
	json_t *e;
	int r;

	r = knob_read(t, name, cur, sizeof(cur));
	if (r < 0)
		return r;
	if (d->scope == KNOB_SCOPE_MOUNT) {
		/* restore spells the option itself: an entry holds no text that reaches mount(2) */
		e = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "knob", name, "kind", "mount",
			      "value", cur, "mountpoint", t->mountpoint, "fstype", t->fstype,
			      "mnt_dev", t->mnt_dev, "source", t->mnt_source);
		if (!e)
			return -ENOMEM;
		*ret = e;
		return 0;
	}
	if (d->pair && !strcmp(cur, "0")) {
		char pv[KNOB_VALUE_MAX];

		/* the other one of the pair is in force: writing it back restores both */
		if (knob_read(t, d->pair, pv, sizeof(pv)) == 0 && strcmp(pv, "0")) {
			name = d->pair;
			d = knob_def_find(name);
			snprintf(cur, sizeof(cur), "%s", pv);
		}
	}
	/* no path: restore rebuilds it from the knob and the device's identity */
	r = knob_path(t, d, name, rel, sizeof(rel));
	if (r < 0)
		return r;
	e = json_pack("{s:s,s:s,s:s}", "knob", name, "kind", "file", "value", cur);
	if (!e)
		return -ENOMEM;
	if (d->scope != KNOB_SCOPE_VM) {
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", t->major, t->minor);
		json_object_set_new(e, "disk", json_string(t->disk));
		json_object_set_new(e, "dev", json_string(dev));
		if (t->diskseq >= 0)
			json_object_set_new(e, "diskseq", json_integer(t->diskseq));
		/* a loop device's file, which a re-attached number would not have */
		if (t->backing_file[0])
			json_object_set_new(e, "loop_backing_file", json_string(t->backing_file));
	}
	*ret = e;
	return 0;
}

static int journal_knob(struct journal *j, const struct knob_target *t, const char *name)
{
	json_t *e;
	int r = entry_for(t, name, &e);

	if (r < 0)
		return r;
	r = journal_append(j, e);
	json_decref(e);
	return r;
}

static int change_write(const struct knob_target *t, const struct knob_change *c)
{
	char rel[PATH_MAX + 128];
	int r;

	if (c->def->scope == KNOB_SCOPE_MOUNT)
		return knob_remount(t->root, t->mountpoint,
				    fs_traits_barrier_option(t->fstype, c->value[0] == '1'));
	r = knob_path(t, c->def, c->name, rel, sizeof(rel));
	if (r < 0)
		return r;
	return base_write_under(t->root, rel, c->value);
}

int knob_batch_apply(struct knob_batch *b, struct journal *j, char *err, size_t errlen)
{
	int order[KNOB_BATCH_MAX], n = 0, r = 0;

	b->journal_from = json_array_size(j->entries);
	/* the scheduler first: switching it resets nr_requests and replaces iosched/ */
	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->ch[i].name, "scheduler"))
			order[n++] = i;
	for (int i = 0; i < b->n; i++)
		if (strcmp(b->ch[i].name, "scheduler"))
			order[n++] = i;
	for (int k = 0; k < n; k++) {
		struct knob_change *c = &b->ch[order[k]];
		char cur[KNOB_VALUE_MAX];

		r = knob_read(b->t, c->name, cur, sizeof(cur));
		if (r == 0 && !strcmp(cur, c->value)) {
			snprintf(c->applied, sizeof(c->applied), "%s", cur);
			continue;
		}
		if (r < 0 && r != -ENOENT) {
			errf(err, errlen, r, "%s: reading it: %s", c->name, strerror(-r));
			goto rollback;
		}
		r = 0;
		if (c->def->scope == KNOB_SCOPE_MOUNT &&
		    !fs_traits_barrier_option(b->t->fstype, c->value[0] == '1')) {
			const struct fs_traits *ft = fs_traits_find(b->t->fstype);

			/* not even asked: the kernel has no option for it (fs_traits.c) */
			r = errf(err, errlen, -EOPNOTSUPP, "barrier=%s on %s %s: unsupported: %s",
				 c->value, b->t->fstype, b->t->mountpoint,
				 ft && ft->barrier_why ? ft->barrier_why :
							 "no mount option for it");
			goto rollback;
		}
		/* journalled before the scheduler, so restored after it: the switch resets it */
		if (!strcmp(c->name, "scheduler") &&
		    knob_read(b->t, "nr_requests", cur, sizeof(cur)) == 0)
			r = journal_knob(j, b->t, "nr_requests");
		/* an iosched/ file of a scheduler chosen in this batch has nothing to restore */
		if (r >= 0 && (c->def->scope != KNOB_SCOPE_IOSCHED ||
			       knob_read(b->t, c->name, cur, sizeof(cur)) == 0))
			r = journal_knob(j, b->t, c->name);
		if (r < 0) {
			errf(err, errlen, r, "writing the restore journal %s: %s", j->path,
			     strerror(-r));
			goto rollback;
		}
		r = change_write(b->t, c);
		if (r < 0 && c->def->scope == KNOB_SCOPE_MOUNT) {
			errf(err, errlen, r, "barrier=%s on %s %s: %s: remounting with '%s': %s",
			     c->value, b->t->fstype, b->t->mountpoint,
			     r == -EINVAL ? "unsupported, the kernel refused it" : "failed",
			     fs_traits_barrier_option(b->t->fstype, c->value[0] == '1'),
			     strerror(-r));
			if (r == -EINVAL)
				r = -EOPNOTSUPP;
			goto rollback;
		}
		if (r < 0) {
			errf(err, errlen, r, "setting %s=%s on %s: the kernel refused it: %s",
			     c->name, c->value, c->def->scope == KNOB_SCOPE_VM ? "vm" : b->t->disk,
			     strerror(-r));
			goto rollback;
		}
		c->written = true;
		if (knob_read(b->t, c->name, c->applied, sizeof(c->applied)) < 0)
			memcpy(c->applied, c->value, sizeof(c->applied));
	}
	return 0;
rollback:
	/* leaves nothing changed: what this batch wrote goes back, newest first */
	knob_entries_restore(b->t->root, j->entries, b->journal_from, NULL);
	return r;
}

json_t *knob_batch_applied_json(const struct knob_batch *b)
{
	json_t *o = json_object();

	for (int i = 0; i < b->n; i++)
		json_object_set_new(o, b->ch[i].name,
				    knob_value_json(b->ch[i].def, b->ch[i].applied[0] ?
									  b->ch[i].applied :
									  b->ch[i].value));
	return o;
}

json_t *knob_batch_touched_json(const struct knob_batch *b)
{
	json_t *o = json_object();

	for (int i = 0; i < b->n; i++)
		json_object_set_new(o, b->ch[i].name,
				    json_string(knob_touch_name(b->ch[i].def->touch)));
	return o;
}
