/* Small file helpers every layer shares: paths under a root, proc and sysfs files, removal. */
#ifndef BASE_FILEIO_H
#define BASE_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Formats a path into @buf. 0, or -ENAMETOOLONG when it does not fit (buf is then empty). */
int base_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Copies @src (NULL as "") into @dst, truncating to @len - 1 bytes. */
void base_strcpy(char *dst, size_t len, const char *src);

/*
 * Formats at offset @*pos of @buf, never past @len - 1 bytes (always terminated), and
 * advances @*pos by what was meant to be written: once it reaches @len, later calls add
 * nothing, so a message is built from pieces without checking each.
 */
void base_appendf(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Reads up to @len - 1 bytes of a file, NUL-terminated. Bytes read, or -errno. */
ssize_t base_read_file(const char *path, char *buf, size_t len);

/* Reads from @fd until @len bytes or end of file (EINTR retried). Bytes read, or -errno. */
ssize_t base_read_fd(int fd, void *buf, size_t len);

/* Reads a file's first line without its newline. 0 or -errno. */
int base_read_line(const char *path, char *buf, size_t len);

/*
 * Reads the small file <@root>@rel (@root "" is the real system, tests pass a fixture tree)
 * into @buf without its trailing newlines and spaces. 0 or -errno.
 */
int base_read_under(const char *root, const char *rel, char *buf, size_t len);

/*
 * Writes @value whole to <@root>@rel; sysfs and procfs answer a refused value with the
 * errno of write(), which is returned. 0 or -errno (-EIO for a short write).
 */
int base_write_under(const char *root, const char *rel, const char *value);

/*
 * Removes @path and everything below it, without following symlinks or crossing into
 * other mounts. For directories fsbench made itself. 0, or the first failure's -errno
 * (the walk goes on past it).
 */
int base_rm_tree(const char *path);

/*
 * Output files are replaced atomically: a new file beside @path made by mkstemp (O_EXCL,
 * so a symlink or file planted at a guessable name is never followed or reused), written,
 * then renamed over @path. base_out_open() returns it open for writing and its name in
 * *@ret_tmp (malloc'ed), or NULL with errno set. base_out_commit() takes @f and @tmp
 * (frees both): unless @error is non-zero, flushes, fsyncs, makes it 0644, renames it
 * over @path and fsyncs the directory; on any failure the temporary file is removed and
 * @path is left as it was. 0 or -errno (@error itself when given). A character device or
 * FIFO at @path itself (/dev/full, a pipe) is written in place instead (*@ret_tmp NULL),
 * never replaced by a file; its flush and close are checked all the same.
 */
FILE *base_out_open(const char *path, char **ret_tmp);
int base_out_commit(FILE *f, char *tmp, const char *path, int error);

/*
 * Whether a file can be written at @path, tried before any work: the directory must take
 * a new file (a temporary one is made and removed) and @path must not be a directory.
 * 0 or -errno.
 */
int base_out_check(const char *path);

#endif
