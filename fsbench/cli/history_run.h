/* `fsbench history run`: its configuration and handlers, in history.c's subcommand table; the
 * subcommands' shared --db. */
#ifndef FSB_CMD_HISTORY_RUN_H
#define FSB_CMD_HISTORY_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fsbench/cli/args.h"
#include "fsbench/cli/kgate_cmd.h"

/* Every history subcommand's --db, bound at @off in its config. */
#define DB_HELP                                                                 \
	"the store: a SQLite file (default $XDG_DATA_HOME/fsbench/history.db, " \
	"/var/lib/fsbench/history.db as root), or a PostgreSQL URI (postgresql://USER@HOST/DB)"
#define OPT_DB(off)                                                                \
	{                                                                          \
		.name = "db", .type = OPT_STRING, .offset = (off), .help = DB_HELP \
	}

struct hrun_cfg {
	char *db, *suite, *workdir;
	int64_t boots, jobs;
	char *kernels[CMD_MAX_FILES];
	int nkernels;
	char *pass[KG_RUN_MAX_ARGS]; /* kernel-run's options, after "--" */
	int npass;
	bool want_value; /* the last of @pass takes the next operand as its value */
};

/*
 * --history STORE of kernel-run, kernel-gate and lava import: the results at @paths (@n of
 * them) added to the store ("default": the default one), one transaction each, a line each
 * on stderr (naming the file when @name_files). A store that refuses is the system's
 * failure (128), not the kernel's; @status, the command's own, stands otherwise.
 */
int cmd_history_add(const char *cmd, const char *store, const char *const *paths, size_t n,
		    bool name_files, int status);

extern const struct fsb_opt hrun_opts[];
int hrun_operand(void *cfg, char *arg, char *err, size_t errlen);
void hrun_usage(FILE *out);
int hrun_run(void *cfg);

#endif
