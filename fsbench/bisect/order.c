/* The order of a list of kernels: dpkg's version order for packages, else `sort -V` on names. */
#include "fsbench/bisect/bisect.h"
#include "fsbench/history/version.h"

#include <stdlib.h>
#include <string.h>

/* the history's order (fsbench/history/version.c), so that a bisection and a series agree */
int bs_dpkg_vercmp(const char *a, const char *b)
{
	return hist_version_cmp(a, b);
}

int bs_kernel_cmp(const struct bs_kernel *a, const struct bs_kernel *b)
{
	int r;

	if (a->version && b->version && (r = bs_dpkg_vercmp(a->version, b->version)))
		return r;
	r = strverscmp(a->name, b->name);
	return r ? r : strcmp(a->path, b->path);
}

static int kernel_qcmp(const void *a, const void *b)
{
	return bs_kernel_cmp(a, b);
}

void bs_kernels_sort(struct bs_kernel *k, size_t n)
{
	qsort(k, n, sizeof(*k), kernel_qcmp);
}
