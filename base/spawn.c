/* Running a program (spawn.h): one fork/exec for every tool fsbench runs, and for QEMU. */
#include "base/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a capture keeps: a reason fits in a line, a tool's chatter beyond this is drained. */
#define CAPTURE_BYTES 4096

struct capture {
	char buf[CAPTURE_BYTES];
	size_t used;
	enum base_spawn_keep keep;
};

static void capture_add(struct capture *c, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (c->used + 1 >= sizeof(c->buf)) {
			if (c->keep == BASE_SPAWN_FIRST)
				return; /* the head is what we keep; drain the rest */
			/* the tail: drop the older half */
			memmove(c->buf, c->buf + sizeof(c->buf) / 2, c->used - sizeof(c->buf) / 2);
			c->used -= sizeof(c->buf) / 2;
		}
		c->buf[c->used++] = p[i];
	}
}

/* The first or last non-empty line of what was captured, into @out. */
static void capture_line(struct capture *c, char *out, size_t len)
{
	char *s = c->buf, *e;

	if (!len)
		return;
	c->buf[c->used] = 0;
	while (c->used && (c->buf[c->used - 1] == '\n' || c->buf[c->used - 1] == ' '))
		c->buf[--c->used] = 0;
	if (c->keep == BASE_SPAWN_FIRST) {
		s += strspn(s, "\n ");
		e = s + strcspn(s, "\n");
	} else {
		char *nl = strrchr(s, '\n');

		s = nl ? nl + 1 : s;
		e = s + strlen(s);
	}
	size_t n = (size_t)(e - s) < len - 1 ? (size_t)(e - s) : len - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

/* The fd a stream goes to in the child: /dev/null, @file, the caller's @fd, or the capture pipe. */
static int stream_fd(enum base_spawn_to to, int null, int file, int fd, int pipe_w)
{
	return to == BASE_SPAWN_FILE	? file :
	       to == BASE_SPAWN_FD	? fd :
	       to == BASE_SPAWN_CAPTURE ? pipe_w :
					  null;
}

static void child(const struct base_spawn *s, int out, int err, int eno_w, pid_t parent)
{
	sigset_t none;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (s->drop &&
	    (setgroups(0, NULL) || setresgid(s->gid, s->gid, s->gid) ||
	     setresuid(s->uid, s->uid, s->uid) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))) {
		e = errno;
		if (write(eno_w, &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	if (s->die_with_parent && prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(127);
	/*
	 * Died meanwhile? In a new PID namespace getppid() is 0 (the parent is outside it), so
	 * there ask the errno pipe: its read end closes with the parent (POLLERR on the write end).
	 */
	struct pollfd p = { .fd = eno_w, .events = 0 };

	if (s->die_with_parent &&
	    (s->own_pid_ns ? poll(&p, 1, 0) > 0 && (p.revents & POLLERR) : getppid() != parent))
		_exit(127);
	for (int i = 0; i < s->nkeep_fds; i++)
		if (fcntl(s->keep_fds[i], F_SETFD, 0) < 0) {
			e = errno;
			if (write(eno_w, &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
	if ((s->in > 0 && dup2(s->in, STDIN_FILENO) < 0) || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(err, STDERR_FILENO) < 0) {
		e = errno;
	} else {
		execvp(s->argv[0], s->argv);
		e = errno;
	}
	/* the parent tells "not installed" from "failed" by this errno */
	if (write(eno_w, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * fork(), or with @own_pid_ns a fork into a new PID namespace: the raw clone syscall with no
 * stack returns twice like fork (glibc keeps no cached pid since 2.25, and the child only
 * does what is safe after fork). EPERM (not root) and EINVAL/ENOSPC/EUSERS (nesting or
 * count limits) fall back to fork.
 */
static pid_t spawn_fork(bool own_pid_ns)
{
	if (own_pid_ns) {
		long pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWPID | SIGCHLD), NULL, NULL,
				   NULL, 0UL);

		if (pid >= 0 ||
		    (errno != EPERM && errno != EINVAL && errno != ENOSPC && errno != EUSERS))
			return (pid_t)pid;
	}
	return fork();
}

/* Reads the capture pipe until EOF, calling the watch between reads; 0 or the watch's errno. */
static int supervise(const struct base_spawn *s, pid_t pid, int fd, struct capture *c,
		     int *ret_status)
{
	int r = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int timeout = s->watch ? (s->watch_ms > 0 ? s->watch_ms : 200) : -1;

		if (fd >= 0) {
			int n = poll(&p, 1, timeout);

			if (n > 0) {
				char buf[1024];
				ssize_t got = read(fd, buf, sizeof(buf));

				if (got > 0)
					capture_add(c, buf, (size_t)got);
				else if (got == 0 || errno != EINTR)
					fd = -1; /* EOF: the child may still run; wait below */
				continue;
			}
		} else if (s->watch) {
			pid_t w = waitpid(pid, ret_status, WNOHANG);

			if (w == pid)
				return 0;
			if (w < 0 && errno != EINTR)
				return -errno;
			poll(NULL, 0, timeout);
		} else
			break;
		if (s->watch && (r = s->watch(pid, s->watch_arg))) {
			kill(pid, SIGKILL);
			break;
		}
	}
	while (waitpid(pid, ret_status, 0) < 0)
		if (errno != EINTR)
			return r ? r : -errno;
	return r;
}

int base_spawn_run(const struct base_spawn *s, int *ret_status)
{
	int fds[6] = { -1, -1, -1, -1, -1, -1 }; /* null, file, pipe r/w, errno pipe r/w */
	struct capture c = { .keep = s->keep };
	bool capture = s->out == BASE_SPAWN_CAPTURE || s->err == BASE_SPAWN_CAPTURE;
	int r = 0, e = 0, status = 0;
	pid_t pid, parent = getpid();

	if (s->linelen)
		s->line[0] = 0;
	if ((fds[0] = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	if ((s->out == BASE_SPAWN_FILE || s->err == BASE_SPAWN_FILE) &&
	    (fds[1] = open(s->path,
			   O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
				   (s->excl ? O_EXCL : O_TRUNC),
			   0644)) < 0) {
		r = -errno;
		goto out;
	}
	if ((capture && pipe2(fds + 2, O_CLOEXEC)) || pipe2(fds + 4, O_CLOEXEC)) {
		r = -errno;
		goto out;
	}
	pid = spawn_fork(s->own_pid_ns);
	if (pid < 0) {
		r = -errno;
		goto out;
	}
	if (pid == 0)
		child(s, stream_fd(s->out, fds[0], fds[1], s->fd, fds[3]),
		      stream_fd(s->err, fds[0], fds[1], s->fd, fds[3]), fds[5], parent);
	close_fds(fds + 3, 1);
	close_fds(fds + 5, 1);
	/* EOF once exec succeeded (the pipe is close-on-exec), else the child's errno */
	while (read(fds[4], &e, sizeof(e)) < 0 && errno == EINTR)
		;
	if (e) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		r = -e;
		goto out;
	}
	r = supervise(s, pid, fds[2], &c, &status);
	if (capture)
		capture_line(&c, s->line, s->linelen);
	*ret_status = status;
out:
	close_fds(fds, 6);
	return r;
}

/* What base_spawn_tool() and base_spawn_tool_fd() share: @s's settings, its exit status. */
static int spawn_tool(struct base_spawn *s)
{
	int status, r;

	/* a killed caller leaves no dpkg-deb or cpio writing on, nor the tar and decompressor dpkg-deb forks */
	s->err = BASE_SPAWN_CAPTURE;
	s->die_with_parent = true;
	s->own_pid_ns = true;
	if ((r = base_spawn_run(s, &status)))
		return r;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int base_spawn_tool(char *const *argv, const char *out, enum base_spawn_keep keep, char *msg,
		    size_t msglen)
{
	struct base_spawn s = { .argv = argv,
				.out = out ? BASE_SPAWN_FILE : BASE_SPAWN_DEVNULL,
				.path = out,
				.keep = keep,
				.line = msg,
				.linelen = msglen };

	return spawn_tool(&s);
}

int base_spawn_tool_fd(char *const *argv, int in, int out, enum base_spawn_keep keep, char *msg,
		       size_t msglen)
{
	struct base_spawn s = { .argv = argv,
				.out = out >= 0 ? BASE_SPAWN_FD : BASE_SPAWN_DEVNULL,
				.fd = out,
				.in = in,
				.keep = keep,
				.line = msg,
				.linelen = msglen };

	return spawn_tool(&s);
}

bool base_spawn_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *dir;
	bool found = false;

	if (!path || !(copy = strdup(path)))
		return false;
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char full[4096];

		snprintf(full, sizeof(full), "%s/%s", *dir ? dir : ".", prog);
		found = access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}
