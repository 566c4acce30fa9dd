/* The one mount lookup (mount.h): knobs, scratch, target and --dir all read mountinfo here. */
#include "probes/target/mount.h"
#include "base/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Whether @mnt is @path or one of its parent directories, by whole components. */
static bool covers(const char *mnt, const char *path)
{
	size_t n = strlen(mnt);

	if (!strcmp(mnt, "/"))
		return path[0] == '/';
	return !strncmp(mnt, path, n) && (path[n] == 0 || path[n] == '/');
}

/*
 * Walking backward, the later of two mounts on one directory is met first and kept (only
 * a strictly longer mount point replaces it): the kernel shows the top one.
 */
static struct libmnt_fs *find_covering(struct libmnt_table *tb, const char *path)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs, *best = NULL;
	size_t best_len = 0;

	if (!it)
		return NULL;
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *mnt = mnt_fs_get_target(fs);

		if (mnt && covers(mnt, path) && (!best || strlen(mnt) > best_len)) {
			best = fs;
			best_len = strlen(mnt);
		}
	}
	mnt_free_iter(it);
	return best;
}

static struct libmnt_fs *find_devno(struct libmnt_table *tb, dev_t devno)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs, *found = NULL;

	if (!it)
		return NULL;
	while (!found && mnt_table_next_fs(tb, it, &fs) == 0)
		if (mnt_fs_get_devno(fs) == devno)
			found = fs;
	mnt_free_iter(it);
	return found;
}

int probe_mount_find(const char *root, enum probe_mount_match how, const char *path, dev_t devno,
		     struct probe_mount *ret)
{
	char mi[PATH_MAX + 64];
	struct libmnt_table *tb;
	struct libmnt_fs *fs = NULL;
	char *opts;
	dev_t dev;
	int r;

	if (how != PROBE_MOUNT_DEVNO && (!path || !*path))
		return -EINVAL;
	if (base_path(mi, sizeof(mi), "%s/proc/self/mountinfo",
		      root && strcmp(root, "/") ? root : "") < 0)
		return -ENAMETOOLONG;
	tb = mnt_new_table();
	if (!tb)
		return -ENOMEM;
	r = mnt_table_parse_file(tb, mi);
	if (r < 0) {
		mnt_unref_table(tb);
		return r == -ENOENT || r == -EINVAL ? r : -EIO;
	}
	switch (how) {
	case PROBE_MOUNT_TARGET:
		fs = mnt_table_find_target(tb, path, MNT_ITER_BACKWARD);
		break;
	case PROBE_MOUNT_PATH:
		fs = find_covering(tb, path);
		break;
	case PROBE_MOUNT_DEVNO:
		fs = find_devno(tb, devno);
		break;
	}
	if (!fs) {
		mnt_unref_table(tb);
		return -ENOENT;
	}
	memset(ret, 0, sizeof(*ret));
	base_strcpy(ret->target, sizeof(ret->target), mnt_fs_get_target(fs));
	base_strcpy(ret->fstype, sizeof(ret->fstype), mnt_fs_get_fstype(fs));
	base_strcpy(ret->source, sizeof(ret->source), mnt_fs_get_source(fs));
	base_strcpy(ret->fsroot, sizeof(ret->fsroot), mnt_fs_get_root(fs));
	opts = mnt_fs_strdup_options(fs);
	base_strcpy(ret->options, sizeof(ret->options), opts);
	free(opts);
	dev = mnt_fs_get_devno(fs);
	ret->major = major(dev);
	ret->minor = minor(dev);
	ret->netfs = mnt_fs_is_netfs(fs);
	mnt_unref_table(tb);
	return 0;
}

/* The namespace's name (mnt:[4026531841]) of <@root>/proc/@pid, or "pid:@pid" without one. */
static void ns_of(const char *root, const char *pid, char *ret, size_t len)
{
	char p[PATH_MAX + 64];
	ssize_t n = -1;

	if (base_path(p, sizeof(p), "%s/proc/%s/ns/mnt", root, pid) == 0)
		n = readlink(p, ret, len - 1);
	if (n <= 0)
		snprintf(ret, len, "pid:%s", pid);
	else
		ret[n] = 0;
}

/*
 * Where <@root>/proc/@pid's namespace mounts @devno: 0 with @ret set, -ESRCH when it does
 * not, or -errno when its mountinfo cannot be read (the process ended meanwhile).
 */
static int mounted_in(const char *root, const char *pid, dev_t devno, char *ret, size_t len)
{
	char mi[PATH_MAX + 64];
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	int r;

	if (base_path(mi, sizeof(mi), "%s/proc/%s/mountinfo", root, pid) < 0)
		return -ENAMETOOLONG;
	tb = mnt_new_table();
	if (!tb)
		return -ENOMEM;
	r = mnt_table_parse_file(tb, mi);
	if (r == 0) {
		fs = find_devno(tb, devno);
		r = fs ? 0 : -ESRCH;
		if (fs)
			base_strcpy(ret, len, mnt_fs_get_target(fs));
	}
	mnt_unref_table(tb);
	return r;
}

static void comm_of(const char *root, const char *pid, char *ret, size_t len)
{
	char p[PATH_MAX + 64];
	FILE *f;

	*ret = 0;
	if (base_path(p, sizeof(p), "%s/proc/%s/comm", root, pid) < 0 || !(f = fopen(p, "re")))
		return;
	if (fgets(ret, (int)len, f))
		ret[strcspn(ret, "\n")] = 0;
	fclose(f);
}

int probe_mount_holders(const char *root, dev_t devno, struct probe_mount_holder *ret, size_t max,
			size_t *ret_n, bool *ret_cut)
{
	/* namespaces parsed so far, and which of them hold it (its index in @ret, or -1) */
	struct {
		char name[64];
		long held;
	} seen[PROBE_MOUNT_SCAN_NS];
	char proc[PATH_MAX + 16], own[64], ns[64], target[PATH_MAX];
	size_t nseen = 0, n = 0, procs = 0;
	bool cut = false;
	struct dirent *de;
	DIR *d;
	int r;

	root = root && strcmp(root, "/") ? root : "";
	if (base_path(proc, sizeof(proc), "%s/proc", root) < 0)
		return -ENAMETOOLONG;
	d = opendir(proc);
	if (!d)
		return -errno;
	ns_of(root, "self", own, sizeof(own));
	while ((de = readdir(d))) {
		size_t i;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    de->d_name[strspn(de->d_name, "0123456789")])
			continue;
		if (++procs > PROBE_MOUNT_SCAN_PROCS) {
			cut = true;
			break;
		}
		ns_of(root, de->d_name, ns, sizeof(ns));
		for (i = 0; i < nseen && strcmp(seen[i].name, ns); i++)
			;
		if (i == nseen) {
			if (nseen == PROBE_MOUNT_SCAN_NS) {
				cut = true;
				continue;
			}
			/* a process that ended meanwhile: its namespace is read through the next */
			r = mounted_in(root, de->d_name, devno, target, sizeof(target));
			if (r < 0 && r != -ESRCH)
				continue;
			base_strcpy(seen[i].name, sizeof(seen[i].name), ns);
			seen[i].held = -1;
			nseen++;
			if (r == 0) {
				if (n == max) {
					cut = true;
					continue;
				}
				memset(&ret[n], 0, sizeof(ret[n]));
				ret[n].pid = (pid_t)atol(de->d_name);
				comm_of(root, de->d_name, ret[n].comm, sizeof(ret[n].comm));
				ret[n].own_ns = !strcmp(ns, own);
				base_strcpy(ret[n].target, sizeof(ret[n].target), target);
				seen[i].held = (long)n++;
			}
		}
		if (seen[i].held >= 0) {
			struct probe_mount_holder *h = &ret[seen[i].held];

			/* the namespace's lowest pid, whatever order /proc lists them in */
			if (h->nprocs++ && atol(de->d_name) < (long)h->pid) {
				h->pid = (pid_t)atol(de->d_name);
				comm_of(root, de->d_name, h->comm, sizeof(h->comm));
			}
		}
	}
	closedir(d);
	*ret_n = n;
	if (ret_cut)
		*ret_cut = cut;
	return 0;
}

int probe_mount_option(const struct probe_mount *m, const char *name, char *ret, size_t len)
{
	char *v = NULL;
	size_t vs = 0;

	if (mnt_optstr_get_option(m->options, name, &v, &vs) != 0)
		return -ENOENT;
	if (ret && len)
		snprintf(ret, len, "%.*s", v ? (int)vs : 0, v ? v : "");
	return 0;
}
