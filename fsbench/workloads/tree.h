/* The tree workload's run state (tree.c), read by its report (tree_report.c) and the unit tests. */
#ifndef FSB_WL_TREE_H
#define FSB_WL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fsbench/core/dirs.h"
#include "fsbench/core/workload.h"
#include "fsbench/workloads/tree_ops.h"
#include "fsbench/workloads/tree_shape.h"

/* One phase's runs, summed: compilebench's summary line and fsbench's figures beside it. */
struct tree_acc {
	uint32_t runs;
	uint64_t ns, sync_ns; /* the phase's work, and the syncfs after it (not in ns) */
	uint64_t bytes, bytes_written, bytes_read, files, dirs;
	double rate_sum; /* sum of per-run bytes/s, for compilebench's avg */
	double user_s, sys_s;
	uint32_t dev_runs; /* runs with device figures */
	uint64_t dev_write_bytes, dev_read_bytes;
	struct hist *hist[OP_COUNT]; /* this phase's calls only */
};

/* One run of the schedule as it went. */
struct tree_done {
	uint64_t ns, sync_ns, bytes, dev_write_bytes;
	bool dev_ok;
};

/* The run's state (tree.c), read by the report (tree_report.c). */
struct tree_state {
	struct tree_shape shape;
	struct tree_ctx ctx;
	struct tree_step *steps;
	struct tree_done *done; /* [nsteps] */
	size_t nsteps;
	uint32_t ntrees;
	uint8_t *tstate; /* [ntrees]: 0 absent, 1 plain, 2 compiled; what fini removes */
	bool *made; /* [ntrees]: this run created it */
	struct tree_acc acc[TP_COUNT];
	struct hist *scratch[OP_COUNT]; /* one run's calls, before they join acc and the totals */
	bool have_device;
	char disk[64], device_note[320];
	bool whole_disk_of_partition;
	bool sync; /* syncfs after each phase run */
	enum tree_phase pts_phase; /* the phase a PTS test name selects; TP_COUNT: none */
	int top_fd;
	struct fsb_dirs top;
};

void tree_report_json(const struct fsb_run *run, struct json_t *summary);
void tree_report_print(const struct fsb_run *run, FILE *out);

#endif
