/* Directories held by descriptor: opened trusted from "/", made private, files opened beneath them. */
#ifndef BASE_DIRFD_H
#define BASE_DIRFD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Why a file another user could have changed is not to be trusted by uid @uid, or NULL:
 * a symlink; owned by another user (an @ancestor directory may also be root's); writable
 * by group or others (an @ancestor may be when sticky, as /tmp: others make entries there,
 * they cannot rename or replace ours).
 */
const char *base_untrusted(const struct stat *st, bool ancestor, uid_t uid);

/*
 * Opens the directory @path (relative: below the current directory, whose path the kernel
 * gives) by walking from "/" one component at a time, each opened by descriptor
 * (O_NOFOLLOW) and checked by fstat with base_untrusted()'s rule for @uid: every ancestor
 * owned by @uid or root and writable by no one else unless sticky, @path itself @uid's
 * alone (with @shared, judged as an ancestor: a sticky /tmp or /dev/shm in which fsbench
 * only makes private directories of its own). A symlink on the way is followed only when root or @uid owns it (a system link
 * such as /var/run, not one another user planted); what it leads to is walked the same way.
 * ".." is taken lexically, before the walk. Returns the directory's descriptor
 * (O_RDONLY | O_DIRECTORY | O_CLOEXEC), or -errno with @err saying which component failed
 * and why (-EPERM for a rule, -ELOOP for too many links).
 */
int base_dir_open_trusted(const char *path, uid_t uid, bool shared, char *err, size_t errlen);

/*
 * Makes the new directory @name (one component) beneath @dfd with @mode, then opens it
 * (O_NOFOLLOW) and checks by fstat that it is the one just made: a directory this user
 * owns that no one else can write. One already there is refused (-EEXIST), never adopted.
 * Its descriptor, or -errno with @err the reason alone (the caller names the path).
 */
int base_dir_make(int dfd, const char *name, mode_t mode, char *err, size_t errlen);

/*
 * base_dir_make() with a fresh name: @prefix and 12 random letters (mkdtemp's use, with
 * mkdirat's O_EXCL semantics), retried on a clash; the name into @ret_name (@len bytes).
 * Mode 0700. Its descriptor, or -errno with @err.
 */
int base_dir_make_temp(int dfd, const char *prefix, char *ret_name, size_t len, char *err,
		       size_t errlen);

/*
 * openat(@dfd, @rel, @flags, @mode) that stays beneath @dfd and follows no symlink on the
 * way (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; where the kernel has no openat2, one
 * component at a time with O_NOFOLLOW and ".." or an absolute path refused). O_CLOEXEC is
 * added. The descriptor, or -errno (-EXDEV: it would leave @dfd, -ELOOP: a symlink).
 */
int base_open_beneath(int dfd, const char *rel, int flags, mode_t mode);
/* The fallback alone, whatever the kernel has: for tests. */
int base_open_beneath_walk(int dfd, const char *rel, int flags, mode_t mode);

/*
 * The directory holding @rel's last name, opened beneath @dfd as base_open_beneath() opens
 * (O_PATH | O_DIRECTORY: no symlink on the way, nothing outside @dfd), so that a *at() call
 * on that descriptor and *@ret_last (a pointer into @rel) follows no symlink in @rel's
 * directories. @dfd itself when @rel is one name: close the result only when it is not @dfd.
 * -errno as the open's (-ENOENT, -ENOTDIR, -ELOOP: a symlink, -EXDEV: it would leave @dfd);
 * -EXDEV too for a last name "..", -EINVAL for "" or a trailing '/'.
 */
int base_parent_beneath(int dfd, const char *rel, const char **ret_last);

/*
 * Removes @name beneath @dfd and everything below it, by descriptor: symlinks are removed,
 * never followed, and other mounts are not entered. 0 (also when @name is absent), or the
 * first failure's -errno (the walk goes on past it).
 */
int base_rm_at(int dfd, const char *name);

#endif
