/* Subcommands other than the workloads; each returns the process exit status. */
#ifndef FSB_COMMANDS_H
#define FSB_COMMANDS_H

#include "workload.h"

/* Exit statuses shared by every command. */
#define FSB_EXIT_OK 0
#define FSB_EXIT_FAIL 1 /* the run failed or is incomplete (ENOSPC, EIO...) */
#define FSB_EXIT_USAGE 2 /* bad flags or values; nothing was created */

/* `fsbench smallfile|stream ...`: argv[0] is the workload's name. */
int cmd_workload(const struct fsb_workload *wl, int argc, char **argv);

struct fsb_command {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

/* NULL-terminated; order is the order of `fsbench --help`. */
extern const struct fsb_command fsb_commands[];

#endif
