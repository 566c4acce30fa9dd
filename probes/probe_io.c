/* Small helpers the probes share: paths under a root, reading proc and sysfs files. */
#include "probe_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int probe_path(char *buf, size_t len, const char *fmt, ...)
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

void probe_strcpy(char *dst, size_t len, const char *src)
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

ssize_t probe_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* proc and sysfs files may come in several reads */
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0) {
			int r = -errno;

			if (r == -EINTR)
				continue;
			close(fd);
			return r;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0;
	return (ssize_t)got;
}

int probe_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n = probe_read_file(path, buf, len);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}
