/* `fsbench compare`: two sides (files, or the values of one coordinate) judged metric by metric. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "model/result_file.h"
#include "model/doc.h"
#include "model/schema.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/gate.h"
#include "report/hostload.h"
#include "report/runset.h"

static const char *const formats[] = { "text", "markdown", "json", NULL };
enum { FORMAT_TEXT, FORMAT_MARKDOWN, FORMAT_JSON };
/* "mann-whitney" is the name the JSON settings use for "rank" */
static const char *const tests[] = { "auto", "welch", "rank", "mann-whitney", NULL };

struct compare_cfg {
	struct cmd_sides sides;
	char *across, *baseline_value, *json, *gate_file;
	double alpha, threshold, noise, floor, max_host_load;
	int test, format;
	bool gate, strict, allow_noisy, allow_unmatched;
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
	  .help = "exit 1 when a metric regressed (2: unusable input)" },
	{ .name = "gate-file",
	  .type = OPT_STRING,
	  .offset = O(gate_file),
	  .file = OPT_FILE,
	  .help = "per-metric alpha/threshold_pct/noise_cov_pct/gate, and top-level strict/allow_noisy "
		  "(implies --gate)" },
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

	if (cmd_sides_finish(&c->sides, err, sizeof(err))) {
		fprintf(stderr, "fsbench compare: %s\n", err);
		return FSB_EXIT_USAGE;
	}
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
	o->allow_unmatched = c->allow_unmatched;
	if (c->strict || c->gate_file)
		c->gate = true;
	if (c->baseline_value && !c->across) {
		fprintf(stderr, "fsbench compare: --baseline-value needs --across\n");
		return FSB_EXIT_USAGE;
	}
	/* `compare A.json B.json`: the design's short form */
	if (!c->across && !c->sides.saw_candidate && c->sides.nfiles[0] == 2) {
		c->sides.files[1][c->sides.nfiles[1]++] = c->sides.files[0][1];
		c->sides.nfiles[0] = 1;
	}
	if (!c->sides.nfiles[0] && !c->sides.nfiles[1]) {
		fprintf(stderr, "fsbench compare: no result files (see --help)\n");
		return FSB_EXIT_USAGE;
	}
	if (!c->across && (!c->sides.nfiles[0] || !c->sides.nfiles[1])) {
		fprintf(stderr,
			"fsbench compare: nothing to compare against: give --baseline FILE... --candidate "
			"FILE..., or --across FIELD\n");
		return FSB_EXIT_USAGE;
	}
	return FSB_EXIT_OK;
}

/* Loads the gate file into @o; FSB_EXIT_OK, or FSB_EXIT_UNUSABLE after saying why. */
static int gate_load(const char *path, struct rpt_compare_opts *o, json_t **ret_gate)
{
	char err[2048];
	json_t *gate;

	if (rpt_gate_load(path, &gate, err, sizeof(err))) {
		fprintf(stderr, "fsbench compare: %s\n", err);
		return FSB_EXIT_UNUSABLE;
	}
	*ret_gate = gate;
	o->gate = gate;
	if (json_is_true(json_object_get(gate, "strict")))
		o->strict = true;
	if (json_is_true(json_object_get(gate, "allow_noisy")))
		o->allow_noisy = true;
	return FSB_EXIT_OK;
}

/* Appends "SIDE N, SIDE N" (complete runs per side) of metric @m to @f. */
static void side_counts(FILE *f, const struct rpt_cmp *cmp, const struct rpt_cmp_metric *m)
{
	for (int k = 0; k < cmp->nsides; k++)
		fprintf(f, "%s%s %zu", k ? ", " : "", cmp->side_names[k], m->sides[k].n);
}

/*
 * A strict gate's complaint about one sample: which of its metrics it could not judge and
 * what would fix that. Returns the number of blocking comparisons.
 */
static size_t strict_sample_report(const struct rpt_cmp *cmp, const struct rpt_cmp_sample *s)
{
	const struct rpt_cmp_metric *few = NULL;
	char *noisy = NULL;
	size_t nlen = 0, n = 0;
	FILE *nf = open_memstream(&noisy, &nlen);
	double limit = NAN;

	if (!nf)
		return 0;
	for (size_t j = 0; j < s->nmetrics; j++)
		for (int k = 0; k + 1 < cmp->nsides; k++) {
			const struct rpt_cmp_metric *m = &s->metrics[j];
			const struct rpt_cmp_judged *c = &m->judged[k];

			if (!rpt_cmp_blocks(cmp, c))
				continue;
			n++;
			if (c->conditions) /* said once, by gate_report */
				continue;
			if (c->verdict == RPT_INSUFFICIENT) {
				if (!few)
					few = m;
				continue;
			}
			limit = c->rule.noise_cov_pct;
			fprintf(nf, "%s%s (CoV %s %.1f%%, %s %.1f%%)", ftell(nf) ? ", " : "",
				m->name, cmp->side_names[0], m->sides[0].st.cov * 100,
				cmp->side_names[c->side], m->sides[c->side].st.cov * 100);
		}
	fclose(nf);
	if (few) {
		fprintf(stderr, "fsbench compare: gate --strict: sample '%s': complete runs ",
			s->label);
		side_counts(stderr, cmp, few);
		fprintf(stderr,
			"; %d a side are needed to judge it (repeat each side's runs, or suite --repetitions %d)\n",
			RPT_MIN_SAMPLES, RPT_MIN_SAMPLES);
	}
	if (noisy && *noisy)
		fprintf(stderr,
			"fsbench compare: gate --strict: sample '%s': noisy, CoV above %g%% and no proven change: %s "
			"(more repetitions or a quieter machine; --allow-noisy lets them pass)\n",
			s->label, limit, noisy);
	free(noisy);
	return n;
}

/* Says on stderr what the gate decided and why; returns the exit status. */
static int gate_report(const struct rpt_cmp *cmp)
{
	bool strict = cmp->set.strict;
	enum rpt_gate_status st = rpt_cmp_gate_status(cmp);
	size_t reg = rpt_cmp_count(cmp, RPT_REGRESSION, true);
	size_t few = rpt_cmp_count(cmp, RPT_INSUFFICIENT, true);
	size_t noisy = rpt_cmp_count(cmp, RPT_NOISY, true);
	const char *cond_why, *busy_why;
	size_t cond = rpt_hostload_count(cmp, false, &cond_why);
	size_t busy = rpt_hostload_count(cmp, true, &busy_why);
	size_t blocking = 0, samples = 0;

	few -= cond < few ? cond : few; /* said below, not as too few samples */
	for (size_t i = 0; strict && i < cmp->nsamples; i++) {
		size_t b = strict_sample_report(cmp, &cmp->samples[i]);

		blocking += b;
		samples += b > 0;
	}
	if (few && !strict)
		fprintf(stderr,
			"fsbench compare: %zu metric(s) had fewer than %d samples a side and were not judged (--strict fails the gate on them)\n",
			few, RPT_MIN_SAMPLES);
	if (noisy && (!strict || cmp->set.allow_noisy))
		fprintf(stderr,
			"fsbench compare: %zu metric(s) were noisy (CoV above the noise limit, no proven change) and were not judged%s\n",
			noisy, strict ? " (--allow-noisy)" : " (--strict fails the gate on them)");
	if (cond)
		fprintf(stderr,
			"fsbench compare: %zu metric(s) not judged: the host was busy or the sides ran under unequal conditions; first: %s\n",
			cond, cond_why);
	if (busy)
		fprintf(stderr,
			"fsbench compare: warning: %zu metric(s) judged on a busy host (--max-host-load makes them 'cannot judge'); first: %s\n",
			busy, busy_why);
	if (reg)
		fprintf(stderr, "fsbench compare: gate: %zu regression(s)\n", reg);
	if (cmp->cannot_judge)
		fprintf(stderr, "fsbench compare: gate: cannot judge: %s\n",
			cmp->cannot_judge_reason);
	else if (st == RPT_GATE_UNJUDGED) {
		if (!strict)
			fprintf(stderr,
				"fsbench compare: gate: cannot judge: a gated metric would have regressed, but its sides ran under different conditions\n");
		else if (blocking)
			fprintf(stderr,
				"fsbench compare: gate --strict: %zu metric(s) in %zu sample(s) could not be judged\n",
				blocking, samples);
		else
			fprintf(stderr,
				"fsbench compare: gate --strict: no gated metric was compared, nothing was judged\n");
	}
	return st == RPT_GATE_REGRESSED ? FSB_EXIT_REGRESSED :
	       st == RPT_GATE_UNJUDGED	? FSB_EXIT_UNUSABLE :
					  FSB_EXIT_OK;
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
	char err[1024];

	status = compare_setup(c, &o);
	if (status != FSB_EXIT_OK)
		return status;
	/* the output's place before any work: a gate must not judge and then lose its record */
	if (c->json && (e = base_out_check(c->json)) < 0) {
		fprintf(stderr, "fsbench compare: --json %s: %s\n", c->json, strerror(-e));
		return FSB_EXIT_USAGE;
	}
	status = FSB_EXIT_UNUSABLE;
	if (c->gate_file && gate_load(c->gate_file, &o, &gate) != FSB_EXIT_OK)
		goto out;
	if (o.allow_noisy && !o.strict) {
		fprintf(stderr,
			"fsbench compare: --allow-noisy only relaxes a strict gate: add --strict (or \"strict\": true in the gate file)\n");
		goto out;
	}
	npaths = cmd_sides_flatten(&c->sides, paths, sides);
	/* a comparison is no input of compare: even alone it has no runs to judge */
	e = rpt_runset_load(&rs, paths, sides, npaths, err, sizeof(err));
	if (!e && rs.compare) {
		snprintf(err, sizeof(err), "%s is a comparison (%s): compare judges result files",
			 paths[0], MDL_COMPARE_SCHEMA);
		e = -EINVAL;
	}
	if (e) {
		fprintf(stderr, "fsbench compare: %s\n", err);
		goto out;
	}
	if (o.across) {
		nsides =
			rpt_runset_sides_across(&rs, o.across, c->baseline_value, err, sizeof(err));
		if (nsides < 0) {
			fprintf(stderr, "fsbench compare: %s\n", err);
			goto out;
		}
		if (nsides < 2)
			fprintf(stderr,
				"fsbench compare: every run has coords.%s = %s: statistics only, nothing compared\n",
				o.across, rs.names[0]);
	}
	o.floor_multiple = c->floor;
	e = rpt_runset_judge(&rs, o.across ? NULL : default_names, 2, &o, &judged, err,
			     sizeof(err));
	if (e) {
		fprintf(stderr, "fsbench compare: %s\n", err);
		goto out;
	}
	/* the document, serialised once from what the judge decided */
	cmp = rpt_cmp_to_json(judged);
	if (!cmp) {
		fprintf(stderr, "fsbench compare: writing the comparison: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (c->format == FORMAT_JSON) {
		json_dumpf(cmp, stdout, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
	} else {
		rpt_cmp_print(judged, stdout, c->format == FORMAT_MARKDOWN);
	}
	fflush(stdout);
	if (c->json) {
		e = mdl_json_write_atomic(cmp, c->json);
		if (e) {
			fprintf(stderr, "fsbench compare: writing %s: %s\n", c->json, strerror(-e));
			goto out;
		}
	}
	for (size_t i = 0; i < judged->nexcluded; i++)
		fprintf(stderr, "fsbench compare: %s: run %lld is incomplete and left out: %s\n",
			judged->excluded[i].file, judged->excluded[i].run,
			judged->excluded[i].what);
	status = c->gate ? gate_report(judged) : FSB_EXIT_OK;
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
