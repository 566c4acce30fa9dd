/* Privilege separation (user.h): the guest's side's user, its steps in a dropped child, their trees taken back. */
#include "fsbench/kgate/user.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"

void kg_user_pick(struct kg_user *u)
{
	const struct passwd *pw = getpwnam("fsbench");
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	char *end;

	u->drop = geteuid() == 0;
	u->uid = 0;
	u->gid = 0;
	if (!u->drop)
		return;
	if (pw && pw->pw_uid) {
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
		return;
	}
	if (su && sg && (u->uid = (uid_t)strtoul(su, &end, 10)) && !*end &&
	    (u->gid = (gid_t)strtoul(sg, &end, 10)) && !*end)
		return;
	pw = getpwnam("nobody");
	u->uid = pw ? pw->pw_uid : 65534;
	u->gid = pw ? pw->pw_gid : 65534;
}

int kg_user_give(const struct kg_user *u, int dfd)
{
	return u->drop && fchown(dfd, u->uid, u->gid) ? -errno : 0;
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
	/* a private mount namespace: nothing the step might mount is seen outside, nor ours in */
	rep->ran.mnt_ns = !unshare(CLONE_NEWNS) &&
			  !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
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

struct walk {
	const struct kg_user_rules *rules;
	long entries;
	char *err;
	size_t errlen;
};

static int refuse(struct walk *w, int e, const char *path, const char *name, const char *why)
{
	return errf(w->err, w->errlen, e, "%s/%s is %s", path, name, why);
}

/* One entry @name of @dfd (root's 0700 by now), checked and made root's. */
static int reclaim_dir(struct walk *w, int dfd, const char *path, int depth);

static int reclaim_entry(struct walk *w, int dfd, const char *path, const char *name, int depth)
{
	char sub[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errf(w->err, w->errlen, -errno, "%s/%s: %s", path, name, strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		if (!w->rules->links)
			return refuse(w, -EPERM, path, name, "a symlink");
		n = readlinkat(dfd, name, target, sizeof(target) - 1);
		if (n < 0)
			return errf(w->err, w->errlen, -errno, "%s/%s: %s", path, name,
				    strerror(errno));
		target[n] = 0;
		if (!link_inside(target, depth))
			return refuse(w, -EPERM, path, name, "a symlink leading outside the tree");
		return fchownat(dfd, name, 0, 0, AT_SYMLINK_NOFOLLOW) ?
			       errf(w->err, w->errlen, -errno, "chown %s/%s: %s", path, name,
				    strerror(errno)) :
			       0;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return refuse(w, -EPERM, path, name,
			      S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device node" :
			      S_ISFIFO(st.st_mode)			 ? "a FIFO" :
									   "a socket");
	if (S_ISDIR(st.st_mode) && (!w->rules->subdirs || depth >= 64))
		return refuse(w, -EPERM, path, name, "a directory");
	fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0 || fstat(fd, &st)) {
		r = errf(w->err, w->errlen, -errno, "opening %s/%s: %s", path, name,
			 strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		if (st.st_nlink != 1)
			r = refuse(w, -EPERM, path, name, "a hard link");
		else if (st.st_mode & (S_ISUID | S_ISGID))
			r = refuse(w, -EPERM, path, name, "a setuid or setgid file");
		else if (w->rules->max_file_bytes && st.st_size > w->rules->max_file_bytes)
			r = refuse(w, -EFBIG, path, name, "larger than its bound");
		else if (fchown(fd, 0, 0) || fchmod(fd, st.st_mode & 0755))
			r = errf(w->err, w->errlen, -errno, "chown %s/%s: %s", path, name,
				 strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(sub, sizeof(sub), "%s/%s", path, name);
		if (!(r = reclaim_dir(w, fd, sub, depth + 1)) && fchmod(fd, st.st_mode & 0755))
			r = errf(w->err, w->errlen, -errno, "chmod %s: %s", sub, strerror(errno));
	} else
		r = refuse(w, -EPERM, path, name, "no longer what it was a moment ago");
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static int reclaim_dir(struct walk *w, int dfd, const char *path, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	/* first: from here on the other user can neither add, rename nor remove in it */
	if (fchown(dfd, 0, 0) || fchmod(dfd, 0700))
		return errf(w->err, w->errlen, -errno, "chown %s: %s", path, strerror(errno));
	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) < 0 || !(d = fdopendir(fd))) {
		r = errf(w->err, w->errlen, -errno, "reading %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	while (!r && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->entries > w->rules->max_entries)
			r = errf(w->err, w->errlen, -E2BIG, "%s: more than %ld entries", path,
				 w->rules->max_entries);
		else
			r = reclaim_entry(w, dfd, path, de->d_name, depth);
	}
	closedir(d);
	return r;
}

int kg_user_reclaim(const struct kg_user *u, int dfd, const char *path,
		    const struct kg_user_rules *rules, char *err, size_t errlen)
{
	struct walk w = { .rules = rules, .err = err, .errlen = errlen };
	int r;

	if (!u->drop)
		return 0;
	r = reclaim_dir(&w, dfd, path, 0);
	return r ? r : fchmod(dfd, 0755) ? -errno : 0;
}

int kg_user_note(int dfd, const char *name, const char *step, const struct kg_user_ran *ran)
{
	char line[256];
	int fd, r = 0, n;

	if (!ran->dropped)
		return 0;
	n = snprintf(line, sizeof(line), "%s: uid %u gid %u no_new_privs %d pid_ns %s mnt_ns %s\n",
		     step, (unsigned)ran->uid, (unsigned)ran->gid, ran->no_new_privs,
		     ran->pid_ns ? "own" : "shared", ran->mnt_ns ? "own" : "shared");
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, line, (size_t)n) != n)
		r = -EIO;
	if (close(fd) && !r)
		r = -errno;
	return r;
}
