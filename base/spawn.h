/* Running a program: argv without a shell, its output to a file or captured, exec's own errno. */
#ifndef BASE_SPAWN_H
#define BASE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where one of the child's output streams goes. */
enum base_spawn_to {
	BASE_SPAWN_DEVNULL,
	BASE_SPAWN_CAPTURE, /* into @line, as @keep says */
	BASE_SPAWN_FILE, /* into @path */
	BASE_SPAWN_FD, /* into @fd, a descriptor of the caller's */
};

/* Which line of the captured output @line keeps. */
enum base_spawn_keep {
	BASE_SPAWN_FIRST, /* tools that say why first and add usage text after (mkfs) */
	BASE_SPAWN_LAST, /* tools whose last words say why (dpkg-deb, depmod, tar) */
};

struct base_spawn {
	char *const *argv; /* argv[0] is looked up in PATH */
	enum base_spawn_to out, err;
	/*
	 * BASE_SPAWN_FILE's file, opened by the caller's process before the fork (so a failure
	 * is an errno, not a child's exit status): created 0644 or truncated, never through a
	 * symlink (O_NOFOLLOW); with @excl it must not exist (O_EXCL).
	 */
	const char *path;
	bool excl;
	/*
	 * BASE_SPAWN_FD's descriptor, and @in (> 0) the child's stdin: files the caller opened
	 * (as root) that a child running as @uid reads or writes without any right to their path.
	 * @in 0: stdin is inherited.
	 */
	int fd, in;
	enum base_spawn_keep keep;
	char *line; /* the kept line, without its newline; "" when there was none */
	size_t linelen;
	/* PR_SET_PDEATHSIG: the child gets SIGKILL when the calling thread dies (kill -9) */
	bool die_with_parent;
	/*
	 * The child is the init of a new PID namespace (clone(CLONE_NEWPID), root only): when it
	 * dies, by die_with_parent's SIGKILL too, the kernel kills every process it started, so
	 * a tool that forks (dpkg-deb runs tar and a decompressor) leaves nothing writing on.
	 * Where the namespace cannot be made (not root, a container's limits) the child is
	 * forked as usual. As a namespace's init the child ignores the signals it has no
	 * handler for, but for SIGKILL and SIGSTOP from outside it and a crash's own signal.
	 */
	bool own_pid_ns;
	/*
	 * Called every @watch_ms while the child runs (QEMU's supervision): returns 0 to go
	 * on, or a negative errno to stop: the child is then killed (SIGKILL), reaped, and
	 * base_spawn_run() returns that errno with *@ret_status its wait status.
	 */
	int (*watch)(pid_t pid, void *arg);
	void *watch_arg;
	int watch_ms;
	/*
	 * Descriptors the child keeps across exec (their close-on-exec flag is cleared in the
	 * child only, so threads spawning meanwhile never inherit them): files handed over by
	 * descriptor (QEMU's -drive file=/dev/fd/N) rather than by a path that could be swapped.
	 */
	const int *keep_fds;
	int nkeep_fds;
	/*
	 * @drop: the child runs as @uid/@gid with no supplementary groups and no new
	 * privileges (what needs no root, as QEMU, takes none); die_with_parent is set after
	 * the change, which would clear it.
	 */
	bool drop;
	uid_t uid;
	gid_t gid;
};

/*
 * Runs @s->argv to its end. The child's signal mask is cleared; exec's errno comes back over
 * a close-on-exec pipe, so a missing program is -ENOENT, not a guess from exit status 127.
 * Returns 0 with *@ret_status the wait status (WIFEXITED...), or -errno when the program
 * could not be started (exec's errno, the output file's, fork's), or @s->watch's errno.
 */
int base_spawn_run(const struct base_spawn *s, int *ret_status);

/*
 * The usual case: @argv with stdout to @out (NULL: /dev/null) and stderr captured, the line
 * @keep says into @msg; the tool dies with its caller (die_with_parent), and what it forked
 * with it (own_pid_ns). Returns the exit status (0..255), 128 + the signal that killed it,
 * or -errno when it could not be run.
 */
int base_spawn_tool(char *const *argv, const char *out, enum base_spawn_keep keep, char *msg,
		    size_t msglen);

/*
 * base_spawn_tool() with stdin from @in (> 0; 0: inherited) and stdout into @out (>= 0; -1:
 * /dev/null), descriptors the caller opened.
 */
int base_spawn_tool_fd(char *const *argv, int in, int out, enum base_spawn_keep keep, char *msg,
		       size_t msglen);

/* Whether program @prog is on PATH (an executable in one of its directories; false without PATH). */
bool base_spawn_in_path(const char *prog);

#endif
