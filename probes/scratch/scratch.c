/* Scratch filesystems: sparse image on a loop device (or a user's device), mkfs, mount, undo. */
#include "probes/scratch/scratch.h"
#include "base/errf.h"
#include "base/spawn.h"
#include "base/fileio.h"
#include "probes/target/fs_traits.h"
#include "probes/knob/journal.h"
#include "probes/target/mount.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libmount.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Another process may take the free loop device between GET_FREE and CONFIGURE. */
#define LOOP_ATTACH_TRIES 16
#define UMOUNT_TRIES 20

void probe_scratch_init(struct probe_scratch *s)
{
	memset(s, 0, sizeof(*s));
	s->loop_fd = -1;
	s->device_lock_fd = -1;
}

/* Appends a scratch entry {kind: scratch, what: @what, path: @path} plus @more (stolen). */
static int journal_note(struct probe_scratch *s, const char *what, const char *path, json_t *more,
			char *err, size_t errlen)
{
	json_t *e;
	int r;

	if (!s->journal) {
		json_decref(more);
		return 0;
	}
	e = json_pack("{s:s,s:s,s:s}", "kind", "scratch", "what", what, "path", path);
	if (!e) {
		json_decref(more);
		return errf(err, errlen, -ENOMEM, "recording %s: %s", path, strerror(ENOMEM));
	}
	if (more)
		json_object_update(e, more);
	json_decref(more);
	r = journal_append(s->journal, e);
	json_decref(e);
	if (r < 0)
		return errf(err, errlen, r, "recording %s in the restore journal %s: %s", path,
			    s->journal->path, strerror(-r));
	return 0;
}

/* The identity of the file @path (device and inode) as journal fields. */
static json_t *file_identity(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return NULL;
	return json_pack("{s:I,s:I}", "st_dev", (json_int_t)st.st_dev, "ino",
			 (json_int_t)st.st_ino);
}

/* The diskseq of block device @devno, or -1 where the kernel has none (or a partition). */
static long long devno_diskseq(dev_t devno)
{
	char path[96], buf[32];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/diskseq", major(devno), minor(devno));
	if (base_read_under("", path, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

int probe_scratch_journal_dir(struct probe_scratch *s, const char *path, char *err, size_t errlen)
{
	json_t *id = file_identity(path);

	if (!id)
		return errf(err, errlen, -errno, "reading %s: %s", path, strerror(errno));
	return journal_note(s, "dir", path, id, err, errlen);
}

int probe_scratch_journal_file(struct probe_scratch *s, const char *path, char *err, size_t errlen)
{
	json_t *id = file_identity(path);

	if (!id)
		return errf(err, errlen, -errno, "reading %s: %s", path, strerror(errno));
	return journal_note(s, "image", path, id, err, errlen);
}

int probe_scratch_journal_tree(struct probe_scratch *s, const char *path, char *err, size_t errlen)
{
	json_t *id = file_identity(path);

	if (!id)
		return errf(err, errlen, -errno, "reading %s: %s", path, strerror(errno));
	return journal_note(s, "tree", path, id, err, errlen);
}

static void free_argv(char **argv)
{
	for (int i = 0; argv[i]; i++) {
		free(argv[i]);
		argv[i] = NULL;
	}
}

/*
 * Attaches @ffd to a free loop device. LOOP_CONFIGURE does it in one step, so a crash
 * cannot leave a loop device without AUTOCLEAR; kernels before 5.8 get the three-step way.
 */
static int loop_attach(struct probe_scratch *s, int ffd, bool dio, char *err, size_t errlen)
{
	int ctl, r = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return errf(err, errlen, -errno, "opening /dev/loop-control: %s", strerror(errno));
	for (int tries = 0; tries < LOOP_ATTACH_TRIES; tries++) {
		struct loop_config cfg = { 0 };
		char dev[64];
		int nr, lfd;

		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			r = errf(err, errlen, -errno, "finding a free loop device: %s",
				 strerror(errno));
			break;
		}
		snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
		lfd = open(dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0) {
			r = errf(err, errlen, -errno, "opening %s: %s", dev, strerror(errno));
			break;
		}
		cfg.fd = (__u32)ffd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (dio ? LO_FLAGS_DIRECT_IO : 0);
		base_strcpy((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), s->image);
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			snprintf(s->device, sizeof(s->device), "%s", dev);
			s->loop_fd = lfd;
			r = 0;
			break;
		}
		r = -errno;
		if (r == -ENOTTY) {
			struct loop_info64 info = { 0 };

			/* before 5.8: set the file, then the flags, then direct I/O */
			if (ioctl(lfd, LOOP_SET_FD, ffd) < 0) {
				r = -errno;
				close(lfd);
				if (r == -EBUSY)
					continue;
				r = errf(err, errlen, r, "attaching %s to %s: %s", s->image, dev,
					 strerror(-r));
				break;
			}
			info.lo_flags = LO_FLAGS_AUTOCLEAR;
			base_strcpy((char *)info.lo_file_name, sizeof(info.lo_file_name), s->image);
			if (ioctl(lfd, LOOP_SET_STATUS64, &info) < 0) {
				r = -errno;
				ioctl(lfd, LOOP_CLR_FD, 0);
				close(lfd);
				r = errf(err, errlen, r, "setting AUTOCLEAR on %s: %s", dev,
					 strerror(-r));
				break;
			}
			if (dio && ioctl(lfd, LOOP_SET_DIRECT_IO, 1UL) < 0)
				snprintf(s->loop_note, sizeof(s->loop_note),
					 "LOOP_SET_DIRECT_IO refused: %s", strerror(errno));
			snprintf(s->device, sizeof(s->device), "%s", dev);
			s->loop_fd = lfd;
			r = 0;
			break;
		}
		close(lfd);
		if (r == -EBUSY)
			continue;
		if (dio && r == -EINVAL) {
			/* the backing file refuses O_DIRECT (tmpfs on old kernels, some FUSE) */
			snprintf(s->loop_note, sizeof(s->loop_note),
				 "LOOP_CONFIGURE with LO_FLAGS_DIRECT_IO: %s; attached buffered",
				 strerror(-r));
			dio = false;
			continue;
		}
		r = errf(err, errlen, r, "attaching %s to %s: %s", s->image, dev, strerror(-r));
		break;
	}
	close(ctl);
	if (r == -EBUSY)
		errf(err, errlen, r, "attaching %s: every free loop device was taken meanwhile",
		     s->image);
	return r;
}

int probe_scratch_image(struct probe_scratch *s, const char *path, uint64_t size, char *err,
			size_t errlen)
{
	struct loop_info64 info = { 0 };
	int ffd, r;

	if (!size)
		return errf(err, errlen, -EINVAL, "image %s: size 0", path);
	{
		char d[PATH_MAX], b[PATH_MAX], dir[PATH_MAX];

		base_strcpy(d, sizeof(d), path);
		base_strcpy(b, sizeof(b), path);
		if (!realpath(dirname(d), dir))
			return errf(err, errlen, -errno, "image %s: its directory: %s", path,
				    strerror(errno));
		if ((size_t)snprintf(s->image, sizeof(s->image), "%s/%s", dir, basename(b)) >=
		    sizeof(s->image))
			return errf(err, errlen, -ENAMETOOLONG, "image %s: %s", path,
				    strerror(ENAMETOOLONG));
	}
	/* O_EXCL: never take over a file that fsbench did not make in this run */
	ffd = open(s->image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (ffd < 0) {
		r = -errno;
		errf(err, errlen, r, "creating image %s: %s%s", s->image, strerror(-r),
		     r == -EEXIST ? " (fsbench only uses an image that it creates)" : "");
		s->image[0] = 0;
		return r;
	}
	s->image_created = true;
	/* kept with --keep-image: then it is the user's, and restore leaves it */
	if (!s->keep_image) {
		struct stat st;

		r = fstat(ffd, &st) < 0 ?
			    errf(err, errlen, -errno, "reading %s: %s", s->image, strerror(errno)) :
			    journal_note(s, "image", s->image,
					 json_pack("{s:I,s:I}", "st_dev", (json_int_t)st.st_dev,
						   "ino", (json_int_t)st.st_ino),
					 err, errlen);
		if (r < 0) {
			close(ffd);
			return r;
		}
	}
	if (ftruncate(ffd, (off_t)size) < 0) {
		r = errf(err, errlen, -errno, "sizing image %s to %llu bytes: %s", s->image,
			 (unsigned long long)size, strerror(errno));
		close(ffd);
		return r;
	}
	r = loop_attach(s, ffd, true, err, errlen);
	if (r == 0) {
		struct stat ist, lst;
		char dev[32];

		/* AUTOCLEAR detaches it if we die before this: only then is it left over */
		if (fstat(ffd, &ist) < 0 || fstat(s->loop_fd, &lst) < 0) {
			r = errf(err, errlen, -errno, "reading %s: %s", s->device, strerror(errno));
		} else {
			snprintf(dev, sizeof(dev), "%u:%u", major(lst.st_rdev), minor(lst.st_rdev));
			r = journal_note(s, "loop", s->device,
					 json_pack("{s:s,s:I,s:s,s:I,s:I}", "dev", dev, "diskseq",
						   (json_int_t)devno_diskseq(lst.st_rdev), "image",
						   s->image, "image_dev", (json_int_t)ist.st_dev,
						   "image_ino", (json_int_t)ist.st_ino),
					 err, errlen);
		}
	}
	close(ffd); /* the loop device holds its own reference */
	if (r < 0)
		return r;
	if (ioctl(s->loop_fd, LOOP_GET_STATUS64, &info) == 0)
		s->loop_direct_io = info.lo_flags & LO_FLAGS_DIRECT_IO;
	if (!s->loop_direct_io && !s->loop_note[0])
		snprintf(s->loop_note, sizeof(s->loop_note),
			 "the kernel left direct I/O off (the backing filesystem does not "
			 "allow O_DIRECT at this block size)");
	return 0;
}

int probe_scratch_mkfs_argv(const char *fstype, const char *device, const char *const *opts,
			    char **ret_argv, size_t max)
{
	const struct fs_traits *ft = fs_traits_find(fstype);
	const char *eager = ft ? ft->mkfs_eager_init : NULL;
	const char *v[PROBE_SCRATCH_ARGV_MAX];
	char tool[64], *ext = NULL;
	bool e_given = false;
	size_t n = 0, nopts = 0;

	if (!*fstype || strchr(fstype, '/') || strlen(fstype) > 32)
		return -EINVAL;
	while (opts && opts[nopts])
		nopts++;
	if (nopts + 6 > max || nopts + 6 > PROBE_SCRATCH_ARGV_MAX)
		return -E2BIG;
	snprintf(tool, sizeof(tool), "mkfs.%s", fstype);
	v[n++] = tool;
	/* a regular image or an unpartitioned device: do not ask */
	if (ft && ft->mkfs_force)
		v[n++] = ft->mkfs_force;
	if (ft && ft->mkfs_quiet)
		v[n++] = ft->mkfs_quiet;
	for (size_t i = 0; i < nopts; i++) {
		/* mke2fs keeps only the last -E: eager init goes into the user's own -E */
		if (eager && !strcmp(opts[i], "-E") && i + 1 < nopts &&
		    !strstr(opts[i + 1], "lazy_")) {
			if (asprintf(&ext, "%s,%s", opts[i + 1], eager) < 0)
				return -ENOMEM;
			v[n++] = opts[i];
			v[n++] = ext;
			i++;
			e_given = true;
			continue;
		}
		if (!strcmp(opts[i], "-E"))
			e_given = true;
		v[n++] = opts[i];
	}
	/* lazy init would keep writing inode tables during the measurement */
	if (eager && !e_given) {
		v[n++] = "-E";
		v[n++] = eager;
	}
	v[n++] = device;
	for (size_t i = 0; i < n; i++) {
		ret_argv[i] = strdup(v[i]);
		if (!ret_argv[i]) {
			free(ext);
			free_argv(ret_argv);
			return -ENOMEM;
		}
	}
	ret_argv[n] = NULL;
	free(ext);
	return 0;
}

/*
 * Runs @argv without a shell and keeps the first line it printed. Returns 0, -ENOENT
 * when the program is missing, -ECHILD with @err set when it failed.
 */
static int run_tool(char *const *argv, char *err, size_t errlen)
{
	char last[4096];
	struct base_spawn s = {
		.argv = argv,
		.out = BASE_SPAWN_CAPTURE,
		.err = BASE_SPAWN_CAPTURE,
		/* the reason comes first; usage text, when a tool adds it, follows */
		.keep = BASE_SPAWN_FIRST,
		.line = last,
		.linelen = sizeof(last)
	};
	int status, r = base_spawn_run(&s, &status);

	if (r)
		return errf(err, errlen, r, "running %s: %s", argv[0], strerror(-r));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		return errf(err, errlen, -ECHILD, "%s was killed by signal %d%s%s", argv[0],
			    WTERMSIG(status), *last ? ": " : "", last);
	return errf(err, errlen, -ECHILD, "%s exited with status %d%s%s", argv[0],
		    WEXITSTATUS(status), *last ? ": " : "", last);
}

/* The type libblkid finds on @dev now, or "" when it finds none. */
static void blkid_type_of(const char *dev, char *ret, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	const char *type = NULL;

	*ret = 0;
	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0)
		base_strcpy(ret, len, type);
	blkid_free_probe(pr);
}

/*
 * After a failed mkfs: when @dev is busy (an exclusive open fails with EBUSY, as mkfs's
 * own did, or mkfs says it is in use), adds to @err who holds it, where that can be found.
 * A mount of it in another process's mount namespace (a container's, a privilege-separated
 * step's) is what mke2fs calls "apparently in use by the system" without naming anyone.
 */
static void busy_note(const char *dev, char *err, size_t errlen)
{
	char why[2048];
	struct stat st;
	size_t n;
	int fd;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return;
	fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	if (!(fd < 0 && errno == EBUSY) && !strstr(err, "apparently in use") &&
	    !strstr(err, strerror(EBUSY)) && !strstr(err, "is mounted"))
		return;
	probe_scratch_busy_why(NULL, st.st_rdev, why, sizeof(why));
	n = strlen(err);
	if (n < errlen)
		snprintf(err + n, errlen - n, "; %s (%u:%u) is busy: %s", dev, major(st.st_rdev),
			 minor(st.st_rdev), why);
}

int probe_scratch_mkfs(struct probe_scratch *s, const char *fstype, const char *const *opts,
		       char *err, size_t errlen)
{
	int r;

	if (!s->device[0])
		return errf(err, errlen, -ENODEV, "mkfs.%s: no device", fstype);
	if (s->mounted)
		return errf(err, errlen, -EBUSY, "mkfs.%s: %s is still mounted", fstype, s->device);
	free_argv(s->mkfs_argv);
	s->blkid_type[0] = 0;
	base_strcpy(s->fstype, sizeof(s->fstype), fstype);
	r = probe_scratch_mkfs_argv(fstype, s->device, opts, s->mkfs_argv, PROBE_SCRATCH_ARGV_MAX);
	if (r < 0)
		return errf(err, errlen, r, "mkfs.%s: %s", fstype,
			    r == -EINVAL ? "not a filesystem type" : strerror(-r));
	r = run_tool(s->mkfs_argv, err, errlen);
	if (r < 0) {
		busy_note(s->device, err, errlen);
		return r;
	}
	blkid_type_of(s->device, s->blkid_type, sizeof(s->blkid_type));
	return 0;
}

/* Options of the mount on @target as libmount reads them back from mountinfo. */
static void read_back(const char *target, char *ret, size_t len)
{
	struct probe_mount m;

	*ret = 0;
	if (probe_mount_find(NULL, PROBE_MOUNT_TARGET, target, 0, &m) == 0)
		base_strcpy(ret, len, m.options);
}

/* libmount's own sentence for a failed (u)mount, and the errno behind it. */
static int mnt_failure(struct libmnt_context *cxt, int rc, const char *what, char *err,
		       size_t errlen)
{
	char msg[512] = "";
	int e = 0;

	if (mnt_context_syscall_called(cxt))
		e = mnt_context_get_syscall_errno(cxt);
	mnt_context_get_excode(cxt, rc, msg, sizeof(msg));
	if (!msg[0])
		snprintf(msg, sizeof(msg), "%s", strerror(e ? e : EINVAL));
	return errf(err, errlen, -(e ? e : EINVAL), "%s: %s", what, msg);
}

int probe_scratch_mount(struct probe_scratch *s, const char *dir, const char *options, char *err,
			size_t errlen)
{
	struct libmnt_context *cxt;
	char what[sizeof(s->device) + sizeof(s->mountpoint) + sizeof(s->mount_options) + 64];
	int rc;

	if (s->mounted)
		return errf(err, errlen, -EBUSY, "%s is already mounted on %s", s->device,
			    s->mountpoint);
	if (!s->mountpoint_created) {
		snprintf(s->mountpoint, sizeof(s->mountpoint), "%s/fsbench-mnt.XXXXXX",
			 dir && *dir ? dir : "/tmp");
		if (!mkdtemp(s->mountpoint)) {
			rc = errf(err, errlen, -errno, "creating mount point %s: %s", s->mountpoint,
				  strerror(errno));
			s->mountpoint[0] = 0;
			return rc;
		}
		s->mountpoint_created = true;
		rc = probe_scratch_journal_dir(s, s->mountpoint, err, errlen);
		if (rc < 0)
			return rc;
	}
	/* before mounting: a mount made and not yet recorded could not be undone */
	if (s->journal && !s->mount_journalled) {
		struct stat st;
		char dev[32];

		if (stat(s->device, &st) < 0)
			return errf(err, errlen, -errno, "reading %s: %s", s->device,
				    strerror(errno));
		snprintf(dev, sizeof(dev), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
		rc = journal_note(s, "mount", s->mountpoint,
				  json_pack("{s:s,s:s,s:I}", "device", s->device, "dev", dev,
					    "diskseq", (json_int_t)devno_diskseq(st.st_rdev)),
				  err, errlen);
		if (rc < 0)
			return rc;
		s->mount_journalled = true;
	}
	base_strcpy(s->mount_options, sizeof(s->mount_options), options);
	s->mount_options_read[0] = 0;
	cxt = mnt_new_context();
	if (!cxt)
		return errf(err, errlen, -ENOMEM, "mounting %s: %s", s->device, strerror(ENOMEM));
	/* fsbench owns this mount: fstab and mount helpers have no say */
	mnt_context_disable_helpers(cxt, 1);
	mnt_context_set_source(cxt, s->device);
	mnt_context_set_target(cxt, s->mountpoint);
	if (s->fstype[0])
		mnt_context_set_fstype(cxt, s->fstype);
	if (options && *options)
		mnt_context_set_options(cxt, options);
	rc = mnt_context_mount(cxt);
	if (rc != 0) {
		snprintf(what, sizeof(what), "mounting %s (%s, %s) on %s", s->device, s->fstype,
			 options && *options ? options : "defaults", s->mountpoint);
		rc = mnt_failure(cxt, rc, what, err, errlen);
		mnt_free_context(cxt);
		return rc;
	}
	mnt_free_context(cxt);
	s->mounted = true;
	read_back(s->mountpoint, s->mount_options_read, sizeof(s->mount_options_read));
	return 0;
}

int probe_scratch_umount(struct probe_scratch *s, char *err, size_t errlen)
{
	char what[PATH_MAX + 32];
	int rc = 0;

	if (!s->mounted)
		return 0;
	snprintf(what, sizeof(what), "unmounting %s", s->mountpoint);
	for (int tries = 0; tries < UMOUNT_TRIES; tries++) {
		struct libmnt_context *cxt = mnt_new_context();
		struct timespec pause = { 0, 100000000 };

		if (!cxt)
			return errf(err, errlen, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
		mnt_context_disable_helpers(cxt, 1);
		mnt_context_set_target(cxt, s->mountpoint);
		rc = mnt_context_umount(cxt);
		if (rc == 0) {
			mnt_free_context(cxt);
			s->mounted = false;
			return 0;
		}
		rc = mnt_failure(cxt, rc, what, err, errlen);
		mnt_free_context(cxt);
		/* a file closed a moment ago (a victim thread, udev's blkid) may still pin it */
		if (rc != -EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	return rc;
}

int probe_scratch_release(struct probe_scratch *s, char *err, size_t errlen)
{
	int r;

	r = probe_scratch_umount(s, err, errlen);
	if (s->mounted) {
		/* still busy after retries: detach it so nothing stays mounted */
		struct libmnt_context *cxt = mnt_new_context();

		if (cxt) {
			mnt_context_disable_helpers(cxt, 1);
			mnt_context_enable_lazy(cxt, 1);
			mnt_context_set_target(cxt, s->mountpoint);
			if (mnt_context_umount(cxt) == 0)
				s->mounted = false;
			mnt_free_context(cxt);
		}
	}
	if (s->mountpoint_created && !s->mounted) {
		if (rmdir(s->mountpoint) < 0 && !r)
			r = errf(err, errlen, -errno, "removing mount point %s: %s", s->mountpoint,
				 strerror(errno));
		s->mountpoint_created = false;
	}
	if (!s->mounted)
		probe_scratch_device_unlock(s);
	if (s->loop_fd >= 0) {
		/* with AUTOCLEAR the kernel detaches on our close even if this is refused */
		if (ioctl(s->loop_fd, LOOP_CLR_FD, 0) < 0 && errno != ENXIO && !r)
			r = errf(err, errlen, -errno, "detaching %s: %s", s->device,
				 strerror(errno));
		close(s->loop_fd);
		s->loop_fd = -1;
	}
	if (s->image_created && !s->keep_image) {
		if (unlink(s->image) < 0 && !r)
			r = errf(err, errlen, -errno, "removing image %s: %s", s->image,
				 strerror(errno));
		s->image_created = false;
	}
	free_argv(s->mkfs_argv);
	return r;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

json_t *probe_scratch_json(const struct probe_scratch *s)
{
	json_t *o = json_object(), *argv = json_array();
	const char *dev = s->device;

	for (int i = 0; s->mkfs_argv[i]; i++)
		json_array_append_new(argv, json_string(s->mkfs_argv[i]));
	if (!strncmp(dev, "/dev/", 5))
		dev += 5;
	json_object_set_new(o, "source", str_or_null(s->device));
	json_object_set_new(o, "device", str_or_null(dev));
	json_object_set_new(o, "mountpoint", str_or_null(s->mounted ? s->mountpoint : NULL));
	json_object_set_new(o, "fstype", str_or_null(s->fstype));
	json_object_set_new(o, "blkid_type", str_or_null(s->blkid_type));
	json_object_set_new(o, "mount_options", str_or_null(s->mount_options_read));
	json_object_set_new(o, "mount_options_requested", json_string(s->mount_options));
	json_object_set_new(o, "mkfs", argv);
	if (s->image[0]) {
		json_object_set_new(o, "image", json_string(s->image));
		json_object_set_new(o, "loop_backing_file", json_string(s->image));
		json_object_set_new(o, "loop_direct_io", json_boolean(s->loop_direct_io));
		json_object_set_new(o, "loop",
				    json_pack("{s:s,s:b,s:o,s:b}", "backing_file", s->image,
					      "direct_io", s->loop_direct_io, "direct_io_note",
					      str_or_null(s->loop_note), "autoclear", 1));
	}
	return o;
}
