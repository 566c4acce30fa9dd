/*
 * Change points in one series over kernels in version order, each kernel's boots its
 * samples. The method (docs/history.md): E-Divisive means (Matteson and James 2014) with
 * its permutation test, split points only between kernels, and fsbench's noise model on
 * top: a split counts only when it is significant AND its step exceeds a floor of a few
 * times the pooled spread between boots of one kernel. Pure computation: no store, no I/O.
 */
#ifndef FSB_HIST_CHANGES_H
#define FSB_HIST_CHANGES_H

#include <stddef.h>
#include <stdint.h>

/* Defaults of `history changes`, whose option table shows them. */
/*
 * 0.05, not lower: the floor, not alpha, keeps A/A series quiet, and a permutation test
 * cannot go below 2 / C(n, 2) when one kernel of 2 boots follows n - 2 samples (the two
 * new samples at either end are the two most extreme splits): 0.05 needs 5 kernels before
 * the new one (2 / C(12, 2) = 0.03), 0.01 would need 10.
 */
#define HIST_CP_ALPHA 0.05
#define HIST_CP_PERMUTATIONS 499 /* p's resolution is 1/(499 + 1) = 0.002 */
#define HIST_CP_FLOOR_MULTIPLE 3
/*
 * A series whose boots of one kernel differ by more than this (pooled standard deviation,
 * in % of its mean) cannot be judged: its floor would hide any change worth a bisection.
 */
#define HIST_CP_NOISY_PCT 20.0

/* One series: @nk kernels in order, kernel i's @n[i] samples at x[off[i]...]. */
struct hist_cp_series {
	size_t nk;
	const size_t *n;
	const double *x; /* every sample, kernel by kernel */
	/*
	 * Each sample's repetition (NULL: all alike). The spread between boots is taken
	 * among samples of one kernel and one repetition, as the gate's A/A floor pairs like
	 * with like: a suite's first repetition (a cold cache, a fresh journal) differs from
	 * the later ones on every boot, which is two modes, not noise.
	 */
	const int *rep;
};

struct hist_cp_opts {
	double alpha;
	int permutations;
	double floor_multiple;
	double min_change_pct; /* and at least this large (% of the mean before); 0: any */
	/*
	 * The series' metric, when it is a latency histogram's percentile (fsync.p50): a
	 * step must also exceed one bucket of the histogram (report/metric.h), as the gate's
	 * must. @scale turns the series' raw values into the metric's display unit.
	 */
	const char *metric;
	double scale;
	uint64_t seed; /* the permutations are drawn from it: the same store, the same answer */
};

/* One change: between kernels @before and @before + 1 of the series. */
struct hist_cp {
	size_t before; /* the last kernel before the change; @before + 1 is the first after */
	size_t seg_lo,
		seg_hi; /* the kernels compared: [seg_lo, before] against [before + 1, seg_hi) */
	size_t n_before, n_after; /* samples (runs) on each side */
	double mean_before, mean_after;
	double change_pct, lo_pct, hi_pct; /* the change and its 95 % interval, % of mean_before */
	double p; /* the permutation test's p */
	double floor_pct; /* the floor it exceeded, % of mean_before */
	double bar_pct; /* all it had to exceed: the floor, a histogram bucket, --min-change */
};

enum hist_cp_status {
	HIST_CP_JUDGED, /* judged: zero or more changes */
	HIST_CP_SHORT, /* fewer than 2 kernels, or no kernel with 2 samples: no spread known */
	HIST_CP_NOISY, /* the spread between boots is above HIST_CP_NOISY_PCT */
};

struct hist_cp_result {
	enum hist_cp_status status;
	double spread_pct; /* pooled standard deviation within kernels, % of the series' mean */
	struct hist_cp *cps; /* in kernel order; the caller frees it */
	size_t ncps;
};

/* Fills @o with the defaults above. */
void hist_cp_opts_init(struct hist_cp_opts *o);

/* Finds the change points of @s. 0 with @ret filled, -EINVAL (a bad series), -ENOMEM. */
int hist_cp_find(const struct hist_cp_series *s, const struct hist_cp_opts *o,
		 struct hist_cp_result *ret);

#endif
