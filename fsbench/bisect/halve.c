/* The halving of git bisect over a list whose ends are known: which kernel next, and the answer. */
#include "fsbench/bisect/bisect.h"

size_t bs_bounds(const enum bs_mark *mark, size_t n, size_t *ret_good, size_t *ret_bad)
{
	size_t good = 0, bad = n, skipped = 0;

	for (size_t i = 0; i < n; i++)
		if (mark[i] == BS_GOOD)
			good = i;
	for (size_t i = good + 1; i < n && bad == n; i++)
		if (mark[i] == BS_BAD)
			bad = i;
	for (size_t i = good + 1; i < bad; i++)
		skipped += mark[i] == BS_SKIP;
	*ret_good = good;
	*ret_bad = bad;
	return skipped;
}

ssize_t bs_next(const enum bs_mark *mark, size_t n)
{
	size_t good, bad, mid, best = 0;
	bool any = false;

	bs_bounds(mark, n, &good, &bad);
	if (bad >= n)
		return -1;
	/* the middle as git picks it, rounding down; then the untested one nearest it */
	mid = good + (bad - good) / 2;
	for (size_t i = good + 1; i < bad; i++) {
		size_t d = i > mid ? i - mid : mid - i, bd = best > mid ? best - mid : mid - best;

		if (mark[i] == BS_UNTESTED && (!any || d < bd))
			best = i, any = true;
	}
	return any ? (ssize_t)best : -1;
}
