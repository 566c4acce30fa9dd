/* The HTML report: one self-contained page (inline SVG from gnuplot, tables) from results and a comparison. */
#ifndef RPT_HTML_H
#define RPT_HTML_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "report/cmp.h"

struct rpt_html_opts {
	const char *title;
	const char *gnuplot; /* program to run; NULL: plots are skipped and the page says so */
	/*
	 * Per document, the side its runs are on in plot lines and captions ("baseline",
	 * "candidate", a file name), or NULL entries (or a NULL array) when the sides are not
	 * files: a suite compared across filesystems names its lines by filesystem alone.
	 */
	const char *const *labels;
	const char *compare_note; /* shown with the comparison: why it is missing or one-sided */
	const char *inputs_note; /* shown after the inputs: what they are */
};

/*
 * Writes the page for @ndocs result documents (@paths name them) and the comparison @cmp
 * (may be NULL) to @out. With @ndocs 0, @paths[0] names the comparison's file. *@ret_plotted is the number of plots drawn. Returns 0, -ENOMEM,
 * -EIO, or the -errno of a temporary file; a gnuplot failure leaves that plot out and is
 * noted in the page.
 */
/*
 * The page's own check, a <script> run at load that marks <body> for tests in a headless
 * browser: data-overflow ("no", or how many px wider than the window), data-bad-links,
 * data-plots, data-js-errors. Every fsbench page ends with it.
 */
extern const char rpt_html_page_check_js[];

int rpt_html_write(json_t *const *docs, const char *const *paths, size_t ndocs,
		   const struct rpt_cmp *cmp, const struct rpt_html_opts *o, FILE *out,
		   int *ret_plotted);

#endif
