/* What a report page compares: which files are sides, what the sides are named, the comparison. */
#include "report/plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errf.h"
#include "model/doc.h"
#include "model/schema.h"
#include "report/cmp.h"

void rpt_plan_free(struct rpt_plan *p)
{
	for (int i = 0; i < p->ndocs; i++) {
		free(p->bases[i]);
		p->bases[i] = NULL;
	}
	if (p->names != p->rs.names)
		free(p->names);
	p->names = NULL;
	p->ndocs = 0;
	rpt_runset_free(&p->rs);
}

/* The file name in @path (after its last slash), without a copy. */
static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Sides by file: file @d is side @d, named by its file name. 0 or -ENOMEM. */
static int sides_by_file(struct rpt_plan *p)
{
	p->names = calloc((size_t)p->ndocs, sizeof(*p->names));
	if (!p->names)
		return -ENOMEM;
	for (size_t i = 0; i < p->rs.nrefs; i++)
		for (int d = 0; d < p->ndocs; d++)
			if (p->rs.refs[i].doc == p->rs.docs[d])
				p->rs.refs[i].side = d;
	for (int d = 0; d < p->ndocs; d++) {
		p->names[d] = p->bases[d];
		p->labels[d] = p->ndocs > 1 ? p->bases[d] : NULL;
	}
	p->nsides = p->ndocs;
	return 0;
}

/* Whether every run has a string coords.@field with two values at least. */
static bool runs_differ_in(const struct rpt_plan *p, const char *field)
{
	const char *first = NULL;
	bool differ = false;

	for (size_t i = 0; i < p->rs.nrefs; i++) {
		const char *v = json_string_value(
			json_object_get(json_object_get(p->rs.refs[i].run, MDL_KEY_COORDS), field));

		if (!v)
			return false;
		if (!first)
			first = v;
		differ |= strcmp(first, v) != 0;
	}
	return differ;
}

int rpt_plan_check(const struct rpt_plan_request *q, char *err, size_t errlen)
{
	size_t n[2] = { 0, 0 };

	for (size_t i = 0; i < q->n; i++)
		n[q->sides[i] ? 1 : 0]++;
	if (q->two && q->across)
		return errf(err, errlen, -EINVAL,
			    "--across and --candidate both choose the sides: give one");
	if (q->baseline_value && (!q->across || !strcmp(q->across, "file")))
		return errf(err, errlen, -EINVAL, "--baseline-value needs --across FIELD");
	if (q->two && (!n[0] || !n[1]))
		return errf(err, errlen, -EINVAL,
			    "--candidate needs files on both sides: --baseline A.json... "
			    "--candidate B.json...");
	return 0;
}

int rpt_plan_load(struct rpt_plan *p, const struct rpt_plan_request *q, char *err, size_t errlen)
{
	int e;

	if (q->n > RPT_PLAN_MAX_FILES)
		return errf(err, errlen, -EINVAL, "at most %d files", RPT_PLAN_MAX_FILES);
	for (size_t i = 0; i < q->n; i++) {
		p->paths[p->ndocs] = q->paths[i];
		p->sides[p->ndocs++] = q->sides[i];
	}
	e = rpt_runset_load(&p->rs, p->paths, p->sides, (size_t)p->ndocs, err, errlen);
	if (e) {
		p->ndocs = 0; /* no basenames yet */
		if (e == -EINVAL) {
			size_t len = strlen(err);

			snprintf(err + len, errlen - len, "%s",
				 ": report it alone, or give the result files it was made from");
		}
		return e;
	}
	if (!p->rs.compare)
		return 0;
	p->ndocs = 0;
	if (q->across || q->baseline_value)
		return errf(err, errlen, -EINVAL,
			    "%s is a comparison already: its sides are fixed (no --across)",
			    p->paths[0]);
	return 0;
}

/* Each file's name, or its path where two files share a name (a/r.json, b/r.json). */
static int plan_bases(struct rpt_plan *p, bool two)
{
	for (int d = 0; d < p->ndocs; d++) {
		p->bases[d] = strdup(basename_of(p->paths[d]));
		if (!p->bases[d])
			return -ENOMEM;
		if (two)
			p->labels[d] = p->sides[d] ? "candidate" : "baseline";
	}
	for (int d = 0; d < p->ndocs; d++)
		for (int k = 0; k < p->ndocs; k++)
			if (k != d && !strcmp(basename_of(p->paths[k]), basename_of(p->paths[d]))) {
				char *full = strdup(p->paths[d]);

				if (!full)
					return -ENOMEM;
				free(p->bases[d]);
				p->bases[d] = full;
				break;
			}
	return 0;
}

int rpt_plan_sides(struct rpt_plan *p, const struct rpt_plan_request *q, char *err, size_t errlen)
{
	const char *across = q->across;

	if (plan_bases(p, q->two) < 0)
		return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	if (q->two) {
		static const char *const two_names[] = { "baseline", "candidate" };

		p->names = calloc(2, sizeof(*p->names));
		if (!p->names)
			return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
		memcpy(p->names, two_names, sizeof(two_names));
		p->nsides = 2;
		return 0;
	}
	if ((across && !strcmp(across, "file")) || (!across && p->ndocs > 1))
		return sides_by_file(p) ? errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM)) : 0;
	if (!across && !runs_differ_in(p, "fs")) {
		/* one file, one filesystem (or no suite coordinates): statistics, nothing compared */
		snprintf(p->note, sizeof(p->note),
			 "One side only: give --baseline/--candidate files, several files, or "
			 "--across FIELD to compare.");
		return sides_by_file(p) ? errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM)) : 0;
	}
	p->across = across ? across : "fs";
	p->nsides = rpt_runset_sides_across(&p->rs, p->across, q->baseline_value, err, errlen);
	p->names = p->rs.names;
	return p->nsides < 0 ? p->nsides : 0;
}

int rpt_plan_compare(struct rpt_plan *p, const struct rpt_compare_opts *judge, struct rpt_cmp **ret,
		     char *err, size_t errlen)
{
	struct rpt_compare_opts o;
	int e;

	*ret = NULL;
	/* compare's own judge, with the gate file, threshold and floor compare would take */
	if (judge)
		o = *judge;
	else
		rpt_compare_opts_init(&o);
	o.allow_unmatched = true; /* the page lists what had no match on a side */
	o.across = p->across;
	e = rpt_runset_judge(&p->rs, p->names, p->nsides, &o, ret, err, errlen);
	if (e)
		snprintf(p->note, sizeof(p->note), "No comparison: %s", err);
	/*
	 * compare --gate refuses runs without a match on a side (unless --allow-unmatched):
	 * the page says so as its verdict, not a pass over what did match
	 */
	if (!e && (*ret)->nunmatched && !(*ret)->cannot_judge &&
	    !(judge && judge->allow_unmatched)) {
		const struct rpt_cmp_run_note *u = &(*ret)->unmatched[0];
		char why[1024];

		snprintf(why, sizeof(why),
			 "%zu run%s without a match on another side, which compare --gate refuses "
			 "(the first: run %lld of %s, %s, none on side '%s')",
			 (*ret)->nunmatched, (*ret)->nunmatched == 1 ? "" : "s", u->run,
			 u->file ? u->file : "?", u->what ? u->what : "?",
			 u->side >= 0 && u->side < (*ret)->nsides ? (*ret)->side_names[u->side] :
								    "?");
		if (rpt_cmp_set_cannot_judge(*ret, why)) {
			snprintf(err, errlen, "judging the comparison: %s", strerror(ENOMEM));
			rpt_cmp_free(*ret);
			*ret = NULL;
			return -ENOMEM;
		}
	}
	return e;
}
