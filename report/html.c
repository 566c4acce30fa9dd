/* The HTML report's page: one self-contained file (inline SVG from gnuplot, tables) from results and a comparison. */
#include "report/html_attrib.h"
#include "report/html_head.h"
#include "report/html_plot.h"
#include "report/html_table.h"
#include "report/html_verdict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "model/result_file.h"
#include "model/schema.h"

/* The page's own check, read by tests through a headless browser: every SVG has a size. */
const char rpt_html_page_check_js[] =
	"<script>\n"
	"window.addEventListener('error', function () { document.body.dataset.jsErrors = 'yes'; });\n"
	"window.addEventListener('load', function () {\n"
	"  var svgs = document.querySelectorAll('figure svg'), ok = 0;\n"
	"  for (var i = 0; i < svgs.length; i++) {\n"
	"    var r = svgs[i].getBoundingClientRect();\n"
	"    if (r.width > 0 && r.height > 0 && svgs[i].querySelector('path')) ok++;\n"
	"  }\n"
	"  document.body.dataset.svgCount = svgs.length;\n"
	"  document.body.dataset.plots = svgs.length && ok === svgs.length ? 'ok' : (svgs.length ? 'broken' : 'none');\n"
	/* readable at the window's width: nothing wider than the page (tests run it at 800 px) */
	"  var wide = document.documentElement.scrollWidth - window.innerWidth;\n"
	"  document.body.dataset.overflow = wide > 0 ? String(wide) : 'no';\n"
	/* every link within the page goes somewhere: the ids its targets name exist */
	"  var links = document.querySelectorAll('a[href^=\"#\"]'), bad = [];\n"
	"  for (var j = 0; j < links.length; j++)\n"
	"    if (!document.getElementById(links[j].getAttribute('href').slice(1))) bad.push(links[j].getAttribute('href'));\n"
	"  document.body.dataset.links = links.length;\n"
	"  document.body.dataset.badLinks = bad.length ? bad.join(' ') : 'none';\n"
	"});\n"
	"</script>\n";

/* The page's head, its title, and what it was made from. */
static void page_head(FILE *out, const char *const *paths, size_t ndocs, const struct rpt_cmp *cmp,
		      const struct rpt_html_opts *o, bool plots)
{
	bool verdict = rpt_html_has_verdict(cmp);

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	rpt_html_esc(out, o->title);
	fprintf(out,
		"</title>\n<style>\nbody{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}\n"
		"table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px}\n"
		"td.num{text-align:right;font-variant-numeric:tabular-nums}td.chg{white-space:nowrap}th{background:#f3f3f3}\n"
		".regression{background:#f8d0d0;font-weight:bold}.improvement{background:#d0f0d0}\n"
		".noisy{background:#fff3c4}.insufficient{color:#888}.warn{background:#fff3c4;padding:.5em}\n"
		"figure{margin:1em 0}figcaption{font-size:90%%;color:#555}\n"
		"h1.verdict{padding:.3em .5em}.moved{font-weight:bold}tr.cell th{text-align:left}\n"
		/* 800 px wide: plots shrink, tables scroll in their box, long names break */
		"figure svg,figure img{max-width:100%%;height:auto}table{max-width:100%%}\n"
		"div.wide{overflow-x:auto;max-width:100%%}code,table.sides td{overflow-wrap:anywhere}\n"
		"tr.group th{text-align:left;background:#e8e8e8}tr.why td{font-size:90%%;color:#333}\n"
		"table.sides th{text-align:left}table.sides td{font-size:90%%}tr.differs td{font-weight:bold}\n</style></head>\n<body>\n");
	/* two sides: the answer first, the title under it (issue 24, item 1) */
	if (verdict)
		rpt_html_verdict(out, cmp, plots);
	fprintf(out, verdict ? "<p class=\"title\"><b>" : "<h1>");
	rpt_html_esc(out, o->title);
	fprintf(out, verdict ? "</b></p>\n<p>Inputs:" : "</h1>\n<p>Inputs:");
	for (size_t d = 0; d < (ndocs ? ndocs : 1); d++) {
		fprintf(out, " <code>");
		rpt_html_esc(out, paths[d]);
		fprintf(out, "</code>");
		if (o->labels && o->labels[d]) {
			fprintf(out, " (");
			rpt_html_esc(out, o->labels[d]);
			fprintf(out, ")");
		}
	}
	fprintf(out, "</p>\n");
	if (o->inputs_note) {
		fprintf(out, "<p>");
		rpt_html_esc(out, o->inputs_note);
		fprintf(out, "</p>\n");
	}
	/* with a verdict the sides are named under it (html_verdict.c) */
	if (!verdict && cmp && cmp->nsides >= 2) {
		fprintf(out,
			"<p>One result file: its sides ran one after the other on one "
			"machine, so this page has no verdict; the comparison table is last.</p>\n");
		rpt_html_sides(out, cmp);
	}
}

/* The sections drawn from the runs: throughput, latency, streaming runs, the kernel side. */
static void page_runs(struct page *pg, struct group *g, int ng, struct group *cells, int ncells,
		      const struct rpt_cmp *cmp, json_t *const *docs, const char *const *paths,
		      size_t ndocs)
{
	FILE *out = pg->out;

	if (!pg->o->gnuplot)
		fprintf(out,
			"<p class=\"warn\">gnuplot is not installed: plots were skipped; the tables below hold the "
			"numbers.</p>\n");
	fprintf(out, "<h2>Throughput against threads</h2>\n");
	for (int i = 0; i < ng; i++)
		if (rpt_html_workload_first(g, i)) {
			char id[160];

			/* what the ranked changes' throughput rows link to */
			snprintf(id, sizeof(id), "throughput %s", g[i].workload);
			fprintf(out, "<a id=\"");
			rpt_html_fig_id(out, id);
			fprintf(out, "\"></a>\n");
			rpt_html_throughput_plot(pg, g, ng, g[i].workload, false);
			rpt_html_throughput_plot(pg, g, ng, g[i].workload, true);
		}
	rpt_html_throughput_table(out, g, ng);
	fprintf(out, "<h2>Latency distributions</h2>\n");
	/*
	 * a line per cell (filesystem and thread count); with a verdict, which is per cell, a
	 * plot per cell too, its sides two lines a reader tells apart (16 lines of
	 * 8 cells in one plot are not), each where its rows in the tables link
	 */
	for (int i = 0; i < ncells; i++)
		if (rpt_html_workload_first(cells, i)) {
			fprintf(out, "<h3>");
			rpt_html_esc(out, cells[i].workload);
			fprintf(out, "</h3>\n");
			if (rpt_html_has_verdict(cmp))
				rpt_html_pct_cell_plots(pg, cells, ncells, cmp, cells[i].workload);
			else
				rpt_html_pct_plots(pg, cells, ncells, cells[i].workload);
		}
	fprintf(out, "<h2>Streaming runs over time</h2>\n");
	rpt_html_time_plots(pg, docs, paths, pg->o->labels, ndocs);
	rpt_html_kernel_sections(pg, docs, paths, pg->o->labels, ndocs);
}

int rpt_html_write(json_t *const *docs, const char *const *paths, size_t ndocs,
		   const struct rpt_cmp *cmp, const struct rpt_html_opts *o, FILE *out,
		   int *ret_plotted)
{
	struct page pg = { .out = out, .o = o };
	struct group *g = calloc(MAX_GROUPS, sizeof(*g)), *cells = calloc(MAX_GROUPS, sizeof(*g));
	int ng = 0, ncells = 0, e;
	bool plots = ndocs && o->gnuplot; /* the rows' links have plots to go to */
	/* a verdict is per cell, and so are its page's latency plots (page_runs) */
	enum rpt_html_links links = !plots		      ? RPT_LINKS_NONE :
				    rpt_html_has_verdict(cmp) ? RPT_LINKS_CELL :
								RPT_LINKS_WORKLOAD;
	const char *tmp = getenv("TMPDIR");

	*ret_plotted = 0;
	if (!g || !cells) {
		free(g);
		free(cells);
		return -ENOMEM;
	}
	snprintf(pg.dir, sizeof(pg.dir), "%s/fsbench-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (o->gnuplot && !mkdtemp(pg.dir)) {
		e = -errno; /* before free() can change it */
		free(g);
		free(cells);
		return e;
	}
	e = rpt_html_groups_build(g, &ng, docs, paths, ndocs, o->labels);
	if (!e)
		e = rpt_html_groups_build_cells(cells, &ncells, docs, paths, ndocs, o->labels,
						cmp ? cmp->set.across : NULL);
	if (!e) {
		page_head(out, paths, ndocs, cmp, o, plots);
		/* with a verdict on top, the full comparison is folded under it, before the runs */
		if (rpt_html_has_verdict(cmp)) {
			fprintf(out, "<details id=\"comparison\">\n");
			rpt_html_verdict_fold(out, cmp);
			fprintf(out, "<div class=\"wide\">\n");
			rpt_html_compare_table(out, cmp, o->compare_note, links);
			fprintf(out, "</div>\n");
			fprintf(out, "</details>\n");
		}
		/* a comparison alone has no runs to plot */
		if (ndocs)
			page_runs(&pg, g, ng, cells, ncells, cmp, docs, paths, ndocs);
		if (!rpt_html_has_verdict(cmp) && (cmp || o->compare_note)) {
			fprintf(out, "<div class=\"wide\">\n");
			rpt_html_compare_table(out, cmp, o->compare_note, links);
			fprintf(out, "</div>\n");
		}
		fprintf(out, "%s</body></html>\n", rpt_html_page_check_js);
		if (ferror(out))
			e = -EIO;
	}
	rpt_html_groups_free(g, ng);
	rpt_html_groups_free(cells, ncells);
	free(g);
	free(cells);
	if (o->gnuplot)
		base_rm_tree(pg.dir);
	*ret_plotted = pg.drawn;
	return e;
}
