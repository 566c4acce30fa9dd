/* Restoring journalled knob values (knob.h), after checking each device is still the same. */
#include "knob.h"
#include "knob_internal.h"
#include "errf.h"
#include "fileio.h"
#include "mount.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the device a file entry names is still the one the journal saw. */
static int identity_check(const char *root, json_t *e, char *err, size_t errlen)
{
	const char *disk = json_string_value(json_object_get(e, "disk"));
	const char *dev = json_string_value(json_object_get(e, "dev"));
	json_t *seq = json_object_get(e, "diskseq");
	char rel[256], buf[64];
	int r;

	if (!disk)
		return 0;
	if (strchr(disk, '/'))
		return errf(err, errlen, -EINVAL, "bad disk name '%s' in the journal", disk);
	snprintf(rel, sizeof(rel), "/sys/block/%s/dev", disk);
	r = fsb_read_under(root, rel, buf, sizeof(buf));
	if (r < 0)
		return errf(err, errlen, -ESTALE, "%s is gone (%s): not writing to it", disk,
			    strerror(-r));
	if (!dev || strcmp(buf, dev))
		return errf(err, errlen, -ESTALE,
			    "%s is now %s, the journal saw %s: not writing to it", disk, buf,
			    dev ? dev : "?");
	if (json_is_integer(seq)) {
		snprintf(rel, sizeof(rel), "/sys/block/%s/diskseq", disk);
		if (fsb_read_under(root, rel, buf, sizeof(buf)) == 0 &&
		    strtoll(buf, NULL, 10) != json_integer_value(seq))
			return errf(
				err, errlen, -ESTALE,
				"%s has diskseq %s, the journal saw %lld: another device now, not writing to it",
				disk, buf, (long long)json_integer_value(seq));
	}
	return 0;
}

static int entry_restore(const char *root, json_t *e, char *err, size_t errlen)
{
	const char *kind = json_string_value(json_object_get(e, "kind"));
	const char *value = json_string_value(json_object_get(e, "value"));
	const char *knob = json_string_value(json_object_get(e, "knob"));
	int r;

	if (!kind || !value || !knob)
		return errf(err, errlen, -EBADMSG, "malformed journal entry");
	if (!strcmp(kind, "file")) {
		const char *path = json_string_value(json_object_get(e, "path"));

		if (!path || path[0] != '/' || strstr(path, "/../") ||
		    (strncmp(path, "/sys/", 5) && strncmp(path, "/proc/sys/vm/", 13)))
			return errf(err, errlen, -EBADMSG, "journal entry with a bad path");
		r = identity_check(root, e, err, errlen);
		if (r < 0)
			return r;
		r = fsb_write_under(root, path, value);
		if (r < 0)
			return errf(err, errlen, r, "writing %s to %s: %s", value, path,
				    strerror(-r));
		return 0;
	}
	if (!strcmp(kind, "mount")) {
		const char *mp = json_string_value(json_object_get(e, "mountpoint"));
		const char *fst = json_string_value(json_object_get(e, "fstype"));
		const char *mdev = json_string_value(json_object_get(e, "mnt_dev"));
		const char *opt = json_string_value(json_object_get(e, "option"));
		struct probe_mount m;
		char dev[32];

		if (!mp || !fst || !mdev || !opt)
			return errf(err, errlen, -EBADMSG, "malformed journal entry");
		r = probe_mount_find(root, PROBE_MOUNT_TARGET, mp, 0, &m);
		if (r < 0)
			return errf(err, errlen, -ESTALE, "%s is no longer mounted: not remounting",
				    mp);
		snprintf(dev, sizeof(dev), "%u:%u", m.major, m.minor);
		if (strcmp(dev, mdev) || strcmp(m.fstype, fst))
			return errf(err, errlen, -ESTALE,
				    "%s is now %s on %s, the journal saw %s on %s: not remounting",
				    mp, m.fstype, dev, fst, mdev);
		/* nothing to do is the common case of a second replay */
		if (knob_barrier_on(&m) == (value[0] == '1'))
			return 0;
		r = knob_remount(root, mp, opt);
		if (r < 0)
			return errf(err, errlen, r, "remounting %s with %s: %s", mp, opt,
				    strerror(-r));
		return 0;
	}
	return errf(err, errlen, -EBADMSG, "journal entry of unknown kind '%s'", kind);
}

int knob_entries_restore(const char *root, json_t *entries, size_t from, json_t *results)
{
	size_t n = json_array_size(entries);
	int first = 0;

	for (size_t i = n; i-- > from;) {
		json_t *e = json_array_get(entries, i);
		char err[512] = "";
		int r = entry_restore(root ? root : "", e, err, sizeof(err));

		if (r < 0 && !first)
			first = r;
		if (results) {
			json_t *res = json_pack("{s:O?,s:O?,s:s}", "knob",
						json_object_get(e, "knob"), "value",
						json_object_get(e, "value"), "status",
						!r	     ? "restored" :
						r == -ESTALE ? "refused" :
							       "failed");

			if (res && r < 0)
				json_object_set_new(res, "error", json_string(err));
			if (res)
				json_array_append_new(results, res);
		}
	}
	return first;
}
