/* Who the guest's side of the kernel gate runs as, and a step run as that user (privilege separation). */
#ifndef FSB_KGATE_USER_H
#define FSB_KGATE_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The user QEMU, package extraction, the initramfs and the results disk's reader run as. */
struct kg_user {
	bool drop; /* fsbench is root: steps run as @uid/@gid; otherwise they run as they are */
	uid_t uid;
	gid_t gid;
};

/*
 * When fsbench is root: a dedicated "fsbench" user if there is one, else the user sudo was
 * run by (SUDO_UID/SUDO_GID), else nobody. Nothing on the guest's side needs root.
 */
void kg_user_pick(struct kg_user *ret);

/* What a dropped step was, as the step itself saw it (kg_user_note writes it down). */
struct kg_user_ran {
	bool dropped;
	uid_t uid; /* getuid(), getgid() in the step */
	gid_t gid;
	bool no_new_privs;
	bool pid_ns; /* the init of its own PID namespace */
	bool mnt_ns; /* a private mount namespace (propagation private) */
};

/*
 * A step: works in the directory @dfd, named @dir (".": the step's working directory, when
 * it runs dropped). Returns 0 or -errno with @err.
 */
typedef int (*kg_user_fn)(int dfd, const char *dir, void *arg, char *err, size_t errlen);

/*
 * Runs @fn. Not root (!@u->drop): in this process, as before. Root: in a child that is the
 * init of its own PID namespace (all it starts dies with it, and with fsbench), in a private
 * mount namespace where it can have one (else without, recorded in @ret), with its working
 * directory @dfd and then as @u->uid/gid, no supplementary groups, no new privileges. The
 * child inherits every descriptor: what root opened (a .deb, the results disk) it reads by
 * descriptor without any right to its path. @dfd must be @u's to write (kg_user_give).
 * Returns @fn's result and @err, or -errno when the child could not run or died.
 */
int kg_user_run(const struct kg_user *u, int dfd, const char *dir, kg_user_fn fn, void *arg,
		struct kg_user_ran *ret, char *err, size_t errlen);

/* Hands the directory @dfd (root's, 0700) to @u when it drops. 0 or -errno. */
int kg_user_give(const struct kg_user *u, int dfd);

/* What a tree a dropped step wrote may hold. */
struct kg_user_rules {
	bool subdirs;
	bool links; /* relative symlinks that stay inside the tree */
	long max_entries;
	long long max_file_bytes; /* 0: any size */
};

/*
 * After a dropped step: takes the tree @dfd (named @path, for errors) back for root, by
 * descriptor only: every directory is made root's 0700 before its entries are read (so the
 * other user can no longer change them), every entry is opened beneath it with O_NOFOLLOW
 * and checked (no device nodes, FIFOs, sockets, setuid or setgid files, hard links, links
 * leading outside, nothing @rules forbids), then given to root with group and others'
 * write bits cleared. With @u not dropping, nothing is done. 0 or -errno with @err.
 */
int kg_user_reclaim(const struct kg_user *u, int dfd, const char *path,
		    const struct kg_user_rules *rules, char *err, size_t errlen);

/*
 * Root's note of who ran @step: one line, "@step: uid U gid G no_new_privs 1 pid_ns own
 * mnt_ns own" (or "shared"), appended to @name in the directory @dfd. 0 or -errno.
 */
int kg_user_note(int dfd, const char *name, const char *step, const struct kg_user_ran *ran);

#endif
