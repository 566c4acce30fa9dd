/* `fsbench compare`: two sides (files, or the values of one coordinate) judged metric by metric. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <string.h>

#include "base/fileio.h"
#include "model/result_file.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/export.h"
#include "report/gate.h"
#include "report/hostload_rule.h"
#include "report/runset.h"

static const char *const formats[] = { "text", "markdown", "json", NULL };
enum { FORMAT_TEXT, FORMAT_MARKDOWN, FORMAT_JSON };
/* "mann-whitney" is the name the JSON settings use for "rank" */
static const char *const tests[] = { "auto", "welch", "rank", "mann-whitney", NULL };

struct compare_cfg {
	struct cmd_sides sides;
	char *across, *baseline_value, *json, *gate_file;
	char *junit; /* --junit FILE: the verdict as JUnit XML for a CI's test view */
	double alpha, threshold, noise, floor, max_host_load;
	int test, format;
	bool gate, strict, allow_noisy, allow_unproven, allow_unmatched;
};

#define O(f) offsetof(struct compare_cfg, f)
static const struct fsb_opt compare_opts[] = {
	{ .name = "baseline",
	  .type = OPT_BOOL,
	  .offset = O(sides.baseline),
	  .help = "the files that follow are the baseline (the default side)" },
	{ .name = "candidate",
	  .type = OPT_BOOL,
	  .offset = O(sides.candidate),
	  .help = "the files that follow are the candidate" },
	{ .name = "across",
	  .type = OPT_STRING,
	  .offset = O(across),
	  .help = "the sides are the values of coords.FIELD (e.g. fs) in suite results" },
	{ .name = "baseline-value",
	  .type = OPT_STRING,
	  .offset = O(baseline_value),
	  .help = "with --across: the value compared against (default: the first seen)" },
	CMD_OPT_ALPHA(O(alpha), "significance level"),
	CMD_OPT_THRESHOLD(O(threshold), "smallest change that counts, in percent"),
	{ .name = "noise",
	  .type = OPT_DOUBLE,
	  .offset = O(noise),
	  .dmax = 1000,
	  .def = CMD_XSTR(RPT_DEFAULT_NOISE_COV_PCT),
	  .unit = "%",
	  .help = "CoV above which an unproven change is 'noisy', in percent" },
	{ .name = "floor",
	  .type = OPT_DOUBLE,
	  .offset = O(floor),
	  .dmax = 1000,
	  .def = "0",
	  .help = "decide by the A/A floor instead of a test: a change counts beyond the "
		  "threshold and MULTIPLE times the largest difference between two runs of one "
		  "side that share a repetition (for kernel-gate's model disk; 0: off)" },
	{ .name = "max-host-load",
	  .type = OPT_DOUBLE,
	  .offset = O(max_host_load),
	  .dmax = 100,
	  .def = "0",
	  .unit = "%",
	  .help = "a side whose host had this share of its CPU time or more taken by others "
		  "cannot be judged (0: a busy side is only warned about; unequal load and a "
		  "drifting canary are never judged)" },
	{ .name = "test",
	  .type = OPT_ENUM,
	  .offset = O(test),
	  .def = "auto",
	  .choices = tests,
	  .help = "which test decides" },
	{ .name = "gate",
	  .type = OPT_BOOL,
	  .offset = O(gate),
	  .help = "exit 1 when a gated metric regressed: the seeds' (files/s, MB/s, fsync and "
		  "fdatasync p50 and p99, write amplification), and those a gate file names "
		  "(2: unusable input)" },
	{ .name = "gate-file",
	  .type = OPT_STRING,
	  .offset = O(gate_file),
	  .file = OPT_FILE,
	  .help = "per-metric alpha/threshold_pct/noise_cov_pct/gate (a metric it names gates "
		  "unless gate is false), and top-level strict/allow_noisy (implies --gate)" },
	{ .name = "strict",
	  .type = OPT_BOOL,
	  .offset = O(strict),
	  .help = "a gate that cannot judge fails with exit 2: a gated metric 'insufficient' (fewer "
		  "than " CMD_XSTR(
			  RPT_MIN_SAMPLES) " samples a side) or 'noisy', or nothing compared; "
					   "without it they are only warned about (implies --gate)" },
	{ .name = "allow-noisy",
	  .type = OPT_BOOL,
	  .offset = O(allow_noisy),
	  .help = "with --strict: 'noisy' metrics pass with a warning" },
	{ .name = "allow-unproven",
	  .type = OPT_BOOL,
	  .offset = O(allow_unproven),
	  .help = "a headline metric (files/s, MB/s, fsync and fdatasync p50/p99, write "
		  "amplification) beyond the threshold but not proven passes the gate with a "
		  "warning, instead of 'cannot judge'" },
	{ .name = "allow-unmatched",
	  .type = OPT_BOOL,
	  .offset = O(allow_unmatched),
	  .help = "drop samples missing on a side instead of failing" },
	{ .name = "format",
	  .type = OPT_ENUM,
	  .offset = O(format),
	  .def = "text",
	  .choices = formats,
	  .help = "what goes to stdout" },
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = O(json),
	  .file = OPT_FILE,
	  .help = "also write the comparison (fsbench-compare/1) to FILE" },
	{ .name = "junit",
	  .type = OPT_STRING,
	  .offset = O(junit),
	  .file = OPT_FILE,
	  .help = "also write the verdict as JUnit XML to FILE, for a CI's test view: a gated "
		  "regression fails, what could not be judged is skipped with its reason" },
	{ 0 },
};
#undef O

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench compare [options] [--baseline] A.json... --candidate B.json...\n"
		"       fsbench compare [options] A.json B.json\n"
		"       fsbench compare [options] --across FIELD [--baseline-value V] SUITE.json...\n\n"
		"Runs that share coordinates (or workload, threads and parameters) form a sample; each\n"
		"metric's sides are compared with Welch's t-test (latency percentiles: the Mann-Whitney\n"
		"rank test when both sides have at least 4 samples). A metric regresses when p < alpha\n"
		"AND the change exceeds the threshold in the metric's bad direction AND each side's\n"
		"own spread (max - min of its runs), AND its p stays below alpha after the\n"
		"Benjamini-Hochberg correction across the gated metrics (q in the JSON).\n\n");
}

static int add_file(void *cfg, char *arg, char *err, size_t errlen)
{
	return cmd_sides_add(&((struct compare_cfg *)cfg)->sides, arg, err, errlen);
}

/* The flags' values checked and turned into the comparer's options; FSB_EXIT_OK or _USAGE. */
static int compare_setup(struct compare_cfg *c, struct rpt_compare_opts *o)
{
	char err[OPT_ERR_MAX];

	if (cmd_sides_finish(&c->sides, err, sizeof(err)))
		return cmd_fail(FSB_EXIT_USAGE, "compare", "%s", err);
	rpt_compare_opts_init(o);
	/* the option table refused nan, inf and values out of range */
	o->alpha = c->alpha;
	o->threshold_pct = c->threshold;
	o->noise_cov_pct = c->noise;
	o->max_host_load_pct = c->max_host_load;
	o->test = c->test == 0 ? RPT_TEST_AUTO :
		  c->test == 1 ? RPT_TEST_ONLY_WELCH :
				 RPT_TEST_ONLY_RANK;
	o->across = c->across;
	o->strict = c->strict;
	o->allow_noisy = c->allow_noisy;
	o->allow_unproven = c->allow_unproven;
	o->allow_unmatched = c->allow_unmatched;
	if (c->strict || c->gate_file)
		c->gate = true;
	if (c->baseline_value && !c->across)
		return cmd_fail(FSB_EXIT_USAGE, "compare", "--baseline-value needs --across");
	/* `compare A.json B.json`: the design's short form */
	if (!c->across && !c->sides.saw_candidate && c->sides.nfiles[0] == 2) {
		c->sides.files[1][c->sides.nfiles[1]++] = c->sides.files[0][1];
		c->sides.nfiles[0] = 1;
	}
	if (!c->sides.nfiles[0] && !c->sides.nfiles[1])
		return cmd_fail(FSB_EXIT_USAGE, "compare", "no result files (see --help)");
	if (!c->across && (!c->sides.nfiles[0] || !c->sides.nfiles[1]))
		return cmd_fail(FSB_EXIT_USAGE, "compare",
				"nothing to compare against: give --baseline FILE... --candidate "
				"FILE..., or --across FIELD");
	return FSB_EXIT_OK;
}

/* A line of the gate's reasons (rpt_gate_explain) on stderr. */
static void say(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "fsbench compare: %s\n", line);
}

static int gate_status(enum rpt_gate_status st)
{
	/* the page says the same (rpt_gate_exit_status): one mapping */
	return rpt_gate_exit_status(st);
}

/* The comparison as JUnit XML (report/export_junit.c), written whole or not at all. */
static int junit_write(const struct rpt_cmp *judged, const char *path)
{
	struct rpt_export_opts eo = { 0 };
	char *tmp = NULL;
	FILE *f = base_out_open(path, &tmp);

	if (!f)
		return -errno;
	return base_out_commit(f, tmp, path, rpt_export_junit.write(judged, &eo, f));
}

static int compare_run(void *cfg)
{
	struct compare_cfg *c = cfg;
	struct rpt_compare_opts o;
	struct rpt_runset rs = { 0 };
	const char *paths[2 * CMD_MAX_FILES], *default_names[2] = { "baseline", "candidate" };
	int sides[2 * CMD_MAX_FILES], nsides, status, e;
	json_t *gate = NULL, *cmp = NULL;
	struct rpt_cmp *judged = NULL;
	size_t npaths = 0;
	char err[2048];

	status = compare_setup(c, &o);
	if (status != FSB_EXIT_OK)
		return status;
	/* the output's place before any work: a gate must not judge and then lose its record */
	if (c->json && (e = base_out_check(c->json)) < 0)
		return cmd_fail(FSB_EXIT_USAGE, "compare", "--json %s: %s", c->json, strerror(-e));
	if (c->junit && (e = base_out_check(c->junit)) < 0)
		return cmd_fail(FSB_EXIT_USAGE, "compare", "--junit %s: %s", c->junit,
				strerror(-e));
	/* a gate file or result that cannot be read is the user's to fix */
	status = FSB_EXIT_USAGE;
	if (c->gate_file && rpt_gate_opts_load(c->gate_file, &o, &gate, err, sizeof(err)))
		goto fail;
	if (o.allow_noisy && !o.strict) {
		snprintf(
			err, sizeof(err),
			"--allow-noisy only relaxes a strict gate: add --strict (or \"strict\": true in the gate file)");
		goto fail;
	}
	npaths = cmd_sides_flatten(&c->sides, paths, sides);
	nsides = rpt_runset_load_sides(&rs, paths, sides, npaths, o.across, c->baseline_value, err,
				       sizeof(err));
	if (nsides < 0) {
		status = nsides == -ENOMEM ? FSB_EXIT_SYSTEM : FSB_EXIT_USAGE;
		goto fail;
	}
	if (nsides < 2)
		fprintf(stderr,
			"fsbench compare: every run has coords.%s = %s: statistics only, nothing compared\n",
			o.across, rs.names[0]);
	o.floor_multiple = c->floor;
	e = rpt_runset_judge(&rs, o.across ? NULL : default_names, 2, &o, &judged, err,
			     sizeof(err));
	/* runs that cannot be put side by side: nothing can be judged of them */
	status = e == -EPROTO ? FSB_EXIT_CANNOT_JUDGE : FSB_EXIT_SYSTEM;
	if (e)
		goto fail;
	/* the document, serialised once from what the judge decided */
	cmp = rpt_cmp_to_json(judged);
	if (!cmp) {
		snprintf(err, sizeof(err), "writing the comparison: %s", strerror(ENOMEM));
		goto fail;
	}
	if (c->format == FORMAT_JSON) {
		json_dumpf(cmp, stdout, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
	} else {
		rpt_cmp_print(judged, stdout, c->format == FORMAT_MARKDOWN);
	}
	fflush(stdout);
	if (c->json && (e = mdl_json_write_atomic(cmp, c->json))) {
		snprintf(err, sizeof(err), "writing %s: %s", c->json, strerror(-e));
		status = FSB_EXIT_SYSTEM;
		goto fail;
	}
	if (c->junit && (e = junit_write(judged, c->junit))) {
		snprintf(err, sizeof(err), "writing %s: %s", c->junit, strerror(-e));
		status = FSB_EXIT_SYSTEM;
		goto fail;
	}
	for (size_t i = 0; i < judged->nexcluded; i++)
		fprintf(stderr, "fsbench compare: %s: run %lld is incomplete and left out: %s\n",
			judged->excluded[i].file, judged->excluded[i].run,
			judged->excluded[i].what);
	status = c->gate ? gate_status(rpt_gate_explain(judged, say, NULL)) : FSB_EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "fsbench compare: %s\n", err);
out:
	rpt_cmp_free(judged);
	json_decref(cmp);
	json_decref(gate);
	rpt_runset_free(&rs);
	return status;
}

static const struct cmd_spec compare_cmd = {
	.name = "compare",
	.opts = compare_opts,
	.operand = add_file,
	.usage = usage,
	.run = compare_run,
};

int cmd_compare(int argc, char **argv)
{
	struct compare_cfg c = { 0 };

	return cmd_args_run(&compare_cmd, &c, argc, argv);
}
