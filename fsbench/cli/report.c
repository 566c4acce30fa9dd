/* `fsbench report`: result files into one self-contained HTML page with plots and the comparison. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <string.h>

#include "base/fileio.h"
#include "base/spawn.h"
#include "report/html.h"
#include "model/result_file.h"
#include "report/gate.h"
#include "report/compare.h"
#include "report/plan.h"

/* the page plots every thread count a run can have */
_Static_assert(MDL_MAX_THREADS == FSB_MAX_THREADS, "report/ and fsbench/ disagree on threads");
_Static_assert(2 * CMD_MAX_FILES <= RPT_PLAN_MAX_FILES, "a page takes every file of both sides");

struct report_cfg {
	struct cmd_sides sides;
	char *output, *title, *across, *baseline_value;
	bool no_plots;
	/* the judge's, as compare takes them: the page says what compare --gate would */
	char *gate_file;
	double alpha, threshold, floor;
	bool allow_unproven, allow_unmatched;
};

#define O(f) offsetof(struct report_cfg, f)
static const struct fsb_opt report_opts[] = {
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = O(output),
	  .def = "report.html",
	  .file = OPT_FILE,
	  .help = "the page to write" },
	{ .name = "title",
	  .type = OPT_STRING,
	  .offset = O(title),
	  .def = "fsbench report",
	  .help = "the page's title" },
	{ .name = "baseline",
	  .type = OPT_BOOL,
	  .offset = O(sides.baseline),
	  .help = "the files that follow are the baseline (the default side)" },
	{ .name = "candidate",
	  .type = OPT_BOOL,
	  .offset = O(sides.candidate),
	  .help = "the files that follow are the candidate: each cell of the suite is compared with "
		  "the same cell of the baseline" },
	{ .name = "across",
	  .type = OPT_STRING,
	  .offset = O(across),
	  .help = "the sides are the values of coords.FIELD (e.g. fs), or 'file': each file a side "
		  "(default: each file with several files, fs with one suite file)" },
	{ .name = "baseline-value",
	  .type = OPT_STRING,
	  .offset = O(baseline_value),
	  .help = "with --across FIELD: the value compared against (default: the first seen)" },
	{ .name = "no-plots",
	  .type = OPT_BOOL,
	  .offset = O(no_plots),
	  .help = "tables only, without running gnuplot" },
	CMD_OPT_ALPHA(O(alpha), "significance level, as compare takes it"),
	CMD_OPT_THRESHOLD(O(threshold), "smallest change that counts, in percent, as compare"),
	{ .name = "floor",
	  .type = OPT_DOUBLE,
	  .offset = O(floor),
	  .dmax = 1000,
	  .def = "0",
	  .help = "judge by the A/A floor, N times each side's own spread (compare --floor)" },
	{ .name = "gate-file",
	  .type = OPT_STRING,
	  .offset = O(gate_file),
	  .file = OPT_FILE,
	  .help = "the gate file compare --gate-file takes: per-metric rules, strict, "
		  "allow_noisy, allow_unproven" },
	{ .name = "allow-unproven",
	  .type = OPT_BOOL,
	  .offset = O(allow_unproven),
	  .help = "as compare: a headline metric beyond the threshold but not proven passes" },
	{ .name = "allow-unmatched",
	  .type = OPT_BOOL,
	  .offset = O(allow_unmatched),
	  .help = "as compare: runs without a match on a side are dropped (and listed); "
		  "without it the page, like compare --gate, cannot judge such inputs" },
	{ 0 },
};
#undef O

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench report [-o report.html] [options] [--baseline] A.json... --candidate B.json...\n"
		"       fsbench report [-o report.html] [options] [--across FIELD|file] RESULT.json...\n"
		"       fsbench report [-o report.html] [options] COMPARE.json\n\n"
		"One HTML file that opens offline. With two sides it holds, in this order: the verdict of\n"
		"`fsbench compare --gate`; what was compared (kernel, host, CPU, device, filesystem, mount\n"
		"options, fsbench version, dates, command, host load) and how sure; the changes, regressions\n"
		"first, then large changes the noise hides, then improvements, the call that commits with\n"
		"its kernel-side why line (the full comparison folded under them); the plots, baseline beside\n"
		"candidate in one colour per filesystem (solid and dashed; each run a point, filled and open,\n"
		"where a line has at most 12): throughput against threads, latency by percentile per\n"
		"operation, throughput and Dirty/Writeback over time per streaming cell; then, for runs with\n"
		"eBPF probes, the kernel's work per call by cell and side, the slowest calls overall and per\n"
		"cell, and each run's own table folded. With one side, or one result file (a suite across\n"
		"filesystems), there is no verdict: the plots, the kernel side, and the comparison table\n"
		"last. The sides are those of `fsbench compare`: --baseline/--candidate pairs the same\n"
		"suite cells of two kernels (never pools them); several\n"
		"files without them are compared file against file; one suite file across coords.fs. A\n"
		"comparison written by `fsbench compare --json` is rendered as it is. Plots need gnuplot.\n\n");
}

static int add_file(void *cfg, char *arg, char *err, size_t errlen)
{
	return cmd_sides_add(&((struct report_cfg *)cfg)->sides, arg, err, errlen);
}

/* Writes the page to @outpath through a temporary file; an exit status. */
static int page_write(const char *outpath, json_t *const *docs, const char *const *paths, int ndocs,
		      const struct rpt_cmp *cmp, const struct rpt_html_opts *ho)
{
	char *tmp = NULL;
	int drawn = 0, e;
	FILE *out;

	out = base_out_open(outpath, &tmp);
	if (!out)
		return cmd_fail(FSB_EXIT_FAIL, "report", "creating a temporary file beside %s: %s",
				outpath, strerror(errno));
	e = rpt_html_write(docs, paths, (size_t)ndocs, cmp, ho, out, &drawn);
	/* commit frees tmp */
	e = base_out_commit(out, tmp, outpath, e);
	tmp = NULL;
	if (e)
		return cmd_fail(FSB_EXIT_FAIL, "report", "writing %s: %s", outpath, strerror(-e));
	fprintf(stderr, "fsbench report: wrote %s (%d plot%s)\n", outpath, drawn,
		drawn == 1 ? "" : "s");
	return FSB_EXIT_OK;
}

/* An exit status for the -errno of report/plan.h: inputs or flags the user must fix, or the system. */
static int plan_status(int e, const char *err)
{
	fprintf(stderr, "fsbench report: %s\n", err);
	return e == -ENOMEM ? FSB_EXIT_SYSTEM : FSB_EXIT_USAGE;
}

static int report_run(void *cfg)
{
	struct report_cfg *c = cfg;
	const char *paths[2 * CMD_MAX_FILES];
	int sides[2 * CMD_MAX_FILES], status, e;
	struct rpt_plan_request q = { .paths = paths,
				      .sides = sides,
				      .across = c->across,
				      .baseline_value = c->baseline_value };
	struct rpt_plan p = { 0 };
	struct rpt_html_opts ho;
	struct rpt_cmp *cmp = NULL;
	struct rpt_compare_opts judge;
	json_t *gate = NULL;
	char err[1024];

	if (cmd_sides_finish(&c->sides, err, sizeof(err)))
		return cmd_fail(FSB_EXIT_USAGE, "report", "%s", err);
	rpt_compare_opts_init(&judge);
	judge.alpha = c->alpha;
	judge.threshold_pct = c->threshold;
	judge.floor_multiple = c->floor;
	judge.allow_unproven = c->allow_unproven;
	judge.allow_unmatched = c->allow_unmatched;
	if (c->gate_file && rpt_gate_opts_load(c->gate_file, &judge, &gate, err, sizeof(err)))
		return cmd_fail(FSB_EXIT_USAGE, "report", "%s", err);
	if (!c->sides.nfiles[0] && !c->sides.nfiles[1])
		return cmd_fail(FSB_EXIT_USAGE, "report", "no result files (see --help)");
	ho = (struct rpt_html_opts){ .title = c->title,
				     .gnuplot = !c->no_plots && base_spawn_in_path("gnuplot") ?
							"gnuplot" :
							NULL };
	q.two = c->sides.saw_candidate;
	q.n = cmd_sides_flatten(&c->sides, paths, sides);
	if ((e = rpt_plan_check(&q, err, sizeof(err))) ||
	    (e = rpt_plan_load(&p, &q, err, sizeof(err)))) {
		status = plan_status(e, err);
		goto out;
	}
	/* a comparison written by `fsbench compare --json`: its table, as it is */
	if (p.rs.compare) {
		ho.gnuplot = NULL; /* a comparison holds statistics, not histograms or series */
		ho.inputs_note =
			"a comparison (fsbench-compare/1): its table only; the result files "
			"it was made from have the plots.";
		status = page_write(c->output, NULL, p.paths, 0, p.rs.cmp, &ho);
		goto out;
	}
	e = rpt_plan_sides(&p, &q, err, sizeof(err));
	if (e) {
		status = plan_status(e, err);
		goto out;
	}
	if (rpt_plan_compare(&p, &judge, &cmp, err, sizeof(err)))
		fprintf(stderr, "fsbench report: no comparison table: %s\n", err);
	if (!c->no_plots && !ho.gnuplot)
		fprintf(stderr,
			"fsbench report: gnuplot is not installed: the page has tables but no plots\n");
	ho.labels = p.labels;
	ho.compare_note = p.note[0] ? p.note : NULL;
	status = page_write(c->output, p.rs.docs, p.paths, p.ndocs, cmp, &ho);
out:
	rpt_cmp_free(cmp);
	rpt_plan_free(&p);
	json_decref(gate);
	return status;
}

static const struct cmd_spec report_cmd = {
	.name = "report",
	.opts = report_opts,
	.operand = add_file,
	.usage = usage,
	.run = report_run,
};

int cmd_report(int argc, char **argv)
{
	struct report_cfg c = { 0 };

	return cmd_args_run(&report_cmd, &c, argc, argv);
}
