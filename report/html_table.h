/* The HTML report's tables and numbers: escaping, values with units, the comparison, throughput. */
#ifndef RPT_HTML_TABLE_H
#define RPT_HTML_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "report/cmp.h"
#include "report/html_group.h"

/* Which plots a table's rows link to: none (the page has none), their workload's, their cell's. */
enum rpt_html_links { RPT_LINKS_NONE, RPT_LINKS_WORKLOAD, RPT_LINKS_CELL };

/* @s with HTML's special characters as entities; NULL writes nothing. */
void rpt_html_esc(FILE *out, const char *s);

/*
 * The id of the plot captioned @s (or of a section named @s): "fig-" and its letters and
 * digits in lower case, each run of other characters one "-".
 */
void rpt_html_fig_id(FILE *out, const char *s);

/* The same id with @prefix into @buf: "fig-", or "plot-" for a cell's plot. */
void rpt_html_id(char *buf, size_t len, const char *prefix, const char *s);

/*
 * The id of the latency plot of op @op in the cell of sample @s ("plot-ext4-smallfile-t-2-
 * fsync"): a page with a comparison draws a plot per cell, as its verdicts are per cell.
 */
void rpt_html_cell_plot_id(char *buf, size_t len, const struct rpt_cmp_sample *s, const char *op);

/* The operation a latency metric is of ("fsync" of "fsync.p99") into @buf; false: none. */
bool rpt_html_metric_op(const struct rpt_cmp_metric *m, char *buf, size_t len);

/*
 * " <a href="#...">plot</a>" to the plot of metric @m of sample @s: its cell's latency plot
 * (@links RPT_LINKS_CELL) or its workload's, or its workload's throughput against threads;
 * nothing for a metric without a plot, or with RPT_LINKS_NONE.
 */
void rpt_html_plot_link(FILE *out, const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
			enum rpt_html_links links);

/* The page's one spelling of a why item's @unit: "µs" for "us", "KiB" for "KB". */
const char *rpt_html_unit(const char *unit);

/* A number as people read it: three significant digits or so, never an exponent. */
void rpt_html_fmt_num(char *buf, size_t len, double v);

/* The unit a latency of @ns nanoseconds reads best in, and its size in nanoseconds. */
const char *rpt_html_time_unit(double ns, double *ret_scale);

/*
 * "12.3 ± 6.9 ms": @v and its half-width @pm (NAN: none) in @unit, a compare metric's
 * unit; latencies ("us") move to the unit that suits @v.
 */
void rpt_html_fmt_value(char *buf, size_t len, double v, double pm, const char *unit);

/* The comparison section: @note (why it is missing or one-sided), sides, lists, the table, each row linked as @links says. */
void rpt_html_compare_table(FILE *out, const struct rpt_cmp *cmp, const char *note,
			    enum rpt_html_links links);

/* Mean throughput per workload, line and thread count: the numbers behind the plots. */
void rpt_html_throughput_table(FILE *out, const struct group *g, int ng);

#endif
