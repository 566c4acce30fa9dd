/* What a report page compares: its files, the side each is on, their names, the comparison. */
#ifndef RPT_PLAN_H
#define RPT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "report/cmp.h"
#include "report/runset.h"

#define RPT_PLAN_MAX_FILES 512

/* The files as given and the flags that choose the sides (`fsbench report`'s). */
struct rpt_plan_request {
	const char *const *paths;
	const int *sides; /* each file's side as given: 0 baseline, 1 candidate */
	size_t n; /* at most RPT_PLAN_MAX_FILES */
	bool two; /* --candidate was given: the sides are baseline and candidate */
	const char *across; /* a coords field, "file", or NULL: chosen from the files */
	const char *baseline_value; /* with a coords field: the side compared against */
};

/* Zero-initialise; filled by rpt_plan_load() and rpt_plan_sides(), freed by rpt_plan_free(). */
struct rpt_plan {
	struct rpt_runset rs; /* the files, in the order given, and their runs */
	const char *paths[RPT_PLAN_MAX_FILES];
	int sides[RPT_PLAN_MAX_FILES]; /* each file's side as given */
	const char *labels[RPT_PLAN_MAX_FILES]; /* each file's side in plot lines, or NULL */
	char *bases[RPT_PLAN_MAX_FILES]; /* file names (basename copies), the sides of --across file */
	int ndocs; /* 0 when the one input is a comparison (rs.compare, rs.cmp) */
	const char **names; /* side names: rs.names (--across), the two sides' or the file names */
	int nsides;
	const char *across; /* the coords field the sides differ in, or NULL */
	char note[1100]; /* why there is no comparison, for the page; "" when there is one */
};

/*
 * The flags that choose the sides, checked before any file is read: 0, or -EINVAL with
 * @err saying which flags do not go together.
 */
int rpt_plan_check(const struct rpt_plan_request *q, char *err, size_t errlen);

/*
 * Loads @q's files into @p, each parsed once (rpt_runset_load): one comparison alone is
 * kept in @p->rs.compare and @p->ndocs is 0, and a comparison with --across is refused.
 * Returns 0, or -EINVAL (a usage mistake), -EPROTO (an unusable file), -ENOMEM, with @err.
 */
int rpt_plan_load(struct rpt_plan *p, const struct rpt_plan_request *q, char *err, size_t errlen);

/*
 * Puts @p's loaded runs on sides: baseline and candidate with @q->two; file against file
 * for "file" or several files; else across @q->across (or coords.fs when the runs differ
 * in it). One file on one filesystem is one side, with @p->note saying so. Returns 0, or
 * -ENOMEM / -EPROTO with @err set.
 */
int rpt_plan_sides(struct rpt_plan *p, const struct rpt_plan_request *q, char *err, size_t errlen);

/*
 * The comparison of @p's sides into *@ret (rpt_runset_judge, unmatched samples listed, not
 * refused), judged with @judge (compare's options: threshold, floor, gate file; NULL: the
 * defaults), so that the page says what compare --gate says of the same inputs. 0; or -errno with @err saying why and @p->note set for the page, *@ret NULL.
 */
int rpt_plan_compare(struct rpt_plan *p, const struct rpt_compare_opts *judge, struct rpt_cmp **ret,
		     char *err, size_t errlen);

/* Frees what @p holds; a second call does nothing. */
void rpt_plan_free(struct rpt_plan *p);

#endif
