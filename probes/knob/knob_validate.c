/* Knob validation (knob.h): one value against its target, and a batch all or nothing. */
#include "probes/knob/knob.h"
#include "probes/knob/knob_internal.h"
#include "base/errf.h"
#include "base/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * The checks that need no device: a KNOB_BOOL or KNOB_INT value parsed, an integer held to
 * [min, @max], and its canonical form written to @ret. 0, -EINVAL with @err set, or 1 for
 * the other types, whose values only the device can judge.
 */
static int check_plain(const struct knob_def *d, const char *name, const char *value, long long max,
		       char *ret, size_t len, char *err, size_t errlen)
{
	long long v;

	switch (d->type) {
	case KNOB_BOOL:
		if (!strcmp(value, "1") || !strcasecmp(value, "on") || !strcasecmp(value, "true"))
			snprintf(ret, len, "1");
		else if (!strcmp(value, "0") || !strcasecmp(value, "off") ||
			 !strcasecmp(value, "false"))
			snprintf(ret, len, "0");
		else
			return errf(err, errlen, -EINVAL, "%s: '%s' is not 0 or 1", name, value);
		return 0;
	case KNOB_INT:
		if (knob_parse_ll(value, &v) < 0)
			return errf(err, errlen, -EINVAL, "%s: '%s' is not an integer", name,
				    value);
		if (v < d->min || v > max)
			return errf(err, errlen, -EINVAL, "%s: %lld is out of range [%lld, %lld]",
				    name, v, d->min, max);
		snprintf(ret, len, "%lld", v);
		return 0;
	default:
		return 1;
	}
}

int knob_validate(const struct knob_target *t, const char *name, const char *value, char *ret,
		  size_t len, char *err, size_t errlen)
{
	const struct knob_def *d = knob_def_find(name);
	char cur[KNOB_VALUE_MAX], rel[PATH_MAX + 128], buf[512];
	long long max;
	int r;

	if (!d)
		return errf(err, errlen, -ENOENT, "%s: no such knob (see fsbench knobs --help)",
			    name);
	r = knob_read(t, name, cur, sizeof(cur));
	if (r == -EOPNOTSUPP)
		return errf(err, errlen, r, "%s: %s has no barrier mount option", name,
			    t->fstype[0] ? t->fstype : "this filesystem");
	if (r == -ENOENT && d->scope == KNOB_SCOPE_IOSCHED && t->disk[0])
		return errf(err, errlen, r, "%s: the active scheduler of %s has no such tunable",
			    name, t->disk);
	if (r < 0)
		return errf(
			err, errlen, r, "%s: %s%s%s", name,
			r == -ENOENT ? "not available for " : "reading it: ",
			r == -ENOENT ?
				(d->scope == KNOB_SCOPE_DRIVE ? "a device that is not SCSI/SATA: " :
				 d->scope == KNOB_SCOPE_MOUNT ? "a target without a mount: " :
								"this target: ") :
				"",
			t->disk[0] ? t->disk : (r == -ENOENT ? "no block device" : strerror(-r)));
	switch (d->type) {
	case KNOB_SELECT:
		snprintf(rel, sizeof(rel), "%s/queue/%s", t->disk_dir, d->file);
		r = base_read_under(t->root, rel, buf, sizeof(buf));
		if (r < 0)
			return errf(err, errlen, r, "%s: reading %s: %s", name, rel, strerror(-r));
		if (!*value || strchr(value, ' ') || !knob_select_lists(buf, value))
			return errf(err, errlen, -EINVAL,
				    "%s: '%s' is not one of those %s offers: %s", name, value,
				    t->disk, buf);
		snprintf(ret, len, "%s", value);
		return 0;
	case KNOB_CACHE:
		if (!strcmp(value, "write back") || !strcmp(value, "on") || !strcmp(value, "1") ||
		    !strcmp(value, "wb") || !strcmp(value, "write-back"))
			snprintf(ret, len, "write back");
		else if (!strcmp(value, "write through") || !strcmp(value, "off") ||
			 !strcmp(value, "0") || !strcmp(value, "wt") ||
			 !strcmp(value, "write-through"))
			snprintf(ret, len, "write through");
		else
			return errf(
				err, errlen, -EINVAL,
				"%s: '%s' is not a cache mode (use 'write back'/on or 'write through'/off)",
				name, value);
		return 0;
	case KNOB_BOOL:
	case KNOB_INT:
		break;
	}
	max = d->max;
	if (d->max_file) {
		snprintf(rel, sizeof(rel), "%s/queue/%s", t->disk_dir, d->max_file);
		if (base_read_under(t->root, rel, buf, sizeof(buf)) < 0 ||
		    knob_parse_ll(buf, &max) < 0)
			max = d->max;
	}
	return check_plain(d, name, value, max, ret, len, err, errlen);
}

int knob_batch_add(struct knob_batch *b, const char *assignment, char *err, size_t errlen)
{
	const char *eq = strchr(assignment, '=');
	struct knob_change *c;

	if (!eq || eq == assignment)
		return errf(err, errlen, -EINVAL, "'%s': expected NAME=VALUE", assignment);
	if (b->n >= KNOB_BATCH_MAX)
		return errf(err, errlen, -E2BIG, "at most %d knobs at once", KNOB_BATCH_MAX);
	if ((size_t)(eq - assignment) >= sizeof(c->name) || strlen(eq + 1) >= sizeof(c->value))
		return errf(err, errlen, -EINVAL, "'%s': name or value too long", assignment);
	c = &b->ch[b->n];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%.*s", (int)(eq - assignment), assignment);
	snprintf(c->value, sizeof(c->value), "%s", eq + 1);
	c->def = knob_def_find(c->name);
	if (!c->def)
		return errf(err, errlen, -EINVAL, "%s: no such knob (see fsbench knobs --help)",
			    c->name);
	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->ch[i].name, c->name))
			return errf(err, errlen, -EINVAL, "%s: given twice", c->name);
	b->n++;
	return 0;
}

static const struct knob_change *batch_find(const struct knob_batch *b, const char *name)
{
	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->ch[i].name, name))
			return &b->ch[i];
	return NULL;
}

int knob_batch_validate(struct knob_batch *b, char *err, size_t errlen)
{
	const struct knob_change *sched = batch_find(b, "scheduler");

	for (int i = 0; i < b->n; i++) {
		struct knob_change *c = &b->ch[i];
		char canon[KNOB_VALUE_MAX];
		int r;

		char cur[64];
		long long v;

		/* a scheduler chosen in this batch has its own files: the kernel decides */
		if (c->def->scope == KNOB_SCOPE_IOSCHED && sched && b->t->disk[0] &&
		    knob_read(b->t, "scheduler", cur, sizeof(cur)) == 0 &&
		    strcmp(cur, sched->value)) {
			if (knob_parse_ll(c->value, &v) < 0)
				return errf(err, errlen, -EINVAL, "%s: '%s' is not an integer",
					    c->name, c->value);
			c->before[0] = 0;
			continue;
		}
		r = knob_validate(b->t, c->name, c->value, canon, sizeof(canon), err, errlen);
		if (r < 0)
			return r;
		snprintf(c->value, sizeof(c->value), "%s", canon);
		r = knob_read(b->t, c->name, c->before, sizeof(c->before));
		if (r < 0)
			return errf(err, errlen, r, "%s: reading it: %s", c->name, strerror(-r));
	}
	return 0;
}

int knob_check_value(const char *name, const char *value, char *err, size_t errlen)
{
	const struct knob_def *d = knob_def_find(name);
	char canon[KNOB_VALUE_MAX];
	int r;

	if (!d)
		return errf(err, errlen, -ENOENT, "%s: no such knob (see fsbench knobs --help)",
			    name);
	/* a device's own bound (max_file) is checked on the device, when the knob is set */
	r = check_plain(d, name, value, d->max, canon, sizeof(canon), err, errlen);
	return r < 0 ? r : 0;
}
