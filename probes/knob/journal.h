/* The restore journal: old knob values on disk, fsync'ed before a knob changes. */
#ifndef PROBE_JOURNAL_H
#define PROBE_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * One journal file per fsbench process and run, "<dir>/journal-<pid>-<n>.jsonl", so
 * concurrent runs never share one. The first line is a header naming the process (pid and its start time
 * from /proc/<pid>/stat, so a reused pid does not look alive); each further line is one
 * entry (see knob.h for what an entry holds). Lines are appended and fdatasync'ed one by
 * one; a torn last line after a crash is ignored on load, which is safe because the knob
 * it describes was not yet written when the crash happened.
 */
#define JOURNAL_SCHEMA "fsbench-journal/1"

struct journal {
	int fd;
	char path[4096];
	char dir[4096];
	json_t *entries; /* what this process appended, in order */
};

/* $FSBENCH_STATE_DIR, or /run/fsbench. Never NULL. */
const char *journal_state_dir(void);

/*
 * The journal is input that root acts on, so where it lives must be root's alone: the
 * directory (not a symlink) and each journal file (a regular file, one link) must be
 * owned by this process's effective user (root) and not writable by group or others.
 */

/*
 * Opens directory @dir after checking it as above. Returns 0 and a descriptor in @ret_fd,
 * -ENOENT when @dir does not exist, or -errno (-EPERM: owner or mode) with @err saying why.
 */
int journal_dir_open(const char *dir, int *ret_fd, char *err, size_t errlen);

/* Makes @dir and its missing parents (0700), then checks it as journal_dir_open() does. */
int journal_dir_make(const char *dir, char *err, size_t errlen);

/*
 * Creates this process's journal in @dir (made 0700 if missing) and makes the file and
 * its directory entry durable. Returns 0 and a new journal in @ret, or -errno.
 */
int journal_open(const char *dir, struct journal **ret);

/* Appends @entry (not stolen) and fdatasyncs it. Returns 0 or -errno. */
int journal_append(struct journal *j, json_t *entry);

/* Unlinks the file and fsyncs the directory. Returns 0 or -errno. */
int journal_remove(struct journal *j);

/* Closes and frees; accepts NULL; returns NULL. The file stays unless removed. */
struct journal *journal_close(struct journal *j);

/*
 * Reads a journal file: its header and the array of complete entries (new references).
 * Returns 0, -EBADMSG when the header is missing or not ours, or -errno.
 */
int journal_load(const char *path, json_t **ret_header, json_t **ret_entries);

/*
 * journal_load() of @name in the directory open on @dfd (journal_dir_open), refusing a
 * file that is a symlink, not regular, hard-linked, not owned by this user or writable by
 * group or others: -EPERM with @err saying which. Other errors also set @err.
 */
int journal_load_at(int dfd, const char *name, json_t **ret_header, json_t **ret_entries, char *err,
		    size_t errlen);

/* Whether the process named by a header still runs (same pid and start time). */
bool journal_owner_alive(const json_t *header);

/* The start time of process @pid in clock ticks since boot, or 0 if it does not exist. */
unsigned long long journal_proc_start(pid_t pid);

/*
 * The journal files in @dir, as a new array of path strings sorted by name; an empty
 * array when @dir does not exist. Returns 0 or -errno.
 */
int journal_list(const char *dir, json_t **ret_paths);

/* The journal files of the directory open on @dfd, as a new sorted array of names. */
int journal_list_at(int dfd, json_t **ret_names);

/*
 * Refuses to change knobs while a journal in @dir of a process that died still holds old
 * values (they would be recorded as "before" and lost): -EBUSY with @err naming the
 * journal and `fsbench restore`. 0 otherwise, an unreadable @dir included (opening the
 * journal there reports it).
 */
int journal_check_stale(const char *dir, char *err, size_t errlen);

/*
 * Locks that keep two fsbench processes from changing the same knobs at once: the
 * second would journal the first one's value as its "before" and, finishing last, put
 * it back. They live in one place for the whole system, journal_lock_dir(), whatever
 * the state directory: two runs with different $FSBENCH_STATE_DIR still meet there.
 * A lock is "<dir>/.lock-<name>" (hidden: the directory lists journals), held
 * with flock(2) on its own open file description, so it conflicts with every other
 * holder, another descriptor of the same process included, and the kernel drops it
 * when its process ends however it ends: kill -9 leaves no stale lock. The holder
 * writes its pid, start time and @what into the file for the one it turns away.
 */
#define JOURNAL_LOCK_NAME_MAX 96

/* "<root>/run/fsbench/lock": @root "" is the real system, tests pass a fixture tree. */
void journal_lock_dir(const char *root, char *ret, size_t len);

struct journal_lock_holder {
	pid_t pid; /* 0 when it could not be read: the holder had not yet written it */
	char what[64]; /* the holder's @what ("run", "knobs --set", "restore") */
};

/*
 * Takes lock @name ([A-Za-z0-9:._-], no '/') in @dir (made 0700 with its parents if
 * missing, and refused as journal_dir_open() refuses a directory: -EPERM) for this
 * process doing @what. When another holds it, retries every 10 ms for up to @wait_ms
 * (0: not at all), then returns -EBUSY with the holder in @ret_holder (may be NULL).
 * Returns 0 and the locked descriptor in @ret_fd, or -errno.
 */
int journal_lock_take(const char *dir, const char *name, const char *what, int wait_ms, int *ret_fd,
		      struct journal_lock_holder *ret_holder);

/*
 * Removes the lock file and then closes @fd (accepts -1): removing it while it is still
 * held is what keeps a later taker from locking an unlinked file (see journal.c).
 */
void journal_lock_release(const char *dir, const char *name, int fd);

#endif
