/* A file given to compare, report or export: a result or a comparison, parsed once and checked. */
#ifndef MDL_DOC_H
#define MDL_DOC_H

#include <stddef.h>
#include <jansson.h>

/* What compare writes (report/compare.c); results are MDL_RESULT_SCHEMA (result_file.h). */
#define MDL_COMPARE_SCHEMA "fsbench-compare/1"
/* What kernel-gate writes (kernel-gate.json): its comparison is its "compare" member. */
#define MDL_KERNEL_GATE_SCHEMA "fsbench-kernel-gate/1"

enum mdl_doc_kind {
	MDL_DOC_RESULT, /* fsbench-result/2, or /1 brought to version 2 */
	MDL_DOC_COMPARE, /* fsbench-compare/1 */
};

/*
 * Loads @path once and says in *@ret_kind which kind of file it is. A result is upgraded
 * and checked as mdl_runs_load() does; a comparison as mdl_compare_load() does. A kernel
 * gate's document gives its own comparison (as the gate judged it: the A/A floor's rule),
 * a comparison then; one that stopped before judging is refused, saying so. Returns 0,
 * or -EPROTO with @err naming the file and what is wrong with it (neither kind, unusable).
 */
int mdl_doc_load(const char *path, json_t **ret, enum mdl_doc_kind *ret_kind, char *err,
		 size_t errlen);

/*
 * Checks the shape of a compare document that the printers and exporters index without
 * checking again. 0, or -EPROTO with @err naming @path and the fault.
 */
int mdl_compare_check(const json_t *cmp, const char *path, char *err, size_t errlen);

/* Loads and checks a compare document. 0, -errno, or -EPROTO with @err set. */
int mdl_compare_load(const char *path, json_t **ret, char *err, size_t errlen);

#endif
