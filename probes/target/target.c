/* What lies under a path: mount, fs type and options, block device, whole disk, loop backing. */
#include "probes/target/target.h"
#include "base/fileio.h"
#include "probes/target/mount.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define COPY(dst, src) base_strcpy((dst), sizeof(dst), (src))

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

	if (base_path(link, sizeof(link), "%s/sys/dev/block/%u:%u", root, maj, min) < 0)
		return -ENAMETOOLONG;
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	base_strcpy(name, len, base_name(target));
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
	if (base_path(sys, sizeof(sys), "%s/sys/class/block/%s", root, n) < 0 || !exists(sys))
		return -ENODEV;
	base_strcpy(name, len, n);
	return 0;
}

static void read_devno(const char *root, const char *name, unsigned *maj, unsigned *min)
{
	char p[PATH_MAX], buf[64];

	if (base_path(p, sizeof(p), "%s/sys/class/block/%s/dev", root, name) == 0 &&
	    base_read_line(p, buf, sizeof(buf)) == 0 && sscanf(buf, "%u:%u", maj, min) == 2)
		return;
	*maj = *min = 0;
}

/* Partition or whole disk; for a partition, the disk is its parent directory in sysfs. */
static void resolve_disk(const char *root, struct probe_target *t)
{
	char p[PATH_MAX], real[PATH_MAX + 16];

	t->partition =
		base_path(p, sizeof(p), "%s/sys/class/block/%s/partition", root, t->device) == 0 &&
		exists(p);
	COPY(t->disk, t->device);
	if (t->partition) {
		if (base_path(p, sizeof(p), "%s/sys/class/block/%s", root, t->device) == 0 &&
		    realpath(p, real)) {
			char *slash = strrchr(real, '/');

			if (slash) {
				*slash = 0;
				COPY(t->disk, base_name(real));
			}
		}
	}
	base_path(t->disk_sysfs, sizeof(t->disk_sysfs), "%s/sys/block/%s", root, t->disk);
}

static void resolve_loop(struct probe_target *t)
{
	char p[PATH_MAX + 32], buf[16];

	if (base_path(p, sizeof(p), "%s/loop/backing_file", t->disk_sysfs) < 0 ||
	    base_read_line(p, t->loop_backing_file, sizeof(t->loop_backing_file)) < 0)
		t->loop_backing_file[0] = 0;
	t->loop_direct_io = base_path(p, sizeof(p), "%s/loop/dio", t->disk_sysfs) == 0 &&
			    base_read_line(p, buf, sizeof(buf)) == 0 && buf[0] == '1';
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

	if (base_path(node, sizeof(node), "%s/dev/%s", root, t->device) < 0)
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

static void fill_from_mount(const struct probe_mount *m, struct probe_target *t)
{
	COPY(t->mountpoint, m->target);
	COPY(t->fstype, m->fstype);
	COPY(t->mount_options, m->options);
	COPY(t->source, m->source);
	COPY(t->fsroot, m->fsroot);
	t->major = m->major;
	t->minor = m->minor;
	if (!strcmp(t->fstype, "btrfs"))
		probe_mount_option(m, "subvol", t->subvol, sizeof(t->subvol));
	t->bind = t->fsroot[0] && strcmp(t->fsroot, "/") && !is_subvol_root(t);
}

static void note_no_device(const struct probe_mount *m, struct probe_target *t)
{
	if (!strcmp(t->fstype, "overlay")) {
		char upper[512] = "";

		probe_mount_option(m, "upperdir", upper, sizeof(upper));
		append_note(
			t,
			"overlay has no block device of its own; writes go to its upper layer %s",
			upper[0] ? upper : "(unknown)");
	} else if (!strncmp(t->fstype, "fuse", 4)) {
		append_note(t,
			    "%s is a FUSE filesystem with no block device the kernel can account",
			    t->fstype);
	} else if (m->netfs) {
		append_note(t, "%s is a network filesystem: no local block device", t->fstype);
	} else {
		append_note(t, "%s has no block device", t->fstype);
	}
}

static void make_absolute(const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		base_strcpy(out, len, path);
	else if (base_path(out, len, "%s/%s", cwd, path) < 0)
		base_strcpy(out, len, path);
}

int probe_target_resolve(const char *root, const char *path, struct probe_target *ret)
{
	struct probe_target *t;
	struct probe_mount *m = NULL;
	struct stat st;
	bool live = !root || !*root;
	int r;

	if (!path || !*path)
		return -EINVAL;
	if (!root)
		root = "";
	t = calloc(1, sizeof(*t));
	m = malloc(sizeof(*m));
	if (!t || !m) {
		free(t);
		free(m);
		return -ENOMEM;
	}
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

	/* the mount point that covers the path, the top one of a stack (mount.h) */
	r = probe_mount_find(root, PROBE_MOUNT_PATH, t->path, 0, m);
	if (r < 0)
		goto out;
	fill_from_mount(m, t);
	if (t->bind)
		append_note(t, "bind mount of %s", t->fsroot);
	else if (t->subvol[0])
		append_note(t, "btrfs subvolume %s", t->subvol);
	/* btrfs gives each subvolume its own anonymous st_dev, so a mismatch says nothing there */
	if (live && strcmp(t->fstype, "btrfs") && st.st_dev != makedev(m->major, m->minor))
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
		note_no_device(m, t);
	}

	*ret = *t;
	r = 0;
out:
	free(m);
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
	if (!base_path(path, sizeof(path), "%s/device/model", t->disk_sysfs) &&
	    !base_read_line(path, buf, sizeof(buf))) {
		for (len = strlen(buf); len && (buf[len - 1] == ' ' || buf[len - 1] == '\t');)
			buf[--len] = 0;
		if (len)
			return json_string(buf + strspn(buf, " \t"));
	}
	if (!base_path(path, sizeof(path), "%s/device/driver", t->disk_sysfs) &&
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

json_t *probe_target_dir_json(const char *root, const char *path, char *ret_fstype, size_t len)
{
	json_t *o = json_pack("{s:s}", "path", path);
	char abs[PATH_MAX];
	struct probe_mount m;

	if (ret_fstype && len)
		ret_fstype[0] = 0;
	if (!o)
		return NULL;
	if (root && *root)
		make_absolute(path, abs, sizeof(abs));
	else if (!realpath(path, abs))
		make_absolute(path, abs, sizeof(abs));
	if (probe_mount_find(root, PROBE_MOUNT_PATH, abs, 0, &m) < 0)
		return o;
	json_object_set_new(o, "mountpoint", json_string(m.target));
	json_object_set_new(o, "fstype", json_string(m.fstype));
	json_object_set_new(o, "source", json_string(m.source));
	json_object_set_new(o, "mount_options",
			    m.options[0] ? json_string(m.options) : json_null());
	if (ret_fstype)
		base_strcpy(ret_fstype, len, m.fstype);
	return o;
}
