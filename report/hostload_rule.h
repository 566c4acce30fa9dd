/* Whether two sides ran under comparable conditions: the host's load and the canary (report/hostload_rule.c). */
#ifndef RPT_HOSTLOAD_RULE_H
#define RPT_HOSTLOAD_RULE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/runs.h"
#include "report/cmp.h"

/*
 * A side is busy when others (every process but fsbench, plus the hypervisor's steal) took
 * half of all CPU time or more: then, on average, every fsbench thread shares its CPU and
 * waits on the run queue after each wake-up (an fsync's return), which is what smallfile's
 * latency and files/s measure. A busy side is noted on every comparison; it makes the
 * comparison "cannot judge" only with compare --max-host-load (as kernel-gate's own flag
 * does for boots), because a host busy alike on both sides, interleaved, biases neither:
 * its noise is the statistics' business.
 */
#define RPT_HOSTLOAD_BUSY_PCT 50.0
/*
 * Two sides differ when others' shares are this many percentage points apart. Kernel threads
 * that work for the run (jbd2, loop and writeback workers) count as others and take a few
 * percent of a 2-core machine on both sides alike; 20 points is an extra busy core on a
 * 5-core machine, or a fifth of the time on every CPU.
 */
#define RPT_HOSTLOAD_DIFF_PCT 20.0
/*
 * ... or when fsbench's own workers waited for a CPU (host_load.self_wait_pct, their
 * run-queue wait as a share of their runnable time) this many points more on one side: on a
 * host that is always saturated others' share stays near 100 % on both sides, while a job
 * beside one side still shows as the run's own threads waiting longer.
 */
#define RPT_HOSTLOAD_WAIT_DIFF_PCT 20.0
/*
 * The canary moved "as much as the metric" when its fsync p50 moved the way that explains
 * the change by at least this share of it. The canary is the device alone; a workload that
 * also spends CPU moves less than its device does, so half is already a device that could
 * explain all of the change.
 */
#define RPT_HOSTLOAD_CANARY_SHARE 0.5
/* Canary moves below this are no drift: the gate's default threshold (RPT_DEFAULT_THRESHOLD_PCT). */
#define RPT_HOSTLOAD_CANARY_MIN_PCT 5.0
/*
 * ... and a move is drift only when the rank test sets the sides' canaries apart at this
 * level: a device whose fsync p50 swings from 0.1 to 10 ms between runs on both sides (a
 * shared virtio disk does) is noisy, which the metric's own test sees, not drifting.
 */
#define RPT_HOSTLOAD_CANARY_ALPHA 0.05
/* Canary readings kept a side (two a run): 128 runs. */
#define RPT_HOSTLOAD_MAX_CANARY 256

/* What a side's complete runs say of their conditions. */
struct rpt_hostload_side {
	size_t n_load; /* runs with host_load */
	double others_pct, steal_pct; /* means over those runs */
	size_t n_wait; /* runs with host_load.self_wait_pct */
	double self_wait_pct; /* its mean over those runs */
	size_t n_canary; /* canary readings (before and after each run) */
	double canary[RPT_HOSTLOAD_MAX_CANARY]; /* their fsync p50s, us, sorted */
	double canary_p50_us; /* median of them */
	/*
	 * The kernel the runs ran on (host kernel, kernel_version and cmdline; empty when the
	 * runs have no result document), and whether they differ among themselves. The canary
	 * runs through the kernel under test: between two kernels it cannot tell the device's
	 * drift from the kernel's change, so it is judged only between sides of one kernel.
	 */
	char kernel[512];
	bool kernel_mixed;
};

/* The conditions of @n runs, @idx indices into @runs; incomplete runs are left out. */
void rpt_hostload_side(const struct mdl_run_ref *runs, const size_t *idx, size_t n,
		       struct rpt_hostload_side *ret);

/*
 * Whether a verdict of @b against baseline @a cannot stand: either side's others' share at
 * @max_busy_pct or more (0: never), the shares apart by RPT_HOSTLOAD_DIFF_PCT or the
 * workers' waits by RPT_HOSTLOAD_WAIT_DIFF_PCT (these for every verdict but insufficient), or, for a metric
 * the device drives (@canary_applies) that changed (@changed), the canary moved with the
 * change by RPT_HOSTLOAD_CANARY_SHARE of it and the rank test tells the sides' canaries
 * apart (RPT_HOSTLOAD_CANARY_ALPHA), when both sides ran one kernel (rpt_hostload_side). @change_pct is the metric's change,
 * @higher_is_better its direction. true with @reason saying by how much.
 */
bool rpt_hostload_unjudgeable(const struct rpt_hostload_side *a, const struct rpt_hostload_side *b,
			      const char *name_a, const char *name_b, double max_busy_pct,
			      bool canary_applies, bool higher_is_better, bool changed,
			      double change_pct, char *reason, size_t len);

/* Whether either side reached RPT_HOSTLOAD_BUSY_PCT; @note then says which and by how much. */
bool rpt_hostload_busy(const struct rpt_hostload_side *a, const struct rpt_hostload_side *b,
		       const char *name_a, const char *name_b, double limit_pct, char *note,
		       size_t len);

/*
 * Applies the rule to judged comparison @j (the typed judge's, before the many-metrics
 * correction) of side @name_b's runs @ib against baseline @name_a's @ia, of metric kind
 * @kind (enum rpt_metric_kind) and @higher_is_better, with compare's --max-host-load
 * @max_busy_pct (0: off): when its verdict cannot stand, it becomes cannot judge
 * ("cannot judge: ...") with j->conditions (the reason, the verdict the statistics gave,
 * both sides' conditions); when it stands on a busy host, j->host_note says so. Nothing
 * for a comparison without figures or already not judged. 0 or -ENOMEM.
 */
int rpt_hostload_judge(struct rpt_cmp_judged *j, const struct mdl_run_ref *runs, const size_t *ia,
		       size_t na, const size_t *ib, size_t nb, const char *name_a,
		       const char *name_b, int kind, bool higher_is_better, double max_busy_pct);

/*
 * Comparisons in @c whose conditions left them unjudged (conditions), or with @notes
 * those judged on a busy host (host_note); *@ret_first the first reason or note, or NULL.
 */
size_t rpt_hostload_count(const struct rpt_cmp *c, bool notes, const char **ret_first);

#endif
