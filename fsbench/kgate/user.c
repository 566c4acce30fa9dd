/* Privilege separation (user.h): the guest's side's user, its steps in a dropped child, their trees streamed back. */
#include "fsbench/kgate/user.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"

bool kg_user_in_range(unsigned long uid)
{
	return uid >= KG_UID_FIRST && uid <= KG_UID_LAST && uid != 65534 && uid != (uid_t)-1;
}

/* Whether /proc shows a process with @id among its uids or gids (real, effective, saved, fs). */
static bool id_running(unsigned id)
{
	char path[NAME_MAX + 16], line[256];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/proc");

	if (!d)
		return true; /* cannot tell: not free */
	while (!found && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if (!(f = fopen(path, "re")))
			continue; /* gone meanwhile */
		while (!found && fgets(line, sizeof(line), f)) {
			unsigned v[4];

			if (!strncmp(line, "State:", 6) && strchr(line, 'Z'))
				break; /* a zombie runs nothing: only its parent's wait is left */
			if ((!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4)) &&
			    sscanf(line + 4, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) == 4)
				found = v[0] == id || v[1] == id || v[2] == id || v[3] == id;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

/* Whether a range "name:first:count" of @path (/etc/subuid, /etc/subgid) holds @id. */
static bool id_subordinate(const char *path, unsigned id)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');
		unsigned long first, count;

		if (c && sscanf(c + 1, "%lu:%lu", &first, &count) == 2)
			found = id >= first && id - first < count;
	}
	fclose(f);
	return found;
}

/* Whether an entry directly in /tmp, /var/tmp or /dev/shm is owned by @id (user or group). */
static bool id_owns_files(unsigned id)
{
	static const char *const dirs[] = { "/tmp", "/var/tmp", "/dev/shm" };
	bool found = false;

	for (size_t i = 0; !found && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;
		struct stat st;

		if (!d)
			continue;
		while (!found && (de = readdir(d)))
			found = !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
				(st.st_uid == id || st.st_gid == id);
		closedir(d);
	}
	return found;
}

/* Whether @id is free to hand out: named by no database, used by nothing we can see. */
static bool id_free(unsigned id)
{
	char buf[4096];
	struct passwd pw, *pwr = NULL;
	struct group gr, *grr = NULL;

	if (getpwuid_r(id, &pw, buf, sizeof(buf), &pwr) || pwr ||
	    getgrgid_r(id, &gr, buf, sizeof(buf), &grr) || grr)
		return false; /* named, or the lookup failed: not ours to take */
	return !id_subordinate("/etc/subuid", id) && !id_subordinate("/etc/subgid", id) &&
	       !id_running(id) && !id_owns_files(id);
}

/* @name beneath @dfd: a directory root owns that no one else may write, made when absent. */
static int lock_dir_at(int dfd, const char *name, mode_t mode)
{
	struct stat st;
	int fd;

	if (mkdirat(dfd, name, mode) && errno != EEXIST)
		return -errno;
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* KG_UID_LOCK_DIR, held by descriptor (made root's when absent): its descriptor or -errno. */
static int lock_dir(void)
{
	int run = open("/run", O_RDONLY | O_DIRECTORY | O_CLOEXEC), top, fd;

	if (run < 0)
		return -errno;
	top = lock_dir_at(run, "fsbench", 0755);
	close(run);
	if (top < 0)
		return top;
	fd = lock_dir_at(top, "uid", 0700);
	close(top);
	return fd;
}

/*
 * The lock of @id beneath @ldfd: the descriptor, flock'ed, of the file that still has that
 * name (a releaser unlinks before it unlocks, so a lock on a file no longer named is not a
 * claim); -EWOULDBLOCK when another holds it; other -errno.
 */
static int lock_take(int ldfd, unsigned id)
{
	char name[32];
	struct stat a, b;

	snprintf(name, sizeof(name), "%u.lock", id);
	for (int tries = 0; tries < 8; tries++) {
		int fd = openat(ldfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600), r;

		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			r = -errno;
			close(fd);
			return r;
		}
		if (!fstat(fd, &a) && !fstatat(ldfd, name, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
	return -EWOULDBLOCK;
}

static void lock_drop(unsigned id, int fd)
{
	char name[32];
	int ldfd = lock_dir();

	snprintf(name, sizeof(name), "%u.lock", id);
	if (ldfd >= 0) {
		unlinkat(ldfd, name, 0);
		close(ldfd);
	}
	close(fd);
}

int kg_user_claim(struct kg_user *u, char *err, size_t errlen)
{
	const unsigned n = KG_UID_LAST - KG_UID_FIRST + 1;
	unsigned start, tried = 0;
	int ldfd, r = -EAGAIN;

	u->drop = geteuid() == 0;
	u->uid = 0;
	u->gid = 0;
	u->lock = -1;
	if (!u->drop)
		return 0;
	if ((ldfd = lock_dir()) < 0)
		return errf(err, errlen, ldfd, "claiming a uid for the gate: %s: %s",
			    KG_UID_LOCK_DIR, ldfd == -EPERM ? "not root's alone" : strerror(-ldfd));
	/* from a random place: concurrent claims seldom meet on the same lock */
	if (getrandom(&start, sizeof(start), 0) != (ssize_t)sizeof(start))
		start = (unsigned)getpid();
	/* a bound on the work, not on the range: each refusal costs a scan of /proc */
	for (unsigned i = 0; i < n && tried < 64; i++) {
		unsigned id = KG_UID_FIRST + (start + i) % n;
		int fd;

		if (!kg_user_in_range(id))
			continue;
		if ((fd = lock_take(ldfd, id)) == -EWOULDBLOCK)
			continue;
		if (fd < 0) {
			r = errf(err, errlen, fd, "claiming a uid for the gate: %s/%u.lock: %s",
				 KG_UID_LOCK_DIR, id, strerror(-fd));
			break;
		}
		tried++;
		if (!id_free(id)) { /* checked under the lock: no other claim can start it now */
			lock_drop(id, fd);
			continue;
		}
		u->uid = (uid_t)id;
		u->gid = (gid_t)id;
		u->lock = fd;
		r = 0;
		break;
	}
	close(ldfd);
	if (r == -EAGAIN)
		errf(err, errlen, r,
		     "claiming a uid for the gate: none free of %u..%u after %u tries (named, "
		     "running or claimed)",
		     KG_UID_FIRST, KG_UID_LAST, tried);
	return r;
}

bool kg_user_kill(const struct kg_user *u)
{
	if (!u->drop || u->lock < 0)
		return true;
	for (int pass = 0; pass < 10 && id_running(u->uid); pass++) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			if (setgroups(0, NULL) || setresgid(u->gid, u->gid, u->gid) ||
			    setresuid(u->uid, u->uid, u->uid))
				_exit(1);
			kill(-1, SIGKILL); /* all this uid may signal: its own, but itself */
			_exit(0);
		}
		while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (pass)
			poll(NULL, 0, 10 * pass); /* a killed process is gone once reaped */
	}
	return !id_running(u->uid);
}

void kg_user_release(struct kg_user *u)
{
	if (!u->drop || u->lock < 0)
		return;
	/* a guest that escaped QEMU may have left a process behind: it must not meet the next */
	if (!kg_user_kill(u))
		close(u->lock); /* unlocked but still named: the next claim scans and skips it */
	else
		lock_drop(u->uid, u->lock);
	u->lock = -1;
}

int kg_user_give(const struct kg_user *u, int dfd)
{
	return u->drop && fchown(dfd, u->uid, u->gid) ? -errno : 0;
}

/*
 * What a step keeps of the host's mounts: "/" and where the system's programs, libraries,
 * configuration, devices and temporary files are (the tools a step runs are found on PATH
 * below these). A mount elsewhere, or below one of these (a suite's scratch filesystem at
 * /tmp/x/mnt), is detached in the step's namespace.
 */
static const char *const kept_mounts[] = { "/",		  "/usr",    "/usr/local", "/etc",
					   "/bin",	  "/sbin",   "/lib",	   "/lib64",
					   "/lib32",	  "/libx32", "/opt",	   "/proc",
					   "/sys",	  "/dev",    "/dev/pts",   "/dev/shm",
					   "/dev/mqueue", "/run",    "/tmp",	   "/var",
					   "/var/tmp",	  NULL };

/* mountinfo's escaped octal (\040 for a space) undone in place. */
static void mount_unescape(char *s)
{
	char *o = s;

	for (; *s; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else
			*o = *s;
	}
	*o = 0;
}

static bool mount_kept(const char *point)
{
	for (size_t i = 0; kept_mounts[i]; i++)
		if (!strcmp(point, kept_mounts[i]))
			return true;
	return false;
}

/*
 * The mount points of this namespace (/proc/self/mountinfo's fifth field, unescaped) that
 * are not kept, in mountinfo's order (parents before children): calls @fn on each, last
 * first when @reverse. The count, or -1 when mountinfo cannot be read.
 */
static int mounts_other(bool reverse, void (*fn)(const char *))
{
	char line[PATH_MAX * 2 + 512], *points[4096];
	int n = 0, others = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char point[PATH_MAX * 2 + 1];

		if (sscanf(line, "%*s %*s %*s %*s %s", point) != 1)
			continue;
		mount_unescape(point);
		if (mount_kept(point))
			continue;
		others++;
		if (fn && n < (int)(sizeof(points) / sizeof(points[0])))
			points[n++] = strdup(point);
	}
	fclose(f);
	for (int i = 0; i < n; i++) {
		const char *p = points[reverse ? n - 1 - i : i];

		if (p)
			fn(p);
	}
	for (int i = 0; i < n; i++)
		free(points[i]);
	return others;
}

/* Lazily: a busy one (the step's own directory, held by descriptor) goes once let go. */
static void mount_detach(const char *point)
{
	umount2(point, MNT_DETACH | UMOUNT_NOFOLLOW);
}

/* What the dropped step sends back over its pipe, in one write (below PIPE_BUF). */
struct report {
	int r;
	struct kg_user_ran ran;
	char err[2048];
};

/* The step itself: the init of the new PID namespace, dropped. Never returns. */
static void step_child(const struct kg_user *u, int dfd, kg_user_fn fn, void *arg, int rep_w,
		       struct report *rep)
{
	struct pollfd p = { .fd = rep_w, .events = 0 };
	char line[256];
	FILE *f;

	if (fchdir(dfd))
		rep->r = errf(rep->err, sizeof(rep->err), -errno,
			      "entering the step's directory: %s", strerror(errno));
	else if (setgroups(0, NULL) || setresgid(u->gid, u->gid, u->gid) ||
		 setresuid(u->uid, u->uid, u->uid) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		rep->r = errf(rep->err, sizeof(rep->err), -errno, "becoming uid %u gid %u: %s",
			      (unsigned)u->uid, (unsigned)u->gid, strerror(errno));
	/* after the change, which clears it; and fsbench died meanwhile? (its pipe end is gone) */
	else if (prctl(PR_SET_PDEATHSIG, SIGKILL) || (poll(&p, 1, 0) > 0 && (p.revents & POLLERR)))
		_exit(127);
	else {
		rep->ran.dropped = true;
		rep->ran.uid = getuid();
		rep->ran.gid = getgid();
		/* as the kernel sees it, not as this code meant it */
		if ((f = fopen("/proc/self/status", "re"))) {
			while (fgets(line, sizeof(line), f))
				if (!strncmp(line, "NoNewPrivs:", 11))
					rep->ran.no_new_privs = atoi(line + 11) == 1;
			fclose(f);
		}
		rep->ran.pid_ns = rep->ran.pid_ns && getpid() == 1;
		rep->ran.other_mounts = rep->ran.mnt_ns ? mounts_other(false, NULL) : -1;
		rep->r = fn(dfd, ".", arg, rep->err, sizeof(rep->err));
	}
	if (write(rep_w, rep, sizeof(*rep)) != (ssize_t)sizeof(*rep))
		_exit(126);
	_exit(0);
}

/*
 * Between fsbench and the step: dies with fsbench's thread, makes the namespaces (as root,
 * single-threaded: unshare needs both), forks the step into them and passes on its end.
 * fork(), not a raw clone, so that the step may allocate: glibc's fork resets malloc's locks
 * that another of fsbench's threads may have held. Never returns.
 */
static void step_parent(const struct kg_user *u, int dfd, kg_user_fn fn, void *arg, int rep_r,
			int rep_w, pid_t fsbench)
{
	struct report *rep = calloc(1, sizeof(*rep));
	int st;
	pid_t pid;

	close(rep_r);
	if (!rep || prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != fsbench)
		_exit(127);
	/*
	 * A private mount namespace: nothing the step might mount is seen outside, and of the
	 * host's mounts only the system's: a copy of a suite's scratch mount would keep its
	 * superblock and loop device busy after the suite unmounts it (issue 40). Private
	 * first, so that the detaching does not propagate back to the host.
	 */
	rep->ran.mnt_ns = !unshare(CLONE_NEWNS) &&
			  !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	if (rep->ran.mnt_ns)
		mounts_other(true, mount_detach);
	rep->ran.pid_ns = !unshare(CLONE_NEWPID);
	pid = fork();
	if (pid == 0)
		step_child(u, dfd, fn, arg, rep_w, rep);
	close(rep_w);
	if (pid < 0)
		_exit(127);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

int kg_user_run(const struct kg_user *u, int dfd, const char *dir, kg_user_fn fn, void *arg,
		struct kg_user_ran *ret, char *err, size_t errlen)
{
	struct report *rep;
	int p[2], st = 0, r;
	size_t got = 0;
	pid_t pid, self = getpid();

	memset(ret, 0, sizeof(*ret));
	if (!u->drop)
		return fn(dfd, dir, arg, err, errlen);
	if (!(rep = calloc(1, sizeof(*rep))))
		return errf(err, errlen, -ENOMEM, "%s: %s", dir, strerror(ENOMEM));
	if (pipe2(p, O_CLOEXEC)) {
		r = errf(err, errlen, -errno, "%s: pipe: %s", dir, strerror(errno));
		free(rep);
		return r;
	}
	pid = fork();
	if (pid == 0)
		step_parent(u, dfd, fn, arg, p[0], p[1], self);
	close(p[1]);
	while (pid > 0 && got < sizeof(*rep)) {
		ssize_t n = read(p[0], (char *)rep + got, sizeof(*rep) - got);

		if (n > 0)
			got += (size_t)n;
		else if (n == 0 || errno != EINTR)
			break;
	}
	close(p[0]);
	if (pid < 0)
		r = errf(err, errlen, -errno, "%s: fork: %s", dir, strerror(errno));
	else {
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		/* its PID namespace ended with it; without one, what it started ends here */
		if (!kg_user_kill(u) && got == sizeof(*rep) && !rep->r)
			rep->r = errf(rep->err, sizeof(rep->err), -EBUSY,
				      "%s: processes of uid %u outlive the step", dir,
				      (unsigned)u->uid);
		if (got == sizeof(*rep)) {
			*ret = rep->ran;
			r = rep->r;
			if (r)
				base_strcpy(err, errlen, rep->err);
		} else
			r = errf(err, errlen, -ECHILD,
				 "%s: the step as uid %u ended without an answer (%s %d)", dir,
				 (unsigned)u->uid, WIFSIGNALED(st) ? "signal" : "exit status",
				 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	free(rep);
	return r;
}

/* Whether the relative symlink @target, in a directory @depth below the top, stays in the tree. */
static bool link_inside(const char *target, int depth)
{
	bool down = false; /* ".." only leads: after a name it could climb out of a linked dir */

	if (!target[0] || target[0] == '/')
		return false;
	for (const char *c = target; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && !strncmp(c, "..", 2)) {
			if (down || --depth < 0)
				return false;
		} else if (n && !(n == 1 && c[0] == '.'))
			down = true;
		c += n + (c[n] == '/');
	}
	return true;
}

/*
 * The stream a tree comes back in (kg_user_stream_back): one header an entry, depth first,
 * a directory's entries after its own header and before its 'u'; all in host order, as
 * both ends are this program on this host.
 */
enum { REC_DIR = 'd', REC_FILE = 'f', REC_LINK = 'l', REC_UP = 'u', REC_END = 'e' };
struct rec {
	uint8_t type;
	uint8_t pad;
	uint16_t namelen; /* the name's bytes follow the header, then @size bytes of content */
	uint32_t mode;
	uint64_t size; /* a file's bytes, a link's target's */
};
/* The deepest a tree may go: a kernel's modules are 8 below the top. */
#define STREAM_DEPTH 64

static int send_all(int out, const void *p, size_t n)
{
	for (size_t done = 0; done < n;) {
		/* a socket, not a pipe: root stopping reading is EPIPE here, never SIGPIPE */
		ssize_t w = send(out, (const char *)p + done, n - done, MSG_NOSIGNAL);

		if (w > 0)
			done += (size_t)w;
		else if (w < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

struct send {
	int out;
	char *buf; /* STREAM_BUF bytes */
	char *err;
	size_t errlen;
};
#define STREAM_BUF ((size_t)1 << 20)

static int send_rec(struct send *s, int type, const char *name, mode_t mode, uint64_t size)
{
	struct rec h = { .type = (uint8_t)type,
			 .namelen = (uint16_t)(name ? strlen(name) : 0),
			 .mode = (uint32_t)mode,
			 .size = size };
	int r = send_all(s->out, &h, sizeof(h));

	return r || !h.namelen ? r : send_all(s->out, name, h.namelen);
}

static int send_dir(struct send *s, int dfd, const char *path, int depth);

/* One entry of @dfd: its header and content, a directory's entries after it. */
static int send_entry(struct send *s, int dfd, const char *path, const char *name, int depth)
{
	char sub[PATH_MAX];
	struct stat st;
	int fd = -1, r = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errf(s->err, s->errlen, -errno, "%s/%s: %s", path, name, strerror(errno));
	snprintf(sub, sizeof(sub), "%s/%s", path, name);
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlinkat(dfd, name, s->buf, PATH_MAX);

		if (n < 0 || n >= PATH_MAX)
			return errf(s->err, s->errlen, n < 0 ? -errno : -ENAMETOOLONG, "%s: %s",
				    sub, strerror(n < 0 ? errno : ENAMETOOLONG));
		if (!(r = send_rec(s, REC_LINK, name, 0, (uint64_t)n)))
			r = send_all(s->out, s->buf, (size_t)n);
		return r;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return errf(s->err, s->errlen, -EPERM, "%s is %s", sub,
			    S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device node" :
			    S_ISFIFO(st.st_mode)		       ? "a FIFO" :
									 "a socket");
	/* O_NONBLOCK: a FIFO swapped in since the fstatat does not hang the step */
	fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0 || fstat(fd, &st))
		r = errf(s->err, s->errlen, -errno, "opening %s: %s", sub, strerror(errno));
	else if (S_ISDIR(st.st_mode)) {
		if (!(r = send_rec(s, REC_DIR, name, st.st_mode, 0)) &&
		    !(r = send_dir(s, fd, sub, depth + 1)))
			r = send_rec(s, REC_UP, NULL, 0, 0);
	} else if (!S_ISREG(st.st_mode))
		r = errf(s->err, s->errlen, -EPERM, "%s is no longer what it was a moment ago",
			 sub);
	else if (!(r = send_rec(s, REC_FILE, name, st.st_mode, (uint64_t)st.st_size))) {
		/* exactly the size announced: a file that changes meanwhile is an error */
		for (off_t left = st.st_size; !r && left > 0;) {
			ssize_t n = read(fd, s->buf,
					 left < (off_t)STREAM_BUF ? (size_t)left : STREAM_BUF);

			if (n > 0) {
				r = send_all(s->out, s->buf, (size_t)n);
				left -= n;
			} else if (n == 0 || errno != EINTR)
				r = errf(s->err, s->errlen, n ? -errno : -EIO, "reading %s: %s",
					 sub, n ? strerror(errno) : "it shrank while read");
		}
	}
	if (fd >= 0)
		close(fd);
	return r;
}

static int send_dir(struct send *s, int dfd, const char *path, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if (depth > STREAM_DEPTH)
		return errf(s->err, s->errlen, -ELOOP, "%s: more than %d directories deep", path,
			    STREAM_DEPTH);
	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) < 0 || !(d = fdopendir(fd))) {
		r = errf(s->err, s->errlen, -errno, "reading %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	while (!r && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r = send_entry(s, dfd, path, de->d_name, depth);
	closedir(d);
	return r;
}

struct send_step {
	int out;
};

/* The sending step, as the step's user: its tree @dfd onto the socket, then REC_END. */
static int send_step(int dfd, const char *dir, void *arg, char *err, size_t errlen)
{
	const struct send_step *a = arg;
	struct send s = { .out = a->out, .buf = malloc(STREAM_BUF), .err = err, .errlen = errlen };
	int r;

	if (!s.buf)
		return errf(err, errlen, -ENOMEM, "%s: %s", dir, strerror(ENOMEM));
	r = send_dir(&s, dfd, dir, 0);
	if (!r)
		r = send_rec(&s, REC_END, NULL, 0, 0);
	if (r && !err[0])
		errf(err, errlen, r, "sending %s: %s", dir, strerror(-r));
	free(s.buf);
	return r;
}

/* Root's end: what it has read and made so far, against @rules. */
struct recv {
	const struct kg_user_rules *rules;
	int in;
	long entries;
	long long bytes;
	bool eof; /* the stream ended early: the sender's error says why, when it has one */
	char *buf; /* STREAM_BUF bytes */
	char *err;
	size_t errlen;
};

static int write_all(int fd, const void *p, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, (const char *)p + done, n - done);

		if (w > 0)
			done += (size_t)w;
		else if (w < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

/* Exactly @n bytes from the stream; -EPROTO when it ends before. */
static int recv_all(struct recv *rv, void *p, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t got = read(rv->in, (char *)p + done, n - done);

		if (got > 0)
			done += (size_t)got;
		else if (got == 0) {
			rv->eof = true;
			return -EPROTO;
		} else if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* @size bytes of the stream into @fd (root's new file). */
static int recv_copy(struct recv *rv, int fd, uint64_t size)
{
	while (size > 0) {
		size_t n = size < STREAM_BUF ? (size_t)size : STREAM_BUF;
		int r = recv_all(rv, rv->buf, n);

		if (r || (r = write_all(fd, rv->buf, n)))
			return r;
		size -= n;
	}
	return 0;
}

/* A name the stream may make: one component, not "." or "..", no NUL, at most NAME_MAX. */
static bool stream_name_ok(const char *name, size_t n)
{
	return n > 0 && n <= NAME_MAX && !memchr(name, '/', n) && !memchr(name, 0, n) &&
	       !(n == 1 && name[0] == '.') && !(n == 2 && !memcmp(name, "..", 2));
}

static int recv_dir(struct recv *rv, int dfd, const char *path, int depth);

/* The entry of header @h beneath @dfd, made by root, fresh. */
static int recv_entry(struct recv *rv, int dfd, const char *path, const struct rec *h, int depth)
{
	char name[NAME_MAX + 1], sub[PATH_MAX];
	const struct kg_user_rules *ru = rv->rules;
	int fd, r;

	if (!h->namelen || h->namelen > NAME_MAX || recv_all(rv, name, h->namelen))
		return errf(rv->err, rv->errlen, -EBADMSG, "%s: a name of %u bytes", path,
			    h->namelen);
	name[h->namelen] = 0;
	if (!stream_name_ok(name, h->namelen))
		return errf(rv->err, rv->errlen, -EBADMSG,
			    "%s: a name that is not one plain component", path);
	snprintf(sub, sizeof(sub), "%s/%s", path, name);
	if (++rv->entries > ru->max_entries)
		return errf(rv->err, rv->errlen, -E2BIG, "%s: more than %ld entries", sub,
			    ru->max_entries);
	if (h->type == REC_LINK) {
		if (!ru->links)
			return errf(rv->err, rv->errlen, -EPERM, "%s is a symlink", sub);
		if (h->size == 0 || h->size >= PATH_MAX || recv_all(rv, rv->buf, h->size))
			return errf(rv->err, rv->errlen, -EBADMSG,
				    "%s: a link target of %llu bytes", sub,
				    (unsigned long long)h->size);
		rv->buf[h->size] = 0;
		if (strlen(rv->buf) != h->size || !link_inside(rv->buf, depth))
			return errf(rv->err, rv->errlen, -EPERM,
				    "%s is a symlink leading outside the tree", sub);
		return symlinkat(rv->buf, dfd, name) ?
			       errf(rv->err, rv->errlen, -errno, "symlink %s: %s", sub,
				    strerror(errno)) :
			       0;
	}
	if (h->type == REC_DIR) {
		if (!ru->subdirs || depth >= STREAM_DEPTH)
			return errf(rv->err, rv->errlen, -EPERM, "%s is a directory", sub);
		if (mkdirat(dfd, name, 0700) ||
		    (fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return errf(rv->err, rv->errlen, -errno, "mkdir %s: %s", sub,
				    strerror(errno));
		r = recv_dir(rv, fd, sub, depth + 1);
		/* no setuid, setgid or sticky bit, nothing others may write */
		if (!r && fchmod(fd, h->mode & 0755))
			r = errf(rv->err, rv->errlen, -errno, "chmod %s: %s", sub, strerror(errno));
		close(fd);
		return r;
	}
	if (h->type != REC_FILE)
		return errf(rv->err, rv->errlen, -EBADMSG, "%s: an entry of type %u", sub, h->type);
	/* no package or result has a use for one: refused, as a sign of what made the tree */
	if (h->mode & (S_ISUID | S_ISGID))
		return errf(rv->err, rv->errlen, -EPERM, "%s is a setuid or setgid file", sub);
	if (ru->max_file_bytes && h->size > (uint64_t)ru->max_file_bytes)
		return errf(rv->err, rv->errlen, -EFBIG, "%s is larger than its bound", sub);
	if (ru->max_total_bytes && h->size > (uint64_t)(ru->max_total_bytes - rv->bytes))
		return errf(rv->err, rv->errlen, -EFBIG, "%s: the tree is larger than %lld bytes",
			    sub, ru->max_total_bytes);
	rv->bytes += (long long)h->size;
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errf(rv->err, rv->errlen, -errno, "creating %s: %s", sub, strerror(errno));
	if ((r = recv_copy(rv, fd, h->size)) == -EPROTO)
		errf(rv->err, rv->errlen, r, "%s: the stream ended inside it", sub);
	else if (r || (r = fchmod(fd, h->mode & 0755) ? -errno : 0))
		errf(rv->err, rv->errlen, r, "writing %s: %s", sub, strerror(-r));
	if (close(fd) && !r)
		r = errf(rv->err, rv->errlen, -errno, "writing %s: %s", sub, strerror(errno));
	return r;
}

/* The entries of one directory, up to its REC_UP (REC_END at the top). */
static int recv_dir(struct recv *rv, int dfd, const char *path, int depth)
{
	for (;;) {
		struct rec h;
		int r = recv_all(rv, &h, sizeof(h));

		if (r)
			return errf(rv->err, rv->errlen, r, "%s: %s", path,
				    r == -EPROTO ? "the stream ended before the tree did" :
						   strerror(-r));
		if (h.type == REC_UP || h.type == REC_END) {
			if ((h.type == REC_UP) != (depth > 0) || h.namelen || h.size)
				return errf(rv->err, rv->errlen, -EBADMSG,
					    "%s: the stream's tree ends out of place", path);
			return 0;
		}
		if ((r = recv_entry(rv, dfd, path, &h, depth)))
			return r;
	}
}

/* A step run in a thread (kg_user_run waits for it) while root reads what it sends. */
struct stream_run {
	const struct kg_user *u;
	int dfd, out, in;
	const char *path;
	kg_user_fn fn;
	void *arg;
	struct kg_user_ran ran;
	int r;
	char err[2048];
};

static void *stream_thread(void *arg)
{
	struct stream_run *s = arg;

	s->r = kg_user_run(s->u, s->dfd, s->path, s->fn, s->arg, &s->ran, s->err, sizeof(s->err));
	/*
	 * The step is over: what it sent is queued, and root reads no more than that. Not the
	 * end of its end: a tool may have handed that on (over a unix socket) to a process
	 * that outlives the step, which would hold root's reading open, and append to it.
	 */
	shutdown(s->in, SHUT_RD);
	close(s->out);
	return NULL;
}

/*
 * Starts @s's step (its fields set but out) in a thread, with *@ret_in the end root reads
 * and *@wfd (where the step's fn finds it) the end it writes: set before the thread starts,
 * as a dropped step's memory is copied when it forks. A socket, so that either end stopping
 * early is an error at the other, not a signal. 0 or -errno with @err.
 */
static int stream_start(struct stream_run *s, int *wfd, pthread_t *t, int *ret_in, char *err,
			size_t errlen)
{
	int sp[2], r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp))
		return errf(err, errlen, -errno, "%s: socketpair: %s", s->path, strerror(errno));
	s->out = *wfd = sp[1];
	s->in = sp[0];
	if ((r = -pthread_create(t, NULL, stream_thread, s))) {
		close(sp[0]);
		close(sp[1]);
		return errf(err, errlen, r, "%s: a thread: %s", s->path, strerror(-r));
	}
	*ret_in = sp[0];
	return 0;
}

int kg_user_stream_back(const struct kg_user *u, int dfd, const char *path, int odfd,
			const char *opath, const struct kg_user_rules *rules, char *err,
			size_t errlen)
{
	struct stream_run *s = calloc(1, sizeof(*s));
	struct send_step a = { .out = -1 };
	struct recv rv = { .rules = rules, .buf = malloc(STREAM_BUF), .err = err, .errlen = errlen };
	pthread_t t;
	int r;

	if (!s || !rv.buf) {
		r = errf(err, errlen, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	*s = (struct stream_run){ .u = u, .dfd = dfd, .path = path, .fn = send_step, .arg = &a };
	if ((r = stream_start(s, &a.out, &t, &rv.in, err, errlen)))
		goto out;
	r = recv_dir(&rv, odfd, opath, 0);
	/* on an error, the sender's next write fails: it ends (closed once the thread is done) */
	shutdown(rv.in, SHUT_RDWR);
	pthread_join(t, NULL);
	close(rv.in);
	if (s->r && (!r || rv.eof))
		r = errf(err, errlen, s->r, "%s", s->err);
	else if (!r && fchmod(odfd, 0755))
		r = errf(err, errlen, -errno, "chmod %s: %s", opath, strerror(errno));
out:
	free(s);
	free(rv.buf);
	return r;
}

int kg_user_run_into(const struct kg_user *u, int dfd, const char *dir, kg_user_fn fn, void *arg,
		     int *wfd, int out, long long max_bytes, struct kg_user_ran *ret, char *err,
		     size_t errlen)
{
	struct stream_run *s = calloc(1, sizeof(*s));
	struct recv rv = { .buf = malloc(STREAM_BUF) };
	long long total = 0;
	pthread_t t;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!s || !rv.buf) {
		r = errf(err, errlen, -ENOMEM, "%s: %s", dir, strerror(ENOMEM));
		goto out;
	}
	*s = (struct stream_run){ .u = u, .dfd = dfd, .path = dir, .fn = fn, .arg = arg };
	if ((r = stream_start(s, wfd, &t, &rv.in, err, errlen)))
		goto out;
	for (ssize_t n = 1; !r && n > 0;) {
		if ((n = read(rv.in, rv.buf, STREAM_BUF)) < 0 && errno != EINTR)
			r = errf(err, errlen, -errno, "%s: reading the step's output: %s", dir,
				 strerror(errno));
		else if (n > 0 && (total += n) > max_bytes)
			r = errf(err, errlen, -EFBIG,
				 "%s: the step's output is larger than %lld bytes", dir, max_bytes);
		else if (n > 0 && (r = write_all(out, rv.buf, (size_t)n)))
			errf(err, errlen, r, "%s: writing the step's output: %s", dir,
			     strerror(-r));
		else if (n < 0)
			n = 1; /* EINTR: again */
	}
	shutdown(rv.in, SHUT_RDWR);
	pthread_join(t, NULL);
	close(rv.in);
	*ret = s->ran;
	if (s->r && !r) /* root's own error first: the step's may be its consequence */
		r = errf(err, errlen, s->r, "%s", s->err);
out:
	free(s);
	free(rv.buf);
	return r;
}

int kg_user_note(int dfd, const char *name, const char *step, const struct kg_user_ran *ran)
{
	char line[256];
	int fd, r = 0, n;

	if (!ran->dropped)
		return 0;
	n = snprintf(line, sizeof(line),
		     "%s: uid %u gid %u no_new_privs %d pid_ns %s mnt_ns %s other_mounts %d\n",
		     step, (unsigned)ran->uid, (unsigned)ran->gid, ran->no_new_privs,
		     ran->pid_ns ? "own" : "shared", ran->mnt_ns ? "own" : "shared",
		     ran->other_mounts);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, line, (size_t)n) != n)
		r = -EIO;
	if (close(fd) && !r)
		r = -errno;
	return r;
}
