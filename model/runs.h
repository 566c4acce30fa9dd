/* Result files as runs for compare, report and export: loading, checking, putting runs on sides. */
#ifndef MDL_RUNS_H
#define MDL_RUNS_H

#include <stddef.h>
#include <jansson.h>

#include "model/result_file.h"
#include "model/run.h"

/* One run fed to the comparer, with where it came from (for messages and exclusions). */
struct mdl_run_ref {
	const json_t *run;
	const json_t *doc; /* the result file holding @run (host, created); may be NULL */
	const char *file;
	size_t index; /* position in the file's runs[] */
	int side;
	struct mdl_run r; /* @run decoded once (mdl_runs_add); r.key NULL: not decoded */
};

/* Frees what mdl_runs_add() decoded in each of @n references, and @refs. NULL is fine. */
void mdl_runs_free(struct mdl_run_ref *refs, size_t n);

/*
 * Loads a result file and checks the shape compare relies on (runs[] with workload,
 * threads, summary.complete). Returns 0, or -errno / -EPROTO with @err saying what was being
 * read and why it is unusable.
 */
int mdl_runs_load(const char *path, json_t **ret, char *err, size_t errlen);

/* The check mdl_runs_load() makes, on a document already loaded from @path. 0 or -EPROTO. */
int mdl_runs_check(const json_t *doc, const char *path, char *err, size_t errlen);

/*
 * Appends every run of @doc to *@refs (reallocated; the caller frees it with
 * mdl_runs_free()) on @side (-1: decided later), each decoded into its typed run once.
 * @path is kept, not copied. 0 or -ENOMEM.
 */
int mdl_runs_add(struct mdl_run_ref **refs, size_t *n, const json_t *doc, const char *path,
		 int side);

/*
 * Puts runs on sides by their coords.@field, @first (if given) as side 0. Fills @ret_names
 * (an array the caller frees; the strings are owned by the documents) and returns the
 * number of sides, -ENOMEM, or -EPROTO with @err naming the run or value at fault.
 */
int mdl_runs_sides_across(struct mdl_run_ref *refs, size_t n, const char *field, const char *first,
			  const char ***ret_names, char *err, size_t errlen);

#endif
