/* Suite files: typed fields (strings, ints, thread lists, mkfs arguments, barriers). */
#include "fsbench/suite/parser.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *suite_json_kind(const json_t *v)
{
	/* a required key that is absent reaches the type checks as NULL */
	if (!v)
		return "nothing (the key is missing)";
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number with a fraction or exponent (1.5, 1e308)";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* Unknown keys are errors: a typo must not silently drop a dimension of the matrix. */
int suite_check_keys(struct parse *p, const char *path, json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		char child[512], list[256] = "";
		int i;

		for (i = 0; allowed[i]; i++)
			if (!strcmp(key, allowed[i]))
				break;
		if (allowed[i])
			continue;
		for (i = 0; allowed[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", allowed[i]);
		snprintf(child, sizeof(child), "%s%s%s", path, *path ? "." : "", key);
		return suite_fail_at(p, child, true, "unknown key '%s' (expected one of: %s)", key,
				     list);
	}
	return 0;
}

char *suite_strdup(const char *s)
{
	return strdup(s ? s : "");
}

/* A JSON scalar as the text the command line would carry; NULL for the wrong kind. */
char *suite_scalar_text(const json_t *v)
{
	char buf[64];

	switch (json_typeof(v)) {
	case JSON_STRING:
		return suite_strdup(json_string_value(v));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return strdup(buf);
	case JSON_TRUE:
		return strdup("1");
	case JSON_FALSE:
		return strdup("0");
	default:
		return NULL;
	}
}

int suite_get_string(struct parse *p, const char *path, json_t *v, char **ret)
{
	if (!json_is_string(v))
		return suite_fail_at(p, path, false, "expected a string, found %s",
				     suite_json_kind(v));
	*ret = suite_strdup(json_string_value(v));
	return *ret ? 0 : -ENOMEM;
}

int suite_get_int(struct parse *p, const char *path, json_t *v, int min, int max, int *ret)
{
	json_int_t x;

	if (!json_is_integer(v))
		return suite_fail_at(p, path, false, "expected an integer, found %s",
				     suite_json_kind(v));
	x = json_integer_value(v);
	if (x < min || x > max)
		return suite_fail_at(p, path, false,
				     "%" JSON_INTEGER_FORMAT " is out of range %d..%d", x, min,
				     max);
	*ret = (int)x;
	return 0;
}

/* A list of thread counts: [1, 2, 4]; each is checked by the job's own table later. */
int suite_get_threads(struct parse *p, const char *path, json_t *v, int *out, int *ret_n)
{
	char child[512];
	size_t i;
	json_t *e;

	if (!json_is_array(v) || !json_array_size(v))
		return suite_fail_at(p, path, false,
				     "expected a non-empty array of thread counts, found %s",
				     json_is_array(v) ? "an empty array" : suite_json_kind(v));
	if (json_array_size(v) > SUITE_MAX_THREADS)
		return suite_fail_at(p, path, false, "at most %d thread counts", SUITE_MAX_THREADS);
	json_array_foreach(v, i, e)
	{
		int r;

		snprintf(child, sizeof(child), "%s[%zu]", path, i);
		r = suite_get_int(p, child, e, 1, FSB_MAX_THREADS, &out[i]);
		if (r < 0)
			return r;
	}
	*ret_n = (int)json_array_size(v);
	return 0;
}

/* mkfs options: a string split on blanks (no shell, no quoting), or an array of strings. */
int suite_get_args(struct parse *p, const char *path, json_t *v, struct suite_fs *fs)
{
	int n = 0;

	if (json_is_string(v)) {
		char *copy = suite_strdup(json_string_value(v)), *save = NULL, *tok;

		if (!copy)
			return -ENOMEM;
		fs->mkfs_options = suite_strdup(json_string_value(v));
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			if (n == SUITE_MAX_ARGS) {
				free(copy);
				return suite_fail_at(p, path, false, "at most %d mkfs arguments",
						     SUITE_MAX_ARGS);
			}
			fs->mkfs_argv[n++] = suite_strdup(tok);
		}
		free(copy);
		return 0;
	}
	if (json_is_array(v)) {
		char text[1024] = "";
		size_t i;
		json_t *e;

		json_array_foreach(v, i, e)
		{
			char child[600];

			snprintf(child, sizeof(child), "%s[%zu]", path, i);
			if (!json_is_string(e))
				return suite_fail_at(p, child, false, "expected a string, found %s",
						     suite_json_kind(e));
			if (n == SUITE_MAX_ARGS)
				return suite_fail_at(p, child, false, "at most %d mkfs arguments",
						     SUITE_MAX_ARGS);
			fs->mkfs_argv[n++] = suite_strdup(json_string_value(e));
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s",
				 i ? " " : "", json_string_value(e));
		}
		fs->mkfs_options = suite_strdup(text);
		return 0;
	}
	return suite_fail_at(p, path, false, "expected a string or an array of strings, found %s",
			     suite_json_kind(v));
}

/* "on", "off", "both", true, false, 0, 1, or [0, 1]. */
int suite_get_barrier(struct parse *p, const char *path, json_t *v, struct suite_fs *fs)
{
	const char *s = json_string_value(v);

	if (json_is_boolean(v) ||
	    (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 1)) {
		fs->barrier[0] = json_is_boolean(v) ? json_is_true(v) : (int)json_integer_value(v);
		fs->nbarrier = 1;
		return 0;
	}
	if (s && (!strcmp(s, "on") || !strcmp(s, "off"))) {
		fs->barrier[0] = !strcmp(s, "on");
		fs->nbarrier = 1;
		return 0;
	}
	if (s && !strcmp(s, "both")) {
		fs->barrier[0] = 1;
		fs->barrier[1] = 0;
		fs->nbarrier = 2;
		return 0;
	}
	if (json_is_array(v) && json_array_size(v) >= 1 && json_array_size(v) <= 2) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *e = json_array_get(v, i);

			if (!json_is_integer(e) || json_integer_value(e) < 0 ||
			    json_integer_value(e) > 1)
				break;
			fs->barrier[i] = (int)json_integer_value(e);
			fs->nbarrier = (int)i + 1;
		}
		if (fs->nbarrier == (int)json_array_size(v) &&
		    (fs->nbarrier == 1 || fs->barrier[0] != fs->barrier[1]))
			return 0;
		fs->nbarrier = 0;
	}
	return suite_fail_at(p, path, false,
			     "expected \"on\", \"off\", \"both\", true, false, 0, 1 or [1, 0]");
}
