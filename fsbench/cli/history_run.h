/* `fsbench history run`: its configuration and handlers, in history.c's subcommand table. */
#ifndef FSB_CMD_HISTORY_RUN_H
#define FSB_CMD_HISTORY_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fsbench/cli/args.h"
#include "fsbench/cli/kgate.h"

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
