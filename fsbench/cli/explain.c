/* `fsbench explain`: the attribution table of result files, the slowest calls and why. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <stdint.h>
#include <stdio.h>

#include "report/attrib.h"
#include "report/compare_text.h"
#include "report/runset.h"
#include "model/result_file.h"

struct explain_cfg {
	char *op;
	int64_t rows;
	bool markdown;
	double threshold;
	struct cmd_sides sides;
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
	{ .name = "baseline",
	  .type = OPT_BOOL,
	  .offset = O(sides.baseline),
	  .help = "the files that follow are the baseline (with --candidate: why they differ)" },
	{ .name = "candidate",
	  .type = OPT_BOOL,
	  .offset = O(sides.candidate),
	  .help = "the files that follow are the candidate" },
	CMD_OPT_THRESHOLD(O(threshold), "with --candidate: smallest change explained, in percent"),
	{ 0 },
};
#undef O

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench explain [--op OP] [-n N] [--markdown] RESULT.json...\n"
		"       fsbench explain [--threshold PCT] [--markdown] --baseline A.json... --candidate B.json...\n\n"
		"For each run with eBPF probes (--probes), its slowest calls (20 per operation are\n"
		"kept), slowest first, each with what the kernel did on the device while it ran:\n"
		"journal commits and their phases, the cache flushes inside them, log forces,\n"
		"requests, writeback throttling.\n\n"
		"With --candidate: for each metric that moved more than the threshold between the\n"
		"sides (or that compare judges changed), why, from both sides' probes: per call the\n"
		"requests, bytes, flushes and FUA writes, journal commits, handles and flushes per\n"
		"commit and the commit's phases, log forces, btrfs commits, throttling, block d2c.\n\n");
}

static int add_file(void *cfg, char *arg, char *err, size_t errlen)
{
	return cmd_sides_add(&((struct explain_cfg *)cfg)->sides, arg, err, errlen);
}

/* Two sides: the compare document's why lines (report/why.c), nothing else of it. */
static int explain_sides(const struct explain_cfg *c)
{
	const char *paths[2 * CMD_MAX_FILES];
	int sides[2 * CMD_MAX_FILES];
	json_t *cmp = NULL;
	size_t npaths;
	char err[1024];

	if (!c->sides.nfiles[0] || !c->sides.nfiles[1])
		return cmd_fail(FSB_EXIT_USAGE, "explain",
				"--candidate needs files on both sides (see --help)");
	npaths = cmd_sides_flatten(&c->sides, paths, sides);
	if (rpt_runset_why(paths, sides, npaths, c->threshold, &cmp, err, sizeof(err)))
		return cmd_fail(FSB_EXIT_USAGE, "explain", "%s", err);
	if (!rpt_compare_why_print(cmp, stdout, c->markdown))
		printf("no metric moved more than %g %% with probes on both sides to say why\n",
		       c->threshold);
	json_decref(cmp);
	return FSB_EXIT_OK;
}

static int explain_run(void *cfg)
{
	struct explain_cfg *c = cfg;
	int shown = 0;
	char serr[OPT_ERR_MAX];

	if (cmd_sides_finish(&c->sides, serr, sizeof(serr)))
		return cmd_fail(FSB_EXIT_USAGE, "explain", "%s", serr);
	if (c->sides.saw_candidate)
		return explain_sides(c);
	if (!c->sides.nfiles[0])
		return cmd_fail(FSB_EXIT_USAGE, "explain", "no result files (see --help)");
	for (size_t f = 0; f < c->sides.nfiles[0]; f++) {
		char err[512];
		json_t *doc;

		if (mdl_result_load(c->sides.files[0][f], &doc, err, sizeof(err)) < 0)
			return cmd_fail(FSB_EXIT_USAGE, "explain", "%s", err);
		rpt_attrib_print_doc(stdout, c->sides.files[0][f], doc, c->op, (size_t)c->rows,
				     c->markdown, &shown);
		json_decref(doc);
	}
	if (!shown)
		return cmd_fail(FSB_EXIT_FAIL, "explain",
				"no run has eBPF probes (run as root, with --probes)");
	return FSB_EXIT_OK;
}

static const struct cmd_spec explain_cmd = {
	.name = "explain",
	.opts = explain_opts,
	.operand = add_file,
	.usage = usage,
	.run = explain_run,
};

int cmd_explain(int argc, char **argv)
{
	struct explain_cfg c = { 0 };

	return cmd_args_run(&explain_cmd, &c, argc, argv);
}
