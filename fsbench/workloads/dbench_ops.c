/* dbench's NBENCH operations on a local filesystem, as its fileio backend performs them. */
#include "fsbench/workloads/dbench.h"
#include "base/dirfd.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "base/mix64.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* NTCreateX's create options and dispositions, SMB's values */
#define FILE_DIRECTORY_FILE 0x0001
#define FILE_OPEN 1
#define FILE_CREATE 2
#define FILE_OVERWRITE 4
#define FILE_OVERWRITE_IF 5

/* The DOS attributes that Samba keeps in an xattr: -x reads and writes it as dbench does. */
#define DOS_XATTR "user.DosAttrib"
#define DOS_XATTR_LEN 44

/* The deepest Deltree goes: deeper trees are not the load's, and are left alone. */
#define NB_MAX_DEPTH 64

static int op_fail(struct fsb_thread *t, const struct nb_line *l, int e, const char *what,
		   const char *path)
{
	if (e)
		snprintf(t->errmsg, sizeof(t->errmsg), "client %d, loadfile line %u: %s %.200s: %s",
			 t->id, l->lineno, what, path, strerror(e));
	else
		snprintf(
			t->errmsg, sizeof(t->errmsg),
			"client %d, loadfile line %u: %s %.200s succeeded where the loadfile has it fail",
			t->id, l->lineno, what, path);
	return e ? -e : -EPROTO;
}

int nb_expand(const struct dbench_state *s, int id, uint32_t off, char *out)
{
	const char *p = nb_path(&s->load, off);
	char name[16];
	int nlen = snprintf(name, sizeof(name), "client%d", id);
	size_t n = 0;

	for (; *p; p++) {
		if (n + (size_t)nlen + 1 >= NB_PATH_MAX)
			return -ENAMETOOLONG;
		if (*p == NB_CLIENT_MARK) {
			memcpy(out + n, name, (size_t)nlen);
			n += (size_t)nlen;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = 0;
	return 0;
}

static struct nb_file *find_handle(struct nb_client *c, int64_t handle)
{
	for (int i = 0; i < NB_MAX_FILES; i++)
		if (c->files[i].handle && c->files[i].handle == handle)
			return &c->files[i];
	return NULL;
}

static int no_handle(struct fsb_thread *t, const struct nb_line *l)
{
	snprintf(t->errmsg, sizeof(t->errmsg),
		 "client %d, loadfile line %u: %s: handle %lld is not open", t->id, l->lineno,
		 nb_op_names[l->op], (long long)l->p[0]);
	return -EBADF;
}

static void xattr_fd_read(const struct dbench_cfg *cfg, int fd)
{
	char buf[DOS_XATTR_LEN];

	if (cfg->xattr)
		fgetxattr(fd, DOS_XATTR, buf, sizeof(buf));
}

/* dbench's write hook: a new DOS attribute, the same one for a fifth of the calls a second. */
static int xattr_fd_write(struct fsb_thread *t, const struct nb_line *l, int fd)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	struct nb_client *c = t->priv;
	char buf[DOS_XATTR_LEN] = { 0 };

	if (!cfg->xattr)
		return 0;
	fgetxattr(fd, DOS_XATTR, buf, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	c->rng = base_mix64(c->rng);
	if (c->rng % 10 < 2) {
		time_t now = time(NULL);

		memcpy(buf, &now, sizeof(now));
	} else {
		struct timeval tv;

		gettimeofday(&tv, NULL);
		memcpy(buf, &tv, sizeof(tv));
	}
	if (fsetxattr(fd, DOS_XATTR, buf, sizeof(buf), 0) < 0)
		return op_fail(t, l, errno, "setting xattr " DOS_XATTR " of", c->full);
	return 0;
}

/*
 * A loadfile path's directory, opened beneath -D through no symlink (base_parent_beneath),
 * and its last name: every call on the path is a *at() call on the two, which follows no
 * symlink that another user planted in a shared -D on the way.
 */
struct nb_at {
	int fd; /* or -errno: the path's error, as the call by path would have said it */
	const char *last;
};

static struct nb_at at_open(const struct fsb_thread *t, int dfd, const char *rel)
{
	const struct dbench_state *s = t->run->priv;
	struct nb_at a = { .fd = dfd, .last = rel };

	/* nothing another user planted can lie on the way: the call by path, as dbench's */
	if (s->private_dir && !strncmp(rel, "clients/", 8))
		return a;
	a.fd = base_parent_beneath(dfd, rel, &a.last);
	return a;
}

static void at_close(int dfd, struct nb_at *a)
{
	if (a->fd >= 0 && a->fd != dfd)
		close(a->fd);
	a->fd = -EBADF;
}

/* A call that could not be made: -1 with the parent's errno, as the call would return. */
static int at_fail(const struct nb_at *a)
{
	errno = -a->fd;
	return -1;
}

/* @a's directory, for reading its entries; NULL when it cannot be. */
static DIR *at_opendir(const struct nb_at *a)
{
	const char *slash = strrchr(a->last, '/');
	char dir[NB_PATH_MAX];
	int fd = -1;
	DIR *d;

	if (a->fd >= 0 && slash) { /* a private -D's whole path: its directory, in one call */
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - a->last), a->last);
		fd = base_open_beneath(a->fd, dir, O_RDONLY | O_DIRECTORY, 0);
	} else if (a->fd >= 0) {
		fd = openat(a->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	d = fd >= 0 ? fdopendir(fd) : NULL;

	if (fd >= 0 && !d)
		close(fd);
	return d;
}

/* -x's read after a found name: through the descriptor of what the stat saw, not the path. */
static void at_xattr_read(const struct nb_at *a)
{
	char buf[DOS_XATTR_LEN], proc[40];
	struct stat st;
	int fd = openat(a->fd, a->last, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	/* an O_PATH descriptor has no fgetxattr; its /proc link leads to it, not past a symlink */
	if (!fstat(fd, &st) && !S_ISLNK(st.st_mode)) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		getxattr(proc, DOS_XATTR, buf, sizeof(buf));
	}
	close(fd);
}

/* dbench's pvfs_resolve_name(): a stat, and when that fails, a case-blind directory scan. */
static void resolve_name(struct fsb_thread *t, const struct nb_at *a)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (a->fd < 0)
		return; /* the stat by path would fail, and so would the scan */
	if (fstatat(a->fd, a->last, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (cfg->xattr)
			at_xattr_read(a);
		return;
	}
	if (cfg->no_resolve)
		return;
	d = at_opendir(a);
	if (!d)
		return;
	const char *name = strrchr(a->last, '/');

	name = name ? name + 1 : a->last;
	while ((de = readdir(d)))
		if (!strcasecmp(de->d_name, name))
			break;
	closedir(d);
}

/* -S: the parent directory of @a to disk, as knfsd would after a directory change. */
static void sync_parent(const struct nb_at *a)
{
	int fd = a->fd < 0 ? -1 : openat(a->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fdatasync(fd);
		close(fd);
	}
}

static int nb_createx(struct fsb_thread *t, const struct nb_line *l, int dfd)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	struct nb_client *c = t->priv;
	int64_t options = l->p[0], disposition = l->p[1];
	int flags = O_RDWR | O_CLOEXEC, fd, i;
	struct nb_at a = at_open(t, dfd, c->rel);
	struct stat st;

	resolve_name(t, &a);
	if (cfg->sync_open)
		flags |= O_SYNC;
	if (disposition == FILE_CREATE) {
		if (cfg->stat_check && a.fd >= 0 &&
		    fstatat(a.fd, a.last, &st, AT_SYMLINK_NOFOLLOW) == 0)
			disposition = FILE_OPEN;
		else
			flags |= O_CREAT;
	}
	if (disposition == FILE_OVERWRITE || disposition == FILE_OVERWRITE_IF)
		flags |= O_CREAT | O_TRUNC;
	if (options & FILE_DIRECTORY_FILE) {
		/* dbench's "not strictly correct, but close enough" */
		if (a.fd >= 0 &&
		    (!cfg->stat_check || fstatat(a.fd, a.last, &st, AT_SYMLINK_NOFOLLOW) < 0))
			mkdirat(a.fd, a.last, 0700);
		flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	}
	/* the last name too: no symlink followed (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) */
	fd = a.fd < 0 ? a.fd : base_open_beneath(a.fd, a.last, flags & ~O_CLOEXEC, 0600);
	if (fd == -EISDIR)
		fd = base_open_beneath(a.fd, a.last, O_RDONLY | O_DIRECTORY, 0);
	at_close(dfd, &a);
	if (fd < 0)
		return l->ok ? op_fail(t, l, -fd, "NTCreateX: opening", c->full) : 0;
	if (!l->ok) {
		c->mismatches++;
		close(fd);
		return 0;
	}
	for (i = 0; i < NB_MAX_FILES && c->files[i].handle; i++)
		;
	if (i == NB_MAX_FILES) {
		close(fd);
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "client %d, loadfile line %u: NTCreateX %.200s: more than %d handles open",
			 t->id, l->lineno, c->full, NB_MAX_FILES);
		return -EMFILE;
	}
	c->files[i] = (struct nb_file){ .handle = (int)l->p[2], .fd = fd, .path = l->path };
	if (!c->files[i].handle)
		c->files[i].handle = INT_MIN; /* handle 0 is a free slot's: keep it findable */
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		return xattr_fd_write(t, l, fd);
	return 0;
}

/* A WriteX that failed: the handle named only now, outside the timed call's way. */
static int writex_fail(struct fsb_thread *t, const struct nb_line *l, int e, const char *why)
{
	char what[48];

	snprintf(what, sizeof(what), "handle %lld:", (long long)l->p[0]);
	return op_fail(t, l, e, why, what);
}

static int nb_writex(struct fsb_thread *t, const struct nb_line *l, struct nb_file *f)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	const struct dbench_state *s = t->run->priv;
	struct nb_client *c = t->priv;
	size_t size = (size_t)l->p[2], done = 0;
	int zero = 0;

	if (!cfg->fake_io)
		while (done < size) {
			ssize_t w = pwrite(f->fd, s->zero + done, size - done,
					   (off_t)l->p[1] + (off_t)done);

			if (w < 0)
				return writex_fail(t, l, errno, "WriteX: writing to");
			/* as dbench, ten writes in a row that write nothing are a failure */
			if (w == 0 && ++zero == 10)
				return writex_fail(t, l, ENOSPC, "WriteX: no progress writing to");
			done += (size_t)w;
		}
	if (cfg->do_fsync && !cfg->fake_io && fsync(f->fd) < 0)
		return writex_fail(t, l, errno, "WriteX: fsync (-F) of");
	c->io_bytes = size;
	return 0;
}

static int nb_readx(struct fsb_thread *t, const struct nb_line *l, struct nb_file *f)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	struct nb_client *c = t->priv;

	/* as dbench, a short or failed read is not an error: the file may be shorter */
	if (!cfg->fake_io && pread(f->fd, c->rbuf, (size_t)l->p[2], (off_t)l->p[1]) != l->p[3])
		c->short_reads++;
	c->io_bytes = (uint64_t)l->p[2];
	return 0;
}

static void nb_lock(struct nb_file *f, const struct nb_line *l, short type)
{
	struct flock lk = { .l_type = type,
			    .l_whence = SEEK_SET,
			    .l_start = (off_t)(uint32_t)l->p[1],
			    .l_len = (off_t)l->p[2] };

	/*
	 * dbench's clients are processes; here they are threads of one, whose POSIX locks
	 * would be one owner's. Open-file-description locks keep each handle its own owner.
	 */
	fcntl(f->fd, F_OFD_SETLKW, &lk);
}

static int nb_sfileinfo(struct fsb_thread *t, const struct nb_line *l, struct nb_file *f, int dfd)
{
	const struct dbench_state *s = t->run->priv;
	const struct dbench_cfg *cfg = t->run->cfg;
	struct nb_client *c = t->priv;
	struct timespec ts[2] = { { 0 } };
	struct stat st;

	xattr_fd_read(cfg, f->fd);
	if (fstat(f->fd, &st) < 0)
		return 0;
	/* dbench sets the times back by 10 and 12 s through the name the file was opened by */
	ts[0].tv_sec = st.st_atime - 10;
	ts[1].tv_sec = st.st_mtime - 12;
	if (nb_expand(s, t->id, f->path, c->rel2) == 0) {
		struct nb_at a = at_open(t, dfd, c->rel2);

		if (a.fd >= 0)
			utimensat(a.fd, a.last, ts, AT_SYMLINK_NOFOLLOW);
		at_close(dfd, &a);
	}
	if (!S_ISDIR(st.st_mode))
		return xattr_fd_write(t, l, f->fd);
	return 0;
}

static void nb_find_first(struct fsb_thread *t, const struct nb_line *l, const char *rel,
			  const struct nb_at *a)
{
	int64_t maxcnt = l->p[1];
	DIR *d;

	resolve_name(t, a);
	/* only a pattern lists its directory */
	if (!strpbrk(rel, "<>*?\""))
		return;
	d = at_opendir(a);
	if (!d)
		return;
	while (maxcnt && readdir(d))
		maxcnt--;
	closedir(d);
}

/* Unlink, Rmdir and Rename: the call's result must be the one the loadfile has. */
static int expect(struct fsb_thread *t, const struct nb_line *l, int r, const char *what,
		  const char *path)
{
	if ((r == 0) == l->ok)
		return 0;
	return op_fail(t, l, r == 0 ? 0 : errno, what, path);
}

static int nb_path_op(struct fsb_thread *t, const struct nb_line *l, int dfd)
{
	const struct dbench_cfg *cfg = t->run->cfg;
	struct nb_client *c = t->priv;
	struct nb_at a, b;
	struct stat st;
	int r = 0;

	if (l->op == NB_NTCREATEX)
		return nb_createx(t, l, dfd);
	a = at_open(t, dfd, c->rel);
	switch (l->op) {
	case NB_UNLINK:
		resolve_name(t, &a);
		r = expect(t, l, a.fd < 0 ? at_fail(&a) : unlinkat(a.fd, a.last, 0), "Unlink",
			   c->full);
		break;
	case NB_MKDIR:
		resolve_name(t, &a);
		if (a.fd >= 0 &&
		    (!cfg->stat_check || fstatat(a.fd, a.last, &st, AT_SYMLINK_NOFOLLOW) < 0))
			mkdirat(a.fd, a.last, 0777); /* dbench does not look at the result */
		at_close(dfd, &a);
		return 0;
	case NB_RMDIR:
		resolve_name(t, &a);
		if (cfg->stat_check &&
		    (a.fd < 0 || fstatat(a.fd, a.last, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     !S_ISDIR(st.st_mode))) {
			at_close(dfd, &a);
			return 0;
		}
		r = expect(t, l, a.fd < 0 ? at_fail(&a) : unlinkat(a.fd, a.last, AT_REMOVEDIR),
			   "Rmdir", c->full);
		break;
	case NB_RENAME:
		b = at_open(t, dfd, c->rel2);
		resolve_name(t, &a);
		resolve_name(t, &b);
		if (cfg->stat_check && l->ok &&
		    (a.fd < 0 || fstatat(a.fd, a.last, &st, AT_SYMLINK_NOFOLLOW) < 0))
			r = op_fail(t, l, ENOENT, "Rename", c->full);
		else
			r = expect(t, l,
				   a.fd < 0 ? at_fail(&a) :
				   b.fd < 0 ? at_fail(&b) :
					      renameat(a.fd, a.last, b.fd, b.last),
				   "Rename", c->full);
		if (!r && cfg->sync_dirs)
			sync_parent(&b);
		at_close(dfd, &b);
		at_close(dfd, &a);
		return r;
	case NB_DELTREE:
		if (a.fd >= 0)
			nb_deltree(a.fd, a.last, false, 0);
		break;
	case NB_QUERY_PATH_INFORMATION:
		resolve_name(t, &a);
		break;
	case NB_FIND_FIRST:
		nb_find_first(t, l, c->rel, &a);
		break;
	default:
		break;
	}
	if (!r && cfg->sync_dirs && (l->op == NB_UNLINK || l->op == NB_RMDIR))
		sync_parent(&a);
	at_close(dfd, &a);
	return r;
}

int nb_exec(struct fsb_thread *t, const struct nb_line *l)
{
	const struct dbench_state *s = t->run->priv;
	struct nb_client *c = t->priv;
	struct statvfs sv;
	struct stat st;
	struct nb_file *f;

	c->io_bytes = 0;
	if (l->path)
		return nb_path_op(t, l, s->dfd);
	if (l->op == NB_QUERY_FS_INFORMATION) {
		fstatvfs(s->dfd, &sv);
		return 0;
	}
	f = find_handle(c, l->p[0] ? l->p[0] : INT_MIN);
	if (!f)
		return no_handle(t, l);
	switch (l->op) {
	case NB_CLOSE:
		close(f->fd);
		f->handle = 0;
		return 0;
	case NB_READX:
		return nb_readx(t, l, f);
	case NB_WRITEX:
		return nb_writex(t, l, f);
	case NB_FLUSH:
		fsync(f->fd);
		return 0;
	case NB_QUERY_FILE_INFORMATION:
		fstat(f->fd, &st);
		xattr_fd_read(t->run->cfg, f->fd);
		return 0;
	case NB_SET_FILE_INFORMATION:
		return nb_sfileinfo(t, l, f, s->dfd);
	case NB_LOCKX:
		nb_lock(f, l, F_WRLCK);
		return 0;
	case NB_UNLOCKX:
		nb_lock(f, l, F_UNLCK);
		return 0;
	default:
		return no_handle(t, l);
	}
}

uint64_t nb_deltree(int parent, const char *name, bool rmdirs, int depth)
{
	struct dirent *de;
	uint64_t left = 0;
	DIR *d;
	int fd;

	if (depth > NB_MAX_DEPTH)
		return 1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : 1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 1;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			left += nb_deltree(fd, de->d_name, rmdirs, depth + 1);
		else if (unlinkat(fd, de->d_name, 0) < 0)
			left++;
	}
	closedir(d);
	if (rmdirs && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		left++;
	return left;
}

/*
 * @name beneath @pfd (@root/@sub@name), made now or already this user's alone: its
 * descriptor in *@ret_fd. 0 or -errno with @err.
 */
static int client_dir(int pfd, const char *root, const char *sub, const char *name, int *ret_fd,
		      char *err, size_t errlen)
{
	char why[512];
	struct stat st;
	int fd = base_dir_make(pfd, name, 0755, why, sizeof(why));

	*ret_fd = fd;
	if (fd >= 0)
		return 0;
	if (fd != -EEXIST)
		return errf(err, errlen, fd, "-D: creating %s/%s%s: %s", root, sub, name, why);
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* what it is only names it in the message: the refusal is the open's */
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return errf(err, errlen, -EINVAL,
			    "-D: %s/%s%s is %s, not a directory: not followed; remove it", root,
			    sub, name,
			    !fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode) ?
				    "a symbolic link" :
				    "a file");
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return errf(err, errlen, -e, "-D: opening %s/%s%s: %s", root, sub, name,
			    strerror(e));
	}
	const char *w = base_untrusted(&st, false, geteuid());

	if (w) {
		close(fd);
		return errf(err, errlen, -EPERM,
			    "-D: %s/%s%s: %s (owner uid %u, mode %04o): not used; remove it", root,
			    sub, name, w, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	*ret_fd = fd;
	return 0;
}

/*
 * -D may be a shared directory: a clients/ or clients/clientN that is a symbolic link
 * would take the load (and its Deltree) elsewhere. Only directories, or nothing, pass.
 */
int nb_check_tree(int dfd, const char *root, int nclients, char *err, size_t errlen)
{
	char name[32];
	struct stat st;
	const char *why;

	/* -D itself: as root, no other user may rename clients/ away and put theirs there */
	if (geteuid() == 0 && !fstat(dfd, &st) && (why = base_untrusted(&st, true, 0)))
		return errf(err, errlen, -EPERM,
			    "-D %s: %s (owner uid %u, mode %04o): another user could swap clients/ "
			    "for a tree of theirs that root would write and unlink in",
			    root, why, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	/*
	 * clients/ and each clients/clientN are made here, before any client runs, or must be
	 * this user's alone already: nothing in them (a symlink out of -D) is then another's.
	 * Each is checked through its descriptor (fstat), and clientN made beneath clients/'s.
	 */
	int cfd = -1, r = 0;

	for (int i = -1; i < nclients && !r; i++) {
		int pfd = i < 0 ? dfd : cfd, fd;

		if (i < 0)
			snprintf(name, sizeof(name), "clients");
		else
			snprintf(name, sizeof(name), "client%d", i);
		r = client_dir(pfd, root, i < 0 ? "" : "clients/", name, &fd, err, errlen);
		if (i < 0)
			cfd = fd;
		else if (fd >= 0)
			close(fd);
	}
	if (cfd >= 0)
		close(cfd);
	return r;
}

uint64_t nb_cleanup(int dfd, int id)
{
	char name[32];
	uint64_t left;
	int fd = openat(dfd, "clients", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : 1;
	snprintf(name, sizeof(name), "client%d", id);
	left = nb_deltree(fd, name, true, 0);
	close(fd);
	return left;
}

void nb_close_all(struct nb_client *c)
{
	for (int i = 0; i < NB_MAX_FILES; i++)
		if (c->files[i].handle) {
			close(c->files[i].fd);
			c->files[i].handle = 0;
		}
}
