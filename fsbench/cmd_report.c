/* `fsbench report`: result files into one self-contained HTML page with plots and the comparison. */
#include "cmd_args.h"
#include "commands.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/fileio.h"
#include "../report/html.h"
#include "../report/result_file.h"
#include "../report/runs.h"

/* the page plots every thread count a run can have */
_Static_assert(RPT_MAX_THREADS == FSB_MAX_THREADS, "report/ and fsbench/ disagree on threads");

struct report_cfg {
	char *output, *title, *across;
	bool no_plots;
	struct cmd_files files;
};

#define O(f) offsetof(struct report_cfg, f)
static const struct fsb_opt report_opts[] = {
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = O(output),
	  .def = "report.html",
	  .help = "the page to write" },
	{ .name = "title",
	  .type = OPT_STRING,
	  .offset = O(title),
	  .def = "fsbench report",
	  .help = "the page's title" },
	{ .name = "across",
	  .type = OPT_STRING,
	  .offset = O(across),
	  .help = "compare across coords.FIELD (default fs when the results hold several)" },
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
		"usage: fsbench report [-o report.html] [--title T] [--across FIELD] [--no-plots] RESULT.json...\n\n"
		"One HTML file that opens offline: files/s against threads per filesystem (per workload\n"
		"without suite coordinates), latency CDFs per operation, throughput and Dirty/Writeback over\n"
		"time for streaming runs, and the comparison table (across coords.fs by default when the\n"
		"results hold several filesystems, else file against file). Plots need gnuplot.\n\n");
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

/* The comparison the page shows; NULL (after a note) when the inputs do not line up. */
static json_t *report_compare(json_t **docs, char *const *paths, int ndocs, const char *across)
{
	struct rpt_run_ref *refs = NULL;
	struct rpt_compare_opts o;
	const char **names = NULL;
	char *bases[CMD_MAX_FILES];
	size_t nrefs = 0;
	json_t *cmp = NULL;
	int nsides = 1;
	char err[1024];
	bool has_fs = true;

	rpt_compare_opts_init(&o);
	o.allow_unmatched = true;
	for (int d = 0; d < ndocs; d++) {
		if (rpt_runs_add(&refs, &nrefs, docs[d], paths[d], ndocs > 1 && !across ? d : 0)) {
			fprintf(stderr, "fsbench report: no comparison table: %s\n",
				strerror(ENOMEM));
			goto out;
		}
		bases[d] = paths[d];
	}
	for (size_t i = 0; i < nrefs; i++)
		has_fs &= json_is_string(json_object_get(json_object_get(refs[i].run, "coords"),
							 across ? across : "fs"));
	if (has_fs) {
		o.across = across ? across : "fs";
		nsides = rpt_runs_sides_across(refs, nrefs, o.across, NULL, &names, err,
					       sizeof(err));
		if (nsides < 0) {
			fprintf(stderr, "fsbench report: %s\n", err);
			goto out;
		}
	} else if (across) {
		goto out;
	} else {
		nsides = ndocs;
		for (int d = 0; d < ndocs; d++)
			bases[d] = basename(paths[d]);
	}
	if (rpt_compare_build(names ? names : (const char *const *)bases, nsides, refs, nrefs, &o,
			      &cmp, err, sizeof(err)))
		fprintf(stderr, "fsbench report: no comparison table: %s\n", err);
out:
	free(names);
	free(refs);
	return cmp;
}

static int report_run(void *cfg)
{
	const struct report_cfg *c = cfg;
	const char *outpath = c->output;
	char *tmp = NULL, err[1024];
	json_t *docs[CMD_MAX_FILES], *cmp = NULL;
	struct rpt_html_opts ho;
	int ndocs = 0, status = FSB_EXIT_USAGE, drawn = 0, e;
	FILE *out;

	if (!c->files.n) {
		fprintf(stderr, "fsbench report: no result files (see --help)\n");
		return FSB_EXIT_USAGE;
	}
	for (ndocs = 0; ndocs < c->files.n; ndocs++)
		if (rpt_runs_load(c->files.v[ndocs], &docs[ndocs], err, sizeof(err))) {
			fprintf(stderr, "fsbench report: %s\n", err);
			goto out;
		}
	cmp = report_compare(docs, c->files.v, ndocs, c->across);
	ho = (struct rpt_html_opts){ .title = c->title,
				     .gnuplot = !c->no_plots && in_path("gnuplot") ? "gnuplot" :
										     NULL };
	if (!c->no_plots && !ho.gnuplot)
		fprintf(stderr,
			"fsbench report: gnuplot is not installed: the page has tables but no plots\n");
	out = fsb_out_open(outpath, &tmp);
	if (!out) {
		fprintf(stderr, "fsbench report: creating a temporary file beside %s: %s\n",
			outpath, strerror(errno));
		status = FSB_EXIT_FAIL;
		goto out;
	}
	e = rpt_html_write(docs, (const char *const *)c->files.v, (size_t)ndocs, cmp, &ho, out,
			   &drawn);
	/* commit frees tmp */
	e = fsb_out_commit(out, tmp, outpath, e);
	tmp = NULL;
	if (e) {
		fprintf(stderr, "fsbench report: writing %s: %s\n", outpath, strerror(-e));
		status = FSB_EXIT_FAIL;
		goto out;
	}
	fprintf(stderr, "fsbench report: wrote %s (%d plot%s)\n", outpath, drawn,
		drawn == 1 ? "" : "s");
	status = FSB_EXIT_OK;
out:
	free(tmp);
	json_decref(cmp);
	for (int i = 0; i < ndocs; i++)
		json_decref(docs[i]);
	return status;
}

static const struct cmd_spec report_cmd = {
	.name = "report",
	.opts = report_opts,
	.files_offset = offsetof(struct report_cfg, files),
	.usage = usage,
	.run = report_run,
};

int cmd_report(int argc, char **argv)
{
	struct report_cfg c = { 0 };

	return cmd_args_run(&report_cmd, &c, argc, argv);
}
