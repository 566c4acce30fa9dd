/* `fsbench compare`, `report` and `export`, and what they share: loading results into runs. */
#ifndef FSB_CMD_COMPARE_H
#define FSB_CMD_COMPARE_H

#include <jansson.h>
#include "../report/compare.h"

int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* Loads a result file and checks the shape compare relies on; prints one line and returns -EPROTO when unusable. */
int cli_result_load(const char *cmd, const char *path, json_t **ret);

/* Appends every run of @doc to @refs on @side (side -1: decided later). 0 or -ENOMEM. */
int cli_refs_add(struct rpt_run_ref **refs, size_t *n, const json_t *doc, const char *path,
		 int side);

/*
 * Puts runs on sides by coords.@field, @first (if given) as side 0; fills @ret_names (owned by
 * the documents) and returns the number of sides, or -EPROTO after printing why.
 */
int cli_sides_across(const char *cmd, struct rpt_run_ref *refs, size_t n, const char *field,
		     const char *first, const char ***ret_names);

#endif
