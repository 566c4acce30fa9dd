/* What lies under a path: mount, fs type and options, block device, whole disk, loop backing. */
#include "target.h"
#include "probe_io.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define COPY(dst, src) probe_strcpy((dst), sizeof(dst), (src))

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Kernel name of the block device with @maj:@min, from the sys/dev/block link. */
static int name_from_devno(const char *root, unsigned maj, unsigned min, char *name, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	if (probe_path(link, sizeof(link), "%s/sys/dev/block/%u:%u", root, maj, min) < 0)
		return -ENAMETOOLONG;
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	probe_strcpy(name, len, base_name(target));
	return 0;
}

/*
 * The block device behind a mount whose own devno says nothing (btrfs, which shows an
 * anonymous 0:N): the source names it. Live, /dev/mapper and /dev/disk links are
 * followed to the kernel name; in a fixture the source's last component is used.
 */
static int name_from_source(const char *root, const char *source, char *name, size_t len)
{
	char real[PATH_MAX], sys[PATH_MAX];
	const char *n;

	if (strncmp(source, "/dev/", 5))
		return -ENODEV;
	if (!*root && realpath(source, real))
		n = base_name(real);
	else
		n = base_name(source);
	if (probe_path(sys, sizeof(sys), "%s/sys/class/block/%s", root, n) < 0 || !exists(sys))
		return -ENODEV;
	probe_strcpy(name, len, n);
	return 0;
}

static void read_devno(const char *root, const char *name, unsigned *maj, unsigned *min)
{
	char p[PATH_MAX], buf[64];

	if (probe_path(p, sizeof(p), "%s/sys/class/block/%s/dev", root, name) == 0 &&
	    probe_read_line(p, buf, sizeof(buf)) == 0 && sscanf(buf, "%u:%u", maj, min) == 2)
		return;
	*maj = *min = 0;
}

/* Partition or whole disk; for a partition, the disk is its parent directory in sysfs. */
static void resolve_disk(const char *root, struct probe_target *t)
{
	char p[PATH_MAX], real[PATH_MAX + 16];

	t->partition =
		probe_path(p, sizeof(p), "%s/sys/class/block/%s/partition", root, t->device) == 0 &&
		exists(p);
	COPY(t->disk, t->device);
	if (t->partition) {
		if (probe_path(p, sizeof(p), "%s/sys/class/block/%s", root, t->device) == 0 &&
		    realpath(p, real)) {
			char *slash = strrchr(real, '/');

			if (slash) {
				*slash = 0;
				COPY(t->disk, base_name(real));
			}
		}
	}
	probe_path(t->disk_sysfs, sizeof(t->disk_sysfs), "%s/sys/block/%s", root, t->disk);
}

static void resolve_loop(struct probe_target *t)
{
	char p[PATH_MAX + 32], buf[16];

	if (probe_path(p, sizeof(p), "%s/loop/backing_file", t->disk_sysfs) < 0 ||
	    probe_read_line(p, t->loop_backing_file, sizeof(t->loop_backing_file)) < 0)
		t->loop_backing_file[0] = 0;
	t->loop_direct_io = probe_path(p, sizeof(p), "%s/loop/dio", t->disk_sysfs) == 0 &&
			    probe_read_line(p, buf, sizeof(buf)) == 0 && buf[0] == '1';
}

/*
 * libblkid on the device node: live, /dev/<name>; in a fixture, <root>/dev/<name> if the
 * fixture holds an image there. Unreadable (not root) leaves the fields empty.
 */
static void probe_blkid(const char *root, struct probe_target *t)
{
	char node[PATH_MAX];
	const char *v;
	blkid_probe pr;

	if (probe_path(node, sizeof(node), "%s/dev/%s", root, t->device) < 0)
		return;
	pr = blkid_new_probe_from_filename(node);
	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID);
	if (blkid_do_safeprobe(pr) == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
			COPY(t->blkid_type, v);
		if (blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0)
			COPY(t->uuid, v);
	}
	blkid_free_probe(pr);
}

static void append_note(struct probe_target *t, const char *fmt, const char *arg)
{
	size_t n = strlen(t->note);

	if (n && n < sizeof(t->note) - 2)
		n += (size_t)snprintf(t->note + n, sizeof(t->note) - n, "; ");
	if (n < sizeof(t->note))
		snprintf(t->note + n, sizeof(t->note) - n, fmt, arg);
}

/* Whether fsroot is a btrfs subvolume's own root rather than a directory bound from it. */
static bool is_subvol_root(const struct probe_target *t)
{
	return t->subvol[0] && !strcmp(t->fsroot, t->subvol);
}

static void fill_from_fs(struct libmnt_fs *fs, struct probe_target *t)
{
	char *val = NULL;
	size_t vlen = 0;
	dev_t dev = mnt_fs_get_devno(fs);

	COPY(t->mountpoint, mnt_fs_get_target(fs));
	COPY(t->fstype, mnt_fs_get_fstype(fs));
	COPY(t->mount_options, mnt_fs_get_options(fs));
	COPY(t->source, mnt_fs_get_source(fs));
	COPY(t->fsroot, mnt_fs_get_root(fs));
	t->major = major(dev);
	t->minor = minor(dev);
	if (!strcmp(t->fstype, "btrfs") && mnt_fs_get_option(fs, "subvol", &val, &vlen) == 0 && val)
		snprintf(t->subvol, sizeof(t->subvol), "%.*s", (int)vlen, val);
	t->bind = t->fsroot[0] && strcmp(t->fsroot, "/") && !is_subvol_root(t);
}

static void note_no_device(struct libmnt_fs *fs, struct probe_target *t)
{
	char *val = NULL;
	size_t vlen = 0;

	if (!strcmp(t->fstype, "overlay")) {
		char upper[512] = "";

		if (mnt_fs_get_option(fs, "upperdir", &val, &vlen) == 0 && val)
			snprintf(upper, sizeof(upper), "%.*s", (int)vlen, val);
		append_note(
			t,
			"overlay has no block device of its own; writes go to its upper layer %s",
			upper[0] ? upper : "(unknown)");
	} else if (!strncmp(t->fstype, "fuse", 4)) {
		append_note(t,
			    "%s is a FUSE filesystem with no block device the kernel can account",
			    t->fstype);
	} else if (mnt_fs_is_netfs(fs)) {
		append_note(t, "%s is a network filesystem: no local block device", t->fstype);
	} else {
		append_note(t, "%s has no block device", t->fstype);
	}
}

/* Whether @mnt is @path or one of its parent directories, by whole components. */
static bool covers(const char *mnt, const char *path)
{
	size_t n = strlen(mnt);

	if (!strcmp(mnt, "/"))
		return path[0] == '/';
	return !strncmp(mnt, path, n) && (path[n] == 0 || path[n] == '/');
}

/*
 * Fixture mode: libmount's lookup stats the path, which a fixture's paths do not have, so
 * the longest mount point that covers it wins; walking backward, the later of two mounts on
 * one directory wins, as the kernel shows the top one.
 */
static struct libmnt_fs *find_by_prefix(struct libmnt_table *tb, const char *path)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs, *best = NULL;
	size_t best_len = 0;

	if (!it)
		return NULL;
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *mnt = mnt_fs_get_target(fs);

		if (mnt && covers(mnt, path) && (!best || strlen(mnt) > best_len)) {
			best = fs;
			best_len = strlen(mnt);
		}
	}
	mnt_free_iter(it);
	return best;
}

static void make_absolute(const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		probe_strcpy(out, len, path);
	else if (probe_path(out, len, "%s/%s", cwd, path) < 0)
		probe_strcpy(out, len, path);
}

int probe_target_resolve(const char *root, const char *path, struct probe_target *ret)
{
	struct probe_target *t;
	struct libmnt_table *tb = NULL;
	struct libmnt_fs *fs;
	struct stat st;
	char mi[PATH_MAX];
	bool live = !root || !*root;
	int r;

	if (!path || !*path)
		return -EINVAL;
	if (!root)
		root = "";
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (live) {
		if (!realpath(path, t->path)) {
			r = -errno;
			goto out;
		}
		if (stat(t->path, &st) < 0) {
			r = -errno;
			goto out;
		}
	} else {
		make_absolute(path, t->path, sizeof(t->path));
	}

	tb = mnt_new_table();
	if (!tb) {
		r = -ENOMEM;
		goto out;
	}
	if (live) {
		r = mnt_table_parse_mtab(tb, NULL);
	} else {
		r = probe_path(mi, sizeof(mi), "%s/proc/self/mountinfo", root);
		if (r == 0)
			r = mnt_table_parse_file(tb, mi);
	}
	if (r < 0)
		goto out;
	/* backward: of mounts stacked on one directory, the last one is the visible one */
	if (live)
		fs = mnt_table_find_mountpoint(tb, t->path, MNT_ITER_BACKWARD);
	else
		fs = find_by_prefix(tb, t->path);
	if (!fs) {
		r = -ENOENT;
		goto out;
	}
	fill_from_fs(fs, t);
	if (t->bind)
		append_note(t, "bind mount of %s", t->fsroot);
	else if (t->subvol[0])
		append_note(t, "btrfs subvolume %s", t->subvol);
	/* btrfs gives each subvolume its own anonymous st_dev, so a mismatch says nothing there */
	if (live && strcmp(t->fstype, "btrfs") && st.st_dev != mnt_fs_get_devno(fs))
		append_note(
			t,
			"the path's st_dev differs from that of its mount on %s: matched by path",
			t->mountpoint);

	if (t->major &&
	    name_from_devno(root, t->major, t->minor, t->device, sizeof(t->device)) == 0) {
		t->has_block_device = true;
		t->dev_major = t->major;
		t->dev_minor = t->minor;
	} else if (name_from_source(root, t->source, t->device, sizeof(t->device)) == 0) {
		t->has_block_device = true;
		read_devno(root, t->device, &t->dev_major, &t->dev_minor);
		if (!strcmp(t->fstype, "btrfs"))
			append_note(t,
				    "btrfs may span more devices than %s; figures are for this one",
				    t->device);
	} else {
		t->device[0] = 0;
	}

	if (t->has_block_device) {
		resolve_disk(root, t);
		if (t->partition)
			append_note(t, "partition of %s", t->disk);
		if (!strncmp(t->disk, "loop", 4)) {
			resolve_loop(t);
			if (t->loop_backing_file[0])
				append_note(t, "loop device over %s", t->loop_backing_file);
		}
		probe_blkid(root, t);
	} else {
		note_no_device(fs, t);
	}

	*ret = *t;
	r = 0;
out:
	mnt_unref_table(tb);
	free(t);
	return r;
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

/*
 * What the disk is, for dashboards that tell machines apart: its model string (SCSI, ATA,
 * NVMe, MMC), else the driver of its device (virtio_blk), else "loop" for loop devices.
 */
static json_t *disk_model(const struct probe_target *t)
{
	char path[PATH_MAX + 32], buf[256], link[PATH_MAX];
	ssize_t n;
	size_t len;

	if (!t->disk_sysfs[0])
		return json_null();
	if (!probe_path(path, sizeof(path), "%s/device/model", t->disk_sysfs) &&
	    !probe_read_line(path, buf, sizeof(buf))) {
		for (len = strlen(buf); len && (buf[len - 1] == ' ' || buf[len - 1] == '\t');)
			buf[--len] = 0;
		if (len)
			return json_string(buf + strspn(buf, " \t"));
	}
	if (!probe_path(path, sizeof(path), "%s/device/driver", t->disk_sysfs) &&
	    (n = readlink(path, link, sizeof(link) - 1)) > 0) {
		link[n] = 0;
		return json_string(strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	}
	return t->disk[0] && !strncmp(t->disk, "loop", 4) ? json_string("loop") : json_null();
}

json_t *probe_target_json(const struct probe_target *t)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "path", str_or_null(t->path));
	json_object_set_new(o, "mountpoint", str_or_null(t->mountpoint));
	json_object_set_new(o, "fstype", str_or_null(t->fstype));
	json_object_set_new(o, "mount_options", str_or_null(t->mount_options));
	json_object_set_new(o, "source", str_or_null(t->source));
	json_object_set_new(o, "fsroot", str_or_null(t->fsroot));
	json_object_set_new(o, "bind", json_boolean(t->bind));
	json_object_set_new(o, "subvol", str_or_null(t->subvol));
	json_object_set_new(o, "major", json_integer(t->major));
	json_object_set_new(o, "minor", json_integer(t->minor));
	json_object_set_new(o, "has_block_device", json_boolean(t->has_block_device));
	json_object_set_new(o, "device", str_or_null(t->device));
	if (t->has_block_device) {
		json_object_set_new(o, "dev_major", json_integer(t->dev_major));
		json_object_set_new(o, "dev_minor", json_integer(t->dev_minor));
	} else {
		json_object_set_new(o, "dev_major", json_null());
		json_object_set_new(o, "dev_minor", json_null());
	}
	json_object_set_new(o, "disk", str_or_null(t->disk));
	json_object_set_new(o, "disk_sysfs", str_or_null(t->disk_sysfs));
	json_object_set_new(o, "model", disk_model(t));
	json_object_set_new(o, "partition", json_boolean(t->partition));
	json_object_set_new(o, "loop_backing_file", str_or_null(t->loop_backing_file));
	json_object_set_new(o, "loop_direct_io",
			    t->loop_backing_file[0] ? json_boolean(t->loop_direct_io) :
						      json_null());
	json_object_set_new(o, "blkid_type", str_or_null(t->blkid_type));
	json_object_set_new(o, "uuid", str_or_null(t->uuid));
	json_object_set_new(o, "note", str_or_null(t->note));
	return o;
}
