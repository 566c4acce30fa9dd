/* The subcommands: every command's entry point, the command table, and the exit statuses. */
#ifndef FSB_COMMANDS_H
#define FSB_COMMANDS_H

#include "fsbench/core/workload.h"

/* Exit statuses, for every command. */
#define FSB_EXIT_OK 0
#define FSB_EXIT_FAIL 1 /* the run failed or is incomplete (ENOSPC, EIO...) */
#define FSB_EXIT_USAGE 2 /* bad flags or values; nothing was created */
/* `compare`'s own: CI gates read them (the values of enum rpt_gate_status) */
#define FSB_EXIT_REGRESSED 1 /* --gate: a gated metric regressed */
#define FSB_EXIT_UNUSABLE \
	2 /* inputs that cannot be compared, or a strict gate that could not judge */
/* kernel-gate's own: the candidate cannot be judged (no boot, too few samples), which
 * `git bisect run` reads as "skip" */
#define FSB_EXIT_CANNOT_JUDGE 125
/*
 * `history`'s own, and any command's that `git bisect run` may run: a failure of the system
 * (a store that cannot be opened or read, a server gone, a full disk) must never read as
 * "bad" (1-127 but 125), so it is 128, at which git bisect stops.
 */
#define FSB_EXIT_SYSTEM 128
/* the store was written by a newer fsbench: upgrade this one (git bisect stops too) */
#define FSB_EXIT_STORE_NEWER 129

struct fsb_job;

/*
 * The exit status of a job that fsb_job_run() ended with @r and *@run: 128 + the signal
 * that stopped it, FSB_EXIT_USAGE for a configuration refused before anything ran
 * (-EINVAL, no run), FSB_EXIT_FAIL for any other error.
 */
int cmd_job_status(int r, const struct fsb_job *job, const json_t *run);

/*
 * Each command is an option table and a handler in its fsbench/cli/<name>.c; it returns the
 * process exit status. argv[0] is the command's name.
 */

/* `fsbench smallfile|stream ...`: @wl is the workload argv[0] names. */
int cmd_workload(const struct fsb_workload *wl, int argc, char **argv);
/* `fsbench` without arguments: the quick suite (see cli/suite.c). */
int cmd_default(void);
int cmd_suite(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_knobs(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_kernel_gate(int argc, char **argv);
int cmd_kernel_run(int argc, char **argv);
int cmd_lava(int argc, char **argv);
int cmd_lava_import(int argc, char **argv); /* `lava import`, which cmd_lava dispatches to */
int cmd_lava_submit(int argc, char **argv); /* `lava submit` (cli/lava_run.c), likewise */
int cmd_history(int argc, char **argv);

struct fsb_command {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

/* NULL-terminated; order is the order of `fsbench --help`. */
extern const struct fsb_command fsb_commands[];

#endif
