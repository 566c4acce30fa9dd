/* Assembles result JSON from finished runs (the CLI layer's view of model/result_file.h). */
#ifndef FSB_RESULT_H
#define FSB_RESULT_H

#include <jansson.h>
#include "fsbench/core/workload.h"

/* A new result document: schema, tool, host, created, config (argv), empty runs[]. */
json_t *fsb_result_new(int argc, char **argv);

/* The run object: workload, params (every option of @tbl, read from run->cfg), summary, ops... */
json_t *fsb_run_json(const struct fsb_run *run, const struct fsb_opt *tbl);

/* Sets the document's top-level "complete" from its runs. */
void fsb_result_finish(json_t *doc);

#endif
