/* Result files into run references, and the comparison built from them (see runset.h). */
#include "report/runset.h"
#include "model/doc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int nomem(char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

/* Room for one more document in @rs. 0 or -ENOMEM. */
static int docs_grow(struct rpt_runset *rs)
{
	json_t **d = realloc(rs->docs, (rs->ndocs + 1) * sizeof(*d));
	const char **p;

	if (!d)
		return -ENOMEM;
	rs->docs = d;
	p = realloc(rs->paths, (rs->ndocs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	rs->paths = p;
	return 0;
}

int rpt_runset_add(struct rpt_runset *rs, json_t *doc, const char *path, int side, char *err,
		   size_t errlen)
{
	if (docs_grow(rs))
		return nomem(err, errlen);
	rs->docs[rs->ndocs] = json_incref(doc);
	rs->paths[rs->ndocs++] = path;
	if (mdl_runs_add(&rs->refs, &rs->nrefs, doc, path, side))
		return nomem(err, errlen);
	return 0;
}

int rpt_runset_load(struct rpt_runset *rs, const char *const *paths, const int *sides, size_t n,
		    char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		enum mdl_doc_kind kind;
		json_t *doc;
		int e = mdl_doc_load(paths[i], &doc, &kind, err, errlen);

		if (e)
			return e;
		if (kind == MDL_DOC_COMPARE) {
			if (n == 1) {
				/* the same structs a fresh judgement gives: one path for readers */
				rs->compare = doc;
				return rpt_cmp_from_json(doc, paths[i], &rs->cmp, err, errlen);
			}
			snprintf(err, errlen,
				 "%s is a comparison (%s): it cannot be pooled with result files",
				 paths[i], MDL_COMPARE_SCHEMA);
			json_decref(doc);
			return -EINVAL;
		}
		e = rpt_runset_add(rs, doc, paths[i], sides ? sides[i] : 0, err, errlen);
		json_decref(doc);
		if (e)
			return e;
	}
	return 0;
}

int rpt_runset_sides_across(struct rpt_runset *rs, const char *field, const char *first, char *err,
			    size_t errlen)
{
	free(rs->names);
	rs->names = NULL;
	rs->nsides =
		mdl_runs_sides_across(rs->refs, rs->nrefs, field, first, &rs->names, err, errlen);
	return rs->nsides;
}

int rpt_runset_load_sides(struct rpt_runset *rs, const char *const *paths, const int *sides,
			  size_t n, const char *across, const char *first, char *err, size_t errlen)
{
	int e = rpt_runset_load(rs, paths, sides, n, err, errlen);

	if (e)
		return e;
	if (rs->compare) {
		snprintf(err, errlen, "%s is a comparison (%s): compare judges result files",
			 paths[0], MDL_COMPARE_SCHEMA);
		return -EINVAL;
	}
	return across ? rpt_runset_sides_across(rs, across, first, err, errlen) : 2;
}

int rpt_runset_why(const char *const *paths, const int *sides, size_t n, double threshold_pct,
		   json_t **ret, char *err, size_t errlen)
{
	const char *names[2] = { "baseline", "candidate" };
	struct rpt_runset rs = { 0 };
	struct rpt_compare_opts o;
	int e;

	rpt_compare_opts_init(&o);
	o.threshold_pct = threshold_pct;
	o.allow_unmatched = true;
	e = rpt_runset_load(&rs, paths, sides, n, err, errlen);
	if (!e && rs.compare) {
		snprintf(err, errlen, "%s is a comparison: explain reads results", paths[0]);
		e = -EINVAL;
	}
	if (!e)
		e = rpt_runset_compare(&rs, names, 2, &o, ret, err, errlen);
	rpt_runset_free(&rs);
	return e;
}

int rpt_runset_judge(const struct rpt_runset *rs, const char *const *names, int nsides,
		     const struct rpt_compare_opts *o, struct rpt_cmp **ret, char *err,
		     size_t errlen)
{
	int e;

	if (!names) {
		names = rs->names;
		nsides = rs->nsides;
	}
	e = rpt_compare_judge(names, nsides, rs->refs, rs->nrefs, o, ret, err, errlen);
	if (e && e != -EPROTO)
		snprintf(err, errlen, "%s", strerror(-e));
	return e;
}

int rpt_runset_compare(const struct rpt_runset *rs, const char *const *names, int nsides,
		       const struct rpt_compare_opts *o, json_t **ret, char *err, size_t errlen)
{
	struct rpt_cmp *c;
	int e = rpt_runset_judge(rs, names, nsides, o, &c, err, errlen);

	if (e)
		return e;
	*ret = rpt_cmp_to_json(c);
	rpt_cmp_free(c);
	if (!*ret) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

void rpt_runset_free(struct rpt_runset *rs)
{
	for (size_t i = 0; i < rs->ndocs; i++)
		json_decref(rs->docs[i]);
	json_decref(rs->compare);
	rpt_cmp_free(rs->cmp);
	free(rs->docs);
	free(rs->paths);
	mdl_runs_free(rs->refs, rs->nrefs);
	free(rs->names);
	*rs = (struct rpt_runset){ 0 };
}
