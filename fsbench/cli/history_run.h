/* `fsbench history run`: its configuration and handlers, in history.c's subcommand table; the
 * subcommands' shared --db. */
#ifndef FSB_CMD_HISTORY_RUN_H
#define FSB_CMD_HISTORY_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fsbench/cli/args.h"
#include "fsbench/cli/kgate.h"

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

extern const struct fsb_opt hrun_opts[];
int hrun_operand(void *cfg, char *arg, char *err, size_t errlen);
void hrun_usage(FILE *out);
int hrun_run(void *cfg);

#endif
