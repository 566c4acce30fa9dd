/* A night's matrix on LAVA: a job for each kernel with each suite, one result per kernel back. */
#ifndef FSB_LAVA_SUBMIT_MATRIX_H
#define FSB_LAVA_SUBMIT_MATRIX_H

#include <limits.h>
#include <stddef.h>
#include <jansson.h>

#include "fsbench/kgate/gate_flow.h"
#include "fsbench/lava/client.h"

/* One job of the matrix. */
struct lava_matrix_job {
	char *yaml; /* malloc'ed; also in OUTDIR/job-kK-sS.yaml */
	char release[128]; /* the kernel's */
	char suite[PATH_MAX]; /* the suite file the initramfs holds */
	char name[48]; /* job-kK-sS.yaml, the job's name in messages */
};

/*
 * Kernel @spec (as kernel-gate takes one) with suite @suite (@repetitions: 0 for the
 * suite's): the kernel resolved and its initramfs built for LAVA, both copied into
 * @outdir tagged "kK-sS-" (@k, @s: the kernel's and the suite's place in the matrix), and
 * the job (lava job's, the model disk) into OUTDIR/job-kK-sS.yaml and @ret. 0, or -errno
 * with @err and *@ret_fail the kind; @ret->yaml is freed by the caller either way.
 */
int lava_matrix_job(const char *spec, const char *suite, int repetitions, int k, int s,
		    const char *outdir, int timeout_min, struct lava_matrix_job *ret,
		    enum kg_gate_fail *ret_fail, char *err, size_t errlen);

/*
 * One kernel's result: the fsbench test cases of LAVA's results files @files[0..@n-1]
 * (as `lava submit -o` writes them), each job's runs given the coordinates of its suite
 * @suites[i] (lava_import_suite), all in one result document that compare and report
 * take. NULL with @err when a file or a run cannot be read or has no fsbench test case.
 */
json_t *lava_matrix_result(char *const *files, char *const *suites, int n, char *err,
			   size_t errlen);

/*
 * The whole matrix's jobs, lava_matrix_job's for kernel @kernels[k] (0 <= k < @nk) with
 * suite @suites[s] (0 <= s < @ns; @ns 0: the one suite "kgate"), into @ret[k * NS + s]
 * (calloc'ed by the caller, who frees every yaml either way); a line to @report for each
 * job written. 0, or -errno with @err and *@ret_fail at the first that fails.
 */
int lava_matrix_jobs(char *const *kernels, int nk, char *const *suites, int ns, int repetitions,
		     const char *outdir, int timeout_min, struct lava_matrix_job *ret,
		     enum kg_gate_fail *ret_fail, lava_report_fn *report, void *data, char *err,
		     size_t errlen);

/*
 * Each kernel's result (lava_matrix_result) into OUTDIR/kK-RELEASE.json from its jobs'
 * results files OUTDIR/job-ID.yaml (@jobs and their ids @ids as lava_matrix_jobs ordered
 * them; @saved: whether `lava_job_collect` saved the job's file); a line to @report for
 * each kernel. 0, or for the first kernel without a result -ENODATA (a job of it gave no
 * results) or the -errno of reading or writing its files.
 */
int lava_matrix_results(const struct lava_matrix_job *jobs, const long *ids, const bool *saved,
			int nk, int ns, const char *outdir, lava_report_fn *report, void *data);

#endif
