/* What dashboards filter on, for the runs of one side of a sample: labels, start time, call totals. */
#ifndef RPT_CONTEXT_H
#define RPT_CONTEXT_H

#include <stddef.h>
#include <jansson.h>

#include "model/runs.h"

/*
 * The context of side @side of a sample from its complete runs @runs[@idx[0..n-1]]:
 * {side, start_time, labels: {fs, mount_options (as mounted), mount_requested (a suite's),
 * knob_set, barrier, device_model, kernel,
 * kernel_version, arch, host}, ops: {op: {count, sum_ns}}}. start_time is the earliest
 * "created" of the runs' result files; a label the runs disagree on holds their distinct
 * values joined by " | "; a label no run knows is left out. "about" names the side for a
 * reader (the report's head): device, cmdline, cpu, fsbench (version), command (the argv that made
 * the result), joined likewise, and host_load {others_pct, steal_pct, self_wait_pct, runs}:
 * the means over the runs that measured it (left out when none did), and canary
 * {before_p50_us, after_p50_us}: the mean fsync p50 of the device's canary around the runs. A side pooled from several result
 * files also has "results" (their created times, sorted) and "last_start_time". New reference,
 * NULL on ENOMEM.
 */
json_t *rpt_side_context(const char *side, const struct mdl_run_ref *runs, const size_t *idx,
			 size_t n);

#endif
