/* Typed accessors of the result schema (see schema.h). */
#include "model/schema.h"

bool mdl_run_complete(const json_t *run)
{
	return json_is_true(json_object_get(mdl_run_summary(run), MDL_KEY_COMPLETE));
}

const char *mdl_run_error(const json_t *run, const char *def)
{
	return mdl_json_str(mdl_run_summary(run), MDL_KEY_ERROR, def);
}
