/* dbench's output (dbench_out.c): what the workload's print and summary hooks are. */
#ifndef FSB_DBENCH_OUT_H
#define FSB_DBENCH_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "fsbench/core/workload.h"

/* The result's summary: MB/s, max latency, loadfile passes, status mismatches, short reads. */
void dbench_summary_json(const struct fsb_run *run, json_t *summary);

/* dbench's lines before the run: version, time limit, loadfile, warmup, the launch. */
void dbench_print_header(const struct fsb_run *run, FILE *out);

/* dbench's line of every second: warmup, execute or cleanup, with the worst latency since. */
void dbench_print_tick(const struct fsb_run *run, uint64_t now, FILE *out);

/* dbench's end: "completed in" lines, the Operation table(s) and the Throughput line. */
void dbench_print_end(const struct fsb_run *run, FILE *out);

#endif
