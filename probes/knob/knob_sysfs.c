/* Knob I/O under a root (knob.h): the target's sysfs and procfs files and its mount. */
#include "probes/knob/knob.h"
#include "probes/knob/knob_internal.h"
#include "base/fileio.h"
#include "probes/target/fs_traits.h"
#include "probes/target/mount.h"

#include <dirent.h>
#include <errno.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "[none] mq-deadline kyber": the bracketed word, or the only word of a plain file. */
int knob_select_active(const char *content, char *ret, size_t len)
{
	const char *a = strchr(content, '['), *b;

	if (!a) {
		size_t n = strcspn(content, " \t");

		snprintf(ret, len, "%.*s", (int)n, content);
		return n ? 0 : -ENODATA;
	}
	b = strchr(a, ']');
	if (!b)
		return -EBADMSG;
	snprintf(ret, len, "%.*s", (int)(b - a - 1), a + 1);
	return 0;
}

bool knob_select_lists(const char *content, const char *word)
{
	char buf[512], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", content);
	for (tok = strtok_r(buf, " \t[]", &save); tok; tok = strtok_r(NULL, " \t[]", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

/* The file of a knob relative to the root, or -ENOENT where the target has none. */
int knob_path(const struct knob_target *t, const struct knob_def *d, const char *name, char *ret,
	      size_t len)
{
	switch (d->scope) {
	case KNOB_SCOPE_QUEUE:
		if (!t->disk[0])
			return -ENOENT;
		snprintf(ret, len, "%s/queue/%s", t->disk_dir, d->file);
		return 0;
	case KNOB_SCOPE_IOSCHED:
		if (!t->disk[0])
			return -ENOENT;
		snprintf(ret, len, "%s/queue/iosched/%s", t->disk_dir, name + 8);
		return 0;
	case KNOB_SCOPE_DRIVE:
		if (!t->scsi_dir[0])
			return -ENOENT;
		snprintf(ret, len, "%s/%s", t->scsi_dir, d->file);
		return 0;
	case KNOB_SCOPE_VM:
		snprintf(ret, len, "/proc/sys/vm/%s", d->file);
		return 0;
	case KNOB_SCOPE_MOUNT:
		break;
	}
	return -ENOENT;
}

/* fs_traits_barrier_off()'s question, put to one mount's options. */
static bool mount_has(const char *name, const char *value, void *arg)
{
	char v[32];

	if (probe_mount_option(arg, name, v, sizeof(v)) < 0)
		return false;
	return !value || !strcmp(v, value);
}

/* Barriers are on unless the options turn them off, as fs_traits spells it for the type. */
bool knob_barrier_on(const struct probe_mount *m)
{
	return !fs_traits_barrier_off(m->fstype, mount_has, (void *)m);
}

/*
 * Remounts @mountpoint adding @opt. libmount merges the options in force from
 * mountinfo (so ro, nosuid and the rest stay as they are) and ours come last, and last
 * wins. Returns 0, the kernel's -errno, or a library -errno.
 */
int knob_remount(const char *root, const char *mountpoint, const char *opt)
{
	struct libmnt_context *cxt;
	char opts[256];
	int r;

	/* a fixture tree has no mount to change */
	if (root[0])
		return -EXDEV;
	cxt = mnt_new_context();
	if (!cxt)
		return -ENOMEM;
	snprintf(opts, sizeof(opts), "remount,%s", opt);
	r = mnt_context_set_target(cxt, mountpoint);
	if (!r)
		r = mnt_context_set_options(cxt, opts);
	if (!r)
		r = mnt_context_mount(cxt);
	if (r > 0 || (r == 0 && mnt_context_get_status(cxt) != 1)) {
		int e = mnt_context_syscall_called(cxt) ? mnt_context_get_syscall_errno(cxt) : 0;

		r = e ? -e : -EIO;
	} else if (r < 0 && mnt_context_syscall_called(cxt) && mnt_context_get_syscall_errno(cxt)) {
		r = -mnt_context_get_syscall_errno(cxt);
	}
	mnt_free_context(cxt);
	return r;
}

int knob_target_init(const char *root, const char *disk, const char *mountpoint, const char *fstype,
		     struct knob_target *ret)
{
	struct knob_target t;
	char buf[256], rel[PATH_MAX + 128];
	DIR *d;
	struct dirent *de;
	int r;

	memset(&t, 0, sizeof(t));
	t.diskseq = -1;
	snprintf(t.root, sizeof(t.root), "%s", root ? root : "");
	/* "/" as the root would double every slash; the real system is "" */
	if (!strcmp(t.root, "/"))
		t.root[0] = 0;
	if (disk && *disk) {
		if (strchr(disk, '/'))
			return -EINVAL;
		snprintf(t.disk, sizeof(t.disk), "%s", disk);
		snprintf(t.disk_dir, sizeof(t.disk_dir), "/sys/block/%s", disk);
		snprintf(rel, sizeof(rel), "%s/dev", t.disk_dir);
		r = base_read_under(t.root, rel, buf, sizeof(buf));
		if (r < 0)
			return r;
		if (sscanf(buf, "%u:%u", &t.major, &t.minor) != 2)
			return -EBADMSG;
		snprintf(rel, sizeof(rel), "%s/diskseq", t.disk_dir);
		if (base_read_under(t.root, rel, buf, sizeof(buf)) == 0)
			t.diskseq = strtoll(buf, NULL, 10);
		snprintf(rel, sizeof(rel), "%s/loop/backing_file", t.disk_dir);
		if (base_read_under(t.root, rel, buf, sizeof(buf)) == 0)
			snprintf(t.backing_file, sizeof(t.backing_file), "%s", buf);
		snprintf(rel, sizeof(rel), "%s%s/slaves", t.root, t.disk_dir);
		d = opendir(rel);
		while (d && (de = readdir(d)) && t.nslaves < KNOB_MAX_SLAVES)
			if (de->d_name[0] != '.')
				snprintf(t.slaves[t.nslaves++], sizeof(t.slaves[0]), "%.63s",
					 de->d_name);
		if (d)
			closedir(d);
		/* the drive's cache lives with its SCSI disk, one per sd device */
		snprintf(rel, sizeof(rel), "%s%s/device/scsi_disk", t.root, t.disk_dir);
		d = opendir(rel);
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(t.scsi_dir, sizeof(t.scsi_dir),
					 "/sys/block/%s/device/scsi_disk/%.64s", t.disk,
					 de->d_name);
				break;
			}
		if (d)
			closedir(d);
	}
	if (mountpoint && *mountpoint) {
		struct probe_mount m;

		snprintf(t.mountpoint, sizeof(t.mountpoint), "%s", mountpoint);
		if (probe_mount_find(t.root, PROBE_MOUNT_TARGET, mountpoint, 0, &m) == 0) {
			snprintf(t.mnt_dev, sizeof(t.mnt_dev), "%u:%u", m.major, m.minor);
			base_strcpy(t.fstype, sizeof(t.fstype), m.fstype);
			base_strcpy(t.mnt_source, sizeof(t.mnt_source), m.source);
			base_strcpy(t.mnt_options, sizeof(t.mnt_options), m.options);
		}
	}
	if (fstype && *fstype)
		snprintf(t.fstype, sizeof(t.fstype), "%s", fstype);
	*ret = t;
	return 0;
}

int knob_read(const struct knob_target *t, const char *name, char *ret, size_t len)
{
	const struct knob_def *d = knob_def_find(name);
	char rel[PATH_MAX + 128], buf[512];
	struct probe_mount m;
	int r;

	if (!d)
		return -ENOENT;
	if (d->scope == KNOB_SCOPE_MOUNT) {
		if (!t->mountpoint[0] || !t->fstype[0])
			return -ENOENT;
		if (!fs_traits_barrier_option(t->fstype, true))
			return -EOPNOTSUPP;
		r = probe_mount_find(t->root, PROBE_MOUNT_TARGET, t->mountpoint, 0, &m);
		if (r < 0)
			return r;
		snprintf(ret, len, "%d", knob_barrier_on(&m));
		return 0;
	}
	r = knob_path(t, d, name, rel, sizeof(rel));
	if (r < 0)
		return r;
	r = base_read_under(t->root, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (d->type == KNOB_SELECT)
		return knob_select_active(buf, ret, len);
	snprintf(ret, len, "%s", buf);
	return 0;
}

int knob_parse_ll(const char *s, long long *ret)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*ret = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

json_t *knob_value_json(const struct knob_def *d, const char *v)
{
	long long n;

	if ((d->type == KNOB_INT || d->type == KNOB_BOOL) && knob_parse_ll(v, &n) == 0)
		return json_integer(n);
	return json_string(v);
}

json_t *knob_values_json(const struct knob_target *t)
{
	json_t *o = json_object();
	char v[KNOB_VALUE_MAX], dir[PATH_MAX + 1100], name[300];

	for (const struct knob_def *d = knob_defs; d->name; d++) {
		if (d->scope == KNOB_SCOPE_IOSCHED) {
			struct dirent *de;
			DIR *dd;

			if (!t->disk[0])
				continue;
			snprintf(dir, sizeof(dir), "%s%s/queue/iosched", t->root, t->disk_dir);
			dd = opendir(dir);
			while (dd && (de = readdir(dd))) {
				if (de->d_name[0] == '.')
					continue;
				snprintf(name, sizeof(name), "iosched/%s", de->d_name);
				if (knob_read(t, name, v, sizeof(v)) == 0)
					json_object_set_new(o, name, knob_value_json(d, v));
			}
			if (dd)
				closedir(dd);
			continue;
		}
		if (knob_read(t, d->name, v, sizeof(v)) == 0)
			json_object_set_new(o, d->name, knob_value_json(d, v));
	}
	return o;
}

json_t *knob_target_json(const struct knob_target *t)
{
	json_t *o = json_object(), *sl;
	char rel[PATH_MAX + 64], buf[256];
	long long n;
	static const char *const files[] = { "rotational", "logical_block_size",
					     "physical_block_size", "max_hw_sectors_kb", NULL };

	if (!t->disk[0])
		return o;
	json_object_set_new(o, "disk", json_string(t->disk));
	snprintf(buf, sizeof(buf), "%u:%u", t->major, t->minor);
	json_object_set_new(o, "dev", json_string(buf));
	if (t->diskseq >= 0)
		json_object_set_new(o, "diskseq", json_integer(t->diskseq));
	for (int i = 0; files[i]; i++) {
		snprintf(rel, sizeof(rel), "%s/queue/%s", t->disk_dir, files[i]);
		if (base_read_under(t->root, rel, buf, sizeof(buf)) == 0 &&
		    knob_parse_ll(buf, &n) == 0)
			json_object_set_new(o, files[i],
					    strcmp(files[i], "rotational") ? json_integer(n) :
									     json_boolean(n));
	}
	sl = json_array();
	for (int i = 0; i < t->nslaves; i++)
		json_array_append_new(sl, json_string(t->slaves[i]));
	json_object_set_new(o, "slaves", sl);
	if (t->backing_file[0])
		json_object_set_new(o, "loop_backing_file", json_string(t->backing_file));
	if (t->scsi_dir[0])
		json_object_set_new(o, "scsi_disk", json_string(strrchr(t->scsi_dir, '/') + 1));
	return o;
}
