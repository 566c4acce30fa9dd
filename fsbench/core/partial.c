/* Writing a result file while the work goes on (partial.h). */
#include "fsbench/core/partial.h"
#include "fsbench/core/result.h"

#include <string.h>

#include "base/errf.h"
#include "model/result_file.h"

int fsb_partial_write(struct fsb_partial *p, bool final, char *err, size_t errlen)
{
	bool said = p->write_failed;
	int r;

	fsb_result_finish(p->doc);
	/* a document without runs is a run that never started (or a suite that never began) */
	if (!final || !json_array_size(json_object_get(p->doc, "runs")))
		json_object_set_new(p->doc, "complete", json_false());
	r = mdl_json_write_atomic(p->doc, p->path);
	p->write_failed = r < 0;
	if (r < 0 && !said)
		return errf(err, errlen, r, "writing result %s: %s", p->path, strerror(-r));
	if (errlen)
		err[0] = 0;
	return r;
}
