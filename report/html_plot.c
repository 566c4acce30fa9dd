/* The HTML report's plots: gnuplot scripts run to SVG and inlined, from groups of runs. */
#include "report/html_plot.h"
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
static void gp_str(FILE *f, const char *s)
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
static void plot_as(struct page *pg, const char *caption, const char *script_body, bool raster)
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
	gp_str(f, img);
	fprintf(f, "\nset grid\nset key outside right top\n%s", script_body);
	fclose(f);
	fprintf(pg->out, "<figure>\n");
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

static void plot(struct page *pg, const char *caption, const char *script_body)
{
	plot_as(pg, caption, script_body, false);
}

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
				       "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };

static const char *pair_colour(int colour)
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
static bool line_pair(const struct group *g, int ng, int i, int *ret_colour, int *ret_side)
{
	(void)ng;
	if (!g[i].side[0])
		return false;
	*ret_colour = sided_rank(g, i, false);
	*ret_side = sided_rank(g, i, true);
	return true;
}

/* Solid on the first side, dashed on the others, in the line's colour. */
static void pair_line(FILE *f, int colour, int side)
{
	/* gnuplot's dash types 2 to 5; the candidate of two sides is dashed (2) */
	fprintf(f, " lc rgb \"%s\" dt %d", pair_colour(colour), side ? 2 + (side - 1) % 4 : 1);
}

/* A bar's fill: solid on the first side, then hatched one way, the other way, crossed. */
static const char *side_fill(int side)
{
	static const char *const fills[] = { "pattern 4", "pattern 5", "pattern 1", "pattern 2" };

	return side ? fills[(side - 1) % 4] : "solid 0.6";
}

/* A run's own point: filled on the first side, open on the others, in the line's colour. */
static void pair_point(FILE *f, int colour, int side)
{
	/* a filled circle; then an open circle, square, triangle, diamond */
	static const int open[] = { 6, 4, 8, 12 };

	fprintf(f, " lc rgb \"%s\" pt %d ps 0.9 lw 1.5", pair_colour(colour),
		side ? open[(side - 1) % 4] : 7);
}

/*
 * Where side @side's runs sit at @x on a log axis: the first side's a step of @step to the
 * left, the others' to the right, so that neither hides the other.
 */
static double side_apart(double x, int side, double step)
{
	return x * pow(step, 2 * side - 1);
}

static void line_style(FILE *f, const struct group *g, int ng, int i)
{
	int colour, side;

	if (line_pair(g, ng, i, &colour, &side))
		pair_line(f, colour, side);
}

/*
 * Runs a line may have at one thread count for each to be drawn as a point: up to a dozen
 * repetitions or boots, their spread says more than an interval computed from them.
 */
#define POINTS_MAX 12

/* Whether @g has at most POINTS_MAX runs at every thread count in @bytes' unit. */
static bool few_samples(const struct group *g, bool bytes)
{
	for (int t = 1; t <= MDL_MAX_THREADS; t++)
		if (g->tn[bytes][t] > POINTS_MAX)
			return false;
	return true;
}

/* The line's value at @t: the median of its runs when they are drawn too, else their mean. */
static double line_value(const struct group *g, bool bytes, int t, bool median)
{
	double v[POINTS_MAX];
	struct rpt_stats st;
	size_t n;

	if (!median)
		return g->tsum[bytes][t] / g->tn[bytes][t];
	n = rpt_html_group_samples(g, bytes, t, v, POINTS_MAX);
	if (n > POINTS_MAX || rpt_stats_compute(v, n, &st))
		return g->tsum[bytes][t] / g->tn[bytes][t];
	return st.median;
}

/* Every run of @g at @t as a data line "X VALUE" into @f. */
static void sample_data(FILE *f, const struct group *g, bool bytes, int t, double x)
{
	double v[POINTS_MAX];
	size_t n = rpt_html_group_samples(g, bytes, t, v, POINTS_MAX);

	for (size_t k = 0; k < n && k < POINTS_MAX; k++)
		fprintf(f, "%.6g %.6g\n", x, v[k]);
}

static bool has_threads(const struct group *g, bool bytes)
{
	for (int t = 1; t <= MDL_MAX_THREADS; t++)
		if (g->tn[bytes][t])
			return true;
	return false;
}

/* The one thread count every line of @workload has in @bytes' unit, or 0 when there are more. */
static int single_thread_count(const struct group *g, int ng, const char *workload, bool bytes)
{
	int only = 0;

	for (int i = 0; i < ng; i++)
		for (int t = 1; !strcmp(g[i].workload, workload) && t <= MDL_MAX_THREADS; t++) {
			if (!g[i].tn[bytes][t])
				continue;
			if (only && only != t)
				return 0;
			only = t;
		}
	return only;
}

/* Whether every line of @workload names a side ("SIDE: LINE"): then the bars pair up. */
static bool workload_paired(const struct group *g, int ng, const char *workload)
{
	int colour, side, n = 0;

	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload))
			continue;
		if (!line_pair(g, ng, i, &colour, &side))
			return false;
		n++;
	}
	return n > 0;
}

/*
 * Two sides at one thread count: per line (filesystem or cell) a slot in its colour with a
 * bar per side, solid on the first and hatched on the others, at the median of its runs,
 * and each run as a point on its bar when there are few.
 */
static void paired_bars(FILE *f, struct group *g, int ng, const char *workload, bool bytes, int t)
{
	int ncolours = 0, nsides = 0, colour, side, any = 0;

	for (int i = 0; i < ng; i++)
		if (!strcmp(g[i].workload, workload) && line_pair(g, ng, i, &colour, &side)) {
			ncolours = colour + 1 > ncolours ? colour + 1 : ncolours;
			nsides = side + 1 > nsides ? side + 1 : nsides;
		}
	/* the lines' names without their side, under their slots */
	fprintf(f,
		"set ylabel \"%s\"\nset yrange [0:*]\nset xrange [-0.6:%g]\n"
		"set grid noxtics\nset xtics noenhanced (",
		bytes ? "MB/s" : "files/s", ncolours - 0.4);
	for (int c = 0; c < ncolours; c++)
		for (int i = 0; i < ng; i++)
			if (!strcmp(g[i].workload, workload) &&
			    line_pair(g, ng, i, &colour, &side) && colour == c) {
				fprintf(f, "%s", c ? ", " : "");
				gp_str(f, g[i].line[0] ? g[i].line : workload);
				fprintf(f, " %d", c);
				break;
			}
	fprintf(f, ")\nplot ");
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !g[i].tn[bytes][t] ||
		    !line_pair(g, ng, i, &colour, &side))
			continue;
		fprintf(f, "%s'-' using 1:2:3 with boxes lw 2 lc rgb \"%s\" fs %s border title ",
			any++ ? ", " : "", pair_colour(colour), side_fill(side));
		gp_str(f, g[i].name);
		fprintf(f, " noenhanced");
		if (few_samples(&g[i], bytes)) {
			fprintf(f, ", '-' using 1:2 with points");
			pair_point(f, colour, side);
			fprintf(f, " notitle");
		}
	}
	fprintf(f, "\n");
	for (int i = 0; i < ng; i++) {
		double w = 0.8 / (nsides ? nsides : 1), x;

		if (strcmp(g[i].workload, workload) || !g[i].tn[bytes][t] ||
		    !line_pair(g, ng, i, &colour, &side))
			continue;
		x = colour - 0.4 + w * (side + 0.5);
		fprintf(f, "%.4g %.6g %.4g\ne\n", x, line_value(&g[i], bytes, t, true), w * 0.9);
		if (few_samples(&g[i], bytes)) {
			sample_data(f, &g[i], bytes, t, x);
			fprintf(f, "e\n");
		}
	}
}

/* Throughput at the one thread count @t of @workload: a bar per line. Closes @f, frees *@body. */
static void bars_plot(struct page *pg, FILE *f, char **body, struct group *g, int ng,
		      const char *workload, bool bytes, int t)
{
	char cap[256];
	int n = 0, bars = 0;
	bool paired = workload_paired(g, ng, workload);

	for (int i = 0; i < ng; i++)
		bars += !strcmp(g[i].workload, workload) && g[i].tn[bytes][t];
	if (paired)
		paired_bars(f, g, ng, workload, bytes, t);
	else
		fprintf(f,
			"set ylabel \"%s\"\nset yrange [0:*]\nset xrange [-0.6:%g]\n"
			"set style fill solid 0.6\nset boxwidth 0.6\nset key off\n"
			"set grid noxtics\nset xtics noenhanced\n"
			"plot '-' using 0:2:xtic(1) with boxes lw 2 notitle\n",
			bytes ? "MB/s" : "files/s", bars - 0.4);
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !g[i].tn[bytes][t])
			continue;
		if (!paired) {
			gp_str(f, g[i].name);
			fprintf(f, " %.6g\n", g[i].tsum[bytes][t] / g[i].tn[bytes][t]);
		}
		n++;
	}
	if (!paired)
		fprintf(f, "e\n");
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: %s at %d thread%s", workload, bytes ? "MB/s" : "files/s", t,
		 t == 1 ? "" : "s");
	if (n)
		plot(pg, cap, *body);
	free(*body);
}

/* @unit's throughput against threads, one line per group of @workload. */
void rpt_html_throughput_plot(struct page *pg, struct group *g, int ng, const char *workload,
			      bool bytes)
{
	char *body = NULL, cap[256];
	size_t blen = 0;
	FILE *f = open_memstream(&body, &blen);
	int any = 0, colour, side;
	bool paired = workload_paired(g, ng, workload);

	int only = single_thread_count(g, ng, workload, bytes);

	if (!f)
		return;
	if (only) {
		/* one thread count: a bar per line, not lone points on a log axis */
		bars_plot(pg, f, &body, g, ng, workload, bytes, only);
		return;
	}
	fprintf(f,
		"set xlabel \"threads\"\nset ylabel \"%s\"\nset logscale x 2\nset yrange [0:*]\nplot ",
		bytes ? "MB/s" : "files/s");
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !has_threads(&g[i], bytes))
			continue;
		/* with a side, the runs are the points: the line joins their medians */
		fprintf(f, "%s'-' using 1:2 with %s lw 2", any++ ? ", " : "",
			paired && few_samples(&g[i], bytes) ? "lines" : "linespoints");
		line_style(f, g, ng, i);
		fprintf(f, " title ");
		gp_str(f, g[i].name);
		fprintf(f, " noenhanced");
		if (paired && few_samples(&g[i], bytes) && line_pair(g, ng, i, &colour, &side)) {
			fprintf(f, ", '-' using 1:2 with points");
			pair_point(f, colour, side);
			fprintf(f, " notitle");
		}
	}
	fprintf(f, "\n");
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !has_threads(&g[i], bytes))
			continue;
		for (int t = 1; t <= MDL_MAX_THREADS; t++)
			if (g[i].tn[bytes][t])
				fprintf(f, "%d %.6g\n", t, line_value(&g[i], bytes, t, paired));
		fprintf(f, "e\n");
		if (paired && few_samples(&g[i], bytes) && line_pair(g, ng, i, &colour, &side)) {
			for (int t = 1; t <= MDL_MAX_THREADS; t++)
				if (g[i].tn[bytes][t])
					/* a side's runs a little apart from the other's */
					sample_data(f, &g[i], bytes, t, side_apart(t, side, 1.025));
			fprintf(f, "e\n");
		}
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: %s against threads", workload, bytes ? "MB/s" : "files/s");
	if (any)
		plot(pg, cap, body);
	free(body);
}

/*
 * Latency by percentile, the way HdrHistogram plots it: x is 1/(1-p) on a log axis, so
 * 50 %, 90 %, 99 %, 99.9 % and 99.99 % are evenly spaced and a stall in the last thousandth
 * of calls gets as much room as the median; latency on a log axis too.
 */
#define PCT_MARKS MDL_NPERCENTILES

/* Where percentile mark @m (mdl_percentiles[@m], those a result stores) sits: 1/(1-p). */
static double pct_mark_x(int m)
{
	return 100 / (100 - mdl_percentiles[m].pct);
}

/*
 * Whether a line (or a run) of @count calls reaches mark @m: two calls or more beyond that
 * percentile, else it is the maximum under another name; the median always. 100 / (100 -
 * 99.9) is 1000 and a little in binary, and 2000 calls reach p99.9: hence the tolerance.
 */
static bool pct_mark_reached(int m, uint64_t count)
{
	return m == 0 || pct_mark_x(m) * 2 <= (double)count * (1 + 1e-9);
}

/*
 * The steps of @h's percentile curve: from each bin's first percentile on, the bin's upper
 * bound (capped at the maximum), and the maximum at the last call's own percentile,
 * 1 - 1/count, where the line ends. Latencies are divided by @scale.
 */
static void pct_steps(FILE *f, const struct hist *h, double scale)
{
	uint64_t below = 0;

	for (unsigned b = 0; b < HIST_NBINS; b++) {
		uint64_t lo, hi;

		if (!h->bins[b])
			continue;
		hist_bin_bounds(b, &lo, &hi);
		fprintf(f, "%.9g %.6g\n", 1 / (1 - (double)below / (double)h->count),
			(double)(hi - 1 < h->max ? hi - 1 : h->max) / scale);
		below += h->bins[b];
	}
	if (h->overflow)
		fprintf(f, "%.9g %.6g\n", 1 / (1 - (double)below / (double)h->count),
			(double)h->max / scale);
	fprintf(f, "%.9g %.6g\ne\n", (double)h->count, (double)h->max / scale);
}

/*
 * Whether @g's runs of op @op are drawn as points: with sides, at most POINTS_MAX of them,
 * one with a median at least (gnuplot refuses a data block without a point on its log axis).
 */
static bool pct_points(const struct group *g, int op, bool paired)
{
	if (!paired || g->npcts[op] > POINTS_MAX)
		return false;
	for (size_t r = 0; r < g->npcts[op]; r++)
		if (g->pcts[op][r].ns[0] > 0) /* not NAN, and on a log axis */
			return true;
	return false;
}

/*
 * Every run of @g's op @op as a point "X LATENCY" at each percentile mark it reaches, its
 * side's set a little apart from the other's (as on the throughput plot); a data block.
 */
static void pct_point_data(FILE *f, const struct group *g, int op, int side, double scale)
{
	for (size_t r = 0; r < g->npcts[op]; r++)
		for (int m = 0; m < PCT_MARKS; m++)
			if (pct_mark_reached(m, g->pcts[op][r].count) && g->pcts[op][r].ns[m] > 0)
				fprintf(f, "%.6g %.6g\n", side_apart(pct_mark_x(m), side, 1.1),
					g->pcts[op][r].ns[m] / scale);
	fprintf(f, "e\n");
}

/*
 * One latency-by-percentile plot per operation of @workload, one line per group merged
 * over its runs; with sides, each run's own percentiles as points on it when it has few.
 */
void rpt_html_pct_plots(struct page *pg, struct group *g, int ng, const char *workload)
{
	bool paired = workload_paired(g, ng, workload);

	for (int rank = 0; mdl_op_name_at(rank); rank++) {
		const char *opname = mdl_op_name_at(rank), *unit;
		int op = mdl_op_find(opname);
		char *body = NULL, cap[160];
		size_t blen = 0;
		FILE *f;
		int any = 0, colour, side;
		uint64_t maxcount = 0, maxns = 0;
		double scale;

		for (int i = 0; i < ng; i++)
			if (!strcmp(g[i].workload, workload) && g[i].h[op] && g[i].h[op]->count) {
				any++;
				if (g[i].h[op]->count > maxcount)
					maxcount = g[i].h[op]->count;
				if (g[i].h[op]->max > maxns)
					maxns = g[i].h[op]->max;
			}
		if (!any)
			continue;
		f = open_memstream(&body, &blen);
		if (!f)
			return;
		unit = rpt_html_time_unit((double)maxns, &scale);
		/* the marks a line reaches, and "max" where the longest line ends */
		fprintf(f,
			"set xlabel \"percentile\"\nset ylabel \"latency (%s)\"\n"
			"set logscale x 10\nset logscale y 10\nset xrange [1:%g]\nset xtics (",
			unit, maxcount > 2 ? (double)maxcount : 3.0);
		/* gnuplot reads tic labels as formats: %% is a percent sign */
		for (int m = 0; m < PCT_MARKS; m++)
			if (pct_mark_reached(m, maxcount))
				fprintf(f, "%s\"%g %%%%\" %g", m ? ", " : "",
					mdl_percentiles[m].pct, pct_mark_x(m));
		fprintf(f, ", \"max\" %g)\nset mxtics 10\nset key left top inside\nplot ",
			maxcount > 2 ? (double)maxcount : 3.0);
		any = 0;
		for (int i = 0; i < ng; i++)
			if (!strcmp(g[i].workload, workload) && g[i].h[op] && g[i].h[op]->count) {
				fprintf(f, "%s'-' using 1:2 with steps lw 2", any++ ? ", " : "");
				line_style(f, g, ng, i);
				fprintf(f, " title ");
				gp_str(f, g[i].name);
				fprintf(f, " noenhanced");
				if (pct_points(&g[i], op, paired) &&
				    line_pair(g, ng, i, &colour, &side)) {
					fprintf(f, ", '-' using 1:2 with points");
					pair_point(f, colour, side);
					fprintf(f, " notitle");
				}
			}
		fprintf(f, "\n");
		for (int i = 0; i < ng; i++)
			if (!strcmp(g[i].workload, workload) && g[i].h[op] && g[i].h[op]->count) {
				pct_steps(f, g[i].h[op], scale);
				if (pct_points(&g[i], op, paired) &&
				    line_pair(g, ng, i, &colour, &side))
					pct_point_data(f, &g[i], op, side, scale);
			}
		fclose(f);
		snprintf(cap, sizeof(cap), "%s: %s latency by percentile", workload, opname);
		plot(pg, cap, body);
		free(body);
	}
}

/* One run in a time plot: its series or kernel samples, its side's name and rank, its colour. */
struct tline {
	const json_t *run;
	const char *side; /* NULL: a page without sides */
	int rank, colour;
};

/* Solid on the first side, dashed on the others, with the side's name in the key. */
static void tline_style(FILE *f, const struct tline *l, const char *what)
{
	if (!l->side) {
		fprintf(f, " title \"%s\"", what);
		return;
	}
	pair_line(f, l->colour, l->rank);
	fprintf(f, " title ");
	{
		char t[128];

		snprintf(t, sizeof(t), "%s%s%s", l->side, *what ? " " : "", what);
		gp_str(f, t);
	}
	fprintf(f, " noenhanced");
}

/* MB/s over time from each run's series.done: the interval's rate from its start. */
static void series_plot(struct page *pg, const struct tline *l, size_t n, const char *name)
{
	char cap[320], *body = NULL;
	size_t blen = 0;
	FILE *f;

	f = open_memstream(&body, &blen);
	if (!f)
		return;
	fprintf(f, "set xlabel \"time (s)\"\nset ylabel \"MB/s\"\nset yrange [0:*]\nplot ");
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%s'-' using 1:2 with steps lw 2", k ? ", " : "");
		tline_style(f, &l[k], l[k].side ? "" : "written");
	}
	fprintf(f, "\n");
	for (size_t k = 0; k < n; k++) {
		const json_t *series = json_object_get(l[k].run, "series");
		const json_t *t = json_object_get(series, "t_ns"),
			     *done = json_object_get(series, "done");

		for (size_t i = 1; i < json_array_size(t); i++) {
			double t0 = (double)json_integer_value(json_array_get(t, i - 1)),
			       t1 = (double)json_integer_value(json_array_get(t, i));
			double d0 = (double)json_integer_value(json_array_get(done, i - 1)),
			       d1 = (double)json_integer_value(json_array_get(done, i));

			/* the interval's rate from its start; the last one repeated at the end closes the step */
			if (t1 > t0) {
				fprintf(f, "%.6g %.6g\n", t0 / 1e9,
					(d1 - d0) / 1e6 / ((t1 - t0) / 1e9));
				if (i + 1 == json_array_size(t))
					fprintf(f, "%.6g %.6g\n", t1 / 1e9,
						(d1 - d0) / 1e6 / ((t1 - t0) / 1e9));
			}
		}
		fprintf(f, "e\n");
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: throughput over time", name);
	plot(pg, cap, body);
	free(body);
}

/*
 * Dirty and Writeback over time from each run's kernel.samples; with sides, Dirty thick and
 * Writeback thin in the cell's colour, each side dashed its own way.
 */
static void dirty_plot(struct page *pg, const struct tline *l, size_t n, const char *name)
{
	char cap[320], *body = NULL;
	size_t blen = 0;
	FILE *f;

	f = open_memstream(&body, &blen);
	if (!f)
		return;
	fprintf(f, "set xlabel \"time (s)\"\nset ylabel \"MiB\"\nset yrange [0:*]\nplot ");
	for (size_t k = 0; k < n; k++)
		for (int which = 0; which < 2; which++) {
			fprintf(f, "%s'-' using 1:2 with lines lw %d", k || which ? ", " : "",
				l[k].side && which ? 1 : 2);
			tline_style(f, &l[k], which ? "Writeback" : "Dirty");
		}
	fprintf(f, "\n");
	for (size_t k = 0; k < n; k++) {
		const json_t *ks = json_object_get(json_object_get(l[k].run, "kernel"), "samples");
		const json_t *t = json_object_get(ks, "t_ns");

		for (int which = 0; which < 2; which++) {
			const json_t *v =
				json_object_get(ks, which ? "writeback_bytes" : "dirty_bytes");

			for (size_t i = 0; i < json_array_size(t); i++)
				fprintf(f, "%.6g %.6g\n",
					(double)json_integer_value(json_array_get(t, i)) / 1e9,
					json_number_value(json_array_get(v, i)) / 1048576);
			fprintf(f, "e\n");
		}
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: Dirty and Writeback over time", name);
	plot(pg, cap, body);
	free(body);
}

static bool has_series(const json_t *run)
{
	return json_array_size(json_object_get(json_object_get(run, "series"), "t_ns")) >= 2;
}

static bool has_samples(const json_t *run)
{
	return json_array_size(json_object_get(
		       json_object_get(json_object_get(run, "kernel"), "samples"), "t_ns")) >= 2;
}

/*
 * Where a run sits for pairing: its cell and repetition; a run outside a suite, its place
 * in its file (two files of one command line hold their runs in the same order).
 */
static void pair_key_of(const json_t *run, size_t index, char *buf, size_t len)
{
	const json_t *coords = json_object_get(run, MDL_KEY_COORDS);
	const char *cell = json_string_value(json_object_get(coords, "cell"));

	if (cell)
		snprintf(buf, len, "%s rep %lld", cell,
			 (long long)json_integer_value(json_object_get(coords, "repetition")));
	else
		snprintf(buf, len, "run %zu", index);
}

/* A byte-counting run of the page: what the time plots draw. */
struct trun {
	const json_t *run;
	size_t doc, index;
	int side; /* rank of its document's label */
	bool done;
	char key[256];
};

/*
 * Two sides or more: one plot per cell and repetition with each side's run of it, in the
 * colour of the cell's filesystem, solid on the first side and dashed on the others; a run
 * without a partner alone, in the same style.
 */
static void time_plots_paired(struct page *pg, struct trun *tr, size_t n, const char *const *sides,
			      int nsides, const char *const *paths)
{
	const char *fses[8];
	int nfs = 0;

	for (size_t i = 0; i < n; i++) {
		struct tline ls[nsides], ld[nsides];
		size_t nls = 0, nld = 0;
		int colour = 0;
		const char *fs;
		char name[160];

		if (tr[i].done)
			continue;
		fs = json_string_value(
			json_object_get(json_object_get(tr[i].run, MDL_KEY_COORDS), "fs"));
		for (colour = 0; fs && colour < nfs && strcmp(fses[colour], fs); colour++)
			;
		if (fs && colour == nfs && nfs < (int)(sizeof(fses) / sizeof(fses[0])))
			fses[nfs++] = fs;
		if (!fs)
			colour = 0;
		for (int s = 0; s < nsides; s++)
			for (size_t k = i; k < n; k++) {
				struct tline l = { tr[k].run, sides[s], s, colour };

				if (tr[k].done || tr[k].side != s || strcmp(tr[k].key, tr[i].key))
					continue;
				tr[k].done = true;
				if (has_series(tr[k].run))
					ls[nls++] = l;
				if (has_samples(tr[k].run))
					ld[nld++] = l;
				break;
			}
		/* the cell and repetition, without a side: the key names the sides */
		rpt_html_run_label(tr[i].run, paths[tr[i].doc], NULL, tr[i].index, name,
				   sizeof(name));
		if (nls)
			series_plot(pg, ls, nls, name);
		if (nld)
			dirty_plot(pg, ld, nld, name);
	}
}

/*
 * For each byte-counting run: throughput and Dirty/Writeback over time, each when it has
 * two points or more (a run shorter than the series interval still has kernel samples).
 * With sides, a cell's runs on each side share a plot.
 */
void rpt_html_time_plots(struct page *pg, json_t *const *docs, const char *const *paths,
			 const char *const *labels, size_t ndocs)
{
	struct trun *tr = NULL;
	const char **sides = calloc(ndocs + 1, sizeof(*sides));
	size_t n = 0;
	int nsides = 0;

	if (!sides)
		return;
	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;
		int s;

		for (s = 0; labels && labels[d] && s < nsides && strcmp(sides[s], labels[d]); s++)
			;
		if (labels && labels[d] && s == nsides)
			sides[nsides++] = labels[d];
		json_array_foreach(json_object_get(docs[d], MDL_KEY_RUNS), r, run)
		{
			struct trun *nt;

			if (mdl_run_unit(run) != MDL_UNIT_BYTES)
				continue;
			nt = realloc(tr, (n + 1) * sizeof(*tr));
			if (!nt)
				goto out;
			tr = nt;
			tr[n] = (struct trun){ .run = run, .doc = d, .index = r, .side = s };
			pair_key_of(run, r, tr[n].key, sizeof(tr[n].key));
			n++;
		}
	}
	if (nsides >= 2) {
		time_plots_paired(pg, tr, n, sides, nsides, paths);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *label = labels ? labels[tr[i].doc] : NULL;
		struct tline l = { tr[i].run, NULL, 0, 0 };
		char name[160];

		rpt_html_run_label(tr[i].run, paths[tr[i].doc], label, tr[i].index, name,
				   sizeof(name));
		if (has_series(tr[i].run))
			series_plot(pg, &l, 1, name);
		if (has_samples(tr[i].run))
			dirty_plot(pg, &l, 1, name);
	}
out:
	free(tr);
	free(sides);
}

/* Sector against time of a run's requests (probes.iomap: seekwatcher's picture). */
void rpt_html_iomap_plot(struct page *pg, const json_t *iomap, const char *name)
{
	static const char *const ops[] = { "write", "read", "discard" };
	const json_t *pts = json_object_get(iomap, "points"), *p;
	char cap[320], *body = NULL;
	size_t blen = 0, i;
	FILE *f;

	f = open_memstream(&body, &blen);
	if (!f)
		return;
	fprintf(f,
		"set xlabel \"time (s)\"\nset ylabel \"offset (MiB)\"\nset xrange [0:*]\nset yrange [0:*]\nplot ");
	for (int k = 0; k < 3; k++)
		fprintf(f, "%s'-' using 1:2 with points pt 7 ps 0.3 title \"%s\"", k ? ", " : "",
			ops[k]);
	fprintf(f, "\n");
	for (int k = 0; k < 3; k++) {
		json_array_foreach(pts, i, p)
		{
			const char *op = json_string_value(json_array_get(p, 3));

			/* flushes have no sector; gnuplot needs one point per block at least */
			if (op && !strcmp(op, ops[k]) && json_is_integer(json_array_get(p, 1)))
				fprintf(f, "%.6f %.3f\n",
					(double)json_integer_value(json_array_get(p, 0)) / 1e9,
					(double)json_integer_value(json_array_get(p, 1)) * 512 /
						1048576);
		}
		fprintf(f, "-1 -1\ne\n");
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: I/O map, %lld of %lld requests (one in %lld)", name,
		 (long long)json_integer_value(json_object_get(iomap, "kept")),
		 (long long)json_integer_value(json_object_get(iomap, "events")),
		 (long long)json_integer_value(json_object_get(iomap, "stride")));
	plot_as(pg, cap, body, true);
	free(body);
}
