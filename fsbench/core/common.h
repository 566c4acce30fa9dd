/* Options every workload command shares (-d, --json, --runtime...); first member of each config. */
#ifndef FSB_COMMON_H
#define FSB_COMMON_H

#include "fsbench/core/opt.h"

struct fsb_common {
	struct opt_strlist dirs; /* -d: where to write; none: a fresh temporary directory */
	char *json; /* result file */
	int64_t runtime_ns; /* 0: until the work is done */
	bool quiet;
	int64_t interval_ns; /* time-series interval */
};

extern const struct fsb_opt fsb_common_opts[];

#endif
