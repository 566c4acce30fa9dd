/* Subcommand dispatch: the workloads from their table, then the other commands. */
#include "commands.h"
#include "cmd_compare.h"

#include <stdio.h>
#include <string.h>

int fsb_cmd_info(int argc, char **argv);
int fsb_cmd_knobs(int argc, char **argv);
int fsb_cmd_restore(int argc, char **argv);
int cmd_kernel_gate(int argc, char **argv);
int cmd_kernel_run(int argc, char **argv);
int cmd_lava(int argc, char **argv);

const struct fsb_command fsb_commands[] = {
	{ "suite", "a matrix of filesystems, knobs, workloads and threads on fresh filesystems",
	  cmd_suite },
	{ "compare", "judge results against a baseline; --gate for CI", cmd_compare },
	{ "report", "one self-contained HTML page with plots and the comparison", cmd_report },
	{ "export", "write results for dashboards: openmetrics, influx, bencher, kcidb...",
	  cmd_export },
	{ "kernel-gate", "boot a baseline and a candidate kernel in QEMU, run a suite, gate",
	  cmd_kernel_gate },
	{ "kernel-run", "boot one kernel in QEMU and run a suite inside", cmd_kernel_run },
	{ "lava", "the suite as a LAVA job; LAVA's results back as fsbench results", cmd_lava },
	{ "info", "what lies under a path: mount, device, knobs, topology", fsb_cmd_info },
	{ "knobs", "show or set the queue, drive, mount and vm knobs under a path", fsb_cmd_knobs },
	{ "restore", "put back the knobs an interrupted run changed, from the restore journal",
	  fsb_cmd_restore },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench COMMAND [options]   (fsbench COMMAND --help for its options)\n\n");
	for (int i = 0; fsb_workloads[i]; i++)
		fprintf(out, "  %-10s %s\n", fsb_workloads[i]->name, fsb_workloads[i]->summary);
	for (int i = 0; fsb_commands[i].name; i++)
		fprintf(out, "  %-10s %s\n", fsb_commands[i].name, fsb_commands[i].summary);
}

int fsb_main(int argc, char **argv)
{
	const struct fsb_workload *wl;

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
	wl = fsb_workload_find(argv[1]);
	if (wl)
		return cmd_workload(wl, argc - 1, argv + 1);
	for (int i = 0; fsb_commands[i].name; i++)
		if (!strcmp(argv[1], fsb_commands[i].name))
			return fsb_commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "fsbench: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return FSB_EXIT_USAGE;
}
