/* The HTML report's ranked changes: regressions, then what the noise hides, then improvements, each with how sure and why. */
#ifndef RPT_HTML_CHANGES_H
#define RPT_HTML_CHANGES_H

#include <stdbool.h>
#include <stdio.h>

#include "report/cmp.h"

/* A change as a reader takes it: "+3.7 %", or "from ~0" on a zero or near-zero baseline. */
void rpt_html_fmt_change(char *buf, size_t len, double change_pct);

/*
 * "How sure": the rule that decided (a test with the Benjamini-Hochberg correction over the
 * gated metrics and each side's own spread, or the A/A floor) and each side's host load.
 */
void rpt_html_how_sure(FILE *out, const struct rpt_cmp *cmp);

/*
 * <table id="changed">: regressions, then "could not tell" (changes of the judge's threshold
 * or more that the test or the spread did not prove), then improvements, each group largest
 * first; each row with both sides' values, the change, how sure (q and p, or the floor, and
 * the spread), and for the call that commits, the kernel side's account and the share of
 * the change it explains; with @plots (the page draws them) a link to the row's plot.
 */
void rpt_html_changes(FILE *out, const struct rpt_cmp *cmp, bool plots);

#endif
