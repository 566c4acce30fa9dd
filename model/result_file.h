/* Result files on disk: the schema versions, atomic writes, reading back (histograms: hist_json.h). */
#ifndef MDL_RESULT_FILE_H
#define MDL_RESULT_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "model/hist.h"
#include "model/hist_json.h"
#include "model/op.h"

/*
 * What fsbench writes. Version 2 keys are dot-free and carry their unit (an op's "p99_9_ns",
 * the same name in "per_thread"), and a thread's unpinned cpu is null: document stores
 * (Elasticsearch) read dots as nesting. Version 1 files are still read: mdl_result_load()
 * turns them into the version 2 model, in one place (mdl_result_upgrade()).
 */
#define MDL_RESULT_SCHEMA "fsbench-result/2"
#define MDL_RESULT_SCHEMA_V1 "fsbench-result/1"

/* Most threads a run has (fsbench's FSB_MAX_THREADS): the report plots every count up to it. */
#define MDL_MAX_THREADS 1024

/*
 * Writes @root to @path atomically: a temporary file in the same directory, fsync, rename,
 * fsync of the directory. Returns 0 or -errno; the old file stays if anything fails.
 */
int mdl_json_write_atomic(const json_t *root, const char *path);

/*
 * Every JSON file fsbench reads that a user named (results, comparisons, gate files) or a
 * guest left: a regular file of at most MDL_JSON_MAX_BYTES, through no symbolic link that
 * another user (neither root nor this one) owns. The document, or NULL with @err naming the
 * file and why (its line and column when it is not JSON).
 */
#define MDL_JSON_MAX_BYTES (INT64_C(1) << 30)
#define MDL_JSON_MAX_TEXT "1 GiB"
json_t *mdl_json_file(const char *path, char *err, size_t errlen);

/*
 * The bytes of the file at @path, read under mdl_json_file()'s rules, into *@ret (the
 * caller frees it; one byte more is allocated) and *@len: what a reader that also hashes
 * them takes. 0, -ENOMEM, or -EPROTO with @err naming the file and why.
 */
int mdl_file_bytes(const char *path, char **ret, size_t *len, char *err, size_t errlen);

/*
 * Loads a JSON file and checks that its "schema" key is @schema_name (NULL: any). 0 or
 * -EPROTO with @err set. Which kind a file is, learnt from one parse: mdl_doc_load() (doc.h).
 */
int mdl_json_load(const char *path, const char *schema_name, json_t **ret, char *err,
		  size_t errlen);

/*
 * Loads a result file and checks its schema key: version 2, or version 1 brought to the
 * version 2 model by mdl_result_upgrade(). 0, -errno, or -EPROTO with @err set.
 */
int mdl_result_load(const char *path, json_t **ret, char *err, size_t errlen);

/*
 * Rewrites a version 1 document in place as version 2: op percentiles "percentiles.p99.9"
 * become "p99_9_ns" beside count (in ops and per_thread), a thread's cpu -1
 * becomes null, and "schema" says version 2. A version 2 document is left alone. 0, or
 * -EPROTO when @doc is neither.
 */
int mdl_result_upgrade(json_t *doc);

/* What a run's progress counted, from its "series.unit" (files when absent). */
enum mdl_unit mdl_run_unit(const json_t *run);

#endif
