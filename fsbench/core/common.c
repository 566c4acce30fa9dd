/* The options every workload command shares (struct fsb_common). */
#include <stddef.h>
#include <stdint.h>

#include "fsbench/core/common.h"

#define O(f) offsetof(struct fsb_common, f)
const struct fsb_opt fsb_common_opts[] = {
	{ .name = "dir",
	  .short_name = 'd',
	  .type = OPT_STRLIST,
	  .offset = O(dirs),
	  .file = OPT_DIR,
	  .help = "directory to write in; repeat for several (threads are divided among them); default: a fresh temporary directory, removed afterwards" },
	{ .name = "json",
	  .type = OPT_STRING,
	  .offset = O(json),
	  .file = OPT_FILE,
	  .help = "write the result (fsbench-result/2) to this file" },
	{ .name = "runtime",
	  .type = OPT_DURATION,
	  .offset = O(runtime_ns),
	  .max = INT64_C(31) * 86400 * 1000000000,
	  .def = "0",
	  .unit = "ns",
	  .help = "stop after this long (30, 500ms, 2m), or when the work is done, whichever is first; 0: no bound" },
	{ .name = "quiet",
	  .type = OPT_BOOL,
	  .offset = O(quiet),
	  .max = 1,
	  .help = "no live progress and no table; errors only" },
	{ .name = "interval",
	  .type = OPT_DURATION,
	  .offset = O(interval_ns),
	  .min = 10000000,
	  .max = INT64_C(3600) * 1000000000,
	  .def = "1s",
	  .unit = "ns",
	  .help = "time-series interval of the result" },
	{ 0 },
};
#undef O
