/* Gates: a gate file's per-metric rules, and what a gate makes of a compare document. */
#ifndef RPT_GATE_H
#define RPT_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "report/verdict.h"

/* Checks a gate file's shape. 0 or -EINVAL with @err saying what is wrong. */
int rpt_gate_check(const json_t *gate, char *err, size_t errlen);

/*
 * Reads and checks the gate file @path: {alpha, threshold_pct, noise_cov_pct, strict,
 * allow_noisy, metrics: {NAME|GLOB: {alpha, threshold_pct, noise_cov_pct, gate}}}. Returns
 * 0, or -EPROTO (not JSON: @err is "gate file PATH:LINE:COLUMN: why") or -EINVAL (not a
 * gate: "PATH: why"). The caller owns *@ret.
 */
int rpt_gate_load(const char *path, json_t **ret, char *err, size_t errlen);

/*
 * The rule for @metric: @base (the CLI's values, gating), then the gate file's top-level
 * values, then its entry for the exact name, else its first matching glob.
 */
struct rpt_rule rpt_rule_for(const json_t *gate, const struct rpt_rule *base, const char *metric);

/* Number of metrics with @v (whose rule gates, with @gating_only) in a compare document. */
size_t rpt_compare_count(const json_t *cmp, enum rpt_verdict v, bool gating_only);

/* What a gate makes of a compare document; the values are `compare --gate`'s exit statuses. */
enum rpt_gate_status {
	RPT_GATE_PASS = 0,
	RPT_GATE_REGRESSED = 1, /* a gated metric regressed: a finding, whatever else is unjudged */
	RPT_GATE_UNJUDGED = 2, /* strict, and a gated metric (or everything) could not be judged */
};

/*
 * Whether comparison @c keeps the strict gate of @cmp (its settings.strict/allow_noisy)
 * from judging: false when the gate is not strict or the metric is not gated.
 */
bool rpt_gate_blocks(const json_t *cmp, const json_t *c);

/* How many gated comparisons of @cmp keep a strict gate from judging. */
size_t rpt_gate_count_blocking(const json_t *cmp);

/* The gate's decision; a strict gate with no gated comparison at all is unjudged too. */
enum rpt_gate_status rpt_gate_status(const json_t *cmp);

#endif
