/* Small file helpers every layer shares: paths under a root, proc and sysfs files, removal. */
#ifndef FSB_FILEIO_H
#define FSB_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* Formats a path into @buf. 0, or -ENAMETOOLONG when it does not fit (buf is then empty). */
int fsb_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Copies @src (NULL as "") into @dst, truncating to @len - 1 bytes. */
void fsb_strcpy(char *dst, size_t len, const char *src);

/* Reads up to @len - 1 bytes of a file, NUL-terminated. Bytes read, or -errno. */
ssize_t fsb_read_file(const char *path, char *buf, size_t len);

/* Reads a file's first line without its newline. 0 or -errno. */
int fsb_read_line(const char *path, char *buf, size_t len);

/*
 * Reads the small file <@root>@rel (@root "" is the real system, tests pass a fixture tree)
 * into @buf without its trailing newlines and spaces. 0 or -errno.
 */
int fsb_read_under(const char *root, const char *rel, char *buf, size_t len);

/*
 * Writes @value whole to <@root>@rel; sysfs and procfs answer a refused value with the
 * errno of write(), which is returned. 0 or -errno (-EIO for a short write).
 */
int fsb_write_under(const char *root, const char *rel, const char *value);

/*
 * Removes @path and everything below it, without following symlinks or crossing into
 * other mounts. For directories fsbench made itself. 0, or the first failure's -errno
 * (the walk goes on past it).
 */
int fsb_rm_tree(const char *path);

#endif
