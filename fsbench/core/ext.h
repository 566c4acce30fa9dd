/* Extensions: what runs around a workload run (samplers, knobs, pinning, the victim). */
#ifndef FSB_EXT_H
#define FSB_EXT_H

#include <jansson.h>
#include "fsbench/core/common.h"
#include "fsbench/core/workload.h"

/*
 * An extension is one file exporting one const struct fsb_ext, and one line in ext/ext_table.c's
 * list. It owns its configuration as fio engines own theirs: its option table's offsets
 * are into a struct of its own, of size cfg_size, which the job allocates beside the
 * workload's config and fills from the command line or a suite file. The runner's CLI
 * calls every extension's before() in list order once the workload's init succeeded,
 * and after() in reverse order whatever happened (error, signal, incomplete run), for
 * each extension whose before() returned 0.
 */
struct fsb_ext {
	const char *name;
	const struct fsb_opt *opts; /* offsets into the extension's config; NULL: none */
	size_t cfg_size; /* sizeof the extension's config struct */
	/*
	 * May set thread CPUs, apply knobs, start threads. @cfg is the extension's config.
	 * 0 or -errno with @err set (-EINVAL: the settings are wrong, a usage error).
	 */
	int (*before)(struct fsb_run *run, const struct fsb_common *c, const void *cfg,
		      void **ret_state, char *err, size_t errlen);
	/* Stops, restores, and adds its figures to the run's JSON object (may be NULL). Never fails. */
	void (*after)(struct fsb_run *run, const struct fsb_common *c, const void *cfg, void *state,
		      json_t *run_json);
};

#endif
