/* What the kernel gate's own files share (not for its callers: they use kgate.h). */
#ifndef FSB_KGATE_UTIL_H
#define FSB_KGATE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fsbench/kgate/kgate.h"

/* Markers the guest's /init prints on the serial console. */
#define MARK_INIT "FSBENCH-GUEST-INIT"
#define MARK_START "FSBENCH-GUEST-START"
#define MARK_EXIT "FSBENCH-GUEST-EXIT"
#define MARK_PANIC "Kernel panic"
/* Console lines quoted in an error. */
#define KG_TAIL_LINES 12
/* The results disk: a tar archive of the guest's /out; results are a few MiB at most. */
#define KG_RESULTS_DISK_BYTES (64LL << 20)

bool kg_ends_with(const char *s, const char *suffix);

/* FNV-1a, 64 bits, continuing from @h (start: KG_FNV_SEED): the caches' names, not a signature. */
#define KG_FNV_SEED 0xcbf29ce484222325ULL
uint64_t kg_fnv(uint64_t h, const void *p, size_t n);
/* kg_fnv() over @path's contents, continuing from *@h. 0 or -errno. */
int kg_hash_file(uint64_t *h, const char *path);
/* The same over @fd's contents from its start (pread: its offset is left alone). */
int kg_hash_fd(uint64_t *h, int fd);
/*
 * A cache entry's seal: the content hash of what root wrote into it, written by root when it
 * makes the entry and checked on each use, so that an entry changed since (a descriptor a
 * step kept on files root re-owned, as fsbench did before issue 40; a disk's or an editor's
 * change) is refused, not booted. FNV, as the caches' names: it catches a change, it does
 * not authenticate (whoever can write root's cache can write the seal too).
 */
#define KG_SEAL ".content"
/*
 * The hash of the tree @dfd: every entry's path (in byte order, the top's KG_SEAL left out),
 * mode, size and owner, each link's target, and the bytes of each regular file for which
 * @bytes(its path relative to the top) says so. 0 with *@ret, or -errno with @err.
 */
int kg_tree_hash(int dfd, bool (*bytes)(const char *rel), uint64_t *ret, char *err, size_t errlen);
/* Writes the seal of hash @h as the new file @name beneath @dfd (O_EXCL, fsync'ed). 0 or -errno. */
int kg_seal_write(int dfd, const char *name, uint64_t h);
/*
 * Whether the seal @name beneath @dfd (root's, kg_trusted_at; @shown in errors) records @h.
 * 0, or -EBADMSG with @err naming @shown (the entry is not to be used), or other -errno.
 */
int kg_seal_check(int dfd, const char *name, uint64_t h, const char *shown, char *err,
		  size_t errlen);

/* The hash of all of the file @name beneath @dfd (not followed if a symlink). 0 or -errno. */
int kg_file_hash(int dfd, const char *name, uint64_t *ret);
/*
 * The cached file @name beneath @dfd (shown as @shown) is root's (kg_trusted_at) and what
 * its seal "@name" KG_SEAL beside it records, over all its bytes. 0 or -errno with @err.
 */
int kg_file_seal_check(int dfd, const char *name, const char *shown, char *err, size_t errlen);

/*
 * A kernel release fsbench puts into paths (lib/modules/RELEASE, the caches) and a depmod
 * argument, whether a .deb or a bzImage's header says it: 1 to 127 of [A-Za-z0-9._+~-], not
 * starting with a dot.
 */
bool kg_release_ok(const char *rel);
double kg_now_s(void);
bool kg_is_dir(const char *path);

/* mkdir -p: every missing component made with @mode. 0 or -errno. */
int kg_mkdir_p(const char *path, mode_t mode);

/* A whole file, NUL-terminated (malloc'ed; its length in *@ret_len), or NULL with errno. */
char *kg_read_all(const char *path, size_t *ret_len);

/*
 * Runs @argv, stdout to @out (NULL: /dev/null), stderr's last line into @msg. The exit
 * status (0..255), 128 + a signal, or -errno when it could not run (-ENOENT: not installed).
 */
int kg_tool(char *const argv[], const char *out, char *msg, size_t msglen);

/* How a guest's supervision ended, for the explanation of a failed boot. */
struct kg_watch {
	bool started; /* the guest's init printed MARK_START */
	bool panicked;
	bool noboot; /* stopped: no word from init within the boot timeout */
	bool timed_out; /* stopped: the whole boot's timeout */
	bool paused; /* QEMU used no CPU for KG_PAUSED_S: the VM is stopped, not slow */
	bool disk_full; /* paused, and --disk-dir has no room left */
	bool console_full; /* stopped: the console passed KG_CONSOLE_MAX */
	off_t panic_at; /* where MARK_PANIC is in the console, when panicked */
	bool init; /* the guest's init printed MARK_INIT, its first line */
	bool kvm_silent; /* --accel kvm: not a byte on the console within KG_KVM_SILENT_S */
};

/* The console a guest may write; a boot whose console grows past it is stopped. */
#define KG_CONSOLE_MAX (64LL << 20)
/* The console's tail quoted in an error is read from at most this many bytes at its end. */
#define KG_TAIL_BYTES 65536

/* No CPU time for this long: QEMU is paused (a TCG guest that runs always costs some). */
#define KG_PAUSED_S 10
/*
 * Under KVM a kernel reaches its /init, whose first line is MARK_INIT, in about a second.
 * Here /dev/kvm opens but a guest stops after the firmware: an empty console after this
 * long means KVM cannot run guests on this host, not a slow boot (the boot timeout is 3 min).
 */
#define KG_KVM_SILENT_S 10
/* Less free than this in --disk-dir is full for a growing scratch disk. */
#define KG_FULL_BYTES (4LL << 20)

/*
 * Makes @name beneath @dfd a new, empty directory (0755) and returns its descriptor: one
 * already there is removed first (by descriptor, base_rm_at) when it is a real directory
 * this user owns (a boot of an earlier run in the same --workdir); anything else there (a
 * symlink, another user's) is refused, and so is one made by someone else between the
 * removal and the mkdirat. @shown names it in errors. -errno with @err.
 */
int kg_dir_fresh_at(int dfd, const char *name, const char *shown, char *err, size_t errlen);

/*
 * @rel beneath the directory held as @dfd, as a path for the interfaces that take one
 * (QEMU's log, the result file's reader and writer): /proc/self/fd/@dfd/@rel, which the
 * kernel resolves from the directory held, never from its name. 0 or -ENAMETOOLONG.
 */
int kg_fd_path(char *buf, size_t len, int dfd, const char *rel);

/* @at (a kg_fd_path) where it first appears in @err is @shown instead: the path a user knows. */
void kg_err_shown(char *err, size_t errlen, const char *at, const char *shown);

/*
 * Restore's rules for what root reads and runs from the cache: @name beneath @dfd (not
 * followed if a symlink) is a @type (S_IFDIR, S_IFREG), owned by this user and not writable
 * by group or others. 0, or -EPERM with @err (naming it @shown) saying which rule and why.
 */
int kg_trusted_at(int dfd, const char *name, mode_t type, const char *shown, char *err,
		  size_t errlen);

/*
 * The cache's directory @sub (kernels, initramfs, pvh) below @cachedir (kg_cachedir), held
 * by descriptor for the rest of the run (the same one on every call): the root opened by a
 * trusted walk (base_dir_open_trusted: a symlink or directory another user owns on the way
 * is refused), missing directories made beneath their held parents (base_dir_make), @sub
 * this user's alone. Root reads, writes and boots what is beneath it only through it
 * (openat, renameat; kg_fd_path for a tool that takes a path). Not to be closed.
 * The descriptor, or -errno with @err.
 */
int kg_cache_open(const char *cachedir, const char *sub, char *err, size_t errlen);

/*
 * Reads what the guest left on the results disk (results.img beneath the boot's directory
 * held as @bdfd, shown as @dir) into a new guest/ beneath it and @b, as
 * untrusted input (results.c says what is taken). 0, -ENOENT... when the disk holds no
 * archive, or -errno with @err when what it holds is refused.
 */
int kg_results_collect(int bdfd, const char *dir, struct kg_boot *b, char *err, size_t errlen);

/*
 * The guest's status file's @n bytes: a decimal 0-255 with at most echo's newline after it,
 * or -1 for anything else (256, 0x1, -0, empty, spaces): not a status to judge by.
 */
int kg_guest_status(const char *s, size_t n);

/*
 * The error of a boot that left no status or panicked: what happened (-EIO a panic or no
 * result, -ETIMEDOUT, -ENOEXEC QEMU's own failure, its @wst and @qlog's first line), with
 * the last lines of the console, read through @console (a descriptor held since the
 * console was made, not b->console's path). Returns that -errno.
 */
int kg_boot_explain(const struct kg_kernel *k, const struct kg_vm *vm, const struct kg_boot *b,
		    const struct kg_watch *w, int wst, int console, const char *qlog, char *err,
		    size_t errlen);

/*
 * A path QEMU reads as an option value (-drive file=...,if=...): a comma would end it and
 * start another option, so it is refused (-EINVAL with @err) rather than passed.
 */
int kg_qemu_path_ok(const char *what, const char *path, char *err, size_t errlen);

#endif
