/* Suite files: parsing and validation with line:column errors, matrix expansion, cell names. */
#include "suite.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_traits.h"
#include "knob.h"
#include "opt.h"
#include "workload.h"

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

#define MAX_DEPTH 64

static void pos_add(struct parse *p, const char *path, size_t key_off, size_t val_off)
{
	if (p->npos == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct pos *a = realloc(p->pos, cap * sizeof(*a));

		if (!a)
			return; /* positions are a nicety: a message without one is still right */
		p->pos = a;
		p->cap = cap;
	}
	p->pos[p->npos].path = strdup(path);
	if (!p->pos[p->npos].path)
		return;
	p->pos[p->npos].key_off = key_off;
	p->pos[p->npos].val_off = val_off;
	p->npos++;
}

static void skip_ws(struct parse *p)
{
	while (p->i < p->len && strchr(" \t\r\n", p->text[p->i]))
		p->i++;
}

/* Skips a string starting at its quote; returns its raw contents' length. */
static size_t skip_string(struct parse *p)
{
	size_t start = ++p->i;

	while (p->i < p->len && p->text[p->i] != '"') {
		if (p->text[p->i] == '\\')
			p->i++;
		p->i++;
	}
	p->i++;
	return p->i - 1 - start;
}

static void scan_value(struct parse *p, const char *path, size_t key_off)
{
	char child[512];
	size_t val_off;

	skip_ws(p);
	val_off = p->i;
	pos_add(p, path, key_off == SIZE_MAX ? val_off : key_off, val_off);
	if (p->i >= p->len || ++p->depth > MAX_DEPTH)
		return;
	if (p->text[p->i] == '{') {
		p->i++;
		for (;;) {
			size_t koff, klen;

			skip_ws(p);
			if (p->i >= p->len || p->text[p->i] == '}')
				break;
			if (p->text[p->i] == ',') {
				p->i++;
				continue;
			}
			koff = p->i;
			klen = skip_string(p);
			snprintf(child, sizeof(child), "%s%s%.*s", path, *path ? "." : "",
				 (int)klen, p->text + koff + 1);
			skip_ws(p);
			p->i++; /* ':' */
			scan_value(p, child, koff);
		}
		p->i++;
	} else if (p->text[p->i] == '[') {
		int idx = 0;

		p->i++;
		for (;;) {
			skip_ws(p);
			if (p->i >= p->len || p->text[p->i] == ']')
				break;
			if (p->text[p->i] == ',') {
				p->i++;
				continue;
			}
			snprintf(child, sizeof(child), "%s[%d]", path, idx++);
			scan_value(p, child, SIZE_MAX);
		}
		p->i++;
	} else if (p->text[p->i] == '"') {
		skip_string(p);
	} else {
		while (p->i < p->len && !strchr(",]} \t\r\n", p->text[p->i]))
			p->i++;
	}
	p->depth--;
}

static void line_col(const struct parse *p, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < p->len; i++) {
		if (p->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* "FILE:LINE:COL: PATH: message", pointing at the key (@at_key) or the value of @path. */
static int fail_at(struct parse *p, const char *path, bool at_key, const char *fmt, ...)
{
	char msg[512];
	int line = 0, col = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < p->npos; i++)
		if (!strcmp(p->pos[i].path, path)) {
			line_col(p, at_key ? p->pos[i].key_off : p->pos[i].val_off, &line, &col);
			break;
		}
	if (line)
		snprintf(p->err, p->errlen, "%s:%d:%d: %s%s%s", p->file, line, col, path,
			 *path ? ": " : "", msg);
	else
		snprintf(p->err, p->errlen, "%s: %s%s%s", p->file, path, *path ? ": " : "", msg);
	return -EINVAL;
}

static const char *json_kind(const json_t *v)
{
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
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* Unknown keys are errors: a typo must not silently drop a dimension of the matrix. */
static int check_keys(struct parse *p, const char *path, json_t *obj, const char *const *allowed)
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
		return fail_at(p, child, true, "unknown key '%s' (expected one of: %s)", key, list);
	}
	return 0;
}

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

/* A JSON scalar as the text the command line would carry; NULL for the wrong kind. */
static char *scalar_text(const json_t *v)
{
	char buf[64];

	switch (json_typeof(v)) {
	case JSON_STRING:
		return xstrdup(json_string_value(v));
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

static int get_string(struct parse *p, const char *path, json_t *v, char **ret)
{
	if (!json_is_string(v))
		return fail_at(p, path, false, "expected a string, found %s", json_kind(v));
	*ret = xstrdup(json_string_value(v));
	return *ret ? 0 : -ENOMEM;
}

static int get_int(struct parse *p, const char *path, json_t *v, int min, int max, int *ret)
{
	json_int_t x;

	if (!json_is_integer(v))
		return fail_at(p, path, false, "expected an integer, found %s", json_kind(v));
	x = json_integer_value(v);
	if (x < min || x > max)
		return fail_at(p, path, false, "%" JSON_INTEGER_FORMAT " is out of range %d..%d", x,
			       min, max);
	*ret = (int)x;
	return 0;
}

/* A list of thread counts: [1, 2, 4]; each is checked by the job's own table later. */
static int get_threads(struct parse *p, const char *path, json_t *v, int *out, int *ret_n)
{
	char child[512];
	size_t i;
	json_t *e;

	if (!json_is_array(v) || !json_array_size(v))
		return fail_at(p, path, false,
			       "expected a non-empty array of thread counts, found %s",
			       json_is_array(v) ? "an empty array" : json_kind(v));
	if (json_array_size(v) > SUITE_MAX_THREADS)
		return fail_at(p, path, false, "at most %d thread counts", SUITE_MAX_THREADS);
	json_array_foreach(v, i, e)
	{
		int r;

		snprintf(child, sizeof(child), "%s[%zu]", path, i);
		r = get_int(p, child, e, 1, FSB_MAX_THREADS, &out[i]);
		if (r < 0)
			return r;
	}
	*ret_n = (int)json_array_size(v);
	return 0;
}

/* mkfs options: a string split on blanks (no shell, no quoting), or an array of strings. */
static int get_args(struct parse *p, const char *path, json_t *v, struct suite_fs *fs)
{
	int n = 0;

	if (json_is_string(v)) {
		char *copy = xstrdup(json_string_value(v)), *save = NULL, *tok;

		if (!copy)
			return -ENOMEM;
		fs->mkfs_options = xstrdup(json_string_value(v));
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			if (n == SUITE_MAX_ARGS) {
				free(copy);
				return fail_at(p, path, false, "at most %d mkfs arguments",
					       SUITE_MAX_ARGS);
			}
			fs->mkfs_argv[n++] = xstrdup(tok);
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
				return fail_at(p, child, false, "expected a string, found %s",
					       json_kind(e));
			if (n == SUITE_MAX_ARGS)
				return fail_at(p, child, false, "at most %d mkfs arguments",
					       SUITE_MAX_ARGS);
			fs->mkfs_argv[n++] = xstrdup(json_string_value(e));
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s",
				 i ? " " : "", json_string_value(e));
		}
		fs->mkfs_options = xstrdup(text);
		return 0;
	}
	return fail_at(p, path, false, "expected a string or an array of strings, found %s",
		       json_kind(v));
}

/* "on", "off", "both", true, false, 0, 1, or [0, 1]. */
static int get_barrier(struct parse *p, const char *path, json_t *v, struct suite_fs *fs)
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
	return fail_at(p, path, false,
		       "expected \"on\", \"off\", \"both\", true, false, 0, 1 or [1, 0]");
}

static int parse_fs(struct parse *p, struct suite *s, const char *path, json_t *v)
{
	static const char *const keys[] = { "type",	     "label",	"mkfs_options",
					    "mount_options", "barrier", NULL };
	struct suite_fs *fs = &s->fs[s->nfs++];
	char child[512];
	json_t *x;
	int r;

	if (json_is_string(v)) /* "ext4": all defaults */
		v = json_pack("{s:O}", "type", v);
	else if (json_is_object(v))
		json_incref(v);
	else
		return fail_at(p, path, false, "expected an object or a filesystem type, found %s",
			       json_kind(v));
	r = check_keys(p, path, v, keys);
	if (r < 0)
		goto out;
	x = json_object_get(v, "type");
	snprintf(child, sizeof(child), "%s.type", path);
	if (!x) {
		r = fail_at(p, path, false, "\"type\" is required (ext3, ext4, xfs, btrfs...)");
		goto out;
	}
	r = get_string(p, child, x, &fs->type);
	if (r < 0)
		goto out;
	if (!*fs->type || strchr(fs->type, '/') || strchr(fs->type, ' ') || strlen(fs->type) > 16) {
		r = fail_at(p, child, false, "'%s' is not a filesystem type", fs->type);
		goto out;
	}
	if ((x = json_object_get(v, "label"))) {
		snprintf(child, sizeof(child), "%s.label", path);
		r = get_string(p, child, x, &fs->label);
		if (r < 0)
			goto out;
		if (!*fs->label || strchr(fs->label, '/')) {
			r = fail_at(p, child, false, "a label is non-empty and has no '/'");
			goto out;
		}
	}
	if ((x = json_object_get(v, "mkfs_options"))) {
		snprintf(child, sizeof(child), "%s.mkfs_options", path);
		r = get_args(p, child, x, fs);
		if (r < 0)
			goto out;
	}
	if (!fs->mkfs_options)
		fs->mkfs_options = xstrdup("");
	if ((x = json_object_get(v, "mount_options"))) {
		snprintf(child, sizeof(child), "%s.mount_options", path);
		r = get_string(p, child, x, &fs->mount_options);
		if (r < 0)
			goto out;
	} else {
		fs->mount_options = xstrdup("");
	}
	if ((x = json_object_get(v, "barrier"))) {
		snprintf(child, sizeof(child), "%s.barrier", path);
		r = get_barrier(p, child, x, fs);
		if (r < 0)
			goto out;
		/* the barrier dimension owns these options: two sources would contradict */
		if (strstr(fs->mount_options, "barrier")) {
			r = fail_at(p, child, true,
				    "mount_options already set a barrier option; use one of them");
			goto out;
		}
	}
out:
	json_decref(v);
	return r;
}

static int parse_knobset(struct parse *p, struct suite *s, const char *path, json_t *v)
{
	static const char *const keys[] = { "name", "knobs", NULL };
	struct suite_knobset *ks = &s->ks[s->nks++];
	char child[512];
	const char *k;
	json_t *x;
	int r;

	if (!json_is_object(v))
		return fail_at(p, path, false, "expected an object, found %s", json_kind(v));
	r = check_keys(p, path, v, keys);
	if (r < 0)
		return r;
	x = json_object_get(v, "name");
	if (!x)
		return fail_at(p, path, false, "\"name\" is required");
	snprintf(child, sizeof(child), "%s.name", path);
	r = get_string(p, child, x, &ks->name);
	if (r < 0)
		return r;
	if (!*ks->name || strchr(ks->name, '/'))
		return fail_at(p, child, false, "a name is non-empty and has no '/'");
	x = json_object_get(v, "knobs");
	snprintf(child, sizeof(child), "%s.knobs", path);
	if (!x)
		x = json_object(); /* a baseline set: nothing changed */
	else if (!json_is_object(x))
		return fail_at(p, child, false, "expected an object of knob: value, found %s",
			       json_kind(x));
	else
		json_incref(x);
	ks->map = x;
	if (json_object_size(x) > SUITE_MAX_KNOBS)
		return fail_at(p, child, false, "at most %d knobs", SUITE_MAX_KNOBS);
	json_object_foreach(x, k, v)
	{
		char *val = scalar_text(v), kv[512];

		snprintf(child, sizeof(child), "%s.knobs.%s", path, k);
		/* values depend on the device (a scheduler must be one it lists): checked when
		 * applied; names are known now */
		if (!knob_def_find(k)) {
			free(val);
			return fail_at(
				p, child, true,
				"no knob '%s' (fsbench knobs PATH lists them; e.g. write_cache, nr_requests, scheduler, dirty_ratio)",
				k);
		}
		if (!val)
			return fail_at(p, child, false, "expected a string or a number, found %s",
				       json_kind(v));
		snprintf(kv, sizeof(kv), "%s=%s", k, val);
		free(val);
		ks->knob[ks->n++] = xstrdup(kv);
	}
	return 0;
}

/* Options that a suite sets itself, per cell or for the whole run. */
static const char *const reserved_params[] = { "dir", "json", "quiet", "threads", "knob", NULL };

static int parse_workload(struct parse *p, struct suite *s, const char *path, json_t *v)
{
	static const char *const keys[] = { "name", "label", "params", "victim", "threads", NULL };
	struct suite_workload *w = &s->wl[s->nwl++];
	char child[512], *name = NULL;
	const char *k;
	json_t *x, *pv;
	int r;

	if (!json_is_object(v))
		return fail_at(p, path, false, "expected an object, found %s", json_kind(v));
	r = check_keys(p, path, v, keys);
	if (r < 0)
		return r;
	x = json_object_get(v, "name");
	if (!x)
		return fail_at(p, path, false, "\"name\" is required");
	snprintf(child, sizeof(child), "%s.name", path);
	r = get_string(p, child, x, &name);
	if (r < 0)
		return r;
	w->wl = fsb_workload_find(name);
	if (!w->wl) {
		char list[256] = "";

		for (int i = 0; fsb_workloads[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", fsb_workloads[i]->name);
		r = fail_at(p, child, false, "no workload '%s' (expected one of: %s)", name, list);
		free(name);
		return r;
	}
	free(name);
	if ((x = json_object_get(v, "label"))) {
		snprintf(child, sizeof(child), "%s.label", path);
		r = get_string(p, child, x, &w->label);
		if (r < 0)
			return r;
		if (!*w->label || strchr(w->label, '/'))
			return fail_at(p, child, false, "a label is non-empty and has no '/'");
	}
	if ((x = json_object_get(v, "threads"))) {
		snprintf(child, sizeof(child), "%s.threads", path);
		r = get_threads(p, child, x, w->threads, &w->nthreads);
		if (r < 0)
			return r;
	}
	x = json_object_get(v, "params");
	snprintf(child, sizeof(child), "%s.params", path);
	if (x && !json_is_object(x))
		return fail_at(p, child, false, "expected an object of option: value, found %s",
			       json_kind(x));
	w->params = x ? json_deep_copy(x) : json_object();
	if (json_object_size(w->params) > SUITE_MAX_PARAMS - 1)
		return fail_at(p, child, false, "at most %d params", SUITE_MAX_PARAMS - 1);
	json_object_foreach(w->params, k, pv)
	{
		char ppath[512];

		snprintf(ppath, sizeof(ppath), "%s.params.%s", path, k);
		for (int i = 0; reserved_params[i]; i++)
			if (!strcmp(k, reserved_params[i]))
				return fail_at(p, ppath, true, "'%s' is set by the suite itself%s",
					       k,
					       !strcmp(k, "threads") ?
						       " (use the \"threads\" list)" :
					       !strcmp(k, "knob") ? " (use \"knob_sets\")" :
								    "");
		w->pvalue[w->np] = scalar_text(pv);
		if (!w->pvalue[w->np])
			return fail_at(p, ppath, false,
				       "expected a string, an integer or a boolean, found %s",
				       json_kind(pv));
		w->pname[w->np++] = xstrdup(k);
	}
	if ((x = json_object_get(v, "victim"))) {
		/* shorthand for params.victim, the "and the victim" */
		snprintf(child, sizeof(child), "%s.victim", path);
		if (json_object_get(w->params, "victim"))
			return fail_at(p, child, true, "the victim is already set in params");
		if (!json_is_string(x))
			return fail_at(p, child, false, "expected a string, found %s",
				       json_kind(x));
		json_object_set(w->params, "victim", x);
		w->pname[w->np] = xstrdup("victim");
		w->pvalue[w->np++] = xstrdup(json_string_value(x));
		w->victim_top = true;
	}
	return 0;
}

/* Labels that tell apart entries of the same type: the options in which they differ. */
static char *auto_label(const char *base, const char *detail, int idx)
{
	char *out = NULL;

	if (detail && *detail) {
		if (asprintf(&out, "%s:%s", base, detail) < 0)
			return NULL;
	} else if (asprintf(&out, "%s#%d", base, idx + 1) < 0) {
		return NULL;
	}
	for (char *c = out; *c; c++)
		if (*c == '/')
			*c = '_';
	return out;
}

static void label_filesystems(struct suite *s)
{
	bool given[SUITE_MAX_FS];

	/* an entry with its own label leaves the type to the others */
	for (int i = 0; i < s->nfs; i++)
		given[i] = s->fs[i].label != NULL;
	for (int i = 0; i < s->nfs; i++) {
		struct suite_fs *fs = &s->fs[i];
		bool same_mount = false;
		int same = 0;

		if (fs->label)
			continue;
		for (int j = 0; j < s->nfs; j++)
			if (j != i && !given[j] && !strcmp(s->fs[j].type, fs->type)) {
				same++;
				if (!strcmp(s->fs[j].mount_options, fs->mount_options))
					same_mount = true;
			}
		if (!same)
			fs->label = xstrdup(fs->type);
		else if (!same_mount)
			fs->label = auto_label(fs->type, fs->mount_options, i);
		else
			fs->label = auto_label(fs->type, fs->mkfs_options, i);
	}
}

static void label_workloads(struct suite *s)
{
	bool given[SUITE_MAX_WORKLOADS];

	for (int i = 0; i < s->nwl; i++)
		given[i] = s->wl[i].label != NULL;
	for (int i = 0; i < s->nwl; i++) {
		struct suite_workload *w = &s->wl[i];
		char detail[256] = "";
		bool dup = false;

		if (w->label)
			continue;
		for (int j = 0; j < s->nwl; j++)
			if (j != i && !given[j] && s->wl[j].wl == w->wl)
				dup = true;
		if (!dup) {
			w->label = xstrdup(w->wl->name);
			continue;
		}
		/* name the params in which this entry differs from its namesakes */
		for (int k = 0; k < w->np; k++) {
			bool differs = false;

			for (int j = 0; j < s->nwl; j++) {
				json_t *o = json_object_get(s->wl[j].params, w->pname[k]);

				if (j != i && !given[j] && s->wl[j].wl == w->wl &&
				    !json_equal(o, json_object_get(w->params, w->pname[k])))
					differs = true;
			}
			if (differs)
				snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
					 "%s%s=%s", *detail ? "," : "", w->pname[k], w->pvalue[k]);
		}
		w->label = auto_label(w->wl->name, detail, i);
	}
}

/* Runs every value through the option tables, as the command line would. */
static int validate_jobs(struct parse *p, struct suite *s)
{
	char msg[OPT_ERR_MAX], path[512];
	int r = 0;

	for (int i = 0; i < s->nwl && !r; i++) {
		struct suite_workload *w = &s->wl[i];
		const int *th = w->nthreads ? w->threads : s->threads;
		int nth = w->nthreads ? w->nthreads : s->nthreads;
		struct fsb_job job;

		r = fsb_job_init(&job, w->wl, msg, sizeof(msg));
		if (r < 0) {
			fsb_job_free(&job);
			return fail_at(p, "", false, "%s", msg);
		}
		for (int k = 0; k < w->np && !r; k++) {
			r = fsb_job_set(&job, w->pname[k], w->pvalue[k], msg, sizeof(msg));
			snprintf(path, sizeof(path), "workloads[%d].%s%s", i,
				 w->victim_top && !strcmp(w->pname[k], "victim") ? "" : "params.",
				 w->pname[k]);
			if (r == -ENOENT)
				r = fail_at(p, path, true, "%s has no option '%s'", w->wl->name,
					    w->pname[k]);
			else if (r < 0)
				r = fail_at(p, path, false, "%s", msg);
		}
		for (int t = 0; t < nth && !r; t++) {
			char v[16];

			snprintf(v, sizeof(v), "%d", th[t]);
			r = fsb_job_set(&job, "threads", v, msg, sizeof(msg));
			if (r < 0) {
				if (w->nthreads)
					snprintf(path, sizeof(path), "workloads[%d].threads[%d]", i,
						 t);
				else
					snprintf(path, sizeof(path), "threads[%d]", t);
				r = fail_at(p, path, false, "%s: %s", w->wl->name, msg);
			}
		}
		for (int k = 0; k < s->nks && !r; k++)
			for (int j = 0; j < s->ks[k].n && !r; j++) {
				r = fsb_job_set(&job, "knob", s->ks[k].knob[j], msg, sizeof(msg));
				snprintf(path, sizeof(path), "knob_sets[%d].knobs.%.*s", k,
					 (int)strcspn(s->ks[k].knob[j], "="), s->ks[k].knob[j]);
				if (r == -ENOENT)
					r = fail_at(
						p, path, true,
						"this fsbench has no --knob (knobs are not built in)");
				else if (r < 0)
					r = fail_at(p, path, false, "%s", msg);
			}
		fsb_job_free(&job);
	}
	return r;
}

static bool same_fs(const struct suite_fs *a, const struct suite_fs *b)
{
	return !strcmp(a->type, b->type) && !strcmp(a->mkfs_options, b->mkfs_options) &&
	       !strcmp(a->mount_options, b->mount_options) && a->nbarrier == b->nbarrier &&
	       !memcmp(a->barrier, b->barrier, sizeof(a->barrier));
}

/* Finds i > j whose name (a char * at @off in each @stride-sized element) is the same. */
static bool dup_name(const void *base, size_t stride, size_t off, int n, int *ret_i, int *ret_j)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++) {
			const char *a =
				*(char *const *)((const char *)base + (size_t)i * stride + off);
			const char *b =
				*(char *const *)((const char *)base + (size_t)j * stride + off);

			if (!strcmp(a, b)) {
				*ret_i = i;
				*ret_j = j;
				return true;
			}
		}
	return false;
}

static int name_clash(struct parse *p, const char *what, int i, int j, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "%s[%d]", what, i);
	return fail_at(p, path, false, "same name '%s' as %s[%d]; give it a \"label\"", name, what,
		       j);
}

static int check_unique(struct parse *p, struct suite *s)
{
	int i, j;

	for (i = 0; i < s->nfs; i++)
		for (j = 0; j < i; j++)
			if (same_fs(&s->fs[i], &s->fs[j])) {
				char path[64];

				snprintf(path, sizeof(path), "filesystems[%d]", i);
				return fail_at(
					p, path, false,
					"the same filesystem as filesystems[%d]: the cells would repeat; use \"repetitions\"",
					j);
			}
	if (dup_name(s->fs, sizeof(*s->fs), offsetof(struct suite_fs, label), s->nfs, &i, &j))
		return name_clash(p, "filesystems", i, j, s->fs[i].label);
	if (dup_name(s->wl, sizeof(*s->wl), offsetof(struct suite_workload, label), s->nwl, &i, &j))
		return name_clash(p, "workloads", i, j, s->wl[i].label);
	if (dup_name(s->ks, sizeof(*s->ks), offsetof(struct suite_knobset, name), s->nks, &i, &j)) {
		char path[64];

		snprintf(path, sizeof(path), "knob_sets[%d].name", i);
		return fail_at(p, path, false, "same name as knob_sets[%d]", j);
	}
	return 0;
}

/* Each top-level list: its key, the limit on its length, and its element parser. */
static int parse_list(struct parse *p, struct suite *s, const char *key, int max,
		      int (*one)(struct parse *, struct suite *, const char *, json_t *))
{
	json_t *v = json_object_get(s->root, key), *e;
	size_t i;

	if (!json_is_array(v) || !json_array_size(v))
		return fail_at(p, key, false, "expected a non-empty array, found %s",
			       json_is_array(v) ? "an empty array" : json_kind(v));
	if (json_array_size(v) > (size_t)max)
		return fail_at(p, key, false, "at most %d entries", max);
	json_array_foreach(v, i, e)
	{
		char path[64];
		int r;

		snprintf(path, sizeof(path), "%s[%zu]", key, i);
		r = one(p, s, path, e);
		if (r < 0)
			return r;
	}
	return 0;
}

int suite_parse(struct suite *s, const char *path, const char *text, size_t len, char *err,
		size_t errlen)
{
	static const char *const keys[] = { "name",	   "description", "filesystems",
					    "knob_sets",   "workloads",	  "threads",
					    "repetitions", "image_size",  NULL };
	struct parse p = { .file = path, .text = text, .len = len, .err = err, .errlen = errlen };
	json_error_t jerr;
	json_t *v;
	int r;

	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
	s->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!s->root) {
		snprintf(err, errlen, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	scan_value(&p, "", SIZE_MAX);
	if (!json_is_object(s->root)) {
		r = fail_at(&p, "", false, "expected an object, found %s", json_kind(s->root));
		goto out;
	}
	r = check_keys(&p, "", s->root, keys);
	if (r < 0)
		goto out;
	if ((v = json_object_get(s->root, "name"))) {
		r = get_string(&p, "name", v, &s->name);
		if (r < 0)
			goto out;
	} else {
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t n = strlen(base);

		if (n > 5 && !strcmp(base + n - 5, ".json"))
			n -= 5;
		s->name = strndup(base, n);
	}
	if ((v = json_object_get(s->root, "description"))) {
		r = get_string(&p, "description", v, &s->description);
		if (r < 0)
			goto out;
	}
	r = parse_list(&p, s, "filesystems", SUITE_MAX_FS, parse_fs);
	if (r < 0)
		goto out;
	if (json_object_get(s->root, "knob_sets")) {
		r = parse_list(&p, s, "knob_sets", SUITE_MAX_KNOBSETS, parse_knobset);
		if (r < 0)
			goto out;
	}
	if ((v = json_object_get(s->root, "threads"))) {
		r = get_threads(&p, "threads", v, s->threads, &s->nthreads);
		if (r < 0)
			goto out;
	} else {
		s->threads[0] = 1;
		s->nthreads = 1;
	}
	r = parse_list(&p, s, "workloads", SUITE_MAX_WORKLOADS, parse_workload);
	if (r < 0)
		goto out;
	s->repetitions = 1;
	if ((v = json_object_get(s->root, "repetitions"))) {
		r = get_int(&p, "repetitions", v, 1, SUITE_MAX_REPETITIONS, &s->repetitions);
		if (r < 0)
			goto out;
	}
	s->image_size = SUITE_DEFAULT_IMAGE_SIZE;
	if ((v = json_object_get(s->root, "image_size"))) {
		char *t = scalar_text(v);

		r = t && !json_is_boolean(v) ? opt_parse_size(t, &s->image_size) : -EINVAL;
		if (r < 0 || s->image_size < (INT64_C(64) << 20))
			r = fail_at(
				&p, "image_size", false,
				"expected a size of at least 64M (bytes, or 512M, 4G...), found %s%s%s",
				t ? "'" : "", t ? t : json_kind(v), t ? "'" : "");
		free(t);
		if (r < 0)
			goto out;
	}
	label_filesystems(s);
	label_workloads(s);
	r = check_unique(&p, s);
	if (r < 0)
		goto out;
	r = validate_jobs(&p, s);
out:
	for (size_t i = 0; i < p.npos; i++)
		free(p.pos[i].path);
	free(p.pos);
	return r;
}

int suite_load(struct suite *s, const char *path, char *err, size_t errlen)
{
	FILE *f;
	char *text = NULL;
	size_t len = 0;
	int r;

	memset(s, 0, sizeof(*s));
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "reading suite %s: %s", path, strerror(errno));
		return r;
	}
	/* a suite is a few KiB; 1 MiB is far past any sensible one */
	text = malloc(1 << 20);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "reading suite %s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	len = fread(text, 1, 1 << 20, f);
	if (ferror(f) || len == 1 << 20) {
		r = ferror(f) ? -EIO : -EFBIG;
		snprintf(err, errlen, "reading suite %s: %s", path, strerror(-r));
		fclose(f);
		free(text);
		return r;
	}
	fclose(f);
	r = suite_parse(s, path, text, len, err, errlen);
	free(text);
	return r;
}

void suite_free(struct suite *s)
{
	for (int i = 0; i < s->nfs; i++) {
		struct suite_fs *fs = &s->fs[i];

		free(fs->type);
		free(fs->label);
		free(fs->mkfs_options);
		free(fs->mount_options);
		for (int j = 0; fs->mkfs_argv[j]; j++)
			free(fs->mkfs_argv[j]);
	}
	for (int i = 0; i < s->nks; i++) {
		free(s->ks[i].name);
		for (int j = 0; j < s->ks[i].n; j++)
			free(s->ks[i].knob[j]);
		json_decref(s->ks[i].map);
	}
	for (int i = 0; i < s->nwl; i++) {
		free(s->wl[i].label);
		for (int j = 0; j < s->wl[i].np; j++) {
			free(s->wl[i].pname[j]);
			free(s->wl[i].pvalue[j]);
		}
		json_decref(s->wl[i].params);
	}
	free(s->path);
	free(s->name);
	free(s->description);
	json_decref(s->root);
	memset(s, 0, sizeof(*s));
}

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *c = list; *c;) {
		size_t l = strcspn(c, ",");

		if (l == n && !strncmp(c, name, n))
			return true;
		c += l;
		if (*c)
			c++;
	}
	return false;
}

/* Every comma-separated name must match something: a typo must not shrink the matrix. */
static int check_list(const char *opt, const char *list,
		      bool (*known)(const struct suite *, const char *, size_t),
		      const struct suite *s, char *err, size_t errlen)
{
	for (const char *c = list; *c;) {
		size_t l = strcspn(c, ",");

		if (!l || !known(s, c, l)) {
			snprintf(err, errlen, "%s: '%.*s' is not in suite %s", opt, (int)l, c,
				 s->path);
			return -EINVAL;
		}
		c += l;
		if (*c)
			c++;
	}
	return 0;
}

static bool fs_known(const struct suite *s, const char *name, size_t n)
{
	for (int i = 0; i < s->nfs; i++)
		if ((strlen(s->fs[i].type) == n && !strncmp(s->fs[i].type, name, n)) ||
		    (strlen(s->fs[i].label) == n && !strncmp(s->fs[i].label, name, n)))
			return true;
	return false;
}

static void fs_release(struct suite_fs *fs)
{
	free(fs->type);
	free(fs->label);
	free(fs->mkfs_options);
	free(fs->mount_options);
	for (int j = 0; fs->mkfs_argv[j]; j++)
		free(fs->mkfs_argv[j]);
}

int suite_select_fs(struct suite *s, const char *list, char *err, size_t errlen)
{
	int r = check_list("--fs", list, fs_known, s, err, errlen), n = 0;

	if (r < 0)
		return r;
	for (int i = 0; i < s->nfs; i++) {
		if (in_list(list, s->fs[i].type) || in_list(list, s->fs[i].label))
			s->fs[n++] = s->fs[i];
		else
			fs_release(&s->fs[i]);
	}
	for (int i = n; i < s->nfs; i++)
		memset(&s->fs[i], 0, sizeof(s->fs[i]));
	s->nfs = n;
	return 0;
}

int suite_select_workloads(struct suite *s, const char *list, char *err, size_t errlen)
{
	int n = 0;

	(void)err;
	(void)errlen;
	for (int i = 0; i < s->nwl; i++) {
		struct suite_workload *w = &s->wl[i];

		if (in_list(list, w->wl->name) || in_list(list, w->label)) {
			s->wl[n++] = *w;
			continue;
		}
		free(w->label);
		for (int j = 0; j < w->np; j++) {
			free(w->pname[j]);
			free(w->pvalue[j]);
		}
		json_decref(w->params);
	}
	for (int i = n; i < s->nwl; i++)
		memset(&s->wl[i], 0, sizeof(s->wl[i]));
	s->nwl = n;
	return 0;
}

int suite_set_threads(struct suite *s, const char *list, char *err, size_t errlen)
{
	int th[SUITE_MAX_THREADS], n = 0;

	for (const char *c = list; *c;) {
		size_t l = strcspn(c, ",");
		char num[16];
		int64_t v;

		snprintf(num, sizeof(num), "%.*s", (int)(l < 15 ? l : 15), c);
		if (n == SUITE_MAX_THREADS || opt_parse_int(num, &v) < 0 || v < 1 ||
		    v > FSB_MAX_THREADS) {
			snprintf(
				err, errlen,
				"--threads: '%.*s' is not a thread count (1..%d, at most %d of them)",
				(int)l, c, FSB_MAX_THREADS, SUITE_MAX_THREADS);
			return -EINVAL;
		}
		th[n++] = (int)v;
		c += l;
		if (*c)
			c++;
	}
	if (!n) {
		snprintf(err, errlen, "--threads: an empty list");
		return -EINVAL;
	}
	memcpy(s->threads, th, sizeof(th[0]) * (size_t)n);
	s->nthreads = n;
	for (int i = 0; i < s->nwl; i++)
		s->wl[i].nthreads = 0;
	return 0;
}

int suite_barrier_option(const char *fstype, int barrier, const char **ret)
{
	/* one table for knobs and suites: xfs has no option either way, on is its only state */
	*ret = fs_traits_barrier_option(fstype, barrier);
	return *ret ? 0 : -EOPNOTSUPP;
}

static void cell_name(const struct suite *s, struct suite_cell *c)
{
	char *o = c->name;
	size_t len = sizeof(c->name), n;

	n = (size_t)snprintf(o, len, "%s", s->fs[c->fs].label);
	if (c->barrier >= 0 && n < len)
		n += (size_t)snprintf(o + n, len - n, "/barrier=%d", c->barrier);
	/* one knob set is a constant of the suite, not a dimension worth naming */
	if (c->ks >= 0 && s->nks > 1 && n < len)
		n += (size_t)snprintf(o + n, len - n, "/%s", s->ks[c->ks].name);
	if (n < len)
		snprintf(o + n, len - n, "/%s/t=%d", s->wl[c->wl].label, c->threads);
}

int suite_expand(const struct suite *s, struct suite_cell **ret, int *ret_n, char *err,
		 size_t errlen)
{
	struct suite_cell *cells = NULL;
	int n = 0, cap = 0;

	*ret = NULL;
	*ret_n = 0;
	for (int f = 0; f < s->nfs; f++) {
		const struct suite_fs *fs = &s->fs[f];
		int nb = fs->nbarrier ? fs->nbarrier : 1;

		for (int b = 0; b < nb; b++)
			for (int k = 0; k < (s->nks ? s->nks : 1); k++)
				for (int w = 0; w < s->nwl; w++) {
					const struct suite_workload *wl = &s->wl[w];
					int nth = wl->nthreads ? wl->nthreads : s->nthreads;

					for (int t = 0; t < nth; t++) {
						struct suite_cell *c;
						const char *bopt = "";

						if (n == SUITE_MAX_CELLS) {
							free(cells);
							snprintf(err, errlen,
								 "suite %s: more than %d cells",
								 s->path, SUITE_MAX_CELLS);
							return -E2BIG;
						}
						if (n == cap) {
							int nc = cap ? cap * 2 : 64;
							struct suite_cell *a = realloc(
								cells, (size_t)nc * sizeof(*a));

							if (!a) {
								free(cells);
								snprintf(err, errlen, "%s",
									 strerror(ENOMEM));
								return -ENOMEM;
							}
							cells = a;
							cap = nc;
						}
						c = &cells[n++];
						memset(c, 0, sizeof(*c));
						c->fs = f;
						c->barrier = fs->nbarrier ? fs->barrier[b] : -1;
						c->ks = s->nks ? k : -1;
						c->wl = w;
						c->threads = wl->nthreads ? wl->threads[t] :
									    s->threads[t];
						cell_name(s, c);
						if (c->barrier >= 0 &&
						    suite_barrier_option(fs->type, c->barrier,
									 &bopt) < 0)
							c->skip =
								c->barrier ?
									"barriers cannot be set on this filesystem" :
									"this filesystem cannot turn barriers off (xfs removed nobarrier in 4.19)";
						snprintf(c->mount_options, sizeof(c->mount_options),
							 "%s%s%s", fs->mount_options,
							 *fs->mount_options && bopt && *bopt ? "," :
											       "",
							 bopt ? bopt : "");
					}
				}
	}
	*ret = cells;
	*ret_n = n;
	return 0;
}

int suite_job(const struct suite *s, const struct suite_cell *c, struct fsb_job *job, char *err,
	      size_t errlen)
{
	const struct suite_workload *w = &s->wl[c->wl];
	char v[16];
	int r;

	r = fsb_job_init(job, w->wl, err, errlen);
	for (int k = 0; k < w->np && !r; k++)
		r = fsb_job_set(job, w->pname[k], w->pvalue[k], err, errlen);
	snprintf(v, sizeof(v), "%d", c->threads);
	if (!r)
		r = fsb_job_set(job, "threads", v, err, errlen);
	for (int k = 0; c->ks >= 0 && k < s->ks[c->ks].n && !r; k++)
		r = fsb_job_set(job, "knob", s->ks[c->ks].knob[k], err, errlen);
	return r;
}

json_t *suite_coords(const struct suite *s, const struct suite_cell *c, int repetition)
{
	const struct suite_fs *fs = &s->fs[c->fs];
	const struct suite_workload *w = &s->wl[c->wl];

	/* labels live only in the cell's name: coords hold what was run, so compare --across fs
	 * lines up ext4 and xfs cells that differ in nothing else */
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:s,s:O,s:i,s:i,s:s}", "fs", fs->type,
			 "mkfs_options", fs->mkfs_options, "mount_options", c->mount_options,
			 "barrier", c->barrier >= 0 ? json_integer(c->barrier) : json_null(),
			 "knob_set", c->ks >= 0 ? json_string(s->ks[c->ks].name) : json_null(),
			 "knobs", c->ks >= 0 ? json_deep_copy(s->ks[c->ks].map) : json_object(),
			 "workload", w->wl->name, "params", w->params, "threads", c->threads,
			 "repetition", repetition, "cell", c->name);
}

json_t *suite_json(const struct suite *s, const struct suite_cell *cells, int n)
{
	json_t *o = json_object(), *names = json_array(), *skipped = json_array();

	for (int i = 0; i < n; i++) {
		if (cells[i].skip)
			json_array_append_new(skipped, json_pack("{s:s,s:s}", "cell", cells[i].name,
								 "why", cells[i].skip));
		else
			json_array_append_new(names, json_string(cells[i].name));
	}
	json_object_set_new(o, "file", json_string(s->path));
	json_object_set_new(o, "name", json_string(s->name));
	if (s->description)
		json_object_set_new(o, "description", json_string(s->description));
	json_object_set_new(o, "repetitions", json_integer(s->repetitions));
	json_object_set_new(o, "image_size", json_integer(s->image_size));
	json_object_set_new(o, "cells", names);
	json_object_set_new(o, "skipped", skipped);
	json_object_set(o, "definition", s->root);
	return o;
}
