/* Gates: a gate file's per-metric rules, and what a gate makes of a compare document. */
#ifndef RPT_GATE_H
#define RPT_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "report/cmp.h"
#include "report/compare.h"
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
 * rpt_gate_load() of @path into @o->gate (the caller owns *@ret, which @o points to), its
 * top-level "strict" and "allow_noisy" turned on in @o. 0 or rpt_gate_load()'s -errno.
 */
int rpt_gate_opts_load(const char *path, struct rpt_compare_opts *o, json_t **ret, char *err,
		       size_t errlen);

/*
 * The rule for @metric: @base (the CLI's values; gating for the seeds' metrics), then the
 * gate file's top-level values, then its entry for the exact name, else its first
 * matching glob: a metric the gate file names gates unless the entry says "gate": false.
 */
struct rpt_rule rpt_rule_for(const json_t *gate, const struct rpt_rule *base, const char *metric);

/* What a gate makes of a comparison; the values are `compare --gate`'s exit statuses. */
enum rpt_gate_status {
	RPT_GATE_PASS = 0,
	RPT_GATE_REGRESSED = 1, /* a gated metric regressed: a finding, whatever else is unjudged */
	/*
	 * strict, and a gated metric (or everything) could not be judged; strict or not, a
	 * gated metric would have regressed but its sides ran under unequal conditions
	 * (report/hostload_rule.h); or the comparison as a whole cannot be judged
	 * (rpt_cmp_set_cannot_judge), whatever its metrics say
	 */
	RPT_GATE_UNJUDGED = 2,
};

/*
 * The process exit status of @st, for compare --gate and for the page that states what it
 * would exit (fsbench/cli/commands.h): 0 pass, 1 regressed, 125 cannot judge.
 */
int rpt_gate_exit_status(enum rpt_gate_status st);

/* The gate's decision; a strict gate with no gated comparison at all is unjudged too. */
enum rpt_gate_status rpt_cmp_gate_status(const struct rpt_cmp *c);

/*
 * What the gate decided on @cmp and why, a line at a time to @say (no prefix, no newline):
 * for a strict gate each sample it could not judge and what would fix that; the metrics a
 * plain gate only warns about (too few samples, noisy); the regressions; why nothing could be
 * judged. Returns rpt_cmp_gate_status().
 */
enum rpt_gate_status rpt_gate_explain(const struct rpt_cmp *cmp,
				      void (*say)(void *arg, const char *line), void *arg);

/*
 * The same on a compare document, read into the structs each call: for the tests and
 * fuzzers that hold only a document (no product path judges through JSON: the gate and
 * compare hold the typed comparison). A document that does not read back counts 0 and is
 * unjudged.
 */
size_t rpt_compare_count(const json_t *cmp, enum rpt_verdict v, bool gating_only);
enum rpt_gate_status rpt_gate_status(const json_t *cmp);

#endif
