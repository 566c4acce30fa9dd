/* The suite parser's internals, shared by the suite_*.c files that parse and free suites. */
#ifndef FSB_SUITE_PARSER_H
#define FSB_SUITE_PARSER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "fsbench/suite/suite.h"

/*
 * Jansson reports positions only for syntax errors. For everything found later (unknown
 * keys, bad units, wrong types) the text is scanned once more, recording where each JSON
 * path's key and value start; the scan may be simple because Jansson accepted the text.
 */
struct pos {
	char *path;
	size_t key_off, val_off;
};

struct parse {
	const char *file, *text;
	size_t len, i;
	struct pos *pos;
	size_t npos, cap;
	char *err;
	size_t errlen;
	int depth;
};

/* scan.c: the position scanner and errors that point at them. */
void suite_scan_value(struct parse *p, const char *path, size_t key_off);
/* "FILE:LINE:COL: PATH: message", pointing at the key (@at_key) or the value of @path. */
int suite_fail_at(struct parse *p, const char *path, bool at_key, const char *fmt, ...);
/* Frees the positions a scan recorded. */
void suite_scan_free(struct parse *p);

/* field.c: typed fields; each fails with suite_fail_at() naming the path. */
const char *suite_json_kind(const json_t *v);
/* Unknown keys are errors: a typo must not silently drop a dimension of the matrix. */
int suite_check_keys(struct parse *p, const char *path, json_t *obj, const char *const *allowed);
/* strdup() that takes NULL as "" (NULL only when out of memory). */
char *suite_strdup(const char *s);
/* A JSON scalar as the text the command line would carry; NULL for the wrong kind. */
char *suite_scalar_text(const json_t *v);
int suite_get_string(struct parse *p, const char *path, json_t *v, char **ret);
int suite_get_int(struct parse *p, const char *path, json_t *v, int min, int max, int *ret);
/* A list of thread counts: [1, 2, 4]; each is checked by the job's own table later. */
int suite_get_threads(struct parse *p, const char *path, json_t *v, int *out, int *ret_n);
/* mkfs options: a string split on blanks (no shell, no quoting), or an array of strings. */
int suite_get_args(struct parse *p, const char *path, json_t *v, struct suite_fs *fs);
/* "on", "off", "both", true, false, 0, 1, or [0, 1]. */
int suite_get_barrier(struct parse *p, const char *path, json_t *v, struct suite_fs *fs);

/* label.c: the names that tell entries of one type apart in cells. */
void suite_label_filesystems(struct suite *s);
void suite_label_workloads(struct suite *s);

/* parse.c: frees what suite_parse() put in one filesystem entry. */
void suite_fs_release(struct suite_fs *fs);

#endif
