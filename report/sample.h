/* Samples: the runs, per side, that differ only in repetition (and the --across field). */
#ifndef RPT_SAMPLE_H
#define RPT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "model/runs.h"

/* One sample: the runs, per side, that share a key. */
struct sample {
	char *key; /* canonical JSON of the key object */
	json_t *keyobj;
	char *label;
	const json_t *first; /* a run of the sample, for workload, threads, coords */
	size_t **runs; /* per side: indices into the mdl_run_ref array */
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
int rpt_samples_build(struct samples *s, const struct mdl_run_ref *runs, size_t nruns, int nsides,
		      const char *across);
void rpt_samples_free(struct samples *s);

/* The sample on side @side closest to @sm (same workload and threads), to say what differs. */
const struct sample *rpt_sample_nearest(const struct samples *s, const struct sample *sm, int side);

/* Appends " name=value" (or "name=a vs b") for @key entries that differ from @other. */
void rpt_label_append_diff(char **label, const json_t *key, const json_t *other, bool with_other);

/*
 * Appends " name=value" once for each @key entry (top level and params) that differs from
 * the same entry of any of @others (@n keys): what tells @key's runs apart from theirs.
 */
void rpt_label_append_differing(char **label, const json_t *key, const json_t *const *others,
				size_t n);

#endif
