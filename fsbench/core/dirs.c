/* fs_mark's rules for the -d directories: threads over them, creating a missing one (dirs.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dirfd.h"
#include "base/errf.h"

#include "fsbench/core/dirs.h"

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

/* Opens @dir, making it first when it is missing; *@made says whether this call made it. */
static int dir_open_or_make(const char *dir, bool *made, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

	if (fd >= 0 || errno != ENOENT)
		goto opened;
	/*
	 * As fs_mark: the last component is made, a missing parent is the user's mistake
	 * (mmtests empties its data directory and relies on this for every -d).
	 */
	if (mkdir(dir, 0777) == 0)
		*made = true;
	else if (errno != EEXIST)
		return errf(err, errlen, -errno, "creating directory %s: %s", dir, strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
opened:
	if (fd < 0)
		return errf(err, errlen, -errno, "opening directory %s: %s", dir, strerror(errno));
	if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) < 0) {
		e = errno;
		close(fd);
		return errf(err, errlen, -e, "directory %s is not writable: %s", dir, strerror(e));
	}
	return fd;
}

int fsb_dirs_open(struct fsb_dirs *ret, const struct fsb_common *c, char *err, size_t errlen)
{
	int n = c->dirs.n;

	memset(ret, 0, sizeof(*ret));
	ret->fd = malloc(sizeof(int) * (size_t)(n ? n : 1));
	ret->made = calloc((size_t)(n ? n : 1), sizeof(bool));
	if (!ret->fd || !ret->made)
		return errf(err, errlen, -ENOMEM, "opening the -d directories: %s",
			    strerror(ENOMEM));
	for (int d = 0; d < n; d++)
		ret->fd[d] = -1;
	ret->n = n;
	for (int d = 0; d < n; d++) {
		int fd = dir_open_or_make(c->dirs.v[d], &ret->made[d], err, errlen);

		if (fd < 0)
			return fd;
		ret->fd[d] = fd;
	}
	return 0;
}

void fsb_dirs_close(struct fsb_dirs *d, const struct fsb_common *c)
{
	for (int i = 0; i < d->n; i++) {
		if (d->fd[i] >= 0)
			close(d->fd[i]);
		if (d->made[i])
			rmdir(c->dirs.v[i]);
	}
	free(d->fd);
	free(d->made);
	memset(d, 0, sizeof(*d));
}

int fsb_dir_trusted(const char *flag, const char *dir, int *fd, char *err, size_t errlen)
{
	char why[2048];
	struct stat a, b;
	int t;

	if (geteuid() != 0)
		return 0;
	t = base_dir_open_trusted(dir, 0, true, why, sizeof(why));
	if (t < 0)
		return errf(err, errlen, t, "%s %s%s", flag, why,
			    t == -EPERM ?
				    ", so another user could redirect what root writes there" :
				    "");
	if (fstat(t, &a) || fstat(*fd, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(t);
		return errf(err, errlen, -ESTALE,
			    "%s %s: replaced by another directory while it was opened: not used",
			    flag, dir);
	}
	close(*fd);
	*fd = t;
	return 0;
}
