/* Undoing a dead run's scratch target (scratch.h): each journal entry checked, then undone. */
#include "probes/scratch/scratch.h"
#include "base/dirfd.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "probes/target/mount.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* A busy mount or loop device (udev's blkid, a closing file) lets go within a second or two. */
#define UNDO_TRIES 20
#define UNDO_PAUSE_NS 100000000L

/* "undone" with @msg for a thing that is already gone: nothing of ours is left there. */
#define GONE 1

static void pause_a_little(void)
{
	struct timespec ts = { 0, UNDO_PAUSE_NS };

	nanosleep(&ts, NULL);
}

static int json_ll(json_t *e, const char *key, long long *ret)
{
	json_t *v = json_object_get(e, key);

	if (!json_is_integer(v))
		return -EBADMSG;
	*ret = json_integer_value(v);
	return 0;
}

static int parse_devnum(const char *s, dev_t *ret)
{
	unsigned ma, mi;
	char tail;

	if (!s || sscanf(s, "%u:%u%c", &ma, &mi, &tail) != 2)
		return -EBADMSG;
	*ret = makedev(ma, mi);
	return 0;
}

/* Whether the diskseq of whole disk @devno is @want (-1: the kernel had none). */
static bool diskseq_is(dev_t devno, long long want)
{
	char path[96], buf[32];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/diskseq", major(devno), minor(devno));
	if (base_read_under("", path, buf, sizeof(buf)) < 0)
		return want < 0;
	return strtoll(buf, NULL, 10) == want;
}

/*
 * The parent of the journaled @path, opened by the trusted walk from "/" (base/dirfd.h:
 * no component another user owns or may write, no symlink of another user's), so that
 * what is removed is found beneath it by descriptor and never by a path another user
 * could re-point between the check and the removal; @path's last component into
 * @ret_name. The descriptor, GONE when a component is absent, -ESTALE when the walk
 * refuses a component, or -errno, with @err.
 */
static int parent_open(const char *path, char *ret_name, size_t len, char *err, size_t errlen)
{
	char parent[PATH_MAX], why[PATH_MAX + 256];
	const char *base = strrchr(path, '/');
	int fd;

	if (!base || !base[1] || !strcmp(base + 1, ".") || !strcmp(base + 1, "..") ||
	    strlen(base + 1) >= len || (size_t)(base - path) >= sizeof(parent))
		return errf(err, errlen, -EBADMSG, "%s: not a path to a file fsbench made", path);
	snprintf(ret_name, len, "%s", base + 1);
	snprintf(parent, sizeof(parent), "%.*s", base == path ? 1 : (int)(base - path), path);
	/* shared: the parent may be sticky (/var/tmp, /dev/shm), where others cannot rename ours */
	fd = base_dir_open_trusted(parent, geteuid(), true, why, sizeof(why));
	if (fd == -ENOENT)
		return GONE;
	if (fd == -EPERM || fd == -ENOTDIR || fd == -ELOOP)
		return errf(err, errlen, -ESTALE, "%s: refusing its directory: %s: left as it is",
			    path, why);
	if (fd < 0)
		return errf(err, errlen, fd, "opening the directory of %s: %s", path, why);
	return fd;
}

/*
 * @name beneath @dfd (@path) is still the file or directory the entry recorded: its type,
 * device and inode, into @ret_st.
 */
static int same_file(json_t *e, int dfd, const char *name, const char *path, mode_t type,
		     struct stat *ret_st, char *err, size_t errlen)
{
	long long dev, ino;

	if (json_ll(e, "st_dev", &dev) < 0 || json_ll(e, "ino", &ino) < 0)
		return errf(err, errlen, -EBADMSG, "%s: the entry has no file identity", path);
	if (fstatat(dfd, name, ret_st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return GONE;
		return errf(err, errlen, -errno, "reading %s: %s", path, strerror(errno));
	}
	if ((ret_st->st_mode & S_IFMT) != type || (long long)ret_st->st_dev != dev ||
	    (long long)ret_st->st_ino != ino)
		return errf(err, errlen, -ESTALE,
			    "%s is not the %s fsbench made (another file now): left as it is", path,
			    type == S_IFDIR ? "directory" : "file");
	return 0;
}

/* Removes the image (@type S_IFREG) or the empty directory (S_IFDIR) fsbench made. */
static int undo_file(json_t *e, const char *path, mode_t type, char *msg, size_t len)
{
	const char *what = type == S_IFDIR ? "directory" : "image";
	char name[NAME_MAX + 1];
	struct stat st;
	int dfd = parent_open(path, name, sizeof(name), msg, len), r;

	if (dfd == GONE)
		return errf(msg, len, 0, "%s %s: already gone", what, path);
	if (dfd < 0)
		return dfd;
	r = same_file(e, dfd, name, path, type, &st, msg, len);
	if (r == GONE)
		r = errf(msg, len, 0, "%s %s: already gone", what, path);
	else if (!r && unlinkat(dfd, name, type == S_IFDIR ? AT_REMOVEDIR : 0) < 0)
		r = errf(msg, len, -errno, "removing %s %s: %s%s", what, path, strerror(errno),
			 errno == ENOTEMPTY ? " (what is in it is not fsbench's to remove)" : "");
	else if (!r)
		r = errf(msg, len, 0, "removed %s %s", what, path);
	close(dfd);
	return r;
}

/*
 * Removes a half-extracted kernel package: the journal is untrusted, so only a directory
 * whose name says it is one (.extract.*), that is still the inode fsbench made, root's and
 * closed to group and others (mkdtemp's 0700), is removed, by descriptor beneath its
 * parent's (base_rm_at: links removed, never followed, no other mount entered).
 */
static int undo_tree(json_t *e, const char *path, char *msg, size_t len)
{
	const char *base = strrchr(path, '/');
	char name[NAME_MAX + 1];
	struct stat st;
	int dfd, r;

	if (!base || strncmp(base + 1, ".extract.", 9) || strstr(path, "/../"))
		return errf(msg, len, -EBADMSG, "%s: not a tree fsbench extracts into", path);
	if ((dfd = parent_open(path, name, sizeof(name), msg, len)) == GONE)
		return errf(msg, len, 0, "directory %s: already gone", path);
	if (dfd < 0)
		return dfd;
	r = same_file(e, dfd, name, path, S_IFDIR, &st, msg, len);
	if (r == GONE)
		r = errf(msg, len, 0, "directory %s: already gone", path);
	else if (!r && (st.st_uid != 0 || (st.st_mode & 0077)))
		r = errf(msg, len, -ESTALE, "%s is not root's private directory: left as it is",
			 path);
	if (r) {
		close(dfd);
		return r;
	}
	/*
	 * A killed run's extraction dies with it, but its last writer may still be finishing
	 * a file as restore starts (or, where the tool got no PID namespace of its own, write on): a
	 * tree that refills is tried again for up to 3 s.
	 */
	for (int tries = 0; (r = base_rm_at(dfd, name)) == -ENOTEMPTY && tries < 30; tries++)
		usleep(100 * 1000);
	close(dfd);
	if (r < 0)
		return errf(msg, len, r, "removing %s: %s", path, strerror(-r));
	return errf(msg, len, 0, "removed the half-extracted %s", path);
}

static int undo_mount(json_t *e, const char *path, char *msg, size_t len)
{
	struct probe_mount m;
	long long seq;
	dev_t devno;
	int r;

	if (parse_devnum(json_string_value(json_object_get(e, "dev")), &devno) < 0 ||
	    json_ll(e, "diskseq", &seq) < 0 || path[0] != '/')
		return errf(msg, len, -EBADMSG, "mount %s: the entry has no device identity", path);
	r = probe_mount_find(NULL, PROBE_MOUNT_TARGET, path, 0, &m);
	if (r == -ENOENT)
		return errf(msg, len, 0, "mount %s: not mounted any more", path);
	if (r < 0)
		return errf(msg, len, r, "reading the mount table: %s", strerror(-r));
	if (makedev(m.major, m.minor) != devno || !diskseq_is(devno, seq))
		return errf(msg, len, -ESTALE,
			    "%s: %u:%u is mounted there, not the device fsbench mounted (%u:%u, "
			    "diskseq %lld): left mounted",
			    path, m.major, m.minor, major(devno), minor(devno), seq);
	for (int i = 0; i < UNDO_TRIES; i++) {
		r = umount2(path, UMOUNT_NOFOLLOW) < 0 ? -errno : 0;
		if (r != -EBUSY)
			break;
		pause_a_little();
	}
	/* still busy: detached from the tree, it goes when its last user does */
	if (r == -EBUSY && umount2(path, UMOUNT_NOFOLLOW | MNT_DETACH) == 0)
		return errf(msg, len, 0, "unmounted %s (%u:%u), lazily: it was busy", path,
			    major(devno), minor(devno));
	if (r < 0)
		return errf(msg, len, r, "unmounting %s: %s", path, strerror(-r));
	return errf(msg, len, 0, "unmounted %s (%u:%u)", path, major(devno), minor(devno));
}

static int undo_loop(json_t *e, const char *path, char *msg, size_t len)
{
	struct loop_info64 info;
	long long seq, idev, iino;
	char name[128], node[160];
	struct stat st;
	dev_t devno;
	int fd, r;

	if (parse_devnum(json_string_value(json_object_get(e, "dev")), &devno) < 0 ||
	    json_ll(e, "diskseq", &seq) < 0 || json_ll(e, "image_dev", &idev) < 0 ||
	    json_ll(e, "image_ino", &iino) < 0)
		return errf(msg, len, -EBADMSG, "loop %s: the entry has no identity", path);
	/* the kernel's name for that number, never a path from the journal */
	snprintf(node, sizeof(node), "/sys/dev/block/%u:%u/uevent", major(devno), minor(devno));
	{
		char ue[512], *dn;

		if (base_read_file(node, ue, sizeof(ue)) < 0 || !(dn = strstr(ue, "DEVNAME=")))
			return errf(msg, len, 0, "loop %s: already detached", path);
		dn += 8;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(dn, "\n/"), dn);
	}
	/* a loop device's diskseq moves on when it is detached (AUTOCLEAR, once unmounted) */
	if (strncmp(name, "loop", 4) || !diskseq_is(devno, seq))
		return errf(msg, len, 0,
			    "loop %s: already detached by the kernel (AUTOCLEAR; %u:%u is no "
			    "longer diskseq %lld, so it is left alone)",
			    path, major(devno), minor(devno), seq);
	snprintf(node, sizeof(node), "/dev/%s", name);
	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errf(msg, len, -errno, "opening %s: %s", node, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != devno) {
		close(fd);
		return errf(msg, len, -ESTALE, "%s is not %u:%u: left alone", node, major(devno),
			    minor(devno));
	}
	if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0) {
		r = -errno;
		close(fd);
		if (r == -ENXIO)
			return errf(msg, len, 0, "loop %s: already detached", node);
		return errf(msg, len, r, "reading %s: %s", node, strerror(-r));
	}
	if ((long long)info.lo_device != idev || (long long)info.lo_inode != iino) {
		close(fd);
		return errf(
			msg, len, -ESTALE,
			"%s is backed by another file than the image fsbench made: left attached",
			node);
	}
	for (int i = 0; i < UNDO_TRIES; i++) {
		r = ioctl(fd, LOOP_CLR_FD, 0) < 0 ? -errno : 0;
		if (r != -EBUSY)
			break;
		pause_a_little();
	}
	close(fd);
	/* ENXIO: the kernel's AUTOCLEAR got there first, once the mount went */
	if (r < 0 && r != -ENXIO)
		return errf(msg, len, r, "detaching %s: %s", node, strerror(-r));
	return errf(msg, len, 0, "detached %s", node);
}

int probe_scratch_entries_restore(json_t *entries, json_t *results)
{
	int first = 0;

	for (size_t i = json_array_size(entries); i-- > 0;) {
		json_t *e = json_array_get(entries, i), *res;
		const char *kind = json_string_value(json_object_get(e, "kind"));
		const char *what = json_string_value(json_object_get(e, "what"));
		const char *path = json_string_value(json_object_get(e, "path"));
		char msg[PATH_MAX + 256] = "";
		int r;

		if (!kind || strcmp(kind, "scratch"))
			continue;
		if (!what || !path || path[0] != '/')
			r = errf(msg, sizeof(msg), -EBADMSG, "malformed scratch entry");
		else if (!strcmp(what, "mount"))
			r = undo_mount(e, path, msg, sizeof(msg));
		else if (!strcmp(what, "loop"))
			r = undo_loop(e, path, msg, sizeof(msg));
		else if (!strcmp(what, "image"))
			r = undo_file(e, path, S_IFREG, msg, sizeof(msg));
		else if (!strcmp(what, "dir"))
			r = undo_file(e, path, S_IFDIR, msg, sizeof(msg));
		else if (!strcmp(what, "tree"))
			r = undo_tree(e, path, msg, sizeof(msg));
		else
			r = errf(msg, sizeof(msg), -EBADMSG, "scratch entry of unknown kind '%s'",
				 what);
		if (r < 0 && !first)
			first = r;
		if (!results)
			continue;
		res = json_pack("{s:s?,s:s?,s:s,s:s}", "what", what, "path", path, "status",
				!r			      ? "undone" :
				r == -ESTALE || r == -EBADMSG ? "refused" :
								"failed",
				r ? "error" : "message", msg);
		if (res)
			json_array_append_new(results, res);
	}
	return first;
}
