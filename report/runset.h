/* Result files loaded for a comparison: their documents, their runs on sides, and the comparison. */
#ifndef RPT_RUNSET_H
#define RPT_RUNSET_H

#include <stddef.h>
#include <jansson.h>

#include "model/runs.h"
#include "report/compare.h"

/*
 * What compare, report, export and kernel-gate feed the comparer. Zero-initialise it, fill
 * it with rpt_runset_load() or rpt_runset_add(), free it with rpt_runset_free(). The run
 * references point into the documents, so the set outlives any comparison built from it
 * only as long as it is not freed.
 */
struct rpt_runset {
	json_t **docs; /* one reference each, in load order */
	const char **paths; /* the callers' strings, not copied */
	size_t ndocs;
	struct mdl_run_ref *refs;
	size_t nrefs;
	const char **names; /* side names from rpt_runset_sides_across() (strings owned by docs) */
	int nsides;
	json_t *compare; /* rpt_runset_load() of one file that is a comparison: that document */
	struct rpt_cmp *cmp; /* ... and its structs (rpt_cmp_from_json) */
};

/*
 * Adds result @doc (read from @path) to @rs: the set takes a reference of its own, and its
 * runs go on @side. 0, or -ENOMEM with @err set.
 */
int rpt_runset_add(struct rpt_runset *rs, json_t *doc, const char *path, int side, char *err,
		   size_t errlen);

/*
 * Loads files @paths[0..n-1], each parsed once (mdl_doc_load), file i's runs on side
 * @sides[i] (@sides NULL: all on side 0). One file that is a comparison is kept in
 * @rs->compare and adds no runs. Returns 0; -EPROTO with @err naming the file that is
 * unusable; -EINVAL when a comparison is one of several files (a usage mistake: it cannot
 * be pooled with results); -ENOMEM. On failure @rs holds what was loaded before; free it.
 */
int rpt_runset_load(struct rpt_runset *rs, const char *const *paths, const int *sides, size_t n,
		    char *err, size_t errlen);

/*
 * Puts the runs on sides by their coords.@field, @first (if given) as side 0, and names
 * the sides after the values (mdl_runs_sides_across). Returns the number of sides, or
 * -ENOMEM / -EPROTO with @err set.
 */
int rpt_runset_sides_across(struct rpt_runset *rs, const char *field, const char *first, char *err,
			    size_t errlen);

/*
 * `fsbench compare`'s input: rpt_runset_load() of result files only (a comparison has no
 * runs to judge, even alone: -EINVAL), then with @across rpt_runset_sides_across(@across,
 * @first). Returns the number of sides (2 without @across), or -errno with @err set.
 */
int rpt_runset_load_sides(struct rpt_runset *rs, const char *const *paths, const int *sides,
			  size_t n, const char *across, const char *first, char *err,
			  size_t errlen);

/*
 * `fsbench explain`'s two sides, baseline and candidate: result files @paths on @sides
 * (a comparison is refused), compared with @threshold_pct, a sample on one side only
 * dropped. 0 with *@ret the comparison document (the caller's), or -errno with @err.
 */
int rpt_runset_why(const char *const *paths, const int *sides, size_t n, double threshold_pct,
		   json_t **ret, char *err, size_t errlen);

/*
 * Judges @rs's runs on @nsides sides named @names (NULL: the names
 * rpt_runset_sides_across() gave): rpt_compare_judge(), with @err set on every failure
 * (strerror for -ENOMEM). The caller frees *@ret with rpt_cmp_free().
 */
int rpt_runset_judge(const struct rpt_runset *rs, const char *const *names, int nsides,
		     const struct rpt_compare_opts *o, struct rpt_cmp **ret, char *err,
		     size_t errlen);

/*
 * Builds the comparison document of @rs's runs on @nsides sides named @names (NULL: the names
 * rpt_runset_sides_across() gave). 0, or what rpt_compare_judge() returns, with @err set
 * on every failure (strerror for -ENOMEM).
 */
int rpt_runset_compare(const struct rpt_runset *rs, const char *const *names, int nsides,
		       const struct rpt_compare_opts *o, json_t **ret, char *err, size_t errlen);

/* Drops the documents and arrays; @rs is zeroed (a second call does nothing). */
void rpt_runset_free(struct rpt_runset *rs);

#endif
