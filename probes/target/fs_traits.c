/* The per-filesystem traits table (fs_traits.h). */
#include "probes/target/fs_traits.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/*
 * ext3 (served by ext4) and ext4 take barrier=0/1, btrfs barrier/nobarrier, by remount.
 * xfs dropped both "barrier" and "nobarrier" in Linux 4.19: on 6.18, mount and remount
 * with either fail with EINVAL ("xfs: Unknown parameter 'nobarrier'" in the kernel log).
 * It always flushes, so on is its state with no option and off cannot be had.
 * The order is only that of the ext family first; lookups are by exact name.
 */
static const struct fs_traits traits[] = {
	{
		.fstype = "ext3",
		.barrier_on = "barrier=1",
		.barrier_off = "barrier=0",
		.barrier_off_shown = { "nobarrier", "barrier=0" },
		.mkfs_force = "-F",
		.mkfs_quiet = "-q",
		.mkfs_config = "/etc/mke2fs.conf",
		.kmod = "ext4",
		.mkfs_min_bytes = INT64_C(16) << 20,
	},
	{
		.fstype = "ext4",
		.barrier_on = "barrier=1",
		.barrier_off = "barrier=0",
		.barrier_off_shown = { "nobarrier", "barrier=0" },
		.mkfs_force = "-F",
		.mkfs_quiet = "-q",
		.mkfs_eager_init = "lazy_itable_init=0,lazy_journal_init=0",
		.mkfs_config = "/etc/mke2fs.conf",
		.kmod = "ext4",
		.mkfs_min_bytes = INT64_C(16) << 20,
	},
	{
		.fstype = "ext2",
		.mkfs_force = "-F",
		.mkfs_quiet = "-q",
		.mkfs_config = "/etc/mke2fs.conf",
		.kmod = "ext4",
		.mkfs_min_bytes = INT64_C(16) << 20,
	},
	{
		.fstype = "xfs",
		.barrier_on = "",
		.barrier_off = NULL,
		.barrier_why = "xfs always flushes: Linux 4.19 removed its nobarrier option",
		.mkfs_force = "-f",
		.mkfs_quiet = "-q",
		.kmod = "xfs",
		.mkfs_min_bytes = INT64_C(300) << 20,
	},
	{
		.fstype = "btrfs",
		.barrier_on = "barrier",
		.barrier_off = "nobarrier",
		.barrier_off_shown = { "nobarrier" },
		.mkfs_force = "-f",
		.mkfs_quiet = "-q",
		.kmod = "btrfs",
		.mkfs_min_bytes = INT64_C(114294784),
	},
};

const struct fs_traits *fs_traits_find(const char *fstype)
{
	if (!fstype)
		return NULL;
	for (size_t i = 0; i < sizeof(traits) / sizeof(traits[0]); i++)
		if (!strcmp(traits[i].fstype, fstype))
			return &traits[i];
	return NULL;
}

const char *fs_traits_barrier_option(const char *fstype, bool on)
{
	const struct fs_traits *t = fs_traits_find(fstype);

	if (!t || !t->barrier_on)
		return NULL;
	return on ? t->barrier_on : t->barrier_off;
}

bool fs_traits_barrier_off(const char *fstype,
			   bool (*has)(const char *name, const char *value, void *arg), void *arg)
{
	const struct fs_traits *t = fs_traits_find(fstype);
	const size_t nshown = sizeof(t->barrier_off_shown) / sizeof(t->barrier_off_shown[0]);

	for (size_t i = 0; t && i < nshown && t->barrier_off_shown[i]; i++) {
		const char *s = t->barrier_off_shown[i], *eq = strchr(s, '=');
		char name[32];

		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - s) : (int)strlen(s), s);
		if (has(name, eq ? eq + 1 : NULL, arg))
			return true;
	}
	return false;
}
