/* A command's --help captured with its option tables: what the man pages and completion read. */
#ifndef FSB_DOC_CAPTURE_H
#define FSB_DOC_CAPTURE_H

#include <stddef.h>

#include "fsbench/core/opt.h"
#include "fsbench/doc/docgen.h"

#define DOC_MAX_TABLES 8
/* where --help would have printed a table: DOC_MARK "<index>\n" */
#define DOC_MARK '\001'

struct doc_captured {
	char *text; /* what --help printed, with a DOC_MARK line for each table */
	struct fsb_opt *tbl[DOC_MAX_TABLES]; /* copies: a workload's table is freed after --help */
	int ntbl;
};

/* Runs command @i's --help (of subcommand @sub, or NULL) into @c. 0, or -errno with @err set. */
int doc_capture(const struct doc_program *p, int i, const char *sub, struct doc_captured *c,
		char *err, size_t errlen);

void doc_captured_free(struct doc_captured *c);

#endif
