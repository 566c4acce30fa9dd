/* A night's matrix on LAVA (submit_matrix.h): a job per kernel and suite, the jobs' results merged per kernel. */
#include "fsbench/lava/submit_matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "fsbench/lava/client.h"
#include "fsbench/lava/import.h"
#include "fsbench/lava/jobdef.h"
#include "fsbench/suite/suite.h"
#include "model/result_file.h"

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
	snprintf(ret->name, sizeof(ret->name), "job-k%d-s%d.yaml", k, s);
	if ((r = lava_job_kernel(x, "qemu", outdir, tag, kurl, rurl, sizeof(kurl), ret_fail, err,
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
	if (!r && !(doc = lava_import_doc(&all, files, n, NULL, NULL, NULL)))
		errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	lava_import_free(&all);
	return doc;
}

int lava_matrix_jobs(char *const *kernels, int nk, char *const *suites, int ns, int repetitions,
		     const char *outdir, int timeout_min, struct lava_matrix_job *ret,
		     enum kg_gate_fail *ret_fail, lava_report_fn *report, void *data, char *err,
		     size_t errlen)
{
	const int n = ns ? ns : 1;

	for (int k = 0; k < nk; k++)
		for (int s = 0; s < n; s++) {
			struct lava_matrix_job *j = &ret[k * n + s];
			int r = lava_matrix_job(kernels[k], ns ? suites[s] : "kgate", repetitions,
						k, s, outdir, timeout_min, j, ret_fail, err,
						errlen);

			if (r)
				return r;
			report(data, "kernel %d (%s), suite %s: %s/job-k%d-s%d.yaml", k, j->release,
			       j->suite, outdir, k, s);
		}
	return 0;
}

int lava_matrix_results(const struct lava_matrix_job *jobs, const long *ids, const bool *saved,
			int nk, int ns, const char *outdir, lava_report_fn *report, void *data)
{
	char files[64][PATH_MAX], *fv[64], *sv[64], out[PATH_MAX], err[4096];
	int r = 0;

	for (int k = 0; k < nk; k++) {
		const char *rel = jobs[k * ns].release;
		bool all = ns <= 64;
		json_t *doc;
		int e;

		for (int s = 0; all && s < ns; s++) {
			all = saved[k * ns + s];
			base_path(files[s], sizeof(files[s]), "%s/job-%ld.yaml", outdir,
				  ids[k * ns + s]);
			fv[s] = files[s];
			sv[s] = (char *)jobs[k * ns + s].suite;
		}
		if (!all) {
			report(data,
			       "kernel %d (%s): no result, a job of it did not give its results "
			       "(above)",
			       k, rel);
			r = r ? r : -ENODATA;
			continue;
		}
		doc = lava_matrix_result(fv, sv, ns, err, sizeof(err));
		/* the kernel the jobs booted, so exports (KCIDB's build) name it, not "unknown" */
		if (doc)
			json_object_set_new(json_object_get(doc, "host"), "kernel",
					    json_string(rel));
		e = !doc ? -EPROTO :
		    base_path(out, sizeof(out), "%s/k%d-%s.json", outdir, k, rel) ?
			   -ENAMETOOLONG :
			   mdl_json_write_atomic(doc, out);
		if (e)
			report(data, "kernel %d (%s): %s", k, rel, doc ? strerror(-e) : err);
		else
			report(data, "kernel %d (%s): %zu runs from %d job(s): %s", k, rel,
			       json_array_size(json_object_get(doc, "runs")), ns, out);
		r = r ? r : e == -ENODATA ? -EIO : e;
		json_decref(doc);
	}
	return r;
}
