/* The HTML report's plots: gnuplot run to SVG (or PNG) and inlined, and the styles every plot shares. */
#include "report/html_plot.h"
#include "report/html_plot_priv.h"
#include "report/html_table.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/spawn.h"
#include "report/stats.h"
#include "model/result_file.h"
#include "model/schema.h"

/* Gnuplot titles: double-quoted strings where " and \ need escaping and @ & _ ^ are safe without enhanced text. */
void rpt_plot_gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* gnuplot on @script, its output unwanted: 0, or -errno / -ECHILD when it failed. */
static int run_gnuplot(const char *prog, const char *script)
{
	char *argv[] = { (char *)prog, (char *)script, NULL };
	struct base_spawn sp = { .argv = argv,
				 .out = BASE_SPAWN_DEVNULL,
				 .err = BASE_SPAWN_DEVNULL,
				 .die_with_parent = true };
	int st, r = base_spawn_run(&sp, &st);

	if (r)
		return r;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

/* Copies an SVG file into the page without its XML prolog, with ids made unique to plot @n. */
static int inline_svg(FILE *out, const char *path, int n)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *p, *start;
	size_t cap = 0, len;
	char pref[16];

	if (!f)
		return -errno;
	len = 0;
	for (;;) {
		char chunk[8192];
		size_t r = fread(chunk, 1, sizeof(chunk), f);
		char *nb;

		if (!r)
			break;
		nb = realloc(buf, cap + r + 1);
		if (!nb) {
			free(buf);
			fclose(f);
			return -ENOMEM;
		}
		buf = nb;
		memcpy(buf + cap, chunk, r);
		cap += r;
		buf[cap] = 0;
	}
	fclose(f);
	if (!buf)
		return -EIO;
	start = strstr(buf, "<svg");
	if (!start) {
		free(buf);
		return -EIO;
	}
	snprintf(pref, sizeof(pref), "p%d", n);
	/* gnuplot names its markers gpPt0... in every file; in one page they would collide */
	for (p = start; *p; p++) {
		if (!strncmp(p, "id='gp", 6) || !strncmp(p, "id=\"gp", 6)) {
			fprintf(out, "%.4s%s", p, pref);
			p += 3;
			continue;
		}
		if (!strncmp(p, "#gp", 3)) {
			fprintf(out, "#%s", pref);
			continue;
		}
		fputc(*p, out);
	}
	(void)len;
	free(buf);
	return 0;
}

/* @path's bytes as base64 into @out: a PNG inlined as a data: URI. 0 or -errno. */
static int inline_base64(FILE *out, const char *path)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	FILE *f = fopen(path, "rb");
	unsigned char in[3];
	size_t r;

	if (!f)
		return -errno;
	while ((r = fread(in, 1, 3, f)) > 0) {
		unsigned v = (unsigned)in[0] << 16 | (r > 1 ? (unsigned)in[1] << 8 : 0) |
			     (r > 2 ? in[2] : 0);

		fputc(tab[v >> 18 & 63], out);
		fputc(tab[v >> 12 & 63], out);
		fputc(r > 1 ? tab[v >> 6 & 63] : '=', out);
		fputc(r > 2 ? tab[v & 63] : '=', out);
		if (r < 3)
			break;
	}
	r = ferror(f) ? EIO : 0;
	fclose(f);
	return -(int)r;
}

/*
 * One plot: @data is gnuplot's inline data already written into @script_body by the
 * caller, which also set the terminal-independent settings. Emits a <figure>: inline SVG,
 * or with @raster a PNG image as a data: URI, for plots of many points (an SVG of a
 * 1024-point I/O map is 130 KB: 48 of them made a 24-run pair's page 6.7 MB, issue 24).
 */
static void plot_fig(struct page *pg, const char *anchor, const char *caption,
		     const char *script_body, bool raster)
{
	char script[320], img[320];
	FILE *f;
	int n = ++pg->nplots;

	if (!pg->o->gnuplot)
		return;
	snprintf(script, sizeof(script), "%s/plot%d.gp", pg->dir, n);
	snprintf(img, sizeof(img), "%s/plot%d.%s", pg->dir, n, raster ? "png" : "svg");
	f = fopen(script, "w");
	if (!f)
		return;
	/* no title inside the plot: the figcaption says it once */
	fprintf(f,
		"set encoding utf8\nset terminal %s size 760,380 font \"sans,%d\" "
		"background \"white\"\nset output ",
		raster ? "pngcairo" : "svg", raster ? 9 : 11);
	rpt_plot_gp_str(f, img);
	fprintf(f, "\nset grid\nset key outside right top\n%s", script_body);
	fclose(f);
	/* the anchor the tables' rows link to (rpt_html_plot_link) */
	fprintf(pg->out, "<a id=\"");
	if (anchor)
		fputs(anchor, pg->out);
	else
		rpt_html_fig_id(pg->out, caption);
	fprintf(pg->out, "\"></a>\n<figure>\n");
	if (run_gnuplot(pg->o->gnuplot, script) != 0) {
		fprintf(pg->out, "<p class=\"warn\">gnuplot failed to draw this plot.</p>\n");
	} else if (!raster) {
		if (inline_svg(pg->out, img, n) == 0)
			pg->drawn++;
		else
			fprintf(pg->out,
				"<p class=\"warn\">gnuplot's SVG could not be read.</p>\n");
	} else {
		fprintf(pg->out, "<img class=\"raster\" width=\"760\" height=\"380\" alt=\"");
		rpt_html_esc(pg->out, caption);
		fprintf(pg->out, "\" src=\"data:image/png;base64,");
		if (inline_base64(pg->out, img) == 0)
			pg->drawn++;
		fprintf(pg->out, "\">\n");
	}
	fprintf(pg->out, "<figcaption>");
	rpt_html_esc(pg->out, caption);
	fprintf(pg->out, "</figcaption></figure>\n");
}

void rpt_plot_as(struct page *pg, const char *caption, const char *script_body, bool raster)
{
	plot_fig(pg, NULL, caption, script_body, raster);
}

void rpt_plot_svg(struct page *pg, const char *caption, const char *script_body)
{
	plot_fig(pg, NULL, caption, script_body, false);
}

void rpt_plot_svg_at(struct page *pg, const char *anchor, const char *caption,
		     const char *script_body)
{
	plot_fig(pg, anchor, caption, script_body, false);
}

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
				       "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };

const char *rpt_plot_pair_colour(int colour)
{
	return palette[colour % (int)(sizeof(palette) / sizeof(palette[0]))];
}

static const char *pair_key(const struct group *g, bool side)
{
	return side ? g->side : g->line;
}

/* The rank of group @i's side (or line) among the distinct ones of its workload's sided groups. */
static int sided_rank(const struct group *g, int i, bool side)
{
	int rank = 0;

	for (int k = 0; k < i; k++) {
		bool seen = false;

		if (!g[k].side[0] || strcmp(g[k].workload, g[i].workload))
			continue;
		if (!strcmp(pair_key(&g[k], side), pair_key(&g[i], side)))
			return rank;
		for (int j = 0; j < k && !seen; j++)
			seen = g[j].side[0] && !strcmp(g[j].workload, g[i].workload) &&
			       !strcmp(pair_key(&g[j], side), pair_key(&g[k], side));
		rank += !seen;
	}
	return rank;
}

/*
 * Baseline beside candidate (issue 24, item 2): a group on a side gets the colour of its
 * line (the filesystem; one colour when the runs have none), the same on every side
 * (*@ret_colour, the line's rank among its workload's), and its side's rank *@ret_side,
 * the first side seen 0. False for a page without sides, which keeps gnuplot's colours.
 */
bool rpt_plot_line_pair(const struct group *g, int ng, int i, int *ret_colour, int *ret_side)
{
	(void)ng;
	if (!g[i].side[0])
		return false;
	*ret_colour = sided_rank(g, i, false);
	*ret_side = sided_rank(g, i, true);
	return true;
}

/* Solid on the first side, dashed on the others, in the line's colour. */
void rpt_plot_pair_line(FILE *f, int colour, int side)
{
	/* gnuplot's dash types 2 to 5; the candidate of two sides is dashed (2) */
	fprintf(f, " lc rgb \"%s\" dt %d", rpt_plot_pair_colour(colour),
		side ? 2 + (side - 1) % 4 : 1);
}

/* A bar's fill: solid on the first side, then hatched one way, the other way, crossed. */
const char *rpt_plot_side_fill(int side)
{
	static const char *const fills[] = { "pattern 4", "pattern 5", "pattern 1", "pattern 2" };

	return side ? fills[(side - 1) % 4] : "solid 0.6";
}

/* A run's own point: filled on the first side, open on the others, in the line's colour. */
void rpt_plot_pair_point(FILE *f, int colour, int side)
{
	/* a filled circle; then an open circle, square, triangle, diamond */
	static const int open[] = { 6, 4, 8, 12 };

	fprintf(f, " lc rgb \"%s\" pt %d ps 0.9 lw 1.5", rpt_plot_pair_colour(colour),
		side ? open[(side - 1) % 4] : 7);
}

/*
 * Where side @side's runs sit at @x on a log axis: the first side's a step of @step to the
 * left, the others' to the right, so that neither hides the other.
 */
double rpt_plot_side_apart(double x, int side, double step)
{
	return x * pow(step, 2 * side - 1);
}

void rpt_plot_line_style(FILE *f, const struct group *g, int ng, int i)
{
	int colour, side;

	if (rpt_plot_line_pair(g, ng, i, &colour, &side))
		rpt_plot_pair_line(f, colour, side);
}

/* Whether every line of @workload names a side ("SIDE: LINE"): then the bars pair up. */
bool rpt_plot_workload_paired(const struct group *g, int ng, const char *workload)
{
	int colour, side, n = 0;

	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload))
			continue;
		if (!rpt_plot_line_pair(g, ng, i, &colour, &side))
			return false;
		n++;
	}
	return n > 0;
}
