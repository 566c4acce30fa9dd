/* Directories held by descriptor (dirfd.h): the trusted walk from "/", private directories, openat2. */
#include "base/dirfd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/errf.h"

/* As the kernel's MAXSYMLINKS: a loop of links ends the walk. */
#define LINKS_MAX 40

/* base_rm_at's depth: each level holds a descriptor */
#define RM_DEPTH_MAX 256

const char *base_untrusted(const struct stat *st, bool ancestor, uid_t uid)
{
	if (S_ISLNK(st->st_mode))
		return "it is a symlink";
	if (ancestor ? st->st_uid != uid && st->st_uid != 0 : st->st_uid != uid)
		return "another user owns it";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(ancestor && (st->st_mode & S_ISVTX)))
		return "group or others may write it";
	return NULL;
}

/* @path absolute (a relative one below getcwd's) with "." and ".." taken lexically. 0 or -errno. */
static int path_normal(const char *path, char *out, size_t len)
{
	char tmp[2 * PATH_MAX], cwd[PATH_MAX];
	size_t n = 0;

	if (path[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s", path);
	else if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	else if (snprintf(tmp, sizeof(tmp), "%s/%s", cwd, path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (char *save, *c = strtok_r(tmp, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (n && out[--n] != '/')
				;
			continue;
		}
		size_t cl = strlen(c);
		if (n + 1 + cl + 1 > len)
			return -ENAMETOOLONG;
		out[n++] = '/';
		memcpy(out + n, c, cl);
		n += cl;
	}
	if (!n)
		out[n++] = '/';
	out[n] = 0;
	return 0;
}

/* A refusal naming the component @shown of @path and why. */
static int refuse(char *err, size_t errlen, int e, const char *path, bool self, const char *shown,
		  const char *why, const struct stat *st)
{
	if (!st)
		return errf(err, errlen, e, "%s: %s%s%s%s", path, self ? "" : "its component ",
			    self ? "" : shown, self ? "" : ": ", why);
	return errf(err, errlen, e, "%s: %s%s%s%s (owner uid %u, mode %04o)", path,
		    self ? "" : "its directory ", self ? "" : shown, self ? "" : ": ", why,
		    (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777));
}

int base_dir_open_trusted(const char *path, uid_t uid, bool shared, char *err, size_t errlen)
{
	char cur[PATH_MAX], next[PATH_MAX], target[PATH_MAX], name[NAME_MAX + 1];
	int fd = -1, nfd, links = 0, r;
	struct stat st;
	const char *why;
	char *p;

	if ((r = path_normal(path, cur, sizeof(cur))))
		return errf(err, errlen, r, "%s: %s", path, strerror(-r));
restart:
	if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(fd, &st))
		return errf(err, errlen, -errno, "/: %s", strerror(errno));
	p = cur + 1;
	if ((why = base_untrusted(&st, *p || shared, uid))) {
		close(fd);
		return refuse(err, errlen, -EPERM, path, !*p, "/", why, &st);
	}
	while (*p) {
		size_t cl = strcspn(p, "/");
		bool last = !p[cl];

		if (cl > NAME_MAX) {
			close(fd);
			return errf(err, errlen, -ENAMETOOLONG, "%s: %s", path,
				    strerror(ENAMETOOLONG));
		}
		memcpy(name, p, cl);
		name[cl] = 0;
		snprintf(next, sizeof(next), "%.*s", (int)(p + cl - cur), cur);
		/* no O_DIRECTORY: a symlink is opened as itself, to be judged */
		nfd = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 || fstat(nfd, &st)) {
			r = -errno;
			if (nfd >= 0)
				close(nfd);
			close(fd);
			return refuse(err, errlen, r, path, last, next, strerror(-r), NULL);
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = st.st_uid == uid || st.st_uid == 0 ?
					    readlinkat(nfd, "", target, sizeof(target) - 1) :
					    -2;

			close(nfd);
			close(fd);
			if (n == -2)
				return refuse(err, errlen, -EPERM, path, last, next,
					      "it is a symlink another user owns", &st);
			if (n < 0 || ++links > LINKS_MAX)
				return refuse(err, errlen, n < 0 ? -errno : -ELOOP, path, last,
					      next, strerror(n < 0 ? errno : ELOOP), NULL);
			target[n] = 0;
			/* the link's text in place of its name, the rest after it; walked anew */
			char *slash = strrchr(next, '/');
			char joined[3 * PATH_MAX];
			*slash = 0;
			snprintf(joined, sizeof(joined), "%s/%s%s%s", target[0] == '/' ? "" : next,
				 target, last ? "" : "/", last ? "" : p + cl + 1);
			if ((r = path_normal(joined, cur, sizeof(cur))))
				return errf(err, errlen, r, "%s: %s", path, strerror(-r));
			goto restart;
		}
		close(fd);
		fd = nfd;
		why = !S_ISDIR(st.st_mode) ? "it is not a directory" :
					     base_untrusted(&st, !last || shared, uid);
		if (why) {
			close(fd);
			return refuse(err, errlen, S_ISDIR(st.st_mode) ? -EPERM : -ENOTDIR, path,
				      last, next, why, &st);
		}
		p += cl + !last;
	}
	/* the same directory, now open for reading and for *at() calls */
	nfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = nfd < 0 ? -errno : nfd;
	close(fd);
	if (r < 0)
		return errf(err, errlen, r, "%s: %s", path, strerror(-r));
	return r;
}

int base_dir_make(int dfd, const char *name, mode_t mode, char *err, size_t errlen)
{
	struct stat st;
	const char *why;
	int fd;

	if (mkdirat(dfd, name, mode))
		return errf(err, errlen, -errno, "%s", strerror(errno));
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return errf(err, errlen, -e, "opening it after mkdir: %s", strerror(e));
	}
	/* swapped between mkdirat and openat: not the directory just made */
	if ((why = base_untrusted(&st, false, geteuid()))) {
		close(fd);
		return errf(err, errlen, -EPERM,
			    "not the directory just made: %s (owner uid %u, mode %04o)", why,
			    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

int base_dir_make_temp(int dfd, const char *prefix, char *ret_name, size_t len, char *err,
		       size_t errlen)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char raw[12];
	int fd = -EEXIST;

	for (int tries = 0; tries < 100 && fd == -EEXIST; tries++) {
		if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
			return errf(err, errlen, -errno, "getrandom: %s", strerror(errno));
		size_t n = (size_t)snprintf(ret_name, len, "%s", prefix);
		if (n + sizeof(raw) + 1 > len)
			return errf(err, errlen, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
		for (size_t i = 0; i < sizeof(raw); i++)
			ret_name[n + i] = set[raw[i] % (sizeof(set) - 1)];
		ret_name[n + sizeof(raw)] = 0;
		fd = base_dir_make(dfd, ret_name, 0700, err, errlen);
	}
	return fd;
}

int base_open_beneath_walk(int dfd, const char *rel, int flags, mode_t mode)
{
	char buf[PATH_MAX], *save, *c, *n;
	int fd = dfd, nfd;
	struct stat st;

	if (rel[0] == '/')
		return -EXDEV;
	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (c = strtok_r(buf, "/", &save); c; c = n) {
		n = strtok_r(NULL, "/", &save);
		if (!strcmp(c, "..")) {
			nfd = -EXDEV;
			goto fail;
		}
		nfd = openat(fd, c,
			     n ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC :
				 flags | O_NOFOLLOW | O_CLOEXEC,
			     n ? 0 : mode);
		/* O_DIRECTORY on a symlink says ENOTDIR: openat2 says ELOOP, and so does this */
		if (nfd < 0)
			nfd = errno == ENOTDIR && !fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) &&
					      S_ISLNK(st.st_mode) ?
				      -ELOOP :
				      -errno;
		if (nfd < 0 || !n)
			goto fail; /* the last name's result either way */
		if (fd != dfd)
			close(fd);
		fd = nfd;
	}
	nfd = openat(fd, ".", flags | O_CLOEXEC, mode); /* rel was "" or "." only */
	nfd = nfd < 0 ? -errno : nfd;
fail:
	if (fd != dfd)
		close(fd);
	return nfd;
}

int base_open_beneath(int dfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = { .flags = (unsigned)(flags | O_CLOEXEC),
				.mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ?
						mode :
						0,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
	long fd = syscall(SYS_openat2, dfd, rel, &how, sizeof(how));

	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS)
		return -errno;
	return base_open_beneath_walk(dfd, rel, flags, mode);
}

int base_parent_beneath(int dfd, const char *rel, const char **ret_last)
{
	const char *slash = strrchr(rel, '/'), *last = slash ? slash + 1 : rel;
	char dir[PATH_MAX];
	size_t n;
	int fd;

	if (!*last)
		return -EINVAL;
	if (!strcmp(last, "..") || rel[0] == '/')
		return -EXDEV;
	if (!slash) {
		*ret_last = rel;
		return dfd;
	}
	n = (size_t)(slash - rel);
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, n);
	dir[n] = 0;
	fd = base_open_beneath(dfd, dir, O_PATH | O_DIRECTORY, 0);
	if (fd >= 0)
		*ret_last = last;
	return fd;
}

/* base_rm_at() below @dev, @depth levels down. */
static int rm_at(int dfd, const char *name, dev_t dev, int depth)
{
	struct dirent *de;
	struct stat st, st2;
	int fd, r = 0, e;
	DIR *d;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) && errno != ENOENT ? -errno : 0;
	if (depth > RM_DEPTH_MAX)
		return -ELOOP;
	if (depth && st.st_dev != dev)
		return -EXDEV; /* another mount: not entered */
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st2) || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
		close(fd);
		return -ESTALE; /* swapped since the fstatat */
	}
	if (!(d = fdopendir(fd))) {
		e = -errno;
		close(fd);
		return e;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (e = rm_at(fd, de->d_name, st.st_dev, depth + 1)) && !r)
			r = e;
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) && errno != ENOENT && !r)
		r = -errno;
	return r;
}

int base_rm_at(int dfd, const char *name)
{
	return rm_at(dfd, name, 0, 0);
}
