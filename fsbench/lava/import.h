/* LAVA's test cases (as its API or lavacli gives them) back as an fsbench result document. */
#ifndef FSB_LAVA_IMPORT_H
#define FSB_LAVA_IMPORT_H

#include <stddef.h>
#include <jansson.h>

/*
 * LAVA's results file @path (YAML; JSON is YAML too), read as untrusted input: bounded in
 * size, nesting, aliases and nodes (import.c), a REST API page's "results" or a plain list.
 * The list of test cases into @ret, or -errno with @err starting with @path.
 */
int lava_results_load(const char *path, json_t **ret, char *err, size_t errlen);

/*
 * Every one of the @n files @paths read (lava_results_load) before any is taken: in *@ret a
 * list of @n lists, each file's test cases. 0; -EINVAL with @err when a file cannot be read
 * or two files hold one LAVA job's cases (its runs would count twice); -ENOMEM.
 */
int lava_results_load_all(char *const *paths, int n, json_t **ret, char *err, size_t errlen);

/*
 * The runs built from test cases, each found through @index (key "REPETITION:CELL", the
 * two coordinates that tell runs apart) rather than by a scan of @runs, so an import is
 * linear in its cases. Zero-initialise; lava_import_free() drops it.
 */
struct lava_import {
	json_t *runs; /* in the order first seen */
	json_t *index; /* "rep:cell" -> the run in @runs */
	/*
	 * cell -> what the current file's repetitions are shifted by (lava_import_next_file):
	 * each file's runs are new repetitions of their cells, never values over another's
	 */
	json_t *rep_base;
	size_t used; /* fsbench's test cases taken */
	size_t seen; /* test cases looked at */
	/* the last run's name prefix ("<workload>.t<threads>.<cell>.r<repetition>.") and the
	 * run: a run's cases come one after another, so most are neither parsed nor looked up */
	char last[320];
	size_t last_len;
	long last_threads, last_rep;
	json_t *last_run; /* borrowed from @runs */
};

void lava_import_free(struct lava_import *im);

/*
 * The run with coordinates (@cell, @rep), made on first sight with @workload and @threads.
 * NULL without memory.
 */
json_t *lava_import_run(struct lava_import *im, const char *workload, long threads,
			const char *cell, long rep);

/*
 * The test cases to come are another file's (another job's): a run of theirs is a new
 * repetition of its cell, numbered after every repetition of that cell taken so far, so
 * that no file's runs overwrite another's. 0 or -ENOMEM.
 */
int lava_import_next_file(struct lava_import *im);

/*
 * Takes every test case of @cases (a list, as lava_results_load gives it): fsbench's own
 * ("<workload>.t<threads>.<cell>.r<repetition>.<metric>", passed) become values of runs,
 * others are counted and left. 0, -ERANGE with @err for a case with values no run can have
 * (a hostile or broken file), or -ENOMEM.
 */
int lava_import_cases(struct lava_import *im, const json_t *cases, char *err, size_t errlen);

/*
 * Whether @cases are job @job's own, as the gate submitted it: every case carries that job
 * id, one is fsbench-token-@token (the job's own token, which only its definition holds),
 * and one is fsbench-release-RELEASE with the release the guest booted, which must be
 * @release (as a case name: other characters than lava-test-case takes as _). @release goes
 * to @ret_release (@rlen bytes) when it matches. 0, or -EBADMSG with @err saying
 * which binding failed (a server that answered with another job's results).
 */
int lava_cases_bound(const json_t *cases, long job, const char *token, const char *release,
		     char *ret_release, size_t rlen, char *err, size_t errlen);

struct suite;

/*
 * Each run's coords (the slug of its cell, its workload, threads and repetition) replaced
 * by the coords suite @s (its --fs and --threads applied) gives that cell, as a local run
 * has them, so that compare pairs imported runs with local ones. -ENOENT with @err when a
 * run is none of @s's cells; -errno when the suite does not expand.
 */
int lava_import_suite(struct lava_import *im, const struct suite *s, char *err, size_t errlen);

/*
 * lava import's --suite @name (suite_find's) loaded into @ret with @fs and @threads (NULL:
 * the suite's) applied. 0, or -errno with @err ("no such suite" when none is found) and
 * @ret freed.
 */
int lava_import_suite_load(const char *name, const char *fs, const char *threads, struct suite *ret,
			   char *err, size_t errlen);

/* The result document around @im's runs, naming the @nfiles LAVA files it came from. */
json_t *lava_import_doc(const struct lava_import *im, char *const *files, int nfiles,
			const char *kernel, const char *package, const char *commit);

/*
 * The kernel a job booted, as `lava import --kernel` is told it (LAVA's test cases do not
 * say): a release (printable, no blank, at most 255 bytes), a Debian version (its
 * characters), a git commit (7 to 40 lowercase hex digits); NULL: not given. 0, or -EINVAL
 * with @err saying which is not.
 */
int lava_import_kernel_check(const char *kernel, const char *package, const char *commit, char *err,
			     size_t errlen);

#endif
