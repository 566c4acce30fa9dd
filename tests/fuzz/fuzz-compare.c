/*
 * libFuzzer target: compare and gate. The input is two result files separated by a line
 * "--" (baseline, candidate), or a gate file after a second "--"; also tried: comparing
 * across coords.fs, and the input as a compare document.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "report/compare.h"
#include "tests/unit/compare_doc.h"
#include "report/compare_text.h"
#include "report/gate.h"
#include "model/doc.h"
#include "model/runs.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void judge(struct mdl_run_ref *refs, size_t n, int nsides, const json_t *gate,
		  const char *across)
{
	const char *sides[] = { "baseline", "candidate" };
	const char **names = NULL;
	struct rpt_compare_opts o;
	json_t *cmp = NULL;
	char err[1024];

	rpt_compare_opts_init(&o);
	o.across = across;
	o.allow_unmatched = true;
	if (gate && rpt_gate_check(gate, err, sizeof(err)) == 0) {
		o.gate = gate;
		o.strict = true;
	}
	if (across) {
		int k = mdl_runs_sides_across(refs, n, across, NULL, &names, err, sizeof(err));

		if (k < 1) {
			free(names);
			return;
		}
		if (cmp_doc_build(names, k, refs, n, &o, &cmp, err, sizeof(err)) == 0)
			goto print;
		free(names);
		return;
	}
	if (cmp_doc_build(sides, nsides, refs, n, &o, &cmp, err, sizeof(err)))
		return;
print:
	rpt_compare_print(cmp, fuzz_null(), false);
	rpt_compare_print(cmp, fuzz_null(), true);
	rpt_gate_status(cmp);
	rpt_compare_count(cmp, RPT_REGRESSION, true);
	json_decref(cmp);
	free(names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *b = NULL, *g = NULL;
	size_t asize = size, bsize = 0, gsize = 0;
	struct mdl_run_ref *refs = NULL;
	json_t *docs[2] = { 0 }, *gate = NULL, *cmp = NULL;
	char path[2][64], cpath[64], err[1024];
	int fds[2] = { -1, -1 }, cfd;
	size_t nrefs = 0;

	cfd = fuzz_file(data, size, cpath, sizeof(cpath));
	if (cfd >= 0) {
		if (mdl_compare_load(cpath, &cmp, err, sizeof(err)) == 0) {
			rpt_compare_print(cmp, fuzz_null(), false);
			rpt_gate_status(cmp);
			json_decref(cmp);
		}
		close(cfd);
	}
	if (fuzz_split(data, size, &b, &bsize, &asize))
		return 0;
	if (fuzz_split(b, bsize, &g, &gsize, &bsize) == 0)
		gate = json_loadb((const char *)g, gsize, 0, NULL);
	fds[0] = fuzz_file(data, asize, path[0], sizeof(path[0]));
	fds[1] = fuzz_file(b, bsize, path[1], sizeof(path[1]));
	for (int s = 0; s < 2; s++)
		if (fds[s] < 0 || mdl_runs_load(path[s], &docs[s], err, sizeof(err)) ||
		    mdl_runs_add(&refs, &nrefs, docs[s], path[s], s))
			goto out;
	judge(refs, nrefs, 2, gate, NULL);
	for (size_t i = 0; i < nrefs; i++)
		refs[i].side = -1;
	judge(refs, nrefs, 2, NULL, "fs");
out:
	mdl_runs_free(refs, nrefs); /* the typed runs' keys too */
	for (int s = 0; s < 2; s++) {
		json_decref(docs[s]);
		if (fds[s] >= 0)
			close(fds[s]);
	}
	json_decref(gate);
	return 0;
}
