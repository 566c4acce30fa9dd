/* The order of a list of kernels: dpkg's version order for packages, else `sort -V` on names. */
#include "fsbench/bisect/bisect.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* dpkg's weight of one character of a version's non-digit part (lib/dpkg/version.c) */
static int weight(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	return c ? c + 256 : 0;
}

/* dpkg's verrevcmp over @a[0..@na) and @b[0..@nb): non-digits by weight, digits by value */
static int part_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	const char *ae = a + na, *be = b + nb;

	while (a < ae || b < be) {
		int first_diff = 0;

		while ((a < ae && !isdigit((unsigned char)*a)) ||
		       (b < be && !isdigit((unsigned char)*b))) {
			int ac = a < ae ? weight((unsigned char)*a) : 0;
			int bc = b < be ? weight((unsigned char)*b) : 0;

			if (ac != bc)
				return ac - bc;
			a++, b++;
		}
		while (a < ae && *a == '0')
			a++;
		while (b < be && *b == '0')
			b++;
		while (a < ae && b < be && isdigit((unsigned char)*a) &&
		       isdigit((unsigned char)*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++, b++;
		}
		if (a < ae && isdigit((unsigned char)*a))
			return 1;
		if (b < be && isdigit((unsigned char)*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

struct version {
	unsigned long epoch;
	const char *up, *rev;
	size_t nup, nrev;
};

static void version_split(const char *s, struct version *v)
{
	const char *colon = strchr(s, ':'), *dash;

	v->epoch = colon ? strtoul(s, NULL, 10) : 0;
	v->up = colon ? colon + 1 : s;
	dash = strrchr(v->up, '-');
	v->nup = dash ? (size_t)(dash - v->up) : strlen(v->up);
	v->rev = dash ? dash + 1 : "";
	v->nrev = strlen(v->rev);
}

int bs_dpkg_vercmp(const char *a, const char *b)
{
	struct version x, y;
	int r;

	version_split(a, &x);
	version_split(b, &y);
	if (x.epoch != y.epoch)
		return x.epoch < y.epoch ? -1 : 1;
	r = part_cmp(x.up, x.nup, y.up, y.nup);
	return r ? r : part_cmp(x.rev, x.nrev, y.rev, y.nrev);
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
