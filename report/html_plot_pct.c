/* The HTML report's latency plots: each operation's percentiles, one line per group. */
#include "report/html_plot.h"
#include "report/html_plot_priv.h"
#include "report/html_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "model/result_file.h"
#include "model/schema.h"

/*
 * Latency by percentile, the way HdrHistogram plots it: x is 1/(1-p) on a log axis, so
 * 50 %, 90 %, 99 %, 99.9 % and 99.99 % are evenly spaced and a stall in the last thousandth
 * of calls gets as much room as the median; latency on a log axis too.
 */
#define PCT_MARKS MDL_NPERCENTILES
/* Lines whose key fits inside the plot's empty upper left */
#define PCT_KEY_INSIDE 6

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
				fprintf(f, "%.6g %.6g\n",
					rpt_plot_side_apart(pct_mark_x(m), side, 1.1),
					g->pcts[op][r].ns[m] / scale);
	fprintf(f, "e\n");
}

/* Whether group @i is drawn on a plot of @op of @workload: @use marks it (NULL: all), it has calls. */
static bool pct_drawn(const struct group *g, int i, const bool *use, const char *workload, int op)
{
	return (!use || use[i]) && !strcmp(g[i].workload, workload) && g[i].h[op] &&
	       g[i].h[op]->count;
}

/*
 * The latency-by-percentile plot of op @op: a line per group of @workload that @use marks,
 * merged over its runs; with sides, each run's own percentiles as points on it when it has
 * few. Anchored at @anchor (NULL: the caption's id). Nothing when no group has the op.
 */
static void pct_plot(struct page *pg, const struct group *g, int ng, const bool *use,
		     const char *workload, int op, const char *anchor, const char *cap)
{
	bool paired = rpt_plot_workload_paired(g, ng, workload);
	const char *unit;
	char *body = NULL;
	size_t blen = 0;
	FILE *f;
	int any = 0, colour, side;
	uint64_t maxcount = 0, maxns = 0;
	double scale;

	for (int i = 0; i < ng; i++)
		if (pct_drawn(g, i, use, workload, op)) {
			any++;
			if (g[i].h[op]->count > maxcount)
				maxcount = g[i].h[op]->count;
			if (g[i].h[op]->max > maxns)
				maxns = g[i].h[op]->max;
		}
	if (!any)
		return;
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
			fprintf(f, "%s\"%g %%%%\" %g", m ? ", " : "", mdl_percentiles[m].pct,
				pct_mark_x(m));
	/* a line per cell and side can be 16: their key goes under the plot, not over it */
	fprintf(f, ", \"max\" %g)\nset mxtics 10\nset key %s\nplot ",
		maxcount > 2 ? (double)maxcount : 3.0,
		any > PCT_KEY_INSIDE ? "below" : "left top inside");
	any = 0;
	for (int i = 0; i < ng; i++)
		if (pct_drawn(g, i, use, workload, op)) {
			fprintf(f, "%s'-' using 1:2 with steps lw 2", any++ ? ", " : "");
			rpt_plot_line_style(f, g, ng, i);
			fprintf(f, " title ");
			rpt_plot_gp_str(f, g[i].name);
			fprintf(f, " noenhanced");
			if (pct_points(&g[i], op, paired) &&
			    rpt_plot_line_pair(g, ng, i, &colour, &side)) {
				fprintf(f, ", '-' using 1:2 with points");
				rpt_plot_pair_point(f, colour, side);
				fprintf(f, " notitle");
			}
		}
	fprintf(f, "\n");
	for (int i = 0; i < ng; i++)
		if (pct_drawn(g, i, use, workload, op)) {
			pct_steps(f, g[i].h[op], scale);
			if (pct_points(&g[i], op, paired) &&
			    rpt_plot_line_pair(g, ng, i, &colour, &side))
				pct_point_data(f, &g[i], op, side, scale);
		}
	fclose(f);
	rpt_plot_svg_at(pg, anchor, cap, body);
	free(body);
}

void rpt_html_pct_plots(struct page *pg, struct group *g, int ng, const char *workload)
{
	for (int rank = 0; mdl_op_name_at(rank); rank++) {
		char cap[160];

		snprintf(cap, sizeof(cap), "%s: %s latency by percentile", workload,
			 mdl_op_name_at(rank));
		pct_plot(pg, g, ng, NULL, workload, mdl_op_find(mdl_op_name_at(rank)), NULL, cap);
	}
}

void rpt_html_pct_cell_plots(struct page *pg, struct group *g, int ng, const struct rpt_cmp *cmp,
			     const char *workload)
{
	for (int rank = 0; mdl_op_name_at(rank); rank++) {
		const char *opname = mdl_op_name_at(rank);
		bool rest[MAX_GROUPS];
		char cap[320], id[512];

		for (int k = 0; k < ng; k++)
			rest[k] = true;
		for (size_t i = 0; i < cmp->nsamples; i++) {
			const struct rpt_cmp_sample *s = &cmp->samples[i];
			bool use[MAX_GROUPS];

			if (strcmp(mdl_str_or(json_string_value(s->workload), ""), workload))
				continue;
			for (int k = 0; k < ng; k++) {
				use[k] = rpt_html_group_in_sample(&g[k], s);
				rest[k] &= !use[k];
			}
			snprintf(cap, sizeof(cap), "%s: %s latency by percentile", s->label,
				 opname);
			rpt_html_cell_plot_id(id, sizeof(id), s, opname);
			pct_plot(pg, g, ng, use, workload, mdl_op_find(opname), id, cap);
		}
		/* runs of no compared cell (one side had none): the workload's plot, as before */
		snprintf(cap, sizeof(cap), "%s: %s latency by percentile", workload, opname);
		pct_plot(pg, g, ng, rest, workload, mdl_op_find(opname), NULL, cap);
	}
}
