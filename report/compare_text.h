/* A compare document as text tables (rows the samples, columns the sides) or markdown. */
#ifndef RPT_COMPARE_TEXT_H
#define RPT_COMPARE_TEXT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "report/cmp.h"

/* Text tables, or markdown for CI comments, of a comparison. */
void rpt_cmp_print(const struct rpt_cmp *cmp, FILE *out, bool markdown);

/*
 * The "why" lines of a comparison (rpt_why_build's text for every changed metric, per
 * sample) and the samples whose sides loaded different eBPF sources. Nothing when it has
 * neither. Returns the number of why lines. kernel-gate prints its verdict's with this.
 */
size_t rpt_cmp_why_print(const struct rpt_cmp *cmp, FILE *out, bool markdown);

/* The same of a document mdl_compare_load() accepts (read into the structs first). */
void rpt_compare_print(const json_t *cmp, FILE *out, bool markdown);

size_t rpt_compare_why_print(const json_t *cmp, FILE *out, bool markdown);

#endif
