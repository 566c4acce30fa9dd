/* A run decoded once: its identity, its one sample key, completeness and host load, for every reader. */
#ifndef MDL_RUN_H
#define MDL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "model/op.h"

/*
 * The host's load around a run (probes/hostload): "measured" is false where nothing was
 * measured (a LAVA import, a result older than the probe), which is not 0 %.
 */
struct mdl_host_load {
	bool measured; /* others_pct and steal_pct are figures */
	bool has_wait; /* self_wait_pct is a figure */
	double others_pct, steal_pct, self_wait_pct;
};

/*
 * A run of a result file, decoded once. Strings are owned by the document the run came
 * from (which must outlive it), except @key, which mdl_run_clear() frees.
 */
struct mdl_run {
	const json_t *json; /* the run object, for the open-ended parts (probes, ops) */
	const json_t *doc; /* the result file holding it (host, created); may be NULL */
	const char *workload;
	long long threads; /* the run's thread count (its "threads": what ran) */
	long long repetition; /* coords.repetition; -1 when the run has no coords */
	const char *cell; /* coords.cell ("ext4/smallfile/t=1"); NULL without coords */
	const char *fs; /* coords.fs, else the target's fs type; NULL when unknown */
	bool complete;
	const char *error; /* summary.error: why it did not complete; NULL */
	enum mdl_unit unit; /* what its progress counted */
	struct mdl_host_load load;
	const char *kernel; /* the host's (or guest's) kernel release; NULL when unknown */
	char *key; /* the canonical sample key: mdl_run_sample_key(json, NULL) */
};

/*
 * Decodes @run of document @doc (NULL: none) into @ret. The run must have passed
 * mdl_runs_check(). 0 or -ENOMEM; @ret is cleared either way first.
 */
int mdl_run_decode(const json_t *run, const json_t *doc, struct mdl_run *ret);
void mdl_run_clear(struct mdl_run *r);

/*
 * The one key that says which runs are repetitions of each other (a "cell"): everything
 * in coords but the repetition (and the --across field @across, when not NULL); a run
 * without coords (a command's own run) is its workload, threads and parameters, less the
 * parameters that say where it ran and wrote (dir, json, quiet, log), and less @across
 * from both (compare's --across needs coords; the page's throughput lines, which span
 * thread counts, are this key across "threads"). Canonical: compact
 * JSON with sorted keys, so equal cells give equal strings on any machine, in any release
 * that keeps this function. compare's samples, the page's groups and the history's series
 * are all this key. A new string (free() it), or NULL on ENOMEM.
 */
char *mdl_run_sample_key(const json_t *run, const char *across);

/* The same key as a JSON object (what mdl_run_sample_key() serialises). NULL on ENOMEM. */
json_t *mdl_run_sample_keyobj(const json_t *run, const char *across);

/*
 * The series identity of metric @metric ("files_per_sec", "fsync.p99") of the cell
 * @sample_key: "<sample_key>#<metric>". A new string, or NULL on ENOMEM.
 */
char *mdl_metric_key(const char *sample_key, const char *metric);

#endif
