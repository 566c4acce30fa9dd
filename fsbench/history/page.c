/* `history report`'s page: per changed series an SVG of the metric over kernels in order. */
#include "fsbench/history/page.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/html_table.h"
#include "report/metric.h"

/* The plot's box, in px: 760 wide fits an 800 px window with the page's margins. */
#define W 760
#define H 300
#define LEFT 70
#define RIGHT 60 /* the last kernel's name, turned */
#define TOP 20
#define BOTTOM 110 /* the kernels' names, turned 60 degrees */

static const char style[] =
	"body{font-family:sans-serif;max-width:780px;margin:10px auto;color:#222}"
	"h2{font-size:1.05em;margin:1.6em 0 .2em}p.c{margin:.2em 0}"
	".reg{color:#b00}.imp{color:#070}svg{display:block}"
	"table{border-collapse:collapse;font-size:.9em}td,th{padding:2px 6px;text-align:left}";

/* The y of value @v on the plot. */
static double y_of(double v, double lo, double hi)
{
	return TOP + (H - TOP - BOTTOM) * (hi - v) / (hi - lo);
}

static double x_of(size_t i, size_t n)
{
	return n < 2 ? LEFT + (W - LEFT - RIGHT) / 2.0 :
		       LEFT + (W - LEFT - RIGHT) * (double)i / (double)(n - 1);
}

/* One series' plot; @ch is one of its change points, each of them is marked. */
static void plot(FILE *out, const struct hist_summary *sum, const struct hist_series *s,
		 double scale)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t off = 0, total = 0;

	for (size_t k = 0; k < s->nk; k++)
		total += s->n[k];
	for (size_t i = 0; i < total; i++) {
		lo = fmin(lo, s->x[i] * scale);
		hi = fmax(hi, s->x[i] * scale);
	}
	if (!(hi > lo)) {
		lo -= fabs(lo) * 0.01 + 1e-9;
		hi += fabs(hi) * 0.01 + 1e-9;
	}
	{
		double pad = (hi - lo) * 0.08;

		lo -= pad;
		hi += pad;
	}
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-size=\"11\">\n",
		W, H, W, H);
	fprintf(out,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" "
		"stroke=\"#ccc\"/>\n",
		LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
	for (int t = 0; t <= 4; t++) {
		double v = lo + (hi - lo) * t / 4;

		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n",
			LEFT - 4, y_of(v, lo, hi) + 4, v);
	}
	/* the change points: a line between the kernels, the means either side */
	for (size_t j = 0; j < s->res.ncps; j++) {
		const struct hist_cp *cp = &s->res.cps[j];
		double xc = (x_of(cp->before, s->nk) + x_of(cp->before + 1, s->nk)) / 2;

		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d00\" "
			"stroke-dasharray=\"4 3\"/>\n",
			xc, TOP, xc, H - BOTTOM);
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
			x_of(cp->seg_lo, s->nk), y_of(cp->mean_before * scale, lo, hi), xc,
			y_of(cp->mean_before * scale, lo, hi));
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
			xc, y_of(cp->mean_after * scale, lo, hi), x_of(cp->seg_hi - 1, s->nk),
			y_of(cp->mean_after * scale, lo, hi));
	}
	for (size_t k = 0; k < s->nk; k++) {
		double x = x_of(k, s->nk), kmin = INFINITY, kmax = -INFINITY;

		for (size_t i = 0; i < s->n[k]; i++) {
			kmin = fmin(kmin, s->x[off + i] * scale);
			kmax = fmax(kmax, s->x[off + i] * scale);
		}
		/* the kernel's spread between its boots */
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#36c\" "
			"stroke-width=\"2\" opacity=\"0.5\"/>\n",
			x, y_of(kmin, lo, hi), x, y_of(kmax, lo, hi));
		for (size_t i = 0; i < s->n[k]; i++)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#36c\"/>\n", x,
				y_of(s->x[off + i] * scale, lo, hi));
		fprintf(out, "<text transform=\"translate(%.1f %d) rotate(60)\">", x - 3,
			H - BOTTOM + 8);
		rpt_html_esc(out, sum->kernels[s->kernel[k]].k.release);
		fputs("</text>\n", out);
		off += s->n[k];
	}
	fputs("</svg>\n", out);
}

int hist_page_write(FILE *out, const char *title, const struct hist_summary *sum,
		    const struct hist_findings *f, const struct hist_pairs *pairs)
{
	bool *drawn = calloc(f->nseries ? f->nseries : 1, sizeof(*drawn));

	if (!drawn)
		return -ENOMEM;
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\"><title>",
	      out);
	rpt_html_esc(out, title);
	fprintf(out, "</title><style>%s</style></head><body>\n<h1>", style);
	rpt_html_esc(out, title);
	fprintf(out,
		"</h1>\n<p>%zu kernels; %zu series judged, %zu too short, %zu too noisy; "
		"%zu change points, %zu regressions. Each dot is a run, the bar behind a "
		"kernel's dots its spread, the dashed line a change, the grey lines the means "
		"either side.</p>\n",
		sum->nkernels, f->judged, f->short_, f->noisy, f->nchanges, f->nregressions);
	/* each series once, where its first change stands in the order (regressions first) */
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct hist_series *s = f->changes[i].s;
		size_t si = (size_t)(s - f->series);
		const struct rpt_metric_def *d = rpt_metric_lookup(s->metric);
		double scale = d ? d->scale : 1;
		char *label;

		if (drawn[si])
			continue;
		drawn[si] = true;
		label = hist_sample_label(s->sample_key);
		fputs("<h2>", out);
		rpt_html_esc(out, s->metric);
		fprintf(out, " (%s) &mdash; ", d ? d->unit : "");
		rpt_html_esc(out, label ? label : s->sample_key);
		fputs("</h2>\n", out);
		free(label);
		for (size_t j = 0; j < f->nchanges; j++) {
			const struct hist_change *ch = &f->changes[j];

			if (ch->s != s)
				continue;
			fprintf(out, "<p class=\"c %s\">%s: ", ch->regression ? "reg" : "imp",
				ch->regression ? "regression" : "change");
			rpt_html_esc(out, sum->kernels[s->kernel[ch->cp->before]].k.release);
			fputs(" &rarr; ", out);
			rpt_html_esc(out, sum->kernels[s->kernel[ch->cp->before + 1]].k.release);
			fprintf(out,
				": %+.2f %% [%+.2f, %+.2f], floor %.2f %%, p %.3g, runs %zu | %zu",
				ch->cp->change_pct, ch->cp->lo_pct, ch->cp->hi_pct,
				ch->cp->floor_pct, ch->cp->p, ch->cp->n_before, ch->cp->n_after);
			if (pairs && j < pairs->n && pairs->href[j]) {
				fputs(" &middot; <a class=\"pair\" href=\"", out);
				rpt_html_esc(out, pairs->href[j]);
				fputs("\">the two kernels compared</a>", out);
			} else if (pairs && j < pairs->n && pairs->why[j]) {
				fputs(" &middot; <span class=\"nopair\">no pair page: ", out);
				rpt_html_esc(out, pairs->why[j]);
				fputs("</span>", out);
			}
			fputs("</p>\n", out);
		}
		plot(out, sum, s, scale);
	}
	if (!f->nchanges)
		fputs("<p>No change point in any series.</p>\n", out);
	fprintf(out, "%s</body></html>\n", rpt_html_page_check_js);
	free(drawn);
	return ferror(out) ? -EIO : 0;
}
