/* Running a build, a gate or git as a child: its own process group, a log, a timeout, a stop. */
#include "fsbench/bisect/bisect.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How often the parent looks at the child, the clock and the stop flag. */
#define POLL_MS 50

static void child(const struct bs_cmd *c, int logfd)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	setpgid(0, 0);
	if (logfd >= 0 && (dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0))
		_exit(127);
	if (c->cwd && chdir(c->cwd))
		_exit(127);
	if (c->env_name && setenv(c->env_name, c->env_value, 1))
		_exit(127);
	execvp(c->argv[0], c->argv);
	_exit(127);
}

int bs_run(const struct bs_cmd *c, volatile int *stop, int *ret_status)
{
	struct timespec tick = { 0, POLL_MS * 1000000L };
	int logfd = -1, st, r = 0;
	long waited = 0;
	pid_t pid;

	if (c->log &&
	    (logfd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		if (logfd >= 0)
			close(logfd);
		return r;
	}
	if (!pid)
		child(c, logfd);
	setpgid(pid, pid); /* both sides, so the kill below never misses the group */
	if (logfd >= 0)
		close(logfd);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (!r && ((stop && *stop) || (c->timeout_ms && waited >= c->timeout_ms))) {
			r = stop && *stop ? -EINTR : -ETIMEDOUT;
			kill(-pid, SIGKILL);
		}
		nanosleep(&tick, NULL);
		waited += POLL_MS;
	}
	if (!r || r == -EINTR || r == -ETIMEDOUT)
		*ret_status = st;
	return r;
}
