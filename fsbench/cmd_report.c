/* `fsbench report`: result files into one self-contained HTML page with plots and the comparison. */
#include "cmd_compare.h"
#include "commands.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/html.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench report [-o report.html] [--title T] [--across FIELD] [--no-plots] RESULT.json...\n\n"
		"One HTML file that opens offline: files/s against threads per filesystem (per workload\n"
		"without suite coordinates), latency CDFs per operation, throughput and Dirty/Writeback over\n"
		"time for streaming runs, and the comparison table (across coords.fs by default when the\n"
		"results hold several filesystems, else file against file). Plots need gnuplot.\n");
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
static json_t *report_compare(json_t **docs, char **paths, int ndocs, const char *across)
{
	struct rpt_run_ref *refs = NULL;
	struct rpt_compare_opts o;
	const char **names = NULL;
	char *bases[256];
	size_t nrefs = 0;
	json_t *cmp = NULL;
	int nsides = 1;
	char err[1024];
	bool has_fs = true;

	rpt_compare_opts_init(&o);
	o.allow_unmatched = true;
	for (int d = 0; d < ndocs; d++) {
		cli_refs_add(&refs, &nrefs, docs[d], paths[d], ndocs > 1 && !across ? d : 0);
		bases[d] = paths[d];
	}
	for (size_t i = 0; i < nrefs; i++)
		has_fs &= json_is_string(json_object_get(json_object_get(refs[i].run, "coords"),
							 across ? across : "fs"));
	if (has_fs) {
		o.across = across ? across : "fs";
		nsides = cli_sides_across("report", refs, nrefs, o.across, NULL, &names);
		if (nsides < 0)
			goto out;
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

int cmd_report(int argc, char **argv)
{
	const char *outpath = "report.html", *title = "fsbench report", *across = NULL;
	char *paths[256], *tmp = NULL;
	json_t *docs[256], *cmp = NULL;
	struct rpt_html_opts ho;
	bool plots = true;
	int ndocs = 0, npaths = 0, status = FSB_EXIT_USAGE, drawn = 0, e;
	FILE *out;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_v = i + 1 < argc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-o") && has_v) {
			outpath = argv[++i];
		} else if (!strcmp(a, "--title") && has_v) {
			title = argv[++i];
		} else if (!strcmp(a, "--across") && has_v) {
			across = argv[++i];
		} else if (!strcmp(a, "--no-plots")) {
			plots = false;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"fsbench report: unknown or incomplete option '%s' (see --help)\n",
				a);
			return FSB_EXIT_USAGE;
		} else if (npaths < 256) {
			paths[npaths++] = argv[i];
		}
	}
	if (!npaths) {
		fprintf(stderr, "fsbench report: no result files (see --help)\n");
		return FSB_EXIT_USAGE;
	}
	for (ndocs = 0; ndocs < npaths; ndocs++)
		if (cli_result_load("report", paths[ndocs], &docs[ndocs]))
			goto out;
	cmp = report_compare(docs, paths, ndocs, across);
	ho = (struct rpt_html_opts){ .title = title,
				     .gnuplot = plots && in_path("gnuplot") ? "gnuplot" : NULL };
	if (plots && !ho.gnuplot)
		fprintf(stderr,
			"fsbench report: gnuplot is not installed: the page has tables but no plots\n");
	if (asprintf(&tmp, "%s.tmp", outpath) < 0) {
		tmp = NULL;
		goto out;
	}
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "fsbench report: writing %s: %s\n", tmp, strerror(errno));
		status = FSB_EXIT_FAIL;
		goto out;
	}
	e = rpt_html_write(docs, (const char *const *)paths, (size_t)ndocs, cmp, &ho, out, &drawn);
	if (fclose(out) && !e)
		e = -errno;
	if (!e && rename(tmp, outpath) < 0)
		e = -errno;
	if (e) {
		unlink(tmp);
		fprintf(stderr, "fsbench report: writing %s: %s\n", outpath, strerror(-e));
		status = FSB_EXIT_FAIL;
		goto out;
	}
	fprintf(stderr, "fsbench report: wrote %s (%d plot%s)\n", outpath, drawn,
		drawn == 1 ? "" : "s");
	status = 0;
out:
	free(tmp);
	json_decref(cmp);
	for (int i = 0; i < ndocs; i++)
		json_decref(docs[i]);
	return status;
}
