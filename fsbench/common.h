/* Options every workload command shares (--json, --runtime, --quiet); first member of each config. */
#ifndef FSB_COMMON_H
#define FSB_COMMON_H

#include "opt.h"

struct fsb_common {
	struct opt_strlist dirs; /* -d: where to write; none: a fresh temporary directory */
	char *json; /* result file */
	int64_t runtime_ns; /* 0: until the work is done */
	bool quiet;
	int64_t interval_ns; /* time-series interval */
	int64_t sample_interval_ns; /* kernel sampler (ext_kernel.c): Dirty, Writeback, in-flight */
	struct {
		int mode;
		int64_t rate;
	} victim; /* --victim, --victim-rate (ext_victim.c) */
	struct opt_strlist knobs; /* --knob NAME=VALUE (ext_knobs.c) */
	char *cpus; /* --cpus LIST (ext_pin.c) */
	int pin; /* --pin: enum probe_pin */
	char *probes; /* --probes LIST (ext_bpf.c) */
};

extern const struct fsb_opt fsb_common_opts[];

/* fs_mark's rule for several -d: at least one thread per directory. */
int fsb_dirs_nthreads(const struct fsb_common *c, int64_t threads);

/* ...and more threads than directories must divide evenly. 0 or -EINVAL with @err set. */
int fsb_dirs_check_threads(const struct fsb_common *c, int64_t threads, const char *flag, char *err,
			   size_t errlen);

#endif
