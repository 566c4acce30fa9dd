/* What kernel-gate, kernel-run and lava job share on the CLI side: their printing and exit statuses. */
#ifndef FSB_CMD_KGATE_H
#define FSB_CMD_KGATE_H

#include "fsbench/kgate/gate_flow.h"

/* One line per kernel prepared (@nk of them), as @cmd: what boots and from which initramfs. */
void kg_cli_prepared(const struct kg_ctx *x, int nk, const char *cmd);

/*
 * kernel-gate once its command line is in @x->a: kg_gate_run with @be (NULL: the local QEMU
 * backend, --jobs at a time), its progress, tables and verdict printed. Returns the exit status (0 good, 1 regressed,
 * 2 usage, 125 cannot judge, 128 the system failed, 128 + a signal: commands.h).
 */
int kg_cli_gate(struct kg_ctx *x, const struct kg_boot_backend *be);

/*
 * A gate that stopped with @status (not a usage error) before its verdict: --json written
 * all the same (kg_gate_document_stopped, @why its reason), or a line saying why not.
 * Returns @status.
 */
int kg_cli_gate_stopped(const struct kg_ctx *x, int status, const char *why);

/* The exit status of a gate or a boot that stopped for @fail: usage 2, kernel 125, system 128. */
int kg_cli_fail_status(enum kg_gate_fail fail);

/* A boot's stage from its thread (struct kg_vm's progress): as each boot ends, a line with the time left. */
void kg_cli_gate_progress(void *arg, const struct kg_kernel *k, const struct kg_boot *b,
			  enum kg_stage stage);

/*
 * kernel-run once its command line is in @x->a: kg_run_boot through @be (NULL: the local QEMU
 * boot), its lines and what the suite printed in the guest printed, the result copied to
 * --json. Returns the guest's status, 125 when the kernel did not boot, 2 on usage errors,
 * 128 when the system failed, 128 + a signal.
 */
int kg_cli_run(struct kg_ctx *x, const struct kg_boot_backend *be);

/* The most arguments history run passes on to kernel-run, its argv[0] included. */
#define KG_RUN_MAX_ARGS 128

/*
 * For `history run`'s pass-through: whether kernel-run's option @arg ("--fs", "--fs=ext4")
 * takes its value from the next argument (1), carries it or takes none (0), or is no
 * kernel-run option (-1).
 */
int kg_run_opt_value(const char *arg);

/*
 * Parses @argv (argv[0] a command name, then kernel-run options only) with kernel-run's
 * option table, as the child will: 0, or -EINVAL with @err naming the option and why.
 */
int kg_run_args_check(int argc, char **argv, char *err, size_t errlen);

#endif
