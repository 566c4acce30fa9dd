/* A compare document as text tables (rows the samples, columns the sides) or markdown. */
#ifndef RPT_COMPARE_TEXT_H
#define RPT_COMPARE_TEXT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

/* Text tables, or markdown for CI comments, of a document rpt_compare_load() accepts. */
void rpt_compare_print(const json_t *cmp, FILE *out, bool markdown);

#endif
