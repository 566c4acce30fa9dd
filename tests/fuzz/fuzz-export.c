/*
 * libFuzzer target: every exporter, on the input as a compare document and as a result
 * file summarised into one (what `fsbench export` does), with and without --metrics.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "report/export.h"
#include "model/doc.h"
#include "model/runs.h"
#include "report/compare.h"
#include "tests/unit/compare_doc.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void export_all(const json_t *doc, const char *metrics)
{
	struct rpt_export_opts eo = { .metrics = metrics };
	struct rpt_cmp *cmp = NULL;
	char err[1024];

	if (rpt_cmp_from_json(doc, "fuzz", &cmp, err, sizeof(err)))
		return;
	for (int i = 0; rpt_exporters[i]; i++) {
		const struct rpt_exporter *ex = rpt_exporters[i];

		if (ex->check && ex->check(cmp, &eo, err, sizeof(err)))
			continue;
		ex->write(cmp, &eo, fuzz_null());
	}
	rpt_cmp_free(cmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *side[] = { "result" };
	struct mdl_run_ref *refs = NULL;
	struct rpt_compare_opts o;
	json_t *doc = NULL, *cmp = NULL;
	char path[64], err[1024];
	size_t nrefs = 0;
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (mdl_compare_load(path, &cmp, err, sizeof(err)) == 0) {
		export_all(cmp, NULL);
		export_all(cmp, "*_per_sec,*.p99");
		json_decref(cmp);
		cmp = NULL;
	}
	rpt_compare_opts_init(&o);
	if (mdl_runs_load(path, &doc, err, sizeof(err)) == 0 &&
	    mdl_runs_add(&refs, &nrefs, doc, path, 0) == 0 &&
	    cmp_doc_build(side, 1, refs, nrefs, &o, &cmp, err, sizeof(err)) == 0) {
		export_all(cmp, NULL);
		export_all(cmp, "files_per_sec,[");
		json_decref(cmp);
	}
	mdl_runs_free(refs, nrefs); /* the typed runs' keys too */
	json_decref(doc);
	close(fd);
	return 0;
}
