/* Finding a suite file by name: as given, else in the configs directory (suite.h). */
#include "fsbench/suite/suite.h"
#include "base/errf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FSB_CONFIGDIR
#define FSB_CONFIGDIR "configs"
#endif
#ifndef FSB_CONFIGDIR_INSTALLED
#define FSB_CONFIGDIR_INSTALLED "/usr/local/share/fsbench/configs"
#endif
#ifndef FSB_BUILDDIR
#define FSB_BUILDDIR ""
#endif

const char *const suite_config_dirs[SUITE_NCONFIG_DIRS] = { FSB_CONFIGDIR,
							    FSB_CONFIGDIR_INSTALLED };

/*
 * Whether this process is the program in its build tree: only that one reads the source
 * tree's configs/. An installed fsbench (a package built in a directory that may later
 * hold anything, or a tree a user edits) reads its installed suites only.
 */
static bool in_build_tree(void)
{
	char exe[4096];
	size_t n = strlen(FSB_BUILDDIR);
	ssize_t r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (r <= 0 || !n)
		return false;
	exe[r] = 0;
	return !strncmp(exe, FSB_BUILDDIR, n) && exe[n] == '/';
}

int suite_find(const char *name, char *out, size_t len)
{
	if (access(name, R_OK) == 0 || strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	for (size_t i = in_build_tree() ? 0 : 1; i < SUITE_NCONFIG_DIRS; i++) {
		snprintf(out, len, "%s/%s%s", suite_config_dirs[i], name,
			 strstr(name, ".json") ? "" : ".json");
		if (access(out, R_OK) == 0)
			return 0;
	}
	snprintf(out, len, "%s", name);
	return -ENOENT;
}

int suite_default(char *quick, size_t qlen, char *ret_dir, size_t dlen, char *err, size_t errlen)
{
	const char *base = getenv("TMPDIR");

	ret_dir[0] = 0;
	if (suite_find("quick", quick, qlen) < 0)
		return errf(err, errlen, -ENOENT, "the default suite quick.json is not in %s or %s",
			    suite_config_dirs[0], suite_config_dirs[1]);
	if (geteuid() == 0)
		return 0;
	snprintf(ret_dir, dlen, "%s/fsbench.XXXXXX", base && *base ? base : "/var/tmp");
	if (!mkdtemp(ret_dir))
		return errf(err, errlen, -errno, "creating a temporary directory %s: %s", ret_dir,
			    strerror(errno));
	return 0;
}
