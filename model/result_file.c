/* The result model on disk: atomic writes, reading back, version 1 brought to version 2. */
#include "model/result_file.h"
#include "base/fileio.h"
#include "model/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mdl_json_write_atomic(const json_t *root, const char *path)
{
	char *tmp = NULL;
	FILE *f = base_out_open(path, &tmp);
	int r = 0;

	if (!f)
		return -errno;
	/*
	 * Compact: a result with probes is half indentation when pretty-printed, and CI keeps
	 * results as artifacts (issue 24, item 4); `jq .` reads them for a person.
	 */
	if (json_dumpf(root, f, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10)) < 0 ||
	    fputc('\n', f) == EOF)
		r = errno ? -errno : -EIO;
	return base_out_commit(f, tmp, path, r);
}

int mdl_file_bytes(const char *path, char **ret, size_t *len, char *err, size_t errlen)
{
	struct stat lst, st;
	char *buf;
	ssize_t got;
	int fd;

	/* root reads what users name: a link another user planted is not followed */
	if (lstat(path, &lst)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EPROTO;
	}
	if (S_ISLNK(lst.st_mode) && lst.st_uid != 0 && lst.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "%s: a symbolic link owned by uid %u: not followed (give the file itself)",
			 path, (unsigned)lst.st_uid);
		return -EPROTO;
	}
	/* O_NONBLOCK: a FIFO named as a result must not hang the reader before fstat says so */
	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NONBLOCK | (S_ISLNK(lst.st_mode) ? 0 : O_NOFOLLOW));
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MDL_JSON_MAX_BYTES) {
		snprintf(err, errlen, "%s: %s", path,
			 S_ISDIR(st.st_mode)  ? strerror(EISDIR) :
			 !S_ISREG(st.st_mode) ? "not a regular file" :
						"larger than " MDL_JSON_MAX_TEXT ": not read");
		close(fd);
		return -EPROTO;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		close(fd);
		return -ENOMEM;
	}
	/* what is read is bounded by the size fstat said, even if the file grows meanwhile */
	got = base_read_fd(fd, buf, (size_t)st.st_size);
	close(fd);
	if (got < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror((int)-got));
		free(buf);
		return -EPROTO;
	}
	*ret = buf;
	*len = (size_t)got;
	return 0;
}

json_t *mdl_json_file(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root;
	size_t len;
	char *buf;

	if (mdl_file_bytes(path, &buf, &len, err, errlen))
		return NULL;
	root = json_loadb(buf, len, 0, &je);
	free(buf);
	if (!root)
		snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	return root;
}

int mdl_json_load(const char *path, const char *schema_name, json_t **ret, char *err, size_t errlen)
{
	json_t *root = mdl_json_file(path, err, errlen);
	const char *schema;

	if (!root)
		return -EPROTO;
	schema = json_string_value(json_object_get(root, MDL_KEY_SCHEMA));
	if (schema_name && (!schema || strcmp(schema, schema_name))) {
		snprintf(err, errlen, "%s: schema is '%s', expected '%s'", path,
			 schema ? schema : "(none)", schema_name);
		json_decref(root);
		return -EPROTO;
	}
	*ret = root;
	return 0;
}

/* A version 1 op object (ops.X, or per_thread[].ops.X) with version 2 keys. */
static void op_upgrade(json_t *op)
{
	json_t *pct = json_object_get(op, "percentiles");

	for (int i = 0; json_is_object(pct) && i < MDL_NPERCENTILES; i++) {
		json_t *v = json_object_get(pct, mdl_percentiles[i].v1_key);

		if (v)
			json_object_set(op, mdl_percentiles[i].key, v);
	}
	json_object_del(op, "percentiles");
}

static void ops_upgrade(json_t *ops)
{
	const char *name;
	json_t *op;

	json_object_foreach(ops, name, op)
	{
		op_upgrade(op);
	}
}

int mdl_result_upgrade(json_t *doc)
{
	const char *schema = json_string_value(json_object_get(doc, MDL_KEY_SCHEMA));
	json_t *run, *t;
	size_t i, k;

	if (schema && !strcmp(schema, MDL_RESULT_SCHEMA))
		return 0;
	if (!schema || strcmp(schema, MDL_RESULT_SCHEMA_V1))
		return -EPROTO;
	json_array_foreach(json_object_get(doc, MDL_KEY_RUNS), i, run)
	{
		ops_upgrade(json_object_get(run, MDL_KEY_OPS));
		json_array_foreach(json_object_get(run, MDL_KEY_PER_THREAD), k, t)
		{
			json_t *cpu = json_object_get(t, "cpu");

			if (json_is_integer(cpu) && json_integer_value(cpu) < 0)
				json_object_set_new(t, "cpu", json_null());
			/* version 1 threads already said p99_ns; anything else is kept as it was */
			ops_upgrade(json_object_get(t, MDL_KEY_OPS));
		}
	}
	json_object_set_new(doc, MDL_KEY_SCHEMA, json_string(MDL_RESULT_SCHEMA));
	return 0;
}

int mdl_result_load(const char *path, json_t **ret, char *err, size_t errlen)
{
	json_t *root = mdl_json_file(path, err, errlen);
	const char *schema;

	if (!root)
		return -EPROTO;
	schema = json_string_value(json_object_get(root, MDL_KEY_SCHEMA));
	if (mdl_result_upgrade(root)) {
		snprintf(err, errlen, "%s: schema is '%s', expected '%s' or '%s'", path,
			 schema ? schema : "(none)", MDL_RESULT_SCHEMA, MDL_RESULT_SCHEMA_V1);
		json_decref(root);
		return -EPROTO;
	}
	*ret = root;
	return 0;
}

enum mdl_unit mdl_run_unit(const json_t *run)
{
	return mdl_unit_parse(
		json_string_value(json_object_get(json_object_get(run, "series"), "unit")));
}
