/* The restore journal (see journal.h): append-only JSON lines, durable before each change. */
#include "probes/knob/journal.h"
#include "base/errf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JOURNAL_MAX_BYTES (4u << 20) /* far beyond any real journal; bounds a corrupt one */
/* A run journals a few entries per knob and scratch resource; restore compares them pairwise. */
#define JOURNAL_MAX_ENTRIES 4096

static unsigned journal_seq;

const char *journal_state_dir(void)
{
	const char *d = getenv("FSBENCH_STATE_DIR");

	return d && *d ? d : "/run/fsbench";
}

void journal_lock_dir(const char *root, char *ret, size_t len)
{
	snprintf(ret, len, "%s/run/fsbench/lock", root && strcmp(root, "/") ? root : "");
}

/* Whether @st, of @what @path, is this user's alone; -EPERM with @err if not. */
static int owned_alone(const struct stat *st, const char *what, const char *path, char *err,
		       size_t errlen)
{
	if (st->st_uid != geteuid())
		return errf(err, errlen, -EPERM,
			    "refusing %s %s: it is owned by uid %u, not by uid %u (root), so "
			    "another user could have written it",
			    what, path, (unsigned)st->st_uid, (unsigned)geteuid());
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return errf(err, errlen, -EPERM,
			    "refusing %s %s: mode %04o lets group or others write it "
			    "(chmod go-w, or use another FSBENCH_STATE_DIR)",
			    what, path, (unsigned)(st->st_mode & 07777));
	return 0;
}

int journal_dir_open(const char *dir, int *ret_fd, char *err, size_t errlen)
{
	struct stat st;
	int fd, r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP || r == -ENOTDIR)
			return errf(err, errlen, r,
				    "refusing state directory %s: a symlink or not a directory",
				    dir);
		return errf(err, errlen, r, "opening state directory %s: %s", dir, strerror(-r));
	}
	if (fstat(fd, &st) < 0) {
		r = errf(err, errlen, -errno, "reading state directory %s: %s", dir,
			 strerror(errno));
		close(fd);
		return r;
	}
	r = owned_alone(&st, "state directory", dir, err, errlen);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int journal_dir_make(const char *dir, char *err, size_t errlen)
{
	char p[4096];
	int fd, r;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return errf(err, errlen, -ENAMETOOLONG, "state directory %s: %s", dir,
			    strerror(ENAMETOOLONG));
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return errf(err, errlen, -errno, "creating %s: %s", p, strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0700) < 0 && errno != EEXIST)
		return errf(err, errlen, -errno, "creating %s: %s", p, strerror(errno));
	r = journal_dir_open(dir, &fd, err, errlen);
	if (r == 0)
		close(fd);
	return r;
}

unsigned long long journal_proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* comm may hold spaces and parentheses: fields restart after the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	/* starttime is field 22; after ')' we are before field 3 */
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int write_line(int fd, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	size_t len, off = 0;
	int r = 0;

	if (!s)
		return -ENOMEM;
	len = strlen(s);
	s[len++] = '\n'; /* json_dumps leaves room: we replace the NUL */
	while (off < len) {
		ssize_t w = write(fd, s + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		off += (size_t)w;
	}
	free(s);
	if (!r && fdatasync(fd) < 0)
		r = -errno;
	return r;
}

int journal_open(const char *dir, struct journal **ret)
{
	struct journal *j;
	json_t *hdr;
	int r;

	r = journal_dir_make(dir, NULL, 0);
	if (r < 0)
		return r;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	j->entries = json_array();
	/* a journal a former run of this process could not restore must survive: never reuse */
	for (;;) {
		snprintf(j->path, sizeof(j->path), "%s/journal-%d-%u.jsonl", dir, (int)getpid(),
			 journal_seq++);
		j->fd = open(j->path,
			     O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (j->fd >= 0)
			break;
		if (errno != EEXIST || journal_seq > 100000) {
			r = -errno;
			goto fail;
		}
	}
	hdr = json_pack("{s:s,s:i,s:I}", "journal", JOURNAL_SCHEMA, "pid", (int)getpid(), "start",
			(json_int_t)journal_proc_start(getpid()));
	r = hdr ? write_line(j->fd, hdr) : -ENOMEM;
	json_decref(hdr);
	if (!r && fsync(j->fd) < 0)
		r = -errno;
	if (!r)
		r = fsync_dir(dir);
	if (r < 0) {
		unlink(j->path);
		goto fail;
	}
	*ret = j;
	return 0;
fail:
	if (j->fd >= 0)
		close(j->fd);
	json_decref(j->entries);
	free(j);
	return r;
}

int journal_append(struct journal *j, json_t *entry)
{
	int r = write_line(j->fd, entry);

	if (!r)
		json_array_append(j->entries, entry);
	return r;
}

int journal_remove(struct journal *j)
{
	if (unlink(j->path) < 0 && errno != ENOENT)
		return -errno;
	return fsync_dir(j->dir);
}

struct journal *journal_close(struct journal *j)
{
	if (!j)
		return NULL;
	if (j->fd >= 0)
		close(j->fd);
	json_decref(j->entries);
	free(j);
	return NULL;
}

/* Reads the journal open on @fd (closed here), checked to be @path. */
static int load_fd(int fd, const char *path, json_t **ret_header, json_t **ret_entries, char *err,
		   size_t errlen)
{
	char *buf, *line, *save = NULL;
	json_t *hdr = NULL, *entries;
	struct stat st;
	ssize_t n;
	size_t off = 0;
	int r = 0;

	if (fstat(fd, &st) < 0) {
		r = errf(err, errlen, -errno, "reading journal %s: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
		r = errf(err, errlen, -EPERM,
			 "refusing journal %s: not a regular file with a single link", path);
	if (!r)
		r = owned_alone(&st, "journal", path, err, errlen);
	if (!r && st.st_size > JOURNAL_MAX_BYTES)
		r = errf(err, errlen, -EFBIG, "refusing journal %s: larger than %u bytes", path,
			 JOURNAL_MAX_BYTES);
	if (r < 0) {
		close(fd);
		return r;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return errf(err, errlen, -ENOMEM, "reading journal %s: %s", path, strerror(ENOMEM));
	}
	while (off < (size_t)st.st_size && (n = read(fd, buf + off, (size_t)st.st_size - off)) > 0)
		off += (size_t)n;
	close(fd);
	buf[off] = 0;
	entries = json_array();
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(line, 0, NULL);

		/* a torn line can only be the last one: its knob was never changed */
		if (!o || !json_is_object(o)) {
			json_decref(o);
			continue;
		}
		if (!hdr) {
			if (!json_is_string(json_object_get(o, "journal")) ||
			    strcmp(json_string_value(json_object_get(o, "journal")),
				   JOURNAL_SCHEMA)) {
				json_decref(o);
				break;
			}
			hdr = o;
			continue;
		}
		if (json_array_size(entries) >= JOURNAL_MAX_ENTRIES) {
			json_decref(o);
			json_decref(hdr);
			json_decref(entries);
			free(buf);
			return errf(err, errlen, -EFBIG,
				    "refusing journal %s: more than %d entries", path,
				    JOURNAL_MAX_ENTRIES);
		}
		json_array_append_new(entries, o);
	}
	free(buf);
	if (!hdr) {
		json_decref(entries);
		return errf(err, errlen, -EBADMSG, "reading journal %s: no %s header", path,
			    JOURNAL_SCHEMA);
	}
	*ret_header = hdr;
	*ret_entries = entries;
	return 0;
}

int journal_load_at(int dfd, const char *name, json_t **ret_header, json_t **ret_entries, char *err,
		    size_t errlen)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errf(err, errlen, -errno, "%s journal %s: %s",
			    errno == ELOOP ? "refusing" : "opening", name,
			    errno == ELOOP ? "a symlink" : strerror(errno));
	return load_fd(fd, name, ret_header, ret_entries, err, errlen);
}

int journal_load(const char *path, json_t **ret_header, json_t **ret_entries)
{
	return journal_load_at(AT_FDCWD, path, ret_header, ret_entries, NULL, 0);
}

bool journal_owner_alive(const json_t *header)
{
	json_int_t pid = json_integer_value(json_object_get(header, "pid"));
	json_int_t start = json_integer_value(json_object_get(header, "start"));
	unsigned long long now;

	if (pid <= 0)
		return false;
	now = journal_proc_start((pid_t)pid);
	return now && now == (unsigned long long)start;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int journal_list_at(int dfd, json_t **ret_names)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	json_t *arr;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		int r = -errno;

		if (fd >= 0)
			close(fd);
		return r;
	}
	arr = json_array();
	if (!arr) {
		closedir(d);
		return -ENOMEM;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "journal-", 8) || len < 7 ||
		    strcmp(de->d_name + len - 6, ".jsonl"))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));

			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(arr, json_string(names[i]));
		free(names[i]);
	}
	free(names);
	*ret_names = arr;
	return 0;
}

int journal_list(const char *dir, json_t **ret_paths)
{
	char path[4096 + 256];
	json_t *names, *arr, *name;
	size_t i;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (dfd < 0) {
		if (errno != ENOENT)
			return -errno;
		*ret_paths = json_array();
		return *ret_paths ? 0 : -ENOMEM;
	}
	r = journal_list_at(dfd, &names);
	close(dfd);
	if (r < 0)
		return r;
	arr = json_array();
	json_array_foreach(names, i, name)
	{
		snprintf(path, sizeof(path), "%s/%s", dir, json_string_value(name));
		json_array_append_new(arr, json_string(path));
	}
	json_decref(names);
	*ret_paths = arr;
	return 0;
}

int journal_check_stale(const char *dir, char *err, size_t errlen)
{
	json_t *paths, *p;
	size_t i;
	int r = 0;

	if (journal_list(dir, &paths) < 0)
		return 0;
	json_array_foreach(paths, i, p)
	{
		json_t *hdr, *entries;

		if (journal_load(json_string_value(p), &hdr, &entries) < 0)
			continue;
		if (!journal_owner_alive(hdr) && json_array_size(entries))
			r = errf(
				err, errlen, -EBUSY,
				"%s holds what a run that died (pid %lld) changed or made: run `fsbench restore` first",
				json_string_value(p),
				(long long)json_integer_value(json_object_get(hdr, "pid")));
		json_decref(hdr);
		json_decref(entries);
		if (r)
			break;
	}
	json_decref(paths);
	return r;
}

static int lock_path(const char *dir, const char *name, char *ret, size_t len)
{
	if (!*name || strlen(name) >= JOURNAL_LOCK_NAME_MAX ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:._-") !=
		    strlen(name))
		return -EINVAL;
	if ((size_t)snprintf(ret, len, "%s/.lock-%s", dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Who holds the lock open on @fd. The holder writes its line just after it locks, so an
 * empty file or the line of a holder that died (its pid gone or reused: the start time
 * tells) means the new line is on its way: read again for a little while.
 */
static void holder_read(int fd, struct journal_lock_holder *ret)
{
	char buf[160];

	memset(ret, 0, sizeof(*ret));
	for (int i = 0; i < 50; i++) {
		unsigned long long start;
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		int pid, used = 0;

		if (n > 0) {
			buf[n] = 0;
			buf[strcspn(buf, "\n")] = 0;
			if (sscanf(buf, "%d %llu %n", &pid, &start, &used) == 2 && used &&
			    pid > 0 && journal_proc_start(pid) == start) {
				ret->pid = pid;
				snprintf(ret->what, sizeof(ret->what), "%s", buf + used);
				return;
			}
		}
		sleep_ms(2);
	}
	snprintf(ret->what, sizeof(ret->what), "process");
}

int journal_lock_take(const char *dir, const char *name, const char *what, int wait_ms, int *ret_fd,
		      struct journal_lock_holder *ret_holder)
{
	char path[4096 + JOURNAL_LOCK_NAME_MAX + 8], line[160];
	struct stat a, b;
	int r, fd, waited = 0;
	size_t len;

	r = lock_path(dir, name, path, sizeof(path));
	if (r < 0)
		return r;
	r = journal_dir_make(dir, NULL, 0);
	if (r < 0)
		return r;
	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			r = -errno;
			if (r != -EWOULDBLOCK) {
				close(fd);
				return r;
			}
			if (waited >= wait_ms) {
				if (ret_holder)
					holder_read(fd, ret_holder);
				close(fd);
				return -EBUSY;
			}
			close(fd);
			sleep_ms(10);
			waited += 10;
			continue;
		}
		/*
		 * A holder unlinks the file before it lets go: if what we locked is no longer
		 * the file at @path, we hold a lock nobody else will ever see; start over.
		 */
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			break;
		close(fd);
	}
	len = (size_t)snprintf(line, sizeof(line), "%d %llu %s\n", (int)getpid(),
			       journal_proc_start(getpid()), what);
	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	/* the line first, then the length: a reader sees an old line or the new one */
	errno = 0;
	if (pwrite(fd, line, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len) < 0) {
		r = errno ? -errno : -EIO;
		journal_lock_release(dir, name, fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

void journal_lock_release(const char *dir, const char *name, int fd)
{
	char path[4096 + JOURNAL_LOCK_NAME_MAX + 8];

	if (fd < 0)
		return;
	if (lock_path(dir, name, path, sizeof(path)) == 0)
		unlink(path);
	close(fd);
}
