/* The options every workload command shares (struct fsb_common). */
#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define O(f) offsetof(struct fsb_common, f)
const struct fsb_opt fsb_common_opts[] = {
	{ "dir", 'd', OPT_STRLIST, O(dirs), 0, 0, NULL, NULL,
	  "directory to write in; repeat for several (threads are divided among them); default: a fresh temporary directory, removed afterwards",
	  NULL },
	{ "json", 0, OPT_STRING, O(json), 0, 0, NULL, NULL,
	  "write the result (fsbench-result/1) to this file", NULL },
	{ "runtime", 0, OPT_DURATION, O(runtime_ns), 0, INT64_C(31) * 86400 * 1000000000, "0", "ns",
	  "stop after this long (30, 500ms, 2m), or when the work is done, whichever is first; 0: no bound",
	  NULL },
	{ "quiet", 0, OPT_BOOL, O(quiet), 0, 1, NULL, NULL,
	  "no live progress and no table; errors only", NULL },
	{ "interval", 0, OPT_DURATION, O(interval_ns), 10000000, INT64_C(3600) * 1000000000, "1s",
	  "ns", "time-series interval of the result", NULL },
	{ 0 }
};
#undef O
