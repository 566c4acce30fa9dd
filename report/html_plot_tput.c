/* The HTML report's throughput plots: lines against threads, or bars at one thread count. */
#include "report/html_plot.h"
#include "report/html_plot_priv.h"
#include "report/html_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "model/result_file.h"
#include "model/schema.h"

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

/*
 * Two sides at one thread count: per line (filesystem or cell) a slot in its colour with a
 * bar per side, solid on the first and hatched on the others, at the median of its runs,
 * and each run as a point on its bar when there are few.
 */
static void paired_bars(FILE *f, struct group *g, int ng, const char *workload, bool bytes, int t)
{
	int ncolours = 0, nsides = 0, colour, side, any = 0;

	for (int i = 0; i < ng; i++)
		if (!strcmp(g[i].workload, workload) &&
		    rpt_plot_line_pair(g, ng, i, &colour, &side)) {
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
			    rpt_plot_line_pair(g, ng, i, &colour, &side) && colour == c) {
				fprintf(f, "%s", c ? ", " : "");
				rpt_plot_gp_str(f, g[i].line[0] ? g[i].line : workload);
				fprintf(f, " %d", c);
				break;
			}
	fprintf(f, ")\nplot ");
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !g[i].tn[bytes][t] ||
		    !rpt_plot_line_pair(g, ng, i, &colour, &side))
			continue;
		fprintf(f, "%s'-' using 1:2:3 with boxes lw 2 lc rgb \"%s\" fs %s border title ",
			any++ ? ", " : "", rpt_plot_pair_colour(colour), rpt_plot_side_fill(side));
		rpt_plot_gp_str(f, g[i].name);
		fprintf(f, " noenhanced");
		if (few_samples(&g[i], bytes)) {
			fprintf(f, ", '-' using 1:2 with points");
			rpt_plot_pair_point(f, colour, side);
			fprintf(f, " notitle");
		}
	}
	fprintf(f, "\n");
	for (int i = 0; i < ng; i++) {
		double w = 0.8 / (nsides ? nsides : 1), x;

		if (strcmp(g[i].workload, workload) || !g[i].tn[bytes][t] ||
		    !rpt_plot_line_pair(g, ng, i, &colour, &side))
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
	bool paired = rpt_plot_workload_paired(g, ng, workload);

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
			rpt_plot_gp_str(f, g[i].name);
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
		rpt_plot_svg(pg, cap, *body);
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
	bool paired = rpt_plot_workload_paired(g, ng, workload);

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
		rpt_plot_line_style(f, g, ng, i);
		fprintf(f, " title ");
		rpt_plot_gp_str(f, g[i].name);
		fprintf(f, " noenhanced");
		if (paired && few_samples(&g[i], bytes) &&
		    rpt_plot_line_pair(g, ng, i, &colour, &side)) {
			fprintf(f, ", '-' using 1:2 with points");
			rpt_plot_pair_point(f, colour, side);
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
		if (paired && few_samples(&g[i], bytes) &&
		    rpt_plot_line_pair(g, ng, i, &colour, &side)) {
			for (int t = 1; t <= MDL_MAX_THREADS; t++)
				if (g[i].tn[bytes][t])
					/* a side's runs a little apart from the other's */
					sample_data(f, &g[i], bytes, t,
						    rpt_plot_side_apart(t, side, 1.025));
			fprintf(f, "e\n");
		}
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: %s against threads", workload, bytes ? "MB/s" : "files/s");
	if (any)
		rpt_plot_svg(pg, cap, body);
	free(body);
}
