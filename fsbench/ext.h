/* Extensions: what runs around a workload run (samplers, knobs, pinning, the victim). */
#ifndef FSB_EXT_H
#define FSB_EXT_H

#include <jansson.h>
#include "common.h"
#include "workload.h"

/*
 * An extension owns one file, an option table whose offsets are into struct fsb_common
 * (its settings live in a member of that struct), and two callbacks. The runner's CLI
 * calls every extension's before() in table order once the workload's init succeeded,
 * and after() in reverse order whatever happened (error, signal, incomplete run), for
 * each extension whose before() returned 0.
 */
struct fsb_ext {
	const char *name;
	const struct fsb_opt *opts;
	/* May set thread CPUs, apply knobs, start threads. 0 or -errno with @err set. */
	int (*before)(struct fsb_run *run, struct fsb_common *c, void **ret_state, char *err,
		      size_t errlen);
	/* Stops, restores, and adds its figures to the run's JSON object. Never fails. */
	void (*after)(struct fsb_run *run, struct fsb_common *c, void *state, json_t *run_json);
};

/* NULL-terminated, in the order before() runs. */
extern const struct fsb_ext *const fsb_exts[];

#endif
