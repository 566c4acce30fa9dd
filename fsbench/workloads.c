/* The ordered table of workloads; adding one touches its own file and this table. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "errf.h"

#include "common.h"
#include "ext.h"
#include "workload.h"

extern const struct fsb_workload fsb_wl_smallfile;
extern const struct fsb_ext fsb_ext_pin;
extern const struct fsb_ext fsb_ext_knobs;
extern const struct fsb_ext fsb_ext_kernel;
extern const struct fsb_workload fsb_wl_stream;

/* Order is the order of `fsbench --help`. */
const struct fsb_workload *const fsb_workloads[] = {
	&fsb_wl_smallfile,
	&fsb_wl_stream,
	NULL,
};

const struct fsb_workload *fsb_workload_find(const char *name)
{
	for (int i = 0; fsb_workloads[i]; i++)
		if (!strcmp(fsb_workloads[i]->name, name))
			return fsb_workloads[i];
	return NULL;
}

/* Extensions around every run; before() runs in this order, after() in reverse. */
extern const struct fsb_ext fsb_ext_victim;
extern const struct fsb_ext fsb_ext_bpf;

const struct fsb_ext *const fsb_exts[] = {
	&fsb_ext_pin,
	/* knobs are restored (after() runs in reverse) right after the victim and sampler stop */
	&fsb_ext_knobs,
	/*
	 * loads before the victim writes its file but arms only at the run's start; its
	 * after() runs once the victim thread is joined, so its slowest calls are final
	 */
	&fsb_ext_bpf,
	/* after anything that changes the target or pins threads */
	&fsb_ext_victim,
	&fsb_ext_kernel, /* last: its snapshots bracket the run, not the others' set-up (victim file) */
	NULL,
};

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

int fsb_dirs_nthreads(const struct fsb_common *c, int64_t threads)
{
	int nd = c->dirs.n ? c->dirs.n : 1;

	return (int)(threads < nd ? nd : threads);
}

int fsb_dirs_check_threads(const struct fsb_common *c, int64_t threads, const char *flag, char *err,
			   size_t errlen)
{
	int nd = c->dirs.n;

	if (nd == 0)
		return errf(err, errlen, -EINVAL, "-d: no directory given");
	if (threads > nd && threads % nd)
		return errf(err, errlen, -EINVAL,
			    "%s: %" PRId64
			    " threads are not a multiple of the %d directories given with -d",
			    flag, threads, nd);
	return 0;
}
