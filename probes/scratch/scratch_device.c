/* A user's block device as the scratch target (scratch.h): checked, locked, probed for signatures. */
#include "probes/scratch/scratch.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "probes/knob/journal.h"
#include "probes/target/mount.h"

#include <blkid.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Where @devno is mounted, or "" if nowhere. */
static int mounted_at(dev_t devno, char *ret, size_t len)
{
	struct probe_mount m;
	int r = probe_mount_find(NULL, PROBE_MOUNT_DEVNO, NULL, devno, &m);

	*ret = 0;
	if (r == 0)
		base_strcpy(ret, len, m.target);
	return r == -ENOENT ? 0 : r;
}

static int device_probe(struct probe_scratch *s, const char *dev, bool force, char *err,
			size_t errlen);

void probe_scratch_device_unlock(struct probe_scratch *s)
{
	char dir[PATH_MAX];

	if (s->device_lock_fd < 0)
		return;
	journal_lock_dir("", dir, sizeof(dir));
	journal_lock_release(dir, s->device_lock, s->device_lock_fd);
	s->device_lock_fd = -1;
}

/*
 * Two runs that mkfs and mount one device would destroy each other's cells ("already
 * mounted"): the device's lock is held from here until probe_scratch_release(). Its name
 * is not the knobs' (dev-M:m), so the same run can also set the device's knobs.
 */
static int device_lock(struct probe_scratch *s, const char *dev, dev_t rdev, char *err,
		       size_t errlen)
{
	struct journal_lock_holder h = { 0 };
	char dir[PATH_MAX];
	int r;

	journal_lock_dir("", dir, sizeof(dir));
	snprintf(s->device_lock, sizeof(s->device_lock), "scratch-%u:%u", major(rdev), minor(rdev));
	r = journal_lock_take(dir, s->device_lock, "mkfs and mount", 0, &s->device_lock_fd, &h);
	if (r == -EBUSY)
		return errf(err, errlen, r, "device %s is in use by another fsbench (pid %d, %s)",
			    dev, (int)h.pid, h.what[0] ? h.what : "starting");
	if (r)
		return errf(err, errlen, r, "taking the lock of device %s in %s: %s", dev, dir,
			    strerror(-r));
	return 0;
}

int probe_scratch_device(struct probe_scratch *s, const char *dev, bool force, char *err,
			 size_t errlen)
{
	char where[PATH_MAX];
	struct stat st;
	int r;

	if (stat(dev, &st) < 0)
		return errf(err, errlen, -errno, "device %s: %s", dev, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return errf(err, errlen, -ENOTBLK, "device %s: %s", dev, strerror(ENOTBLK));
	/* first: another fsbench's cell may have it mounted just now */
	if ((r = device_lock(s, dev, st.st_rdev, err, errlen)))
		return r;
	r = mounted_at(st.st_rdev, where, sizeof(where));
	if (r < 0)
		r = errf(err, errlen, r, "reading the mount table: %s", strerror(-r));
	/* a mounted device is refused even with --force: mkfs under a live fs corrupts it */
	else if (where[0])
		r = errf(err, errlen, -EBUSY, "device %s is mounted on %s", dev, where);
	else
		r = device_probe(s, dev, force, err, errlen);
	if (r)
		probe_scratch_device_unlock(s);
	return r;
}

/* The signatures on @dev: none, or @force. */
static int device_probe(struct probe_scratch *s, const char *dev, bool force, char *err,
			size_t errlen)
{
	blkid_probe pr;
	const char *what = NULL, *kind = "";
	int r;

	pr = blkid_new_probe_from_filename(dev);
	if (!pr)
		return errf(err, errlen, -errno ? -errno : -EIO, "probing %s with libblkid: %s",
			    dev, strerror(errno ? errno : EIO));
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	r = blkid_do_safeprobe(pr);
	if (r == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &what, NULL) == 0)
			kind = "a signature of type ";
		else if (blkid_probe_lookup_value(pr, "PTTYPE", &what, NULL) == 0)
			kind = "a partition table of type ";
		else
			what = "unknown";
	} else if (r == -2) {
		what = "several signatures";
	}
	if (what && !force) {
		r = errf(err, errlen, -EEXIST, "device %s holds %s%s; --force to overwrite it", dev,
			 kind, what);
		blkid_free_probe(pr);
		return r;
	}
	blkid_free_probe(pr);
	if (r == -1)
		return errf(err, errlen, -EIO, "probing %s with libblkid failed", dev);
	base_strcpy(s->device, sizeof(s->device), dev);
	return 0;
}
