/* Finding a suite file by name: as given, else in the configs directory (suite.h). */
#include "fsbench/suite/suite.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef FSB_CONFIGDIR
#define FSB_CONFIGDIR "configs"
#endif
#ifndef FSB_CONFIGDIR_INSTALLED
#define FSB_CONFIGDIR_INSTALLED "/usr/local/share/fsbench/configs"
#endif

const char *const suite_config_dirs[SUITE_NCONFIG_DIRS] = { FSB_CONFIGDIR,
							    FSB_CONFIGDIR_INSTALLED };

int suite_find(const char *name, char *out, size_t len)
{
	if (access(name, R_OK) == 0 || strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	for (size_t i = 0; i < SUITE_NCONFIG_DIRS; i++) {
		snprintf(out, len, "%s/%s%s", suite_config_dirs[i], name,
			 strstr(name, ".json") ? "" : ".json");
		if (access(out, R_OK) == 0)
			return 0;
	}
	snprintf(out, len, "%s", name);
	return -ENOENT;
}
