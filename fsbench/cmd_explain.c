/* `fsbench explain`: the attribution table of result files, the slowest calls and why. */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/attrib.h"
#include "../report/result.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench explain [--op OP] [-n N] [--markdown] RESULT.json...\n\n"
		"For each run with eBPF probes (--probes), its slowest calls (20 per operation are\n"
		"kept), slowest first, each with what the kernel did on the device while it ran:\n"
		"journal commits and their phases, the cache flushes inside them, log forces,\n"
		"requests, writeback throttling.\n\n"
		"  --op OP      only this operation (fsync, write, victim...)\n"
		"  -n N         rows per run (default 20)\n"
		"  --markdown   a markdown table\n");
}

int fsb_cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "op", required_argument, NULL, 'o' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *op = NULL;
	bool markdown = false;
	long rows = 20;
	int c, shown = 0;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			op = optarg;
			break;
		case 'm':
			markdown = true;
			break;
		case 'n':
			errno = 0;
			rows = strtol(optarg, &end, 10);
			if (errno || *end || rows < 1 || rows > RPT_ATTRIB_MAX) {
				fprintf(stderr,
					"fsbench explain: -n %s: not a number from 1 to %d\n",
					optarg, RPT_ATTRIB_MAX);
				return FSB_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return FSB_EXIT_OK;
		default:
			usage(stderr);
			return FSB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return FSB_EXIT_USAGE;
	}
	for (int f = optind; f < argc; f++) {
		char err[512];
		json_t *doc, *run;
		size_t r;

		if (rpt_result_load(argv[f], &doc, err, sizeof(err)) < 0) {
			fprintf(stderr, "fsbench explain: %s\n", err);
			return FSB_EXIT_USAGE;
		}
		json_array_foreach(json_object_get(doc, "runs"), r, run)
		{
			const json_t *t = json_object_get(run, "target");
			const char *fs = json_string_value(json_object_get(t, "fstype"));
			const char *dev = json_string_value(json_object_get(t, "device"));

			if (!json_object_get(run, "probes"))
				continue;
			printf("%s%s run %zu: %s, %s on %s\n", shown ? "\n" : "", argv[f], r,
			       json_string_value(json_object_get(run, "workload")), fs ? fs : "?",
			       dev ? dev : "?");
			if (markdown)
				printf("\n");
			rpt_attrib_print(stdout, run, op, (size_t)rows, markdown);
			shown++;
		}
		json_decref(doc);
	}
	if (!shown) {
		fprintf(stderr,
			"fsbench explain: no run has eBPF probes (run as root, with --probes)\n");
		return FSB_EXIT_FAIL;
	}
	return FSB_EXIT_OK;
}
