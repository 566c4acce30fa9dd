/* The result schema's keys as named constants, and typed accessors for what every reader asks of a run. */
#ifndef MDL_SCHEMA_H
#define MDL_SCHEMA_H

#include <stdbool.h>
#include <jansson.h>

/*
 * Keys of fsbench-result/2 (report/schema/) that more than one file reads or writes. A run
 * is {workload, threads, coords?, summary: {complete, error?, files, bytes, ...}, ops: {NAME:
 * {count, sum_ns, p50_ns, ...}}, per_thread[], series, target, probes?, kernel?}.
 */
#define MDL_KEY_SCHEMA "schema"
#define MDL_KEY_RUNS "runs"
#define MDL_KEY_WORKLOAD "workload"
#define MDL_KEY_THREADS "threads"
#define MDL_KEY_COORDS "coords"
#define MDL_KEY_SUMMARY "summary"
#define MDL_KEY_COMPLETE "complete" /* in summary: the run ran to its end */
#define MDL_KEY_ERROR "error" /* in summary: why it did not */
#define MDL_KEY_OPS "ops"
#define MDL_KEY_PER_THREAD "per_thread"

/* @s, or @def when @s is NULL (a key that is absent or not a string). */
static inline const char *mdl_str_or(const char *s, const char *def)
{
	return s ? s : def;
}

/* The string at @key of object @o, or @def when it is absent or not a string. */
static inline const char *mdl_json_str(const json_t *o, const char *key, const char *def)
{
	return mdl_str_or(json_string_value(json_object_get(o, key)), def);
}

/* A run's summary object (NULL when absent). */
static inline const json_t *mdl_run_summary(const json_t *run)
{
	return json_object_get(run, MDL_KEY_SUMMARY);
}

/* A run's ops object, one entry per operation it timed (NULL when absent). */
static inline const json_t *mdl_run_ops(const json_t *run)
{
	return json_object_get(run, MDL_KEY_OPS);
}

/* Operation @op of a run (mdl_ops[].name), or NULL. */
static inline const json_t *mdl_run_op(const json_t *run, const char *op)
{
	return json_object_get(mdl_run_ops(run), op);
}

/* Whether @run's summary says it completed: incomplete runs are left out of samples. */
bool mdl_run_complete(const json_t *run);

/* Why @run did not complete (its summary.error), or @def. */
const char *mdl_run_error(const json_t *run, const char *def);

#endif
