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

/* Whether the process named by a header still runs (same pid and start time). */
bool journal_owner_alive(const json_t *header);

/* The start time of process @pid in clock ticks since boot, or 0 if it does not exist. */
unsigned long long journal_proc_start(pid_t pid);

/*
 * The journal files in @dir, as a new array of path strings sorted by name; an empty
 * array when @dir does not exist. Returns 0 or -errno.
 */
int journal_list(const char *dir, json_t **ret_paths);

#endif
