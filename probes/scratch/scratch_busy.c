/* Why a scratch device is busy: its holders in sysfs, and the mount namespaces that mount it. */
#include "probes/scratch/scratch.h"
#include "base/fileio.h"
#include "probes/target/mount.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

/* At most this many holders of each kind are named: the first say enough. */
#define BUSY_NAMED 4

void probe_scratch_busy_why(const char *root, dev_t devno, char *ret, size_t len)
{
	struct probe_mount_holder h[BUSY_NAMED];
	char dir[PATH_MAX + 64];
	size_t used = 0, n = 0, named = 0, more = 0;
	bool cut = false;
	struct dirent *de;
	DIR *d;
	int r;

	if (!len)
		return;
	*ret = 0;
	root = root && strcmp(root, "/") ? root : "";
	/* device-mapper, md, bcache: a kernel claim, which no process shows */
	if (base_path(dir, sizeof(dir), "%s/sys/dev/block/%u:%u/holders", root, major(devno),
		      minor(devno)) == 0 &&
	    (d = opendir(dir))) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (named < BUSY_NAMED)
				base_appendf(ret, len, &used, "%s%s", named++ ? ", " : "held by ",
					     de->d_name);
			else
				more++;
		}
		closedir(d);
		if (more)
			base_appendf(ret, len, &used, " and %zu more", more);
		if (named)
			base_appendf(ret, len, &used, " (/sys/dev/block/%u:%u/holders)",
				     major(devno), minor(devno));
	}
	r = probe_mount_holders(root, devno, h, BUSY_NAMED, &n, &cut);
	for (size_t i = 0; i < n; i++) {
		base_appendf(ret, len, &used, "%smounted on %s in ", used ? "; " : "", h[i].target);
		if (h[i].own_ns)
			base_appendf(ret, len, &used, "fsbench's own mount namespace");
		else
			base_appendf(ret, len, &used, "the mount namespace of pid %ld (%s)",
				     (long)h[i].pid, h[i].comm[0] ? h[i].comm : "ended");
		if (!h[i].own_ns && h[i].nprocs > 1)
			base_appendf(ret, len, &used, " and %u other process%s", h[i].nprocs - 1,
				     h[i].nprocs > 2 ? "es" : "");
	}
	if (r < 0)
		base_appendf(ret, len, &used, "%sthe processes' mount namespaces: %s",
			     used ? "; " : "", strerror(-r));
	else if (!used)
		base_appendf(
			ret, len, &used,
			"no holder in /sys/dev/block/%u:%u/holders, and no running process's mount "
			"namespace mounts it (one that no process is in, kept by a bind mount or an "
			"open descriptor, is not seen)",
			major(devno), minor(devno));
	if (cut)
		base_appendf(ret, len, &used,
			     " (not every process was looked at: the scan is bounded)");
}
