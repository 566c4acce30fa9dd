/* What the HTML report's plot files share: running gnuplot, inlining, and the pairs' styles. */
#ifndef RPT_HTML_PLOT_PRIV_H
#define RPT_HTML_PLOT_PRIV_H

#include <stdbool.h>
#include <stdio.h>

#include "report/html_plot.h"

/*
 * Runs a line may have at one thread count for each to be drawn as a point: up to a dozen
 * repetitions or boots, their spread says more than an interval computed from them.
 */
#define POINTS_MAX 12

/* A gnuplot string: double-quoted, " and \\ escaped. */
void rpt_plot_gp_str(FILE *f, const char *s);

/*
 * One plot of @script_body (data inline) as a <figure> on the page: inline SVG, or with
 * @raster a PNG as a data: URI; rpt_plot_svg is the SVG one.
 */
void rpt_plot_as(struct page *pg, const char *caption, const char *script_body, bool raster);
void rpt_plot_svg(struct page *pg, const char *caption, const char *script_body);
/* An SVG plot whose anchor is @anchor (an id already made), not "fig-" and its caption. */
void rpt_plot_svg_at(struct page *pg, const char *anchor, const char *caption,
		     const char *script_body);

/* The pairs' styles: a line's colour, its side's dash, fill and point (html_plot.c). */
const char *rpt_plot_pair_colour(int colour);
bool rpt_plot_line_pair(const struct group *g, int ng, int i, int *ret_colour, int *ret_side);
void rpt_plot_pair_line(FILE *f, int colour, int side);
const char *rpt_plot_side_fill(int side);
void rpt_plot_pair_point(FILE *f, int colour, int side);
double rpt_plot_side_apart(double x, int side, double step);
void rpt_plot_line_style(FILE *f, const struct group *g, int ng, int i);
bool rpt_plot_workload_paired(const struct group *g, int ng, const char *workload);

#endif
