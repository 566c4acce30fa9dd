/* `fsbench explain`: the attribution table of result files, the slowest calls and why. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <stdint.h>
#include <stdio.h>

#include "report/attrib.h"
#include "model/result_file.h"
#include "model/schema.h"

struct explain_cfg {
	char *op;
	int64_t rows;
	bool markdown;
	struct cmd_files files;
};

#define O(f) offsetof(struct explain_cfg, f)
static const struct fsb_opt explain_opts[] = {
	{ .name = "op",
	  .type = OPT_STRING,
	  .offset = O(op),
	  .help = "only this operation (fsync, write, victim...)" },
	{ .name = "rows",
	  .short_name = 'n',
	  .type = OPT_INT,
	  .offset = O(rows),
	  .min = 1,
	  .max = RPT_ATTRIB_MAX,
	  .def = "20",
	  .help = "rows per run, slowest first" },
	{ .name = "markdown", .type = OPT_BOOL, .offset = O(markdown), .help = "a markdown table" },
	{ 0 },
};
#undef O

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench explain [--op OP] [-n N] [--markdown] RESULT.json...\n\n"
		"For each run with eBPF probes (--probes), its slowest calls (20 per operation are\n"
		"kept), slowest first, each with what the kernel did on the device while it ran:\n"
		"journal commits and their phases, the cache flushes inside them, log forces,\n"
		"requests, writeback throttling.\n\n");
}

static int explain_run(void *cfg)
{
	const struct explain_cfg *c = cfg;
	int shown = 0;

	if (!c->files.n) {
		fprintf(stderr, "fsbench explain: no result files (see --help)\n");
		return FSB_EXIT_USAGE;
	}
	for (int f = 0; f < c->files.n; f++) {
		char err[512];
		json_t *doc, *run;
		size_t r;

		if (rpt_result_load(c->files.v[f], &doc, err, sizeof(err)) < 0) {
			fprintf(stderr, "fsbench explain: %s\n", err);
			return FSB_EXIT_USAGE;
		}
		json_array_foreach(json_object_get(doc, RPT_KEY_RUNS), r, run)
		{
			const json_t *t = json_object_get(run, "target");
			const char *fs = json_string_value(json_object_get(t, "fstype"));
			const char *dev = json_string_value(json_object_get(t, "device"));

			if (!json_object_get(run, "probes"))
				continue;
			/* a result is anyone's file: a missing name is "?", never "(null)" */
			printf("%s%s run %zu: %s, %s on %s\n", shown ? "\n" : "", c->files.v[f], r,
			       rpt_json_str(run, RPT_KEY_WORKLOAD, "?"), rpt_str_or(fs, "?"),
			       rpt_str_or(dev, "?"));
			if (c->markdown)
				printf("\n");
			rpt_attrib_print(stdout, run, c->op, (size_t)c->rows, c->markdown);
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

static const struct cmd_spec explain_cmd = {
	.name = "explain",
	.opts = explain_opts,
	.files_offset = offsetof(struct explain_cfg, files),
	.usage = usage,
	.run = explain_run,
};

int cmd_explain(int argc, char **argv)
{
	struct explain_cfg c = { 0 };

	return cmd_args_run(&explain_cmd, &c, argc, argv);
}
