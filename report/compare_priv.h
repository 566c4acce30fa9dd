/* What the compare files share and nobody else needs: samples, per-metric rules, small helpers. */
#ifndef RPT_COMPARE_PRIV_H
#define RPT_COMPARE_PRIV_H

#include "report/compare.h"

static inline const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

/* One sample: the runs, per side, that share a key (sample.c). */
struct sample {
	char *key; /* canonical JSON of the key object */
	json_t *keyobj;
	char *label;
	const json_t *first; /* a run of the sample, for workload, threads, coords */
	size_t **runs; /* per side: indices into the rpt_run_ref array */
	size_t *nruns;
};

struct samples {
	struct sample *v;
	size_t n;
	int nsides;
};

/*
 * Groups @runs into samples by their key (coords without repetition and @across, else
 * workload, threads and parameters). 0 or -ENOMEM; free with rpt_samples_free() either way.
 */
int rpt_samples_build(struct samples *s, const struct rpt_run_ref *runs, size_t nruns, int nsides,
		      const char *across);
void rpt_samples_free(struct samples *s);

/* The sample on side @side closest to @sm (same workload and threads), to say what differs. */
const struct sample *rpt_sample_nearest(const struct samples *s, const struct sample *sm, int side);

/* Appends " name=value" (or "name=a vs b") for @key entries that differ from @other. */
void rpt_label_append_diff(char **label, const json_t *key, const json_t *other, bool with_other);

/* The rule for @metric: the CLI's values, then the gate file's (gate.c). */
struct rpt_rule rpt_rule_for(const struct rpt_compare_opts *o, const char *metric);

/* How many gated comparisons of @cmp keep a strict gate from judging. */
size_t rpt_gate_count_blocking(const json_t *cmp);

#endif
