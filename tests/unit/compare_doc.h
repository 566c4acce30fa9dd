/*
 * Compare documents in the unit tests and fuzz targets: the comparison the product judges
 * into structs, serialised as `compare --json` does; a hand-made document decided by the
 * A/A floor. Test code only: the product keeps no document-form helper.
 */
#ifndef FSB_TEST_COMPARE_DOC_H
#define FSB_TEST_COMPARE_DOC_H

#include <errno.h>
#include <math.h>
#include <jansson.h>

#include "report/cmp.h"
#include "report/compare.h"

/*
 * The comparison as a document (fsbench-compare/1), as `compare --json` writes it:
 * rpt_compare_judge() then rpt_cmp_to_json().
 */
static inline int cmp_doc_build(const char *const *side_names, int nsides,
				const struct mdl_run_ref *runs, size_t nruns,
				const struct rpt_compare_opts *o, json_t **ret, char *err,
				size_t errlen)
{
	struct rpt_cmp *c;
	int e = rpt_compare_judge(side_names, nsides, runs, nruns, o, &c, err, errlen);

	if (e)
		return e;
	*ret = rpt_cmp_to_json(c);
	rpt_cmp_free(c);
	return *ret ? 0 : -ENOMEM;
}

/*
 * A hand-made compare document @cmp decided by the A/A floor: read into the structs
 * (rpt_cmp_from_json), rpt_cmp_decide_floor(), and written back into @cmp.
 */
static inline int cmp_doc_floor(json_t *cmp, double multiple)
{
	struct rpt_cmp *c;
	char err[256];
	json_t *doc;
	int r;

	if (!isfinite(multiple) || multiple < 0)
		return -EINVAL;
	r = rpt_cmp_from_json(cmp, "comparison", &c, err, sizeof(err));
	if (r)
		return r;
	r = rpt_cmp_decide_floor(c, multiple);
	doc = r ? NULL : rpt_cmp_to_json(c);
	rpt_cmp_free(c);
	if (r)
		return r;
	if (!doc)
		return -ENOMEM;
	r = json_object_update(cmp, doc) ? -ENOMEM : 0;
	json_decref(doc);
	return r;
}

#endif
