/* Who the guest's side of the kernel gate runs as, and a step run as that user (privilege separation). */
#ifndef FSB_KGATE_USER_H
#define FSB_KGATE_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The transient uid one step or one boot (its QEMU) runs as, when fsbench is root: a uid of
 * its own from KG_UID_FIRST..KG_UID_LAST, claimed by a lock only this step holds, so that no
 * other process on the host (another gate's steps and QEMUs, another boot of this gate, a
 * daemon's "nobody") shares it. Its gid is the same number.
 *
 * The range: systemd calls 65536..524287 unused (docs/UIDS-GIDS.md) and shadow's subordinate
 * ids start at 100000 (SUB_UID_MIN); systemd's own DynamicUser= range 61184..65519 is left to
 * systemd, which does not see fsbench's claims.
 */
#define KG_UID_FIRST 80000u
#define KG_UID_LAST 99999u
/* Where a claim is held (flock, for the step's life): root's, not fsbench's --state-dir, as
 * every gate on the host must see every other's claims. */
#define KG_UID_LOCK_DIR "/run/fsbench/uid"

struct kg_user {
	bool drop; /* fsbench is root: steps run as @uid/@gid; otherwise they run as they are */
	uid_t uid;
	gid_t gid;
	int lock; /* the claim's lock file, flock'ed; -1: none */
};

/*
 * When fsbench is root: claims a uid (and the gid of that number) from the range that no
 * user or group database names, no process runs as (real, effective, saved or filesystem
 * uid or gid, from /proc/PID/status), no /etc/subuid or /etc/subgid range covers and that
 * owns no entry directly in /tmp, /var/tmp or /dev/shm, under a lock in KG_UID_LOCK_DIR
 * that concurrent claims respect. Never root, nobody, or a uid from the environment
 * (SUDO_UID is not read). Not root: @ret->drop false, nothing claimed. 0, or -errno with
 * @err (-EAGAIN: no free uid). kg_user_release() ends it.
 */
int kg_user_claim(struct kg_user *ret, char *err, size_t errlen);

/*
 * Ends a claim: kills every process still running as @u->uid (a child that becomes @u
 * sends SIGKILL to all it may signal, until /proc shows none), then removes and unlocks the
 * lock file, so that the uid may be claimed again. Safe on a zeroed or released @u.
 */
void kg_user_release(struct kg_user *u);

/*
 * Kills every process running as @u->uid (as kg_user_release, keeping the claim): after a
 * step or QEMU ends, before root reads or copies what it wrote, so that nothing of
 * that uid can still write through a descriptor it kept. Whether none is left.
 */
bool kg_user_kill(const struct kg_user *u);

/* Whether @uid is one a claim hands out (the range, never 0, nobody or (uid_t)-1). */
bool kg_user_in_range(unsigned long uid);

/* What a dropped step was, as the step itself saw it (kg_user_note writes it down). */
struct kg_user_ran {
	bool dropped;
	uid_t uid; /* getuid(), getgid() in the step */
	gid_t gid;
	bool no_new_privs;
	bool pid_ns; /* the init of its own PID namespace */
	bool mnt_ns; /* a private mount namespace (propagation private) */
	/*
	 * Mounts in that namespace beyond those a step needs (kg_user_run's list), as the step
	 * read its /proc/self/mountinfo: 0 once the host's others are detached; -1 unknown.
	 */
	int other_mounts;
};

/*
 * A step: works in the directory @dfd, named @dir (".": the step's working directory, when
 * it runs dropped). Returns 0 or -errno with @err.
 */
typedef int (*kg_user_fn)(int dfd, const char *dir, void *arg, char *err, size_t errlen);

/*
 * Runs @fn. Not root (!@u->drop): in this process, as before. Root: in a child that is the
 * init of its own PID namespace (all it starts dies with it, and with fsbench), in a private
 * mount namespace where it can have one (else without, recorded in @ret) from which every
 * mount the host had is detached but "/" and the system's own (/usr, /etc, /proc, /dev,
 * /tmp...: the list in user.c), so that the step pins no filesystem a suite beside it
 * mounted and later unmounts (its directory it reaches by descriptor), with its working
 * directory @dfd and then as @u->uid/gid, no supplementary groups, no new privileges. The
 * child inherits every descriptor: what root opened (a .deb, the results disk) it reads by
 * descriptor without any right to its path. @dfd must be @u's to write (kg_user_give).
 * Returns @fn's result and @err, or -errno when the child could not run or died.
 */
int kg_user_run(const struct kg_user *u, int dfd, const char *dir, kg_user_fn fn, void *arg,
		struct kg_user_ran *ret, char *err, size_t errlen);

/* Hands the directory @dfd (root's, 0700) to @u when it drops. 0 or -errno. */
int kg_user_give(const struct kg_user *u, int dfd);

/* What a tree a dropped step wrote may hold when it comes back (kg_user_stream_back). */
struct kg_user_rules {
	bool subdirs;
	bool links; /* relative symlinks that stay inside the tree */
	long max_entries;
	long long max_file_bytes; /* 0: any size */
	long long max_total_bytes; /* of all files (kg_user_stream_back); 0: any size */
};

/*
 * After a dropped step (its processes all dead): its tree @dfd (named @path) comes back to
 * root as bytes, never as the step's inodes. A second step of @u's uid walks the tree
 * beneath @dfd (no symlink followed) and writes it onto a socket; root reads it with the
 * bounds of @rules (one plain component a name, at most NAME_MAX; entries, depth, each
 * file's and all files' bytes; directories, and relative symlinks that stay in the tree,
 * only as @rules allow; nothing but directories, regular files and symlinks; no setuid or
 * setgid file) and makes every entry itself, fresh (mkdirat, O_CREAT | O_EXCL | O_NOFOLLOW),
 * beneath @odfd: an empty directory root made (named @opath), 0755 at the end. Modes are
 * masked with 0755 (no setgid or sticky directory, nothing others may write). A hard link
 * comes back as a copy of its own. So a descriptor a step's tool kept, or passed to a
 * process of another uid, reaches only the step's tree, which the caller then removes
 * (base_rm_at), never root's copy. Not dropping, the same stream is made in this process.
 * 0 or -errno with @err.
 */
int kg_user_stream_back(const struct kg_user *u, int dfd, const char *path, int odfd,
			const char *opath, const struct kg_user_rules *rules, char *err,
			size_t errlen);

/*
 * kg_user_run of @fn, whose output comes back over a socket rather than through a file
 * root opened: *@wfd (in @arg, where @fn finds it) is set to the end the step writes before
 * it starts, and root copies what arrives into @out (its own file) meanwhile, at most
 * @max_bytes. So a step's tool cannot hand on a descriptor of root's file (as a cpio writing
 * root's archive could, to a process that writes the cache later). Root reads until the
 * step has ended (then SHUT_RD: an end a tool handed on neither holds the read open nor
 * writes after it). 0 or -errno with @err: root's (-EFBIG past the bound), else the step's.
 */
int kg_user_run_into(const struct kg_user *u, int dfd, const char *dir, kg_user_fn fn, void *arg,
		     int *wfd, int out, long long max_bytes, struct kg_user_ran *ret, char *err,
		     size_t errlen);

/*
 * Root's note of who ran @step: one line, "@step: uid U gid G no_new_privs 1 pid_ns own
 * mnt_ns own other_mounts 0" (or "shared", and the count), appended to @name in the
 * directory @dfd. 0 or -errno.
 */
int kg_user_note(int dfd, const char *name, const char *step, const struct kg_user_ran *ran);

#endif
