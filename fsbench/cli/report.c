/* `fsbench report`: result files into one self-contained HTML page with plots and the comparison. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "report/html.h"
#include "model/result_file.h"
#include "model/schema.h"
#include "report/runset.h"

/* the page plots every thread count a run can have */
_Static_assert(MDL_MAX_THREADS == FSB_MAX_THREADS, "report/ and fsbench/ disagree on threads");

struct report_cfg {
	struct cmd_sides sides;
	char *output, *title, *across, *baseline_value;
	bool no_plots;
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

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *dir;
	bool found = false;

	if (!path || !(copy = strdup(path)))
		return false;
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char full[4096];

		snprintf(full, sizeof(full), "%s/%s", *dir ? dir : ".", prog);
		found = access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* What the page compares: the inputs, the side each file is on, and the comparer's options. */
struct report_plan {
	struct rpt_runset rs; /* the files, in the order given, and their runs */
	const char *paths[2 * CMD_MAX_FILES];
	int sides[2 * CMD_MAX_FILES]; /* each file's side as given (--baseline/--candidate) */
	const char *labels[2 * CMD_MAX_FILES]; /* each file's side in plot lines, or NULL */
	char *bases[2 * CMD_MAX_FILES]; /* file names (basename copies), the sides of --across file */
	int ndocs;
	const char **names; /* side names: rs.names (--across), two_names or the file names */
	int nsides;
	const char *across; /* the coords field the sides differ in, or NULL */
	char note[1100]; /* why there is no comparison, for the page */
};

static void plan_free(struct report_plan *p)
{
	for (int i = 0; i < p->ndocs; i++)
		free(p->bases[i]);
	if (p->names != p->rs.names)
		free(p->names);
	rpt_runset_free(&p->rs);
}

/* The file name in @path (after its last slash), without a copy. */
static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Sides by file: file @d is side @d, named by its file name. 0 or -ENOMEM. */
static int sides_by_file(struct report_plan *p)
{
	p->names = calloc((size_t)p->ndocs, sizeof(*p->names));
	if (!p->names)
		return -ENOMEM;
	for (size_t i = 0; i < p->rs.nrefs; i++)
		for (int d = 0; d < p->ndocs; d++)
			if (p->rs.refs[i].doc == p->rs.docs[d])
				p->rs.refs[i].side = d;
	for (int d = 0; d < p->ndocs; d++) {
		p->names[d] = p->bases[d];
		p->labels[d] = p->ndocs > 1 ? p->bases[d] : NULL;
	}
	p->nsides = p->ndocs;
	return 0;
}

/* Whether every run has a string coords.@field with two values at least. */
static bool runs_differ_in(const struct report_plan *p, const char *field)
{
	const char *first = NULL;
	bool differ = false;

	for (size_t i = 0; i < p->rs.nrefs; i++) {
		const char *v = json_string_value(
			json_object_get(json_object_get(p->rs.refs[i].run, MDL_KEY_COORDS), field));

		if (!v)
			return false;
		if (!first)
			first = v;
		differ |= strcmp(first, v) != 0;
	}
	return differ;
}

/* The flags that choose the sides, checked before any file is read: FSB_EXIT_OK or _USAGE. */
static int plan_check(const struct report_cfg *c)
{
	bool two = c->sides.saw_candidate;

	if (two && c->across) {
		fprintf(stderr,
			"fsbench report: --across and --candidate both choose the sides: give one\n");
		return FSB_EXIT_USAGE;
	}
	if (c->baseline_value && (!c->across || !strcmp(c->across, "file"))) {
		fprintf(stderr, "fsbench report: --baseline-value needs --across FIELD\n");
		return FSB_EXIT_USAGE;
	}
	if (two && (!c->sides.nfiles[0] || !c->sides.nfiles[1])) {
		fprintf(stderr,
			"fsbench report: --candidate needs files on both sides: --baseline A.json... "
			"--candidate B.json...\n");
		return FSB_EXIT_USAGE;
	}
	return FSB_EXIT_OK;
}

/*
 * Loads the files, each parsed once: a lone comparison is left in p->rs.compare. Returns
 * FSB_EXIT_OK, or an exit status after saying why on stderr.
 */
static int plan_load(const struct report_cfg *c, struct report_plan *p)
{
	char err[1024];
	int e;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < c->sides.nfiles[s]; i++) {
			p->paths[p->ndocs] = c->sides.files[s][i];
			p->sides[p->ndocs++] = s;
		}
	e = rpt_runset_load(&p->rs, p->paths, p->sides, (size_t)p->ndocs, err, sizeof(err));
	if (e) {
		fprintf(stderr, "fsbench report: %s%s\n", err,
			e == -EINVAL ?
				": report it alone, or give the result files it was made from" :
				"");
		p->ndocs = 0; /* no basenames yet */
		return e == -EINVAL ? FSB_EXIT_USAGE :
		       e == -ENOMEM ? FSB_EXIT_FAIL :
				      FSB_EXIT_UNUSABLE;
	}
	if (p->rs.compare)
		p->ndocs = 0;
	return FSB_EXIT_OK;
}

/* Puts the loaded runs on sides. Returns FSB_EXIT_OK, or an exit status after saying why. */
static int plan_sides(const struct report_cfg *c, struct report_plan *p)
{
	char err[1024];
	bool two = c->sides.saw_candidate;

	for (int d = 0; d < p->ndocs; d++) {
		p->bases[d] = strdup(basename_of(p->paths[d]));
		if (!p->bases[d]) {
			fprintf(stderr, "fsbench report: %s\n", strerror(ENOMEM));
			return FSB_EXIT_FAIL;
		}
		if (two)
			p->labels[d] = p->sides[d] ? "candidate" : "baseline";
	}
	/* files named alike (a/r.json, b/r.json) are told apart by their paths */
	for (int d = 0; d < p->ndocs; d++)
		for (int k = 0; k < p->ndocs; k++)
			if (k != d && !strcmp(basename_of(p->paths[k]), basename_of(p->paths[d]))) {
				char *full = strdup(p->paths[d]);

				if (!full)
					return FSB_EXIT_FAIL;
				free(p->bases[d]);
				p->bases[d] = full;
				break;
			}
	if (two) {
		static const char *const two_names[] = { "baseline", "candidate" };

		p->names = calloc(2, sizeof(*p->names));
		if (!p->names)
			return FSB_EXIT_FAIL;
		memcpy(p->names, two_names, sizeof(two_names));
		p->nsides = 2;
		return FSB_EXIT_OK;
	}
	if ((c->across && !strcmp(c->across, "file")) || (!c->across && p->ndocs > 1))
		return sides_by_file(p) ? FSB_EXIT_FAIL : FSB_EXIT_OK;
	if (!c->across && !runs_differ_in(p, "fs")) {
		/* one file, one filesystem (or no suite coordinates): statistics, nothing compared */
		snprintf(
			p->note, sizeof(p->note),
			"One side only: give --baseline/--candidate files, several files, or --across "
			"FIELD to compare.");
		return sides_by_file(p) ? FSB_EXIT_FAIL : FSB_EXIT_OK;
	}
	p->across = c->across ? c->across : "fs";
	p->nsides = rpt_runset_sides_across(&p->rs, p->across, c->baseline_value, err, sizeof(err));
	p->names = p->rs.names;
	if (p->nsides < 0) {
		fprintf(stderr, "fsbench report: %s\n", err);
		return p->nsides == -ENOMEM ? FSB_EXIT_FAIL : FSB_EXIT_UNUSABLE;
	}
	return FSB_EXIT_OK;
}

/* The comparison of @p's sides; NULL with @p->note set when the runs do not line up. */
static struct rpt_cmp *plan_compare(struct report_plan *p)
{
	struct rpt_compare_opts o;
	struct rpt_cmp *cmp = NULL;
	char err[1024];

	rpt_compare_opts_init(&o);
	o.allow_unmatched = true; /* the page lists what had no match on a side */
	o.across = p->across;
	if (rpt_runset_judge(&p->rs, p->names, p->nsides, &o, &cmp, err, sizeof(err))) {
		snprintf(p->note, sizeof(p->note), "No comparison: %s", err);
		fprintf(stderr, "fsbench report: no comparison table: %s\n", err);
	}
	return cmp;
}

/* Writes the page to @outpath through a temporary file; an exit status. */
static int page_write(const char *outpath, json_t *const *docs, const char *const *paths, int ndocs,
		      const struct rpt_cmp *cmp, const struct rpt_html_opts *ho)
{
	char *tmp = NULL;
	int drawn = 0, e;
	FILE *out;

	out = base_out_open(outpath, &tmp);
	if (!out) {
		fprintf(stderr, "fsbench report: creating a temporary file beside %s: %s\n",
			outpath, strerror(errno));
		return FSB_EXIT_FAIL;
	}
	e = rpt_html_write(docs, paths, (size_t)ndocs, cmp, ho, out, &drawn);
	/* commit frees tmp */
	e = base_out_commit(out, tmp, outpath, e);
	tmp = NULL;
	if (e) {
		fprintf(stderr, "fsbench report: writing %s: %s\n", outpath, strerror(-e));
		return FSB_EXIT_FAIL;
	}
	fprintf(stderr, "fsbench report: wrote %s (%d plot%s)\n", outpath, drawn,
		drawn == 1 ? "" : "s");
	return FSB_EXIT_OK;
}

static int report_run(void *cfg)
{
	struct report_cfg *c = cfg;
	struct report_plan p = { 0 };
	struct rpt_html_opts ho;
	struct rpt_cmp *cmp = NULL;
	char err[1024];
	int status;

	if (cmd_sides_finish(&c->sides, err, sizeof(err))) {
		fprintf(stderr, "fsbench report: %s\n", err);
		return FSB_EXIT_USAGE;
	}
	if (!c->sides.nfiles[0] && !c->sides.nfiles[1]) {
		fprintf(stderr, "fsbench report: no result files (see --help)\n");
		return FSB_EXIT_USAGE;
	}
	ho = (struct rpt_html_opts){ .title = c->title,
				     .gnuplot = !c->no_plots && in_path("gnuplot") ? "gnuplot" :
										     NULL };
	status = plan_check(c);
	if (status == FSB_EXIT_OK)
		status = plan_load(c, &p);
	if (status != FSB_EXIT_OK)
		goto out;
	/* a comparison written by `fsbench compare --json`: its table, as it is */
	if (p.rs.compare) {
		const char *path = p.paths[0];

		if (c->across || c->baseline_value) {
			fprintf(stderr,
				"fsbench report: %s is a comparison already: its sides are fixed "
				"(no --across)\n",
				path);
			status = FSB_EXIT_USAGE;
			goto out;
		}
		ho.gnuplot = NULL; /* a comparison holds statistics, not histograms or series */
		ho.inputs_note =
			"a comparison (fsbench-compare/1): its table only; the result files "
			"it was made from have the plots.";
		status = page_write(c->output, NULL, &path, 0, p.rs.cmp, &ho);
		goto out;
	}
	status = plan_sides(c, &p);
	if (status != FSB_EXIT_OK)
		goto out;
	cmp = plan_compare(&p);
	if (!c->no_plots && !ho.gnuplot)
		fprintf(stderr,
			"fsbench report: gnuplot is not installed: the page has tables but no plots\n");
	ho.labels = p.labels;
	ho.compare_note = p.note[0] ? p.note : NULL;
	status = page_write(c->output, p.rs.docs, p.paths, p.ndocs, cmp, &ho);
out:
	rpt_cmp_free(cmp);
	plan_free(&p);
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
