/* Small helpers the probes share: paths under a root, reading proc and sysfs files. */
#ifndef PROBE_IO_H
#define PROBE_IO_H

#include <stddef.h>
#include <sys/types.h>

/* Formats a path into @buf. 0, or -ENAMETOOLONG when it does not fit (buf is then empty). */
int probe_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Copies @src (NULL as "") into @dst, truncating to @len - 1 bytes. */
void probe_strcpy(char *dst, size_t len, const char *src);

/* Reads up to @len - 1 bytes of a file, NUL-terminated. Bytes read, or -errno. */
ssize_t probe_read_file(const char *path, char *buf, size_t len);

/* Reads a file's first line without its newline. 0 or -errno. */
int probe_read_line(const char *path, char *buf, size_t len);

#endif
