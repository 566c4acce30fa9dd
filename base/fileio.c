/* Small file helpers every layer shares (fileio.h). */
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dirfd.h"

int base_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

void base_appendf(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	*pos = n < 0 ? len : *pos + (size_t)n;
}

void base_strcpy(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!len)
		return;
	if (!src)
		src = "";
	n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = 0;
}

ssize_t base_read_fd(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

ssize_t base_read_file(const char *path, char *buf, size_t len)
{
	ssize_t got;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* proc and sysfs files may come in several reads */
	got = base_read_fd(fd, buf, len - 1);
	if (got < 0) {
		close(fd);
		return got;
	}
	close(fd);
	buf[got] = 0;
	return (ssize_t)got;
}

int base_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n = base_read_file(path, buf, len);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int base_read_under(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX + 1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	close(fd);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

int base_write_under(const char *root, const char *rel, const char *value)
{
	char path[PATH_MAX + 1024];
	size_t len = strlen(value);
	ssize_t n;
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	/* O_TRUNC is ignored by sysfs and procfs; it keeps fixture files honest */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	return r;
}

int base_rm_tree(const char *path)
{
	struct stat st;

	/* the one removal there is, by descriptor (base_rm_at); only an absent tree differs */
	if (lstat(path, &st))
		return -errno;
	return base_rm_at(AT_FDCWD, path);
}

FILE *base_out_open(const char *path, char **ret_tmp)
{
	char *tmp = NULL;
	FILE *f;
	int fd, e;

	struct stat st;

	/*
	 * A character device or a FIFO named by the user (/dev/full, a pipe) is written in
	 * place: a file renamed over it would replace the device. Only the path itself counts
	 * (lstat, O_NOFOLLOW): a symlink planted there is replaced as any file is.
	 */
	if (!lstat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (fd >= 0 && !f) {
			e = errno;
			close(fd);
			errno = e;
		}
		*ret_tmp = NULL;
		return f;
	}
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(tmp);
		errno = e;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		errno = e;
		return NULL;
	}
	*ret_tmp = tmp;
	return f;
}

int base_out_commit(FILE *f, char *tmp, const char *path, int error)
{
	char *dircopy;
	int r = error, dfd;

	if (!tmp) { /* a device or FIFO written in place (base_out_open) */
		if (r == -EIO && ferror(f)) { /* once more, for the reason */
			clearerr(f);
			errno = 0;
			if (fflush(f))
				r = errno ? -errno : -EIO;
		}
		if (!r && (fflush(f) || ferror(f)))
			r = errno ? -errno : -EIO;
		if (fclose(f) && !r)
			r = -errno;
		return r;
	}

	/*
	 * A writer that saw ferror() can only say -EIO: the stream's error flag keeps no errno.
	 * Writing what is still buffered once more says why (ENOSPC, EDQUOT...); when stdio has
	 * dropped its buffer, a page more at the end of the temporary file (removed below) asks
	 * the filesystem the same question.
	 */
	if (r == -EIO && ferror(f)) {
		static const char page[4096];

		clearerr(f);
		errno = 0;
		if (fflush(f) || fsync(fileno(f)) < 0 ||
		    (lseek(fileno(f), 0, SEEK_END) >= 0 &&
		     write(fileno(f), page, sizeof(page)) < 0) ||
		    fsync(fileno(f)) < 0)
			r = errno ? -errno : -EIO;
	}
	if (!r && (fflush(f) || fsync(fileno(f)) < 0 || fchmod(fileno(f), 0644) < 0))
		r = -errno;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r) {
		unlink(tmp);
		free(tmp);
		return r;
	}
	free(tmp);
	/* the rename itself is durable only once the directory is */
	dircopy = strdup(path);
	if (dircopy) {
		dfd = open(dirname(dircopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dircopy);
	}
	return 0;
}

int base_out_check(const char *path)
{
	struct stat st;
	char *tmp;
	FILE *f;

	if (!path || !*path)
		return -ENOENT;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	f = base_out_open(path, &tmp);
	if (!f)
		return -errno;
	fclose(f);
	if (tmp)
		unlink(tmp);
	free(tmp);
	return 0;
}
