/* The tree workload's phases: create, patch, compile, clean, read, delete and stat of one tree. */
#include "fsbench/workloads/tree_ops.h"
#include "base/dirfd.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tree_name(uint32_t n, char *buf, size_t len)
{
	snprintf(buf, len, "fsbench-tree-%" PRIu32, n);
}

/* File @i's name: its kind's suffix, so a copied tree's mix of .c and .h stays visible. */
static void file_name(const struct tree_shape *s, uint32_t i, bool object, char *buf, size_t len)
{
	if (object)
		snprintf(buf, len, "%" PRIu32 ".o", i);
	else if (s->fkind[i] == TK_SOURCE)
		snprintf(buf, len, "%" PRIu32 ".c", i);
	else if (s->fkind[i] == TK_HEADER)
		snprintf(buf, len, "%" PRIu32 ".h", i);
	else
		snprintf(buf, len, "%" PRIu32, i);
}

/* One phase run on one tree: where it is, for messages, and the descriptors it holds. */
struct walk {
	struct fsb_thread *t;
	struct tree_ctx *c;
	uint32_t n;
	char tname[48];
	int tree_fd, dir_fd;
	uint32_t dir; /* dir_fd's directory */
	struct tree_work *w;
};

static int fail(struct walk *k, int e, const char *what, const char *name)
{
	const char *dp = k->c->shape->dpath[k->dir];

	snprintf(k->t->errmsg, sizeof(k->t->errmsg), "%s %s/%s%s%s%s%s: %s", what, k->c->top,
		 k->tname, strcmp(dp, ".") ? "/" : "", strcmp(dp, ".") ? dp : "", name ? "/" : "",
		 name ? name : "", strerror(e));
	return -e;
}

static int open_tree(struct walk *k)
{
	k->tree_fd =
		openat(k->c->top_fd, k->tname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return k->tree_fd < 0 ? fail(k, errno, "opening", NULL) : 0;
}

/*
 * Directory @d's parent, opened beneath the tree through no symlink (base_parent_beneath),
 * untimed, with its last name in *@ret_last: the timed mkdir, rmdir and stat of @d are then
 * *at() calls on one name. The tree's own descriptor for a top-level one (not to be closed).
 */
static int dir_parent(struct walk *k, int tree_fd, uint32_t d, const char **ret_last)
{
	int pfd = base_parent_beneath(tree_fd, k->c->shape->dpath[d], ret_last);

	return pfd < 0 ? fail(k, -pfd, "opening the parent of", NULL) : pfd;
}

static void parent_close(int tree_fd, int pfd)
{
	if (pfd >= 0 && pfd != tree_fd)
		close(pfd);
}

/* Makes directory @d (timed) when @make, then opens it as k->dir_fd. */
static int enter_dir(struct walk *k, uint32_t d, bool make)
{
	uint64_t t0, t1;
	int r;

	if (k->dir_fd >= 0)
		close(k->dir_fd);
	k->dir_fd = -1;
	k->dir = d;
	if (make && d > 0) {
		const char *last;
		int pfd = dir_parent(k, k->tree_fd, d, &last);

		if (pfd < 0)
			return pfd;
		FSB_TIME_CALL(t0, t1, r = mkdirat(pfd, last, 0755));
		if (r < 0)
			r = fail(k, errno, "creating directory", NULL);
		parent_close(k->tree_fd, pfd);
		if (r < 0)
			return r;
		fsb_record(k->t, OP_MKDIR, t0, t1);
		k->w->dirs++;
	}
	/* a path of several names: none of them a symlink, nothing outside the tree */
	k->dir_fd = base_open_beneath(k->tree_fd, k->c->shape->dpath[d], O_RDONLY | O_DIRECTORY, 0);
	return k->dir_fd < 0 ? fail(k, -k->dir_fd, "opening directory", NULL) : 0;
}

static int timed_close(struct walk *k, int fd, const char *name)
{
	uint64_t t0, t1;
	int r;

	FSB_TIME_CALL(t0, t1, r = close(fd));
	if (r < 0)
		return fail(k, errno, "closing", name);
	fsb_record(k->t, OP_CLOSE, t0, t1);
	return 0;
}

/* Writes @size bytes into @name: created new (O_EXCL), or rewritten whole when !@create. */
static int write_file(struct walk *k, const char *name, uint64_t size, bool create)
{
	uint64_t t0, t1, done = 0;
	int fd, r = 0;

	if (create)
		FSB_TIME_CALL(t0, t1,
			      fd = openat(k->dir_fd, name,
					  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					  0644));
	else
		FSB_TIME_CALL(t0, t1,
			      fd = openat(k->dir_fd, name,
					  O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC));
	if (fd < 0)
		return fail(k, errno, create ? "creating" : "opening", name);
	fsb_record(k->t, create ? OP_CREATE : OP_OPEN, t0, t1);
	while (done < size) {
		size_t len = size - done < TREE_IO_SIZE ? (size_t)(size - done) : TREE_IO_SIZE;
		ssize_t n;

		FSB_TIME_CALL(t0, t1, n = write(fd, k->c->buf, len));
		if (n <= 0) {
			r = fail(k, n < 0 ? errno : ENOSPC, "writing", name);
			break;
		}
		fsb_record(k->t, OP_WRITE, t0, t1);
		done += (uint64_t)n;
		k->w->bytes_written += (uint64_t)n;
		k->t->bytes += (uint64_t)n;
		atomic_store_explicit(&k->t->progress, k->t->total_bytes + k->t->bytes,
				      memory_order_relaxed);
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	if (create)
		k->w->files++;
	return timed_close(k, fd, name);
}

static int read_file(struct walk *k, const char *name)
{
	uint64_t t0, t1;
	ssize_t n;
	int fd;

	FSB_TIME_CALL(t0, t1, fd = openat(k->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
	if (fd < 0)
		return fail(k, errno, "opening", name);
	fsb_record(k->t, OP_OPEN, t0, t1);
	for (;;) {
		FSB_TIME_CALL(t0, t1, n = read(fd, k->c->rbuf, TREE_IO_SIZE));
		if (n < 0) {
			int e = errno;

			close(fd);
			return fail(k, e, "reading", name);
		}
		fsb_record(k->t, OP_READ, t0, t1);
		if (!n)
			break;
		k->w->bytes_read += (uint64_t)n;
	}
	k->w->files++;
	return timed_close(k, fd, name);
}

static int stat_entry(struct walk *k, int dfd, const char *name)
{
	struct stat st;
	uint64_t t0, t1;
	int r;

	FSB_TIME_CALL(t0, t1, r = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW));
	if (r < 0)
		return fail(k, errno, "examining", name);
	fsb_record(k->t, OP_STAT, t0, t1);
	return 0;
}

static int unlink_entry(struct walk *k, const char *name)
{
	uint64_t t0, t1;
	int r;

	FSB_TIME_CALL(t0, t1, r = unlinkat(k->dir_fd, name, 0));
	if (r < 0)
		return fail(k, errno, "removing", name);
	fsb_record(k->t, OP_UNLINK, t0, t1);
	k->w->files++;
	return 0;
}

/* Which files a phase visits, and what it does to each (file @i, or its object). */
enum visit { V_CREATE, V_PATCH, V_COMPILE, V_CLEAN, V_READ, V_UNLINK, V_STAT };

static int visit_file(struct walk *k, enum visit v, uint32_t i, bool object)
{
	const struct tree_shape *s = k->c->shape;
	char name[32];
	int r;

	file_name(s, i, object, name, sizeof(name));
	switch (v) {
	case V_CREATE:
		return write_file(k, name, s->fsize[i], true);
	case V_COMPILE:
		return write_file(k, name, tree_object_size(s->fsize[i], k->c->object_ratio), true);
	case V_PATCH:
		/* a patch reads the file it changes, then writes the new version over it */
		r = read_file(k, name);
		k->w->files--;
		if (!r)
			r = write_file(k, name, s->fsize[i], false);
		k->w->files++;
		return r;
	case V_READ:
		return read_file(k, name);
	case V_STAT:
		r = stat_entry(k, k->dir_fd, name);
		k->w->files += !r;
		return r;
	case V_CLEAN:
	case V_UNLINK:
		return unlink_entry(k, name);
	}
	return -EINVAL;
}

/* Visits every file of the tree dir by dir: sources (and objects with @objects), or only objects. */
static int walk_files(struct walk *k, enum visit v, bool sources, bool objects, bool make_dirs)
{
	const struct tree_shape *s = k->c->shape;
	uint32_t f = 0;
	int r = 0;

	for (uint32_t d = 0; d < s->ndirs && !r; d++) {
		r = enter_dir(k, d, make_dirs);
		for (; !r && f < s->nfiles && s->fdir[f] == d; f++) {
			if (v == V_PATCH && (f + k->c->generation) % k->c->patch_every)
				continue;
			if (sources)
				r = visit_file(k, v, f, false);
			if (!r && objects && s->fkind[f] == TK_SOURCE)
				r = visit_file(k, v, f, true);
		}
		if (!r && v == V_STAT && d > 0) {
			const char *last;
			int pfd = dir_parent(k, k->tree_fd, d, &last);

			r = pfd < 0 ? pfd : stat_entry(k, pfd, last);
			parent_close(k->tree_fd, pfd);
		}
	}
	return r;
}

/* Removes the directories, deepest first (reverse breadth-first order), then the tree itself. */
static int remove_dirs(struct walk *k)
{
	const struct tree_shape *s = k->c->shape;
	uint64_t t0, t1;
	int r;

	if (k->dir_fd >= 0)
		close(k->dir_fd);
	k->dir_fd = -1;
	for (uint32_t d = s->ndirs - 1; d > 0; d--) {
		const char *last;
		int pfd;

		k->dir = d;
		if ((pfd = dir_parent(k, k->tree_fd, d, &last)) < 0)
			return pfd;
		FSB_TIME_CALL(t0, t1, r = unlinkat(pfd, last, AT_REMOVEDIR));
		if (r < 0)
			r = fail(k, errno, "removing directory", NULL);
		parent_close(k->tree_fd, pfd);
		if (r < 0)
			return r;
		fsb_record(k->t, OP_RMDIR, t0, t1);
		k->w->dirs++;
	}
	k->dir = 0;
	FSB_TIME_CALL(t0, t1, r = unlinkat(k->c->top_fd, k->tname, AT_REMOVEDIR));
	if (r < 0)
		return fail(k, errno, "removing directory", NULL);
	fsb_record(k->t, OP_RMDIR, t0, t1);
	k->w->dirs++;
	return 0;
}

static int make_tree(struct walk *k)
{
	uint64_t t0, t1;
	int r;

	FSB_TIME_CALL(t0, t1, r = mkdirat(k->c->top_fd, k->tname, 0755));
	if (r < 0)
		return fail(k, errno, "creating directory", NULL);
	fsb_record(k->t, OP_MKDIR, t0, t1);
	k->w->dirs++;
	r = open_tree(k);
	return r ? r : walk_files(k, V_CREATE, true, false, true);
}

int tree_phase_run(struct fsb_thread *t, struct tree_ctx *c, enum tree_phase phase, uint32_t n,
		   struct tree_work *ret)
{
	struct walk k = { .t = t, .c = c, .n = n, .tree_fd = -1, .dir_fd = -1, .w = ret };
	bool compiled = phase == TP_READ_COMPILED || phase == TP_DELETE_COMPILED ||
			phase == TP_STAT_COMPILED;
	int r;

	memset(ret, 0, sizeof(*ret));
	tree_name(n, k.tname, sizeof(k.tname));
	if (phase == TP_INITIAL_CREATE || phase == TP_CREATE) {
		r = make_tree(&k);
		ret->bytes = ret->bytes_written;
		goto out;
	}
	r = open_tree(&k);
	if (r)
		goto out;
	switch (phase) {
	case TP_PATCH:
		/* the data differs from the tree's first version, as a patch's does */
		c->generation++;
		for (size_t i = 0; i + 8 <= TREE_IO_SIZE; i += 4096)
			memcpy(c->buf + i, &c->generation, sizeof(c->generation));
		r = walk_files(&k, V_PATCH, true, false, false);
		ret->bytes = ret->bytes_written;
		break;
	case TP_COMPILE:
		r = walk_files(&k, V_COMPILE, false, true, false);
		ret->bytes = ret->bytes_written;
		break;
	case TP_CLEAN:
		r = walk_files(&k, V_CLEAN, false, true, false);
		for (uint32_t f = 0; f < c->shape->nfiles; f++)
			if (c->shape->fkind[f] == TK_SOURCE)
				ret->bytes += tree_object_size(c->shape->fsize[f], c->object_ratio);
		break;
	case TP_READ:
	case TP_READ_COMPILED:
		r = walk_files(&k, V_READ, true, compiled, false);
		ret->bytes = ret->bytes_read;
		break;
	case TP_DELETE:
	case TP_DELETE_COMPILED:
		r = walk_files(&k, V_UNLINK, true, compiled, false);
		if (!r)
			r = remove_dirs(&k);
		break;
	case TP_STAT:
	case TP_STAT_COMPILED:
		r = walk_files(&k, V_STAT, true, compiled, false);
		break;
	default:
		r = -EINVAL;
	}
out:
	if (k.dir_fd >= 0)
		close(k.dir_fd);
	if (k.tree_fd >= 0)
		close(k.tree_fd);
	return r;
}

int tree_remove_untimed(const struct tree_ctx *c, uint32_t n, bool compiled)
{
	const struct tree_shape *s = c->shape;
	char tname[48], name[32];
	int tree_fd, dfd, r = 0;
	uint32_t f = 0;

	tree_name(n, tname, sizeof(tname));
	tree_fd = openat(c->top_fd, tname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tree_fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* only the names this run made: anything else inside stays, and so do its directories */
	for (uint32_t d = 0; d < s->ndirs; d++) {
		dfd = base_open_beneath(tree_fd, s->dpath[d], O_RDONLY | O_DIRECTORY, 0);
		for (; f < s->nfiles && s->fdir[f] == d; f++) {
			if (dfd < 0)
				continue;
			file_name(s, f, false, name, sizeof(name));
			if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
				r = -errno;
			file_name(s, f, true, name, sizeof(name));
			if (s->fkind[f] == TK_SOURCE && unlinkat(dfd, name, 0) < 0 &&
			    errno != ENOENT && compiled)
				r = -errno;
		}
		if (dfd >= 0)
			close(dfd);
	}
	for (uint32_t d = s->ndirs - 1; d > 0; d--) {
		const char *last;

		dfd = base_parent_beneath(tree_fd, s->dpath[d], &last);
		if (dfd < 0 ? dfd != -ENOENT :
			      unlinkat(dfd, last, AT_REMOVEDIR) < 0 && errno != ENOENT)
			r = dfd < 0 ? dfd : -errno;
		parent_close(tree_fd, dfd);
	}
	close(tree_fd);
	if (unlinkat(c->top_fd, tname, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}
