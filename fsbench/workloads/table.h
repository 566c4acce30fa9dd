/* The workloads' table (table.c), for the layers above core: suites, the CLI. */
#ifndef FSB_WORKLOADS_TABLE_H
#define FSB_WORKLOADS_TABLE_H

#include "fsbench/core/workload.h"

/* NULL-terminated, in the order of `fsbench --help` */
extern const struct fsb_workload *const fsb_workloads[];
/* The workload called @name, or NULL. */
const struct fsb_workload *fsb_workload_find(const char *name);

#endif
