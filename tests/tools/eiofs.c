/* A tiny in-memory FUSE filesystem that injects EIO or delays on command, for fsbench's tests. */
#define FUSE_USE_VERSION 35
#include <fuse.h>

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/*
 * Usage: eiofs MOUNTPOINT -f -s [--fail-after-bytes N] [--fail-fsync-after N] [--fail-unlink 1]
 *        [--delay-mkdir-ms N] [--delay-fsync-ms N]
 *
 * --fail-after-bytes N: once N bytes in total were written, every write that would go
 *   past N fails whole with EIO (and so does every later write), as a dying disk does.
 * --fail-fsync-after N: the first N fsync/fdatasync calls succeed, every later one
 *   returns EIO.
 * --fail-unlink 1: every unlink of a file fails with EROFS, as after an emergency
 *   read-only remount (cleanup that cannot finish).
 * --delay-mkdir-ms N, --delay-fsync-ms N: every mkdir that reaches the daemon (a new
 *   directory: the kernel answers EEXIST for a cached one itself), or every fsync, takes
 *   N ms longer, so a test can tell where a tool counts a call's time (App Overhead).
 * A negative value (the default) never fails. Faults are counted over the whole
 * filesystem, so the test can say "after about so much work" without knowing the order
 * in which fsbench's threads get there.
 *
 * Nodes live in one array searched by path: the tests make at most a few thousand files,
 * and the daemon runs single-threaded (-s), so there is no locking. File contents are not
 * kept (a file is its size, reads return zeros): fsbench never reads back what it wrote,
 * and a timed stream may write gigabytes.
 */

struct node {
	char *path;
	mode_t mode;
	size_t size;
	struct timespec atime, mtime, ctime;
	int open; /* open handles: an unlinked node is freed at its last release */
	bool unlinked;
};

static struct {
	long long fail_after_bytes, fail_fsync_after;
	int fail_unlink, delay_mkdir_ms, delay_fsync_ms;
	unsigned long long written, fsyncs, write_faults, fsync_faults;
	struct node **nodes;
	size_t n, cap;
} fs = { .fail_after_bytes = -1, .fail_fsync_after = -1 };

static const struct fuse_opt eiofs_opts[] = {
	{ "--fail-after-bytes=%lld", offsetof(__typeof__(fs), fail_after_bytes), 0 },
	{ "--fail-after-bytes %lld", offsetof(__typeof__(fs), fail_after_bytes), 0 },
	{ "--fail-fsync-after=%lld", offsetof(__typeof__(fs), fail_fsync_after), 0 },
	{ "--fail-fsync-after %lld", offsetof(__typeof__(fs), fail_fsync_after), 0 },
	{ "--fail-unlink=%d", offsetof(__typeof__(fs), fail_unlink), 0 },
	{ "--fail-unlink %d", offsetof(__typeof__(fs), fail_unlink), 0 },
	{ "--delay-mkdir-ms=%d", offsetof(__typeof__(fs), delay_mkdir_ms), 0 },
	{ "--delay-mkdir-ms %d", offsetof(__typeof__(fs), delay_mkdir_ms), 0 },
	{ "--delay-fsync-ms=%d", offsetof(__typeof__(fs), delay_fsync_ms), 0 },
	{ "--delay-fsync-ms %d", offsetof(__typeof__(fs), delay_fsync_ms), 0 },
	FUSE_OPT_END
};

/* Sleeps @ms milliseconds (none for @ms <= 0), whole even when a signal interrupts. */
static void delay_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static struct timespec now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

static struct node *node_find(const char *path, size_t *ret_idx)
{
	for (size_t i = 0; i < fs.n; i++)
		if (!strcmp(fs.nodes[i]->path, path)) {
			if (ret_idx)
				*ret_idx = i;
			return fs.nodes[i];
		}
	return NULL;
}

/* Whether @path lies directly in directory @dir ("/" or "/a/b"). */
static bool in_dir(const char *path, const char *dir)
{
	size_t dl = strcmp(dir, "/") ? strlen(dir) : 0;

	return !strncmp(path, dir, dl) && path[dl] == '/' && path[dl + 1] &&
	       !strchr(path + dl + 1, '/');
}

static int parent_ok(const char *path)
{
	const char *slash = strrchr(path, '/');
	char parent[4096];
	struct node *p;

	if (slash == path)
		return 0;
	if ((size_t)(slash - path) >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = 0;
	p = node_find(parent, NULL);
	if (!p)
		return -ENOENT;
	return S_ISDIR(p->mode) ? 0 : -ENOTDIR;
}

static int node_add(const char *path, mode_t mode, struct node **ret_node)
{
	struct node *nd;
	int r = parent_ok(path);

	if (r < 0)
		return r;
	if (node_find(path, NULL))
		return -EEXIST;
	if (fs.n == fs.cap) {
		size_t cap = fs.cap ? fs.cap * 2 : 64;
		struct node **a = realloc(fs.nodes, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		fs.nodes = a;
		fs.cap = cap;
	}
	nd = calloc(1, sizeof(*nd));
	if (!nd || !(nd->path = strdup(path))) {
		free(nd);
		return -ENOMEM;
	}
	nd->mode = mode;
	nd->atime = nd->mtime = nd->ctime = now();
	fs.nodes[fs.n++] = nd;
	if (ret_node)
		*ret_node = nd;
	return 0;
}

static void node_free(struct node *nd)
{
	free(nd->path);
	free(nd);
}

/* Takes @nd out of the namespace; its data lives on while a handle is open. */
static void node_unlink(size_t idx)
{
	struct node *nd = fs.nodes[idx];

	fs.nodes[idx] = fs.nodes[--fs.n];
	nd->unlinked = true;
	if (!nd->open)
		node_free(nd);
}

static int node_resize(struct node *nd, size_t size)
{
	nd->size = size;
	nd->mtime = nd->ctime = now();
	return 0;
}

static void *eiofs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* every write reaches the daemon when it is made, so its fault is the caller's error */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/* unlink of an open file really unlinks: no .fuse_hidden files left behind */
	cfg->hard_remove = 1;
	cfg->nullpath_ok = 1;
	return NULL;
}

static void eiofs_destroy(void *data)
{
	(void)data;
	fprintf(stderr,
		"eiofs: %llu bytes written, %llu fsyncs, %llu write faults, %llu fsync faults\n",
		fs.written, fs.fsyncs, fs.write_faults, fs.fsync_faults);
	for (size_t i = 0; i < fs.n; i++)
		node_free(fs.nodes[i]);
	free(fs.nodes);
}

static struct node *node_of(const char *path, struct fuse_file_info *fi)
{
	if (fi && fi->fh)
		return (struct node *)(uintptr_t)fi->fh;
	return path ? node_find(path, NULL) : NULL;
}

static int eiofs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct node *nd = node_of(path, fi);

	if (!nd)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->st_mode = nd->mode;
	st->st_nlink = S_ISDIR(nd->mode) ? 2 : !nd->unlinked;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_size = (off_t)nd->size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((nd->size + 511) / 512);
	st->st_atim = nd->atime;
	st->st_mtim = nd->mtime;
	st->st_ctim = nd->ctime;
	return 0;
}

/* nullpath_ok: readdir may get no path, so the directory's node rides in the handle */
static int eiofs_opendir(const char *path, struct fuse_file_info *fi)
{
	struct node *nd = node_find(path, NULL);

	if (!nd)
		return -ENOENT;
	if (!S_ISDIR(nd->mode))
		return -ENOTDIR;
	nd->open++;
	fi->fh = (uint64_t)(uintptr_t)nd;
	return 0;
}

static int eiofs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			 struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct node *dir = node_of(path, fi);

	(void)off;
	(void)flags;
	if (!dir || dir->unlinked)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	for (size_t i = 0; i < fs.n; i++)
		if (in_dir(fs.nodes[i]->path, dir->path))
			fill(buf, strrchr(fs.nodes[i]->path, '/') + 1, NULL, 0, 0);
	return 0;
}

static int eiofs_mkdir(const char *path, mode_t mode)
{
	delay_ms(fs.delay_mkdir_ms);
	return node_add(path, S_IFDIR | (mode & 07777), NULL);
}

static int eiofs_rmdir(const char *path)
{
	size_t idx;
	struct node *nd = node_find(path, &idx);

	if (!nd)
		return -ENOENT;
	if (!S_ISDIR(nd->mode))
		return -ENOTDIR;
	for (size_t i = 0; i < fs.n; i++)
		if (in_dir(fs.nodes[i]->path, path))
			return -ENOTEMPTY;
	node_unlink(idx);
	return 0;
}

static int eiofs_unlink(const char *path)
{
	size_t idx;
	struct node *nd = node_find(path, &idx);

	if (!nd)
		return -ENOENT;
	if (S_ISDIR(nd->mode))
		return -EISDIR;
	if (fs.fail_unlink)
		return -EROFS;
	node_unlink(idx);
	return 0;
}

static int eiofs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct node *nd = node_find(path, NULL);
	int r;

	if (!nd) {
		r = node_add(path, S_IFREG | (mode & 07777), &nd);
		if (r < 0)
			return r;
	} else if (fi->flags & O_EXCL) {
		return -EEXIST;
	} else if (fi->flags & O_TRUNC) {
		node_resize(nd, 0);
	}
	nd->open++;
	fi->fh = (uint64_t)(uintptr_t)nd;
	return 0;
}

static int eiofs_open(const char *path, struct fuse_file_info *fi)
{
	struct node *nd = node_find(path, NULL);

	if (!nd)
		return -ENOENT;
	if (S_ISDIR(nd->mode))
		return -EISDIR;
	if (fi->flags & O_TRUNC)
		node_resize(nd, 0);
	nd->open++;
	fi->fh = (uint64_t)(uintptr_t)nd;
	return 0;
}

static int eiofs_release(const char *path, struct fuse_file_info *fi)
{
	struct node *nd = node_of(path, fi);

	(void)path;
	if (nd && --nd->open == 0 && nd->unlinked)
		node_free(nd);
	return 0;
}

static int eiofs_read(const char *path, char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct node *nd = node_of(path, fi);

	if (!nd)
		return -ENOENT;
	if ((size_t)off >= nd->size)
		return 0;
	if (size > nd->size - (size_t)off)
		size = nd->size - (size_t)off;
	memset(buf, 0, size);
	return (int)size;
}

static int eiofs_write(const char *path, const char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct node *nd = node_of(path, fi);

	if (!nd)
		return -ENOENT;
	if (fs.fail_after_bytes >= 0 &&
	    fs.written + size > (unsigned long long)fs.fail_after_bytes) {
		/* stays failed: later small writes must not slip under the limit */
		fs.written = (unsigned long long)fs.fail_after_bytes + 1;
		fs.write_faults++;
		return -EIO;
	}
	(void)buf;
	if ((size_t)off + size > nd->size)
		nd->size = (size_t)off + size;
	nd->mtime = nd->ctime = now();
	fs.written += size;
	return (int)size;
}

static int eiofs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	delay_ms(fs.delay_fsync_ms);
	if (fs.fail_fsync_after >= 0 && fs.fsyncs >= (unsigned long long)fs.fail_fsync_after) {
		fs.fsync_faults++;
		return -EIO;
	}
	fs.fsyncs++;
	return 0;
}

static int eiofs_flush(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	return 0;
}

static int eiofs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct node *nd = node_of(path, fi);

	if (!nd)
		return -ENOENT;
	if (S_ISDIR(nd->mode))
		return -EISDIR;
	return node_resize(nd, (size_t)size);
}

static int eiofs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct node *nd = node_of(path, fi);

	if (!nd)
		return -ENOENT;
	nd->atime = tv[0].tv_nsec == UTIME_NOW ? now() : tv[0];
	nd->mtime = tv[1].tv_nsec == UTIME_NOW ? now() : tv[1];
	return 0;
}

static int eiofs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct node *nd = node_of(path, fi);

	if (!nd)
		return -ENOENT;
	nd->mode = (nd->mode & S_IFMT) | (mode & 07777);
	return 0;
}

static int eiofs_statfs(const char *path, struct statvfs *sv)
{
	unsigned long long used = 0;

	(void)path;
	for (size_t i = 0; i < fs.n; i++)
		used += (fs.nodes[i]->size + 4095) / 4096;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = 1u << 30; /* 4 TiB: never full, space is not what this fs tests */
	sv->f_bfree = sv->f_bavail = sv->f_blocks > used ? sv->f_blocks - used : 0;
	sv->f_files = 1 << 20;
	sv->f_ffree = sv->f_favail = sv->f_files - fs.n;
	sv->f_namemax = 255;
	return 0;
}

static const struct fuse_operations eiofs_ops = {
	.init = eiofs_init,
	.destroy = eiofs_destroy,
	.getattr = eiofs_getattr,
	.opendir = eiofs_opendir,
	.readdir = eiofs_readdir,
	.releasedir = eiofs_release,
	.mkdir = eiofs_mkdir,
	.rmdir = eiofs_rmdir,
	.unlink = eiofs_unlink,
	.create = eiofs_create,
	.open = eiofs_open,
	.release = eiofs_release,
	.read = eiofs_read,
	.write = eiofs_write,
	.fsync = eiofs_fsync,
	.flush = eiofs_flush,
	.truncate = eiofs_truncate,
	.utimens = eiofs_utimens,
	.chmod = eiofs_chmod,
	.statfs = eiofs_statfs,
};

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	int r;

	if (fuse_opt_parse(&args, &fs, eiofs_opts, NULL) < 0)
		return 2;
	/* the root directory: every path lookup starts here */
	if (node_add("/", S_IFDIR | 0755, NULL) < 0)
		return 1;
	r = fuse_main(args.argc, args.argv, &eiofs_ops, NULL);
	fuse_opt_free_args(&args);
	return r;
}
