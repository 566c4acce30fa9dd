/* The HTML report's tables and numbers: escaping, values with units, the comparison, throughput. */
#ifndef RPT_HTML_TABLE_H
#define RPT_HTML_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "report/cmp.h"
#include "report/html_group.h"

/* @s with HTML's special characters as entities; NULL writes nothing. */
void rpt_html_esc(FILE *out, const char *s);

/*
 * The id of the plot captioned @s (or of a section named @s): "fig-" and its letters and
 * digits in lower case, each run of other characters one "-".
 */
void rpt_html_fig_id(FILE *out, const char *s);

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

/* The comparison section: @note (why it is missing or one-sided), sides, lists, the table. */
void rpt_html_compare_table(FILE *out, const struct rpt_cmp *cmp, const char *note);

/* Mean throughput per workload, line and thread count: the numbers behind the plots. */
void rpt_html_throughput_table(FILE *out, const struct group *g, int ng);

#endif
