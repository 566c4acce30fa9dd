/* The why lines as a reader gets them, in the text output and the HTML report alike. */
#ifndef RPT_WHY_TEXT_H
#define RPT_WHY_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "report/cmp.h"

/* How a line is spelt: the terminal's ("us", "->") or the page's ("µs", "→"); KiB in both. */
enum rpt_why_style { RPT_WHY_TEXT, RPT_WHY_HTML };

/* A cell, side and call whose kernel side is already told, and where (a row, a metric). */
struct rpt_why_said {
	const struct rpt_cmp_sample *sample;
	int side;
	const char *per, *metric;
	size_t row;
};

/* The lines of one listing so far; zero it, then rpt_why_lines_free() it. */
struct rpt_why_lines {
	enum rpt_why_style style;
	struct rpt_why_said *said;
	size_t nsaid, cap;
};

/*
 * The call the why line of change @j (of metric @m) counts per, or NULL when it gets none:
 * only the call that commits (fsync, fdatasync, sync; a file of files_per_sec), since
 * other calls divide the same totals by their own counts ("commits per close 1.00") and
 * that explains nothing of them; only a regression or improvement, or an unproven change
 * that is large (the threshold or more, and past the sides' own spread): an unchanged
 * metric, or one that moved within its runs' noise, has nothing to explain.
 */
const char *rpt_why_per(const struct rpt_cmp_metric *m, const struct rpt_cmp_judged *j);

/*
 * The why line of change @j of metric @m in sample @s, row @row of the caller's listing,
 * into @buf (unescaped): the first time for its cell, side and call "Kernel side per
 * fsync: flushes per commit 2.00 -> 3.00. Device time per fsync +0.5 ms explains 14 % of
 * the +3.7 ms change." (only the quantities that moved 5 % or more), later "Kernel side as
 * in row 1." (as for fsync.p99, in text) and only the share of that row's own change.
 * Returns false, @buf empty, when there is no line (rpt_why_per() is NULL) or on ENOMEM.
 */
bool rpt_why_line(struct rpt_why_lines *w, const struct rpt_cmp_sample *s,
		  const struct rpt_cmp_metric *m, const struct rpt_cmp_judged *j, size_t row,
		  char *buf, size_t len);

void rpt_why_lines_free(struct rpt_why_lines *w);

#endif
