/* fs_mark's rules for threads over several -d directories (dirs.h). */
#include <errno.h>
#include <inttypes.h>

#include "errf.h"

#include "dirs.h"

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
