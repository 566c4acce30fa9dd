/* What `info`, `knobs`, `restore` and the --knob extension share: path to knob target. */
#ifndef FSB_EXT_KNOBS_H
#define FSB_EXT_KNOBS_H

#include <stddef.h>

#include "probes/knob/knob.h"
#include "probes/target/target.h"

/*
 * Resolves @path on the live system to its mount and whole disk (probes/target/target.h) and
 * the knob target of that disk and mount. Returns 0 or -errno with @err set.
 */
int fsb_knob_target(const char *path, struct probe_target *ret_pt, struct knob_target *ret_kt,
		    char *err, size_t errlen);

#endif
