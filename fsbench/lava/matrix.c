/* A night's matrix on LAVA (matrix.h): a job per kernel and suite, the jobs' results merged per kernel. */
#include "fsbench/lava/matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "fsbench/lava/client.h"
#include "fsbench/lava/import.h"
#include "fsbench/lava/job.h"
#include "fsbench/suite/suite.h"

int lava_matrix_job(const char *spec, const char *suite, int repetitions, int k, int s,
		    const char *outdir, int timeout_min, struct lava_matrix_job *ret,
		    enum kg_gate_fail *ret_fail, char *err, size_t errlen)
{
	struct kg_ctx *x = calloc(1, sizeof(*x));
	char kurl[4500], rurl[4500], tag[32], path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	*ret_fail = KG_GATE_SYSTEM;
	ret->yaml = NULL;
	if (!x)
		return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	x->a.spec[0] = spec;
	x->a.suite = suite;
	x->a.repetitions = repetitions;
	snprintf(tag, sizeof(tag), "k%d-s%d-", k, s);
	if ((r = lava_job_kernel(x, outdir, tag, kurl, rurl, sizeof(kurl), ret_fail, err,
				 errlen))) {
		free(x);
		return r;
	}
	snprintf(ret->release, sizeof(ret->release), "%s", x->k[0].release);
	snprintf(ret->suite, sizeof(ret->suite), "%s", x->suite);
	struct lava_job_spec js = { .device_type = "qemu",
				    .kernel_url = kurl,
				    .ramdisk_url = rurl,
				    .suite = suite,
				    .release = x->k[0].release,
				    .timeout_min = timeout_min };
	*ret_fail = KG_GATE_SYSTEM;
	f = open_memstream(&buf, &len);
	r = !f ? -ENOMEM : lava_job_write(&js, f);
	if (f && fclose(f) && !r)
		r = -ENOMEM;
	if (!r && base_path(path, sizeof(path), "%s/job-k%d-s%d.yaml", outdir, k, s))
		r = -ENAMETOOLONG;
	if (!r)
		r = lava_save(path, buf, len);
	free(x);
	if (r) {
		free(buf);
		return errf(err, errlen, r, "writing the job of kernel %d and suite %d into %s: %s",
			    k, s, outdir, strerror(-r));
	}
	ret->yaml = buf;
	return 0;
}

json_t *lava_matrix_result(char *const *files, char *const *suites, int n, char *err, size_t errlen)
{
	struct lava_import all = { 0 };
	json_t *doc = NULL;
	int r = 0;

	if (!(all.runs = json_array())) {
		errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	for (int i = 0; i < n && !r; i++) {
		struct lava_import im = { 0 };
		struct suite su;
		json_t *cases = NULL;

		memset(&su, 0, sizeof(su));
		if (!(r = lava_results_load(files[i], &cases, err, errlen)) &&
		    !(r = lava_import_cases(&im, cases, err, errlen))) {
			if (!im.used)
				r = errf(err, errlen, -ENODATA, "%s: no fsbench test case",
					 files[i]);
			else if ((r = suite_load(&su, suites[i], err, errlen)) ||
				 (r = lava_import_suite(&im, &su, err, errlen)))
				; /* @err says which */
			else if (json_array_extend(all.runs, im.runs))
				r = errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
			suite_free(&su);
		}
		all.used += im.used;
		all.seen += im.seen;
		json_decref(cases);
		lava_import_free(&im);
	}
	if (!r && !(doc = lava_import_doc(&all, files, n)))
		errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	lava_import_free(&all);
	return doc;
}
