/* Result or comparison: one parse of a file, then the checks of its kind (see doc.h). */
#include "model/doc.h"
#include "model/result_file.h"
#include "model/runs.h"
#include "model/schema.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Whether every element of @a is an object whose @key (if given) is a string. */
static bool objects_named(const json_t *a, const char *key)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, e)
	{
		if (!json_is_object(e) || (key && !json_is_string(json_object_get(e, key))))
			return false;
	}
	return true;
}

/*
 * What the printers and exporters index without checking again: a compare document comes
 * from a file anyone may have written, so its shape is checked once, here.
 */
static const char *compare_shape(const json_t *cmp, size_t *ret_sample)
{
	const json_t *sample, *m;
	size_t i, j;

	if (!objects_named(json_object_get(cmp, "sides"), "name") ||
	    !json_array_size(json_object_get(cmp, "sides")))
		return "no sides[] of named objects";
	if (!objects_named(json_object_get(cmp, "samples"), "label"))
		return "no samples[] of labelled objects";
	json_array_foreach(json_object_get(cmp, "samples"), i, sample)
	{
		*ret_sample = i;
		if (!objects_named(json_object_get(sample, "metrics"), "name"))
			return "a sample without metrics[] of named objects";
		json_array_foreach(json_object_get(sample, "metrics"), j, m)
		{
			if (!json_is_string(json_object_get(m, "unit")) ||
			    !json_is_string(json_object_get(m, "direction")))
				return "a metric without a unit or direction";
			if (!objects_named(json_object_get(m, "sides"), "side") ||
			    !objects_named(json_object_get(m, "comparisons"), NULL))
				return "a metric without sides[] and comparisons[] of objects";
		}
	}
	return NULL;
}

int mdl_compare_check(const json_t *cmp, const char *path, char *err, size_t errlen)
{
	size_t sample = 0;
	const char *bad = compare_shape(cmp, &sample);

	if (!bad)
		return 0;
	snprintf(err, errlen, "%s: %s (sample %zu): not a usable comparison", path, bad, sample);
	return -EPROTO;
}

int mdl_compare_load(const char *path, json_t **ret, char *err, size_t errlen)
{
	int r = mdl_json_load(path, MDL_COMPARE_SCHEMA, ret, err, errlen);

	if (r)
		return r;
	r = mdl_compare_check(*ret, path, err, errlen);
	if (r) {
		json_decref(*ret);
		*ret = NULL;
	}
	return r;
}

int mdl_doc_load(const char *path, json_t **ret, enum mdl_doc_kind *ret_kind, char *err,
		 size_t errlen)
{
	json_t *doc;
	const char *schema;
	bool cmp;
	int r = mdl_json_load(path, NULL, &doc, err, errlen);

	if (r)
		return r;
	schema = json_string_value(json_object_get(doc, MDL_KEY_SCHEMA));
	if (schema && !strcmp(schema, MDL_KERNEL_GATE_SCHEMA)) {
		json_t *c = json_incref(json_object_get(doc, "compare"));

		json_decref(doc);
		if (!json_is_object(c)) {
			json_decref(c);
			snprintf(
				err, errlen,
				"%s: a kernel gate's document without a comparison (the gate stopped "
				"before judging: see its verdict)",
				path);
			return -EPROTO;
		}
		doc = c;
		schema = json_string_value(json_object_get(doc, MDL_KEY_SCHEMA));
	}
	cmp = schema && !strcmp(schema, MDL_COMPARE_SCHEMA);
	if (cmp) {
		r = mdl_compare_check(doc, path, err, errlen);
	} else if (mdl_result_upgrade(doc)) {
		snprintf(err, errlen, "%s: schema is '%s', expected '%s' or '%s'", path,
			 schema ? schema : "(none)", MDL_RESULT_SCHEMA, MDL_RESULT_SCHEMA_V1);
		r = -EPROTO;
	} else {
		r = mdl_runs_check(doc, path, err, errlen);
	}
	if (r) {
		json_decref(doc);
		return r;
	}
	*ret = doc;
	*ret_kind = cmp ? MDL_DOC_COMPARE : MDL_DOC_RESULT;
	return 0;
}
