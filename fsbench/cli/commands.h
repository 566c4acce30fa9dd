/*
 * The subcommands: every command's entry point, the command table, and the exit statuses.
 *
 * Adding a command:
 *  1. fsbench/cli/<name>.c (<name>_cmd.c where a folder below has a <name>.c) with its
 *     option table and handler (struct cmd_spec, cmd_args_run): the table binds options,
 *     the handler calls the layers below (never another handler), prints, and maps their
 *     0 or -errno to an exit status below.
 *  2. Its prototype here, with the others.
 *  3. One line in fsb_commands[] (fsbench/cli/dispatch.c): .name, .summary, .main.
 *  4. The file in fsbench/cli/meson.build.
 *  5. Its man page and completion follow from its table (fsbench/doc/); an example for the
 *     page is one line in examples[], its own exit statuses one line each in statuses[]
 *     (fsbench/cli/man_cmd.c), and subcommands with tables of their own a list like
 *     lava_subs there.
 */
#ifndef FSB_COMMANDS_H
#define FSB_COMMANDS_H

#include "fsbench/core/workload.h"

/*
 * Exit statuses: one convention for every command, and the one table man_cmd.c prints and
 * docs/results.md copies. A gate's statuses are what `git bisect run` expects: 0 good,
 * 1 bad, 125 skip; and a failure of the system (no memory, a full disk, the restore
 * journal, a backend that could not be set up) is 128, on which git bisect run stops:
 * never 1-127, which it would read as "this commit is bad".
 *
 *   0    success; a gate: nothing gated regressed
 *   1    a gate: a gated metric regressed; a workload or suite: the run failed or is
 *        incomplete (ENOSPC, EIO...), which is the kernel's or filesystem's doing
 *   2    usage: bad flags, values or input files; found before any work
 *   125  cannot judge: the evidence is not there (no boot, too few samples, inputs that
 *        cannot be compared, unequal conditions, a change that could not be proven)
 *   128  the system failed: nothing was judged, and nothing about the kernel is implied
 *   128+N  stopped by signal N
 */
#define FSB_EXIT_OK 0
#define FSB_EXIT_FAIL 1 /* the run failed or is incomplete (ENOSPC, EIO...) */
#define FSB_EXIT_USAGE 2 /* bad flags or values; nothing was created */
#define FSB_EXIT_REGRESSED 1 /* a gate: a gated metric regressed */
#define FSB_EXIT_CANNOT_JUDGE 125 /* a gate: the evidence is not there ("skip") */
#define FSB_EXIT_SYSTEM 128 /* a gate: the system failed, not the kernel ("stop") */

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

/*
 * `fsbench smallfile|stream ...`: @wl is the workload argv[0] names. @drop_in: the
 * original's name when fsbench was run as it (fs_mark, dbench, compilebench), whose usage
 * errors then behave as the original's; NULL for `fsbench WORKLOAD`.
 */
int cmd_workload(const struct fsb_workload *wl, int argc, char **argv, const char *drop_in);
/* `fsbench` without arguments: the quick suite (see cli/suite_cmd.c). */
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
int cmd_bisect(int argc, char **argv);
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

/* A program fsbench stands in for when run under its name (argv[0]'s last component). */
struct fsb_dropin {
	const char *program; /* "fs_mark" */
	const char *workload; /* what it runs: "smallfile" */
};

/*
 * NULL-terminated: fs_mark, dbench, compilebench. fsbench/gen/meson.build reads the
 * `{ .program = "NAME"` lines for the pages fsbench-as-NAME(1) and the links it installs.
 */
extern const struct fsb_dropin fsb_dropins[];

#endif
