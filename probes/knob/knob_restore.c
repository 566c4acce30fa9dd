/* Restoring journalled knob values (knob.h): the journal is untrusted input, checked here. */
#include "probes/knob/knob.h"
#include "probes/knob/knob_internal.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "probes/target/fs_traits.h"
#include "probes/target/mount.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * What an entry may say, and what is made of it. A journal is a file on disk that root
 * acts on, so nothing in it is taken as a place to write: only a knob name from
 * knob_defs[], a device identity (major:minor and diskseq) or a mount identity, and a
 * value of the knob's type. The file to write is rebuilt from the knob's definition and
 * the device found by its identity now; the remount option from the filesystem found at
 * the mount point now. Fields such as "path", "disk" or "option" are never read.
 */
struct restore_item {
	json_t *e;
	const struct knob_def *def;
	const char *knob, *value;
	char key[160]; /* one knob of one owner: entries with the same key are one knob */
	int phase; /* 0 the scheduler, 1 the rest: a scheduler switch resets nr_requests, iosched/ */
	bool superseded; /* an older entry of the same key holds the value to restore */
};

static int parse_devnum(const char *s, unsigned *ret_major, unsigned *ret_minor)
{
	char tail;

	if (!s || sscanf(s, "%u:%u%c", ret_major, ret_minor, &tail) != 2)
		return -EBADMSG;
	return 0;
}

/* The whole disk under <root>/sys/block whose dev is @major:@minor, its name in @ret. */
static int disk_by_devnum(const char *root, unsigned major, unsigned minor, char *ret, size_t len)
{
	char dir[1200], rel[400], buf[64], want[32];
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	snprintf(dir, sizeof(dir), "%s/sys/block", root);
	snprintf(want, sizeof(want), "%u:%u", major, minor);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		snprintf(rel, sizeof(rel), "/sys/block/%s/dev", de->d_name);
		if (base_read_under(root, rel, buf, sizeof(buf)) == 0 && !strcmp(buf, want)) {
			snprintf(ret, len, "%s", de->d_name);
			r = 0;
			break;
		}
	}
	closedir(d);
	return r;
}

/* A value of @d's type, with nothing a sysfs or procfs parser would read as more. */
static int value_check(const struct knob_def *d, const char *v, char *err, size_t errlen)
{
	long long n;

	if (strlen(v) >= KNOB_VALUE_MAX || strpbrk(v, "\n\r\t"))
		return errf(err, errlen, -EBADMSG, "%s: value is not a single short line", d->name);
	switch (d->type) {
	case KNOB_INT:
	case KNOB_BOOL:
		if (knob_parse_ll(v, &n) < 0 || (d->type == KNOB_BOOL && n != 0 && n != 1))
			return errf(err, errlen, -EBADMSG, "%s: '%s' is not a value of this knob",
				    d->name, v);
		return 0;
	case KNOB_SELECT:
		if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(v))
			return errf(err, errlen, -EBADMSG, "%s: '%s' is not a scheduler name",
				    d->name, v);
		return 0;
	case KNOB_CACHE:
		/* what sd's cache_type shows: "write back", "write through, no read (daft)"... */
		if ((strncmp(v, "write back", 10) && strncmp(v, "write through", 13) &&
		     strcmp(v, "none")) ||
		    strspn(v, "abcdefghijklmnopqrstuvwxyz ,()") != strlen(v))
			return errf(err, errlen, -EBADMSG, "%s: '%s' is not a cache mode", d->name,
				    v);
		return 0;
	}
	return -EBADMSG;
}

/*
 * Checks an entry's shape and fills @it: a known knob, a value of its type, and the
 * identity of its owner. Nothing is read from the system yet.
 */
static int item_parse(json_t *e, struct restore_item *it, char *err, size_t errlen)
{
	const char *kind = json_string_value(json_object_get(e, "kind"));
	const char *dev;
	unsigned ma, mi;
	json_t *seq;
	int r;

	memset(it, 0, sizeof(*it));
	it->e = e;
	it->phase = 1;
	it->knob = json_string_value(json_object_get(e, "knob"));
	it->value = json_string_value(json_object_get(e, "value"));
	if (!json_is_object(e) || !kind || !it->knob || !it->value)
		return errf(err, errlen, -EBADMSG, "malformed journal entry (kind, knob, value)");
	it->def = knob_def_find(it->knob);
	if (!it->def)
		return errf(err, errlen, -EBADMSG, "%s: not a knob fsbench sets", it->knob);
	r = value_check(it->def, it->value, err, errlen);
	if (r < 0)
		return r;
	if (!strcmp(kind, "mount")) {
		const char *mp = json_string_value(json_object_get(e, "mountpoint"));

		if (it->def->scope != KNOB_SCOPE_MOUNT)
			return errf(err, errlen, -EBADMSG, "%s: not a mount option", it->knob);
		if (!mp || mp[0] != '/' ||
		    parse_devnum(json_string_value(json_object_get(e, "mnt_dev")), &ma, &mi) < 0 ||
		    !json_is_string(json_object_get(e, "fstype")))
			return errf(err, errlen, -EBADMSG,
				    "%s: a mount entry without its identity (mountpoint, mnt_dev, "
				    "fstype)",
				    it->knob);
		snprintf(it->key, sizeof(it->key), "mnt %u:%u %.100s", ma, mi, mp);
		return 0;
	}
	if (strcmp(kind, "file"))
		return errf(err, errlen, -EBADMSG, "%s: journal entry of unknown kind '%s'",
			    it->knob, kind);
	switch (it->def->scope) {
	case KNOB_SCOPE_MOUNT:
		return errf(err, errlen, -EBADMSG, "%s: a mount option in a file entry", it->knob);
	case KNOB_SCOPE_VM:
		/* a pair is one knob: writing either one sets both (knob_def.pair) */
		snprintf(it->key, sizeof(it->key), "vm %s",
			 it->def->pair && strcmp(it->def->pair, it->def->name) < 0 ? it->def->pair :
										     it->def->name);
		return 0;
	case KNOB_SCOPE_QUEUE:
	case KNOB_SCOPE_IOSCHED:
	case KNOB_SCOPE_DRIVE:
		break;
	}
	dev = json_string_value(json_object_get(e, "dev"));
	seq = json_object_get(e, "diskseq");
	if (parse_devnum(dev, &ma, &mi) < 0 || (seq && !json_is_integer(seq)) ||
	    (json_object_get(e, "loop_backing_file") &&
	     !json_is_string(json_object_get(e, "loop_backing_file"))))
		return errf(err, errlen, -EBADMSG,
			    "%s: the entry names no device identity (dev major:minor): not "
			    "replayed",
			    it->knob);
	snprintf(it->key, sizeof(it->key), "dev %u:%u seq%lld %.80s", ma, mi,
		 seq ? (long long)json_integer_value(seq) : -1LL, it->knob);
	if (!strcmp(it->knob, "scheduler"))
		it->phase = 0;
	return 0;
}

/* The device an entry names, found by major:minor and checked by diskseq, as a target. */
static int item_target(const char *root, const struct restore_item *it, struct knob_target *t,
		       char *err, size_t errlen)
{
	const char *dev = json_string_value(json_object_get(it->e, "dev"));
	json_t *seq = json_object_get(it->e, "diskseq");
	const char *backing = json_string_value(json_object_get(it->e, "loop_backing_file"));
	char disk[64];
	unsigned ma, mi;
	int r;

	parse_devnum(dev, &ma, &mi);
	r = disk_by_devnum(root, ma, mi, disk, sizeof(disk));
	if (r < 0)
		return errf(err, errlen, -ESTALE, "no whole disk is %s now: not writing to it",
			    dev);
	r = knob_target_init(root, disk, NULL, NULL, t);
	if (r < 0)
		return errf(err, errlen, -ESTALE, "%s (%s): %s: not writing to it", disk, dev,
			    strerror(-r));
	if (t->diskseq >= 0 && !seq)
		return errf(err, errlen, -ESTALE,
			    "%s (%s) has diskseq %lld, the entry names none: not writing to it",
			    disk, dev, t->diskseq);
	if (seq && t->diskseq != json_integer_value(seq))
		return errf(
			err, errlen, -ESTALE,
			"%s (%s) has diskseq %lld, the journal saw %lld: another device now, not writing to it",
			disk, dev, t->diskseq, (long long)json_integer_value(seq));
	/*
	 * A loop device detached since keeps its diskseq until the next attach: its knobs
	 * would be the next attacher's. And one the journal saw over a file must be over it.
	 */
	if (!strncmp(disk, "loop", 4) && !t->backing_file[0])
		return errf(err, errlen, -ESTALE,
			    "%s (%s) is a detached loop device now: not writing to it", disk, dev);
	if (backing && strcmp(backing, t->backing_file))
		return errf(err, errlen, -ESTALE,
			    "%s (%s) is over %s now, the journal saw %s: not writing to it", disk,
			    dev, t->backing_file, backing);
	return 0;
}

/*
 * After the write: the device is still the one the entry names (the same diskseq). A loop
 * number re-attached between the check and the write got the value: said, never quiet.
 */
static int still_same(const char *root, const struct knob_target *t, const char *rel, char *err,
		      size_t errlen)
{
	struct knob_target now;

	if (t->diskseq < 0)
		return 0;
	if (knob_target_init(root, t->disk, NULL, NULL, &now) < 0 || now.diskseq != t->diskseq ||
	    now.major != t->major || now.minor != t->minor)
		return errf(
			err, errlen, -ESTALE,
			"%s changed while %s was written (diskseq %lld, now %lld): the value may "
			"have reached the device attached meanwhile",
			t->disk, rel, t->diskseq, now.diskseq);
	return 0;
}

static int file_restore(const char *root, const struct restore_item *it, char *err, size_t errlen)
{
	struct knob_target t;
	char rel[PATH_MAX + 128], cur[KNOB_VALUE_MAX];
	int r;

	if (it->def->scope == KNOB_SCOPE_VM)
		r = knob_target_init(root, NULL, NULL, NULL, &t);
	else
		r = item_target(root, it, &t, err, errlen);
	if (r < 0)
		return r;
	/* already there (a second replay, or one a killed restore got to) is restored */
	if (knob_read(&t, it->knob, cur, sizeof(cur)) == 0 && !strcmp(cur, it->value))
		return 0;
	r = knob_path(&t, it->def, it->knob, rel, sizeof(rel));
	if (r < 0)
		return errf(err, errlen, -ESTALE, "%s: %s has no such knob now", it->knob,
			    t.disk[0] ? t.disk : "the system");
	r = base_write_under(root, rel, it->value);
	if (r < 0)
		return errf(err, errlen, r, "writing %s to %s: %s", it->value, rel, strerror(-r));
	return it->def->scope == KNOB_SCOPE_VM ? 0 : still_same(root, &t, rel, err, errlen);
}

static int mount_restore(const char *root, const struct restore_item *it, char *err, size_t errlen)
{
	const char *mp = json_string_value(json_object_get(it->e, "mountpoint"));
	const char *fst = json_string_value(json_object_get(it->e, "fstype"));
	const char *mdev = json_string_value(json_object_get(it->e, "mnt_dev"));
	const char *opt;
	struct probe_mount m;
	bool on = !strcmp(it->value, "1");
	char dev[32];
	int r;

	r = probe_mount_find(root, PROBE_MOUNT_TARGET, mp, 0, &m);
	if (r < 0)
		return errf(err, errlen, -ESTALE, "%s is no longer mounted: not remounting", mp);
	snprintf(dev, sizeof(dev), "%u:%u", m.major, m.minor);
	if (strcmp(dev, mdev) || strcmp(m.fstype, fst))
		return errf(err, errlen, -ESTALE,
			    "%s is now %s on %s, the journal saw %s on %s: not remounting", mp,
			    m.fstype, dev, fst, mdev);
	/* nothing to do is the common case of a second replay */
	if (knob_barrier_on(&m) == on)
		return 0;
	/* the one option fsbench changed, spelt for the filesystem found there now */
	opt = fs_traits_barrier_option(m.fstype, on);
	if (!opt)
		return errf(err, errlen, -ESTALE, "%s (%s) has no barrier option: not remounting",
			    mp, m.fstype);
	r = knob_remount(root, mp, opt);
	if (r < 0)
		return errf(err, errlen, r, "remounting %s with %s: %s", mp, opt, strerror(-r));
	return 0;
}

static void result_add(json_t *results, const struct restore_item *it, json_t *e, int r,
		       const char *err)
{
	json_t *res;

	if (!results)
		return;
	res = json_pack("{s:O?,s:O?,s:s}", "knob", json_object_get(e, "knob"), "value",
			json_object_get(e, "value"), "status",
			!r			      ? "restored" :
			r == -ESTALE || r == -EBADMSG ? "refused" :
							"failed");
	if (res && it && it->def && it->def->scope != KNOB_SCOPE_MOUNT &&
	    it->def->scope != KNOB_SCOPE_VM)
		json_object_set(res, "dev", json_object_get(e, "dev"));
	if (res && r < 0)
		json_object_set_new(res, "error", json_string(err));
	if (res)
		json_array_append_new(results, res);
}

int knob_entries_restore(const char *root, json_t *entries, size_t from, json_t *results)
{
	size_t n = json_array_size(entries);
	struct restore_item *items;
	int first = 0;

	root = root ? root : "";
	if (from >= n)
		return 0;
	items = calloc(n - from, sizeof(*items));
	if (!items)
		return -ENOMEM;
	/* refuse what is not ours; of the entries of one knob only the oldest counts */
	for (size_t i = from; i < n; i++) {
		struct restore_item *it = &items[i - from];
		char err[512] = "";
		int r = item_parse(json_array_get(entries, i), it, err, sizeof(err));

		if (r < 0) {
			it->def = NULL;
			it->superseded = true;
			result_add(results, NULL, json_array_get(entries, i), r, err);
			if (!first)
				first = r;
			continue;
		}
		for (size_t k = from; k < i; k++)
			if (items[k - from].def && !items[k - from].superseded &&
			    !strcmp(items[k - from].key, it->key))
				it->superseded = true;
	}
	/* the scheduler first, then the rest newest first: the switch resets nr_requests */
	for (int phase = 0; phase < 2; phase++)
		for (size_t i = n; i-- > from;) {
			struct restore_item *it = &items[i - from];
			char err[512] = "";
			int r;

			if (it->superseded || it->phase != phase)
				continue;
			r = it->def->scope == KNOB_SCOPE_MOUNT ?
				    mount_restore(root, it, err, sizeof(err)) :
				    file_restore(root, it, err, sizeof(err));
			if (r < 0 && !first)
				first = r;
			result_add(results, it, it->e, r, err);
		}
	free(items);
	return first;
}
