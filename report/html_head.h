/* The HTML report's head: what each side is (kernel, host, device, filesystem, dates, command) and its host load. */
#ifndef RPT_HTML_HEAD_H
#define RPT_HTML_HEAD_H

#include <stdbool.h>
#include <stdio.h>

#include "report/cmp.h"

/* A side's host load over its runs that measured it (rpt_side_context's about.host_load). */
struct rpt_html_load {
	double others_pct, steal_pct, self_wait_pct; /* self_wait_pct: NAN when not measured */
	double runs; /* 0: no run measured the load */
};

/* Side @k's host load, pooled over the samples of @cmp (weighted by their runs). */
struct rpt_html_load rpt_html_side_load(const struct rpt_cmp *cmp, int k);

/*
 * The table "What was compared": a column per side, a row per fact the runs hold (kernel
 * release and build, command line, host, CPU, device model, filesystem, mount options,
 * fsbench version, dates, the command that made the result, host load); values a side's
 * runs disagree on are joined by " | ", facts no run holds are left out.
 */
void rpt_html_sides(FILE *out, const struct rpt_cmp *cmp);

#endif
