/* Why a metric moved: the kernel-side work per call on each side, from the runs' probes. */
#ifndef RPT_WHY_H
#define RPT_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "model/runs.h"

/*
 * The kernel-side reasons of one sample's metric judged on side @ib against @ia (indices
 * into @runs): per call of @op (per file when @op is NULL and the workload counts files,
 * else per call of any operation) the block requests, KB written, flushes and FUA writes,
 * journal commits, handles and flushes per commit and the commit's phases, xfs log forces
 * and iclog writes, btrfs commits, writeback throttling and block d2c. Counters are summed
 * over the complete runs of a side before they are divided, so a side of several runs
 * weighs every call alike.
 *
 * Returns {"per": CALL, "items": [{name, unit, baseline, candidate, change_pct}], "text":
 * "fsync.p99 +18.0 %: commits per fsync 1.00 -> 1.00, ..."} with @metric and @change_pct
 * leading the text, or NULL when neither side has probes (or on ENOMEM). Only quantities
 * both sides measured (their source loaded on both) are items.
 */
json_t *rpt_why_build(const struct mdl_run_ref *runs, const size_t *ia, size_t na, const size_t *ib,
		      size_t nb, const char *op, const char *metric, double change_pct);

/* The quantities rpt_why_build() and rpt_why_side() know, in their order. */
#define RPT_WHY_ITEMS 17

/* One kernel-side quantity of one side: "flushes per fsync", its unit, its value. */
struct rpt_why_value {
	char name[64];
	const char *unit; /* "", "us", "KB" */
	bool have; /* measured (its source loaded on every complete run) and divisible */
	double v;
};

/*
 * The same quantities for one side alone (the complete runs among @idx): RPT_WHY_ITEMS
 * entries into @ret, in one order for every side, so that entry i of two sides is the same
 * quantity. Returns what they are per: @op, "file" or "call" (a static string or @op).
 */
const char *rpt_why_side(const struct mdl_run_ref *runs, const size_t *idx, size_t n,
			 const char *op, struct rpt_why_value *ret);

/* The change from @a to @b in percent: INFINITY from zero to anything, 0 from zero to zero. */
double rpt_why_change_pct(double a, double b);

/*
 * The eBPF sources that loaded ("ok") on every complete run of @idx, as a JSON object
 * {name: true}; an empty object when none did. NULL on ENOMEM.
 */
json_t *rpt_why_sources(const struct mdl_run_ref *runs, const size_t *idx, size_t n);

/*
 * The sources in exactly one of @a and @b, as "source jbd2 loaded on the candidate only"
 * (sides named @na and @nb), in @buf; returns the number of such sources (0: the same).
 */
size_t rpt_why_sources_diff(const json_t *a, const json_t *b, const char *na, const char *nb,
			    char *buf, size_t len);

#endif
