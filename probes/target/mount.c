/* The one mount lookup (mount.h): knobs, scratch, target and --dir all read mountinfo here. */
#include "probes/target/mount.h"
#include "base/fileio.h"

#include <errno.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

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
