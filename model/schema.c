/* Typed accessors of the result schema (see schema.h). */
#include "model/schema.h"

bool rpt_run_complete(const json_t *run)
{
	return json_is_true(json_object_get(rpt_run_summary(run), RPT_KEY_COMPLETE));
}

const char *rpt_run_error(const json_t *run, const char *def)
{
	return rpt_json_str(rpt_run_summary(run), RPT_KEY_ERROR, def);
}
