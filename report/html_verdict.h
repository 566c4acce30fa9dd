/* The HTML report's first section: what `compare --gate` would say, and what moved most. */
#ifndef RPT_HTML_VERDICT_H
#define RPT_HTML_VERDICT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/cmp.h"

/* Whether @cmp compares two sides or more, so that the page leads with a verdict. */
bool rpt_html_has_verdict(const struct rpt_cmp *cmp);

/*
 * The verdict as the page's <h1 id="verdict"> (good, regressed, cannot judge, and why),
 * the sources loaded on one side only, then the regressed and improved metrics ranked by
 * how much they moved, each with its cell, both sides' values (every sample when there
 * are few), the change and the kernel-side why line; with @plots, each row's plot link.
 */
void rpt_html_verdict(FILE *out, const struct rpt_cmp *cmp, bool plots);

/* The <summary> of the fold the full comparison goes in: the rest, counted. */
void rpt_html_verdict_fold(FILE *out, const struct rpt_cmp *cmp);

#endif
