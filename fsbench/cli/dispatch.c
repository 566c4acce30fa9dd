/* Subcommand dispatch: the workloads from their table, then the other commands. */
#include "fsbench/cli/commands.h"
#include "fsbench/cli/dispatch.h"
#include "fsbench/cli/man_cmd.h"
#include "fsbench/workloads/table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const struct fsb_command fsb_commands[] = {
	{ .name = "suite",
	  .summary = "a matrix of filesystems, knobs, workloads and threads on fresh filesystems",
	  .main = cmd_suite },
	{ .name = "compare",
	  .summary = "judge results against a baseline; --gate for CI",
	  .main = cmd_compare },
	{ .name = "report",
	  .summary = "one self-contained HTML page with plots and the comparison",
	  .main = cmd_report },
	{ .name = "explain",
	  .summary = "the slowest calls of a result and what the kernel did meanwhile (eBPF)",
	  .main = cmd_explain },
	{ .name = "export",
	  .summary = "write results for dashboards: openmetrics, influx, bencher, kcidb...",
	  .main = cmd_export },
	{ .name = "kernel-gate",
	  .summary = "boot a baseline and a candidate kernel in QEMU, run a suite, gate",
	  .main = cmd_kernel_gate },
	{ .name = "kernel-run",
	  .summary = "boot one kernel in QEMU and run a suite inside",
	  .main = cmd_kernel_run },
	{ .name = "bisect",
	  .summary = "the first bad kernel of a list, or the first bad commit, by the kernel gate",
	  .main = cmd_bisect },
	{ .name = "lava",
	  .summary = "the suite as a LAVA job; LAVA's results back as fsbench results",
	  .main = cmd_lava },
	{ .name = "history",
	  .summary = "results kept over kernels: add, list, change points, a page of each series",
	  .main = cmd_history },
	{ .name = "info",
	  .summary = "what lies under a path: mount, device, knobs, topology",
	  .main = cmd_info },
	{ .name = "knobs",
	  .summary = "show or set the queue, drive, mount and vm knobs under a path",
	  .main = cmd_knobs },
	{ .name = "restore",
	  .summary = "put back the knobs an interrupted run changed, from the restore journal",
	  .main = cmd_restore },
	{ 0 },
};

const struct fsb_dropin fsb_dropins[] = {
	{ .program = "fs_mark", .workload = "smallfile" },
	{ .program = "dbench", .workload = "dbench" },
	{ .program = "compilebench", .workload = "tree" },
	{ 0 },
};

static void usage(FILE *out)
{
	int w = 0;

	/* one column for the summaries, as wide as the longest name needs */
	for (int i = 0; fsb_workloads[i]; i++)
		w = w > (int)strlen(fsb_workloads[i]->name) ? w :
							      (int)strlen(fsb_workloads[i]->name);
	for (int i = 0; fsb_commands[i].name; i++)
		w = w > (int)strlen(fsb_commands[i].name) ? w : (int)strlen(fsb_commands[i].name);
	fprintf(out,
		"usage: fsbench COMMAND [options]   (fsbench COMMAND --help for its options)\n\n");
	for (int i = 0; fsb_workloads[i]; i++)
		fprintf(out, "  %-*s %s\n", w, fsb_workloads[i]->name, fsb_workloads[i]->summary);
	for (int i = 0; fsb_commands[i].name; i++)
		fprintf(out, "  %-*s %s\n", w, fsb_commands[i].name, fsb_commands[i].summary);
}

/*
 * The workload that @argv0 names as a drop-in (the links -Dfs_mark_link, -Ddbench_link and
 * -Dcompilebench_link install): fs_mark is `fsbench smallfile`, dbench is `fsbench dbench`,
 * compilebench is `fsbench tree`; NULL for others.
 */
static const struct fsb_workload *drop_in(const char *argv0, const char **ret_name)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	for (int i = 0; base && fsb_dropins[i].program; i++)
		if (!strcmp(base, fsb_dropins[i].program)) {
			*ret_name = fsb_dropins[i].program;
			return fsb_workload_find(fsb_dropins[i].workload);
		}
	return NULL;
}

/*
 * Every command's stdout checked in one place: a write that failed (a full disk, a closed
 * pipe, /dev/full), or a flush or close that fails now, turns exit 0 into an error.
 */
static int stdout_checked(int r, const char *cmd)
{
	int bad = ferror(stdout), e = 0;

	errno = 0;
	if (fflush(stdout) == EOF)
		bad = 1, e = errno;
	if (fclose(stdout) == EOF && !bad)
		bad = 1, e = errno;
	if (!bad || r) /* a command that failed has said why */
		return r;
	fprintf(stderr, "fsbench%s%s: writing stdout: %s\n", cmd ? " " : "", cmd ? cmd : "",
		e ? strerror(e) : "a write failed");
	return FSB_EXIT_FAIL;
}

static int dispatch(int argc, char **argv);

int fsb_dispatch(int argc, char **argv)
{
	return stdout_checked(dispatch(argc, argv), argc > 1 && argv[1][0] != '-' ? argv[1] : NULL);
}

static int dispatch(int argc, char **argv)
{
	const struct fsb_workload *wl;
	const char *name = NULL;

	/* harnesses that run fs_mark or dbench from PATH get the workload, flags unchanged */
	if (argc > 0 && (wl = drop_in(argv[0], &name)))
		return cmd_workload(wl, argc, argv, name);
	if (argc < 2)
		return cmd_default();
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fsbench %s\n", FSB_VERSION);
		return 0;
	}
	/* hidden: what the build runs to make the man pages and the completion (cli/man_cmd.c) */
	if (!strcmp(argv[1], "--man"))
		return fsb_man(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--completion"))
		return fsb_completion(argc - 1, argv + 1);
	wl = fsb_workload_find(argv[1]);
	if (wl)
		return cmd_workload(wl, argc - 1, argv + 1, NULL);
	for (int i = 0; fsb_commands[i].name; i++)
		if (!strcmp(argv[1], fsb_commands[i].name))
			return fsb_commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "fsbench: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return FSB_EXIT_USAGE;
}
