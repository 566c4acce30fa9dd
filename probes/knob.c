/* Knobs (see knob.h): the table, sysfs/procfs access under a root, batches and restore. */
#include "errf.h"
#include "fileio.h"
#include "fs_traits.h"
#include "mount.h"
#include "knob.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define LL_BIG (1LL << 40)

/*
 * Ranges are what makes sense to ask for; the kernel has the last word (nr_requests
 * above the hardware queue depth without a scheduler, for one) and a refusal rolls the
 * batch back. nr_requests starts at 4 because the kernel silently raises smaller values
 * to BLKDEV_MIN_RQ. max_sectors_kb's upper bound is read from max_hw_sectors_kb.
 */
const struct knob_def knob_defs[] = {
	{ "scheduler", KNOB_SCOPE_QUEUE, "scheduler", KNOB_SELECT, 0, 0, KNOB_TOUCH_KERNEL, NULL,
	  "I/O scheduler, one of those the queue lists" },
	{ "nr_requests", KNOB_SCOPE_QUEUE, "nr_requests", KNOB_INT, 4, 65536, KNOB_TOUCH_KERNEL,
	  NULL, "requests the scheduler may hold (reset by a scheduler switch)" },
	{ "write_cache", KNOB_SCOPE_QUEUE, "write_cache", KNOB_CACHE, 0, 0, KNOB_TOUCH_KERNEL, NULL,
	  "whether the kernel sends flushes (FUA/cache flush); does not switch the drive's cache" },
	{ "drive_cache", KNOB_SCOPE_DRIVE, "cache_type", KNOB_CACHE, 0, 0, KNOB_TOUCH_DRIVE, NULL,
	  "the SCSI/SATA drive's own write cache (MODE SELECT): switches the drive" },
	{ "read_ahead_kb", KNOB_SCOPE_QUEUE, "read_ahead_kb", KNOB_INT, 0, 1 << 20,
	  KNOB_TOUCH_KERNEL, NULL, "read-ahead window" },
	{ "wbt_lat_usec", KNOB_SCOPE_QUEUE, "wbt_lat_usec", KNOB_INT, -1, LL_BIG, KNOB_TOUCH_KERNEL,
	  NULL, "writeback throttling target latency; 0 off, -1 the kernel's default" },
	{ "max_sectors_kb", KNOB_SCOPE_QUEUE, "max_sectors_kb", KNOB_INT, 4, 0, KNOB_TOUCH_KERNEL,
	  NULL, "largest request the block layer builds (at most max_hw_sectors_kb)" },
	{ "nomerges", KNOB_SCOPE_QUEUE, "nomerges", KNOB_INT, 0, 2, KNOB_TOUCH_KERNEL, NULL,
	  "0 merge, 1 only simple merges, 2 no merges" },
	{ "rq_affinity", KNOB_SCOPE_QUEUE, "rq_affinity", KNOB_INT, 0, 2, KNOB_TOUCH_KERNEL, NULL,
	  "complete requests on the submitting CPU's group (1) or the CPU itself (2)" },
	{ "iosched/", KNOB_SCOPE_IOSCHED, NULL, KNOB_INT, -LL_BIG, LL_BIG, KNOB_TOUCH_KERNEL, NULL,
	  "a tunable of the active scheduler (queue/iosched/)" },
	{ "barrier", KNOB_SCOPE_MOUNT, NULL, KNOB_BOOL, 0, 1, KNOB_TOUCH_MOUNT, NULL,
	  "write barriers (ext3/ext4 barrier=, btrfs [no]barrier), changed by remount" },
	{ "dirty_ratio", KNOB_SCOPE_VM, "dirty_ratio", KNOB_INT, 0, 100, KNOB_TOUCH_KERNEL,
	  "dirty_bytes", "% of memory dirty before writers are throttled" },
	{ "dirty_background_ratio", KNOB_SCOPE_VM, "dirty_background_ratio", KNOB_INT, 0, 100,
	  KNOB_TOUCH_KERNEL, "dirty_background_bytes",
	  "% of memory dirty before background writeback" },
	{ "dirty_bytes", KNOB_SCOPE_VM, "dirty_bytes", KNOB_INT, 8192, LL_BIG, KNOB_TOUCH_KERNEL,
	  "dirty_ratio", "bytes dirty before writers are throttled (zeroes dirty_ratio)" },
	{ "dirty_background_bytes", KNOB_SCOPE_VM, "dirty_background_bytes", KNOB_INT, 1, LL_BIG,
	  KNOB_TOUCH_KERNEL, "dirty_background_ratio", "bytes dirty before background writeback" },
	{ "dirty_expire_centisecs", KNOB_SCOPE_VM, "dirty_expire_centisecs", KNOB_INT, 0, INT_MAX,
	  KNOB_TOUCH_KERNEL, NULL, "age at which dirty data is written back" },
	{ "dirty_writeback_centisecs", KNOB_SCOPE_VM, "dirty_writeback_centisecs", KNOB_INT, 0,
	  INT_MAX, KNOB_TOUCH_KERNEL, NULL, "period of the flusher threads; 0 off" },
	{ NULL, 0, NULL, 0, 0, 0, 0, NULL, NULL },
};

const struct knob_def *knob_def_find(const char *name)
{
	if (!strncmp(name, "iosched/", 8)) {
		const char *f = name + 8;

		/* one file name, no way out of the directory */
		if (!*f || strchr(f, '/') || !strcmp(f, ".") || !strcmp(f, ".."))
			return NULL;
	}
	for (const struct knob_def *d = knob_defs; d->name; d++)
		if (d->scope == KNOB_SCOPE_IOSCHED ? !strncmp(name, "iosched/", 8) :
						     !strcmp(name, d->name))
			return d;
	return NULL;
}

const char *knob_touch_name(enum knob_touch touch)
{
	switch (touch) {
	case KNOB_TOUCH_DRIVE:
		return "drive";
	case KNOB_TOUCH_MOUNT:
		return "mount";
	case KNOB_TOUCH_KERNEL:
		break;
	}
	return "kernel";
}

/* "[none] mq-deadline kyber": the bracketed word, or the only word of a plain file. */
static int select_active(const char *content, char *ret, size_t len)
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

static bool select_lists(const char *content, const char *word)
{
	char buf[512], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", content);
	for (tok = strtok_r(buf, " \t[]", &save); tok; tok = strtok_r(NULL, " \t[]", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

/* The file of a knob relative to the root, or -ENOENT where the target has none. */
static int knob_path(const struct knob_target *t, const struct knob_def *d, const char *name,
		     char *ret, size_t len)
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

/* Barriers are on unless the options turn them off ("nobarrier", "barrier=0"). */
static bool barrier_on(const struct probe_mount *m)
{
	char v[8];

	if (probe_mount_option(m, "nobarrier", NULL, 0) == 0)
		return false;
	if (probe_mount_option(m, "barrier", v, sizeof(v)) == 0 && !strcmp(v, "0"))
		return false;
	return true;
}

/*
 * Remounts @mountpoint adding @opt. libmount merges the options in force from
 * mountinfo (so ro, nosuid and the rest stay as they are) and ours come last, and last
 * wins. Returns 0, the kernel's -errno, or a library -errno.
 */
static int remount(const char *root, const char *mountpoint, const char *opt)
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
		r = fsb_read_under(t.root, rel, buf, sizeof(buf));
		if (r < 0)
			return r;
		if (sscanf(buf, "%u:%u", &t.major, &t.minor) != 2)
			return -EBADMSG;
		snprintf(rel, sizeof(rel), "%s/diskseq", t.disk_dir);
		if (fsb_read_under(t.root, rel, buf, sizeof(buf)) == 0)
			t.diskseq = strtoll(buf, NULL, 10);
		snprintf(rel, sizeof(rel), "%s/loop/backing_file", t.disk_dir);
		if (fsb_read_under(t.root, rel, buf, sizeof(buf)) == 0)
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
			fsb_strcpy(t.fstype, sizeof(t.fstype), m.fstype);
			fsb_strcpy(t.mnt_source, sizeof(t.mnt_source), m.source);
			fsb_strcpy(t.mnt_options, sizeof(t.mnt_options), m.options);
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
		snprintf(ret, len, "%d", barrier_on(&m));
		return 0;
	}
	r = knob_path(t, d, name, rel, sizeof(rel));
	if (r < 0)
		return r;
	r = fsb_read_under(t->root, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (d->type == KNOB_SELECT)
		return select_active(buf, ret, len);
	snprintf(ret, len, "%s", buf);
	return 0;
}

static int parse_ll(const char *s, long long *ret)
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

int knob_validate(const struct knob_target *t, const char *name, const char *value, char *ret,
		  size_t len, char *err, size_t errlen)
{
	const struct knob_def *d = knob_def_find(name);
	char cur[KNOB_VALUE_MAX], rel[PATH_MAX + 128], buf[512];
	long long v, max;
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
		r = fsb_read_under(t->root, rel, buf, sizeof(buf));
		if (r < 0)
			return errf(err, errlen, r, "%s: reading %s: %s", name, rel, strerror(-r));
		if (!*value || strchr(value, ' ') || !select_lists(buf, value))
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
		if (!strcmp(value, "1") || !strcasecmp(value, "on") || !strcasecmp(value, "true"))
			snprintf(ret, len, "1");
		else if (!strcmp(value, "0") || !strcasecmp(value, "off") ||
			 !strcasecmp(value, "false"))
			snprintf(ret, len, "0");
		else
			return errf(err, errlen, -EINVAL, "%s: '%s' is not 0 or 1", name, value);
		return 0;
	case KNOB_INT:
		break;
	}
	if (parse_ll(value, &v) < 0)
		return errf(err, errlen, -EINVAL, "%s: '%s' is not an integer", name, value);
	max = d->max;
	if (!strcmp(d->name, "max_sectors_kb")) {
		snprintf(rel, sizeof(rel), "%s/queue/max_hw_sectors_kb", t->disk_dir);
		if (fsb_read_under(t->root, rel, buf, sizeof(buf)) < 0 || parse_ll(buf, &max) < 0)
			max = LL_BIG;
	}
	if (v < d->min || v > max)
		return errf(err, errlen, -EINVAL, "%s: %lld is out of range [%lld, %lld]", name, v,
			    d->min, max);
	snprintf(ret, len, "%lld", v);
	return 0;
}

static json_t *value_json(const struct knob_def *d, const char *v)
{
	long long n;

	if ((d->type == KNOB_INT || d->type == KNOB_BOOL) && parse_ll(v, &n) == 0)
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
					json_object_set_new(o, name, value_json(d, v));
			}
			if (dd)
				closedir(dd);
			continue;
		}
		if (knob_read(t, d->name, v, sizeof(v)) == 0)
			json_object_set_new(o, d->name, value_json(d, v));
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
		if (fsb_read_under(t->root, rel, buf, sizeof(buf)) == 0 && parse_ll(buf, &n) == 0)
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
			if (parse_ll(c->value, &v) < 0)
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
		e = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "knob", name, "kind", "mount",
			      "value", cur, "mountpoint", t->mountpoint, "fstype", t->fstype,
			      "mnt_dev", t->mnt_dev, "source", t->mnt_source, "option",
			      fs_traits_barrier_option(t->fstype, cur[0] == '1'));
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
	r = knob_path(t, d, name, rel, sizeof(rel));
	if (r < 0)
		return r;
	e = json_pack("{s:s,s:s,s:s,s:s}", "knob", name, "kind", "file", "path", rel, "value", cur);
	if (!e)
		return -ENOMEM;
	if (d->scope != KNOB_SCOPE_VM) {
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", t->major, t->minor);
		json_object_set_new(e, "disk", json_string(t->disk));
		json_object_set_new(e, "dev", json_string(dev));
		if (t->diskseq >= 0)
			json_object_set_new(e, "diskseq", json_integer(t->diskseq));
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
		return remount(t->root, t->mountpoint,
			       fs_traits_barrier_option(t->fstype, c->value[0] == '1'));
	r = knob_path(t, c->def, c->name, rel, sizeof(rel));
	if (r < 0)
		return r;
	return fsb_write_under(t->root, rel, c->value);
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
				    value_json(b->ch[i].def, b->ch[i].applied[0] ?
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
		if (barrier_on(&m) == (value[0] == '1'))
			return 0;
		r = remount(root, mp, opt);
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
		const char *dev = json_string_value(json_object_get(e, "dev"));
		const char *path = json_string_value(json_object_get(e, "path"));
		json_t *seq = json_object_get(e, "diskseq");

		if (!kind || !knob || !value)
			return -EBADMSG;
		snprintf(first, sizeof(first), "%s=%s", knob, value);
		if (!strcmp(kind, "mount")) {
			const char *mdev = json_string_value(json_object_get(e, "mnt_dev"));
			const char *mp = json_string_value(json_object_get(e, "mountpoint"));

			if (!mdev || !mp)
				return -EBADMSG;
			snprintf(lock, sizeof(lock), "mnt-%s", mdev);
			r = owner_add(ret, lock, false, first, "the barrier of %s (%s)", mp, mdev);
		} else if (!strcmp(kind, "file") && dev) {
			const char *disk = json_string_value(json_object_get(e, "disk"));

			if (json_is_integer(seq))
				snprintf(lock, sizeof(lock), "dev-%s-seq%lld", dev,
					 (long long)json_integer_value(seq));
			else
				snprintf(lock, sizeof(lock), "dev-%s", dev);
			r = owner_add(ret, lock, true, first, "the knobs of %s (%s)",
				      disk ? disk : "?", dev);
		} else if (!strcmp(kind, "file") && path && !strncmp(path, "/proc/sys/vm/", 13)) {
			r = owner_add(ret, "vm", true, first, "the vm dirty knobs");
		} else {
			return -EBADMSG;
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
