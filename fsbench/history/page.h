/* `history report`'s page: each changed series over kernels as inline SVG, regressions first. */
#ifndef FSB_HIST_PAGE_H
#define FSB_HIST_PAGE_H

#include <stdio.h>

#include "fsbench/history/series.h"

/*
 * For change i of the findings, the pair page comparing the kernel before with the kernel
 * after (`fsbench report` of the cell's result files): @href[i] a link relative to the
 * page, else @why[i] says why there is none (NULL both: not made, beyond --pairs).
 */
struct hist_pairs {
	char **href, **why;
	size_t n;
};

/*
 * Writes one self-contained HTML page to @out (no external assets, readable at 800 px):
 * per series with a change point, in the order of @f's changes, the metric over the
 * series' kernels, each run a dot, each kernel's spread, the change marked, and each
 * change's pair page linked (@pairs: NULL for none). 0 or -EIO.
 */
int hist_page_write(FILE *out, const char *title, const struct hist_summary *sum,
		    const struct hist_findings *f, const struct hist_pairs *pairs);

#endif
