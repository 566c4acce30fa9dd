/* The HTML report's plots: gnuplot scripts run to SVG and inlined into the page. */
#ifndef RPT_HTML_PLOT_H
#define RPT_HTML_PLOT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "report/cmp.h"
#include "report/html.h"
#include "report/html_group.h"

/* The page being written: where plots go, and how many were tried and drawn. */
struct page {
	FILE *out;
	const struct rpt_html_opts *o;
	char dir[256]; /* temporary directory for data, scripts and SVG */
	int nplots; /* plots attempted, to number files and SVG ids */
	int drawn;
};

/* @bytes' throughput against threads, one line per group of @workload. */
void rpt_html_throughput_plot(struct page *pg, struct group *g, int ng, const char *workload,
			      bool bytes);

/* One latency-by-percentile plot per operation of @workload, one line per group. */
void rpt_html_pct_plots(struct page *pg, struct group *g, int ng, const char *workload);

/*
 * With a comparison, whose verdicts are per cell: a plot per operation and cell (sample) of
 * @workload, its sides a line each, anchored where the tables' rows link
 * (rpt_html_cell_plot_id); all cells' plots of one operation together.
 */
void rpt_html_pct_cell_plots(struct page *pg, struct group *g, int ng, const struct rpt_cmp *cmp,
			     const char *workload);

/* Throughput and Dirty/Writeback over time for each byte-counting run. */
void rpt_html_time_plots(struct page *pg, json_t *const *docs, const char *const *paths,
			 const char *const *labels, size_t ndocs);

/* Sector against time of a run's requests (probes.iomap: seekwatcher's picture). */
void rpt_html_iomap_plot(struct page *pg, const json_t *iomap, const char *name);

#endif
