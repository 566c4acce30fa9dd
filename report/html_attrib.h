/* The HTML report's kernel-side attribution: per cell and side, the slowest calls, every run's own. */
#ifndef RPT_HTML_ATTRIB_H
#define RPT_HTML_ATTRIB_H

#include <stddef.h>
#include <jansson.h>

#include "report/html_plot.h"

/* Calls in the suite-wide table of the slowest: the first screen of a suite's attribution. */
#define RPT_HTML_SLOWEST_OVERALL 20
/* Calls per cell and side in the per-cell table: a cell's worst, without a run's twenty. */
#define RPT_HTML_SLOWEST_PER_CELL 5

/*
 * The section for the runs of @docs that have eBPF probes (nothing when none has): the
 * kernel's work per call of the cell's sync operation (fsync, else fdatasync) per cell and
 * side, with the candidate's difference when there are sides (@labels, per document); the
 * slowest calls overall and per cell and side; every run's own table and I/O map folded.
 */
void rpt_html_kernel_sections(struct page *pg, json_t *const *docs, const char *const *paths,
			      const char *const *labels, size_t ndocs);

#endif
