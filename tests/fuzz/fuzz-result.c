/* libFuzzer target: result files through the loader, histograms and one-side statistics. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "report/compare.h"
#include "tests/unit/compare_doc.h"
#include "model/result_file.h"
#include "model/doc.h"
#include "model/runs.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdl_run_ref *refs = NULL;
	struct rpt_compare_opts o;
	const char *side[] = { "result" };
	json_t *doc = NULL, *cmp = NULL, *op;
	char path[64], err[1024];
	size_t nrefs = 0, i;
	const char *name;
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (mdl_runs_load(path, &doc, err, sizeof(err)) == 0) {
		const json_t *run;

		json_array_foreach(json_object_get(doc, "runs"), i, run)
		{
			mdl_run_unit(run);
			json_object_foreach(json_object_get(run, "ops"), name, op)
			{
				struct hist h;

				if (mdl_hist_from_json(op, &h) == 0)
					json_decref(mdl_hist_to_json(&h));
			}
		}
		rpt_compare_opts_init(&o);
		if (mdl_runs_add(&refs, &nrefs, doc, path, 0) == 0 &&
		    cmp_doc_build(side, 1, refs, nrefs, &o, &cmp, err, sizeof(err)) == 0)
			json_decref(cmp);
	}
	mdl_runs_free(refs, nrefs); /* the typed runs' keys too */
	json_decref(doc);
	close(fd);
	return 0;
}
