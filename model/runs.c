/* Result files as runs for compare, report and export (see runs.h). */
#include "model/runs.h"
#include "model/result_file.h"
#include "model/schema.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mdl_runs_check(const json_t *doc, const char *path, char *err, size_t errlen)
{
	const json_t *runs = json_object_get(doc, MDL_KEY_RUNS), *run;
	size_t i;

	if (!json_is_array(runs) || !json_array_size(runs)) {
		snprintf(err, errlen, "%s: no runs[] in the result", path);
		return -EPROTO;
	}
	json_array_foreach(runs, i, run)
	{
		const json_t *sum = mdl_run_summary(run);
		const char *miss =
			!json_is_string(json_object_get(run, MDL_KEY_WORKLOAD)) ? MDL_KEY_WORKLOAD :
			!json_is_integer(json_object_get(run, MDL_KEY_THREADS)) ? MDL_KEY_THREADS :
			!json_is_object(sum)					? MDL_KEY_SUMMARY :
			!json_is_boolean(json_object_get(sum, MDL_KEY_COMPLETE)) ? MDL_KEY_SUMMARY
				"." MDL_KEY_COMPLETE :
										   NULL;

		if (miss) {
			snprintf(err, errlen, "%s: run %zu has no valid '%s' (not an %s document?)",
				 path, i, miss, MDL_RESULT_SCHEMA);
			return -EPROTO;
		}
	}
	return 0;
}

int mdl_runs_load(const char *path, json_t **ret, char *err, size_t errlen)
{
	json_t *doc;
	int e = mdl_result_load(path, &doc, err, errlen);

	if (e == -EPROTO)
		return e;
	if (e) {
		snprintf(err, errlen, "reading %s: %s", path, strerror(-e));
		return e;
	}
	e = mdl_runs_check(doc, path, err, errlen);
	if (e) {
		json_decref(doc);
		return e;
	}
	*ret = doc;
	return 0;
}

int mdl_runs_add(struct mdl_run_ref **refs, size_t *n, const json_t *doc, const char *path,
		 int side)
{
	const json_t *runs = json_object_get(doc, MDL_KEY_RUNS), *run;
	size_t i;

	json_array_foreach(runs, i, run)
	{
		struct mdl_run_ref *nr = realloc(*refs, (*n + 1) * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		*refs = nr;
		nr[*n] = (struct mdl_run_ref){
			.run = run, .doc = doc, .file = path, .index = i, .side = side
		};
		if (mdl_run_decode(run, doc, &nr[*n].r))
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

void mdl_runs_free(struct mdl_run_ref *refs, size_t n)
{
	for (size_t i = 0; refs && i < n; i++)
		mdl_run_clear(&refs[i].r);
	free(refs);
}

int mdl_runs_sides_across(struct mdl_run_ref *refs, size_t n, const char *field, const char *first,
			  const char ***ret_names, char *err, size_t errlen)
{
	const char **names = calloc(n + 1, sizeof(*names));
	int nsides = 0;

	if (!names) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (first)
		names[nsides++] = first;
	for (size_t i = 0; i < n; i++) {
		const char *v = json_string_value(
			json_object_get(json_object_get(refs[i].run, MDL_KEY_COORDS), field));
		int k;

		if (!v) {
			snprintf(
				err, errlen,
				"%s: run %zu has no string coords.%s (--across needs suite results)",
				refs[i].file, refs[i].index, field);
			free(names);
			return -EPROTO;
		}
		for (k = 0; k < nsides && strcmp(names[k], v); k++)
			;
		if (k == nsides)
			names[nsides++] = v;
		refs[i].side = k;
	}
	if (first) {
		bool used = false;

		for (size_t i = 0; i < n; i++)
			used |= refs[i].side == 0;
		if (!used) {
			snprintf(err, errlen, "--baseline-value %s: no run has coords.%s = %s",
				 first, field, first);
			free(names);
			return -EPROTO;
		}
	}
	*ret_names = names;
	return nsides;
}
