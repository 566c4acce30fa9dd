/* Suite files: the entries (filesystems, knob sets, workloads) parsed and validated. */
#include "fsbench/suite/parser.h"

#include "probes/knob/knob.h"
#include "fsbench/core/opt.h"
#include "fsbench/core/workload.h"
#include "fsbench/ext/ext_table.h"
#include "fsbench/workloads/table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		return suite_fail_at(p, path, false,
				     "expected an object or a filesystem type, found %s",
				     suite_json_kind(v));
	r = suite_check_keys(p, path, v, keys);
	if (r < 0)
		goto out;
	x = json_object_get(v, "type");
	snprintf(child, sizeof(child), "%s.type", path);
	if (!x) {
		r = suite_fail_at(p, path, false,
				  "\"type\" is required (ext3, ext4, xfs, btrfs...)");
		goto out;
	}
	r = suite_get_string(p, child, x, &fs->type);
	if (r < 0)
		goto out;
	if (!*fs->type || strchr(fs->type, '/') || strchr(fs->type, ' ') || strlen(fs->type) > 16) {
		r = suite_fail_at(p, child, false, "'%s' is not a filesystem type", fs->type);
		goto out;
	}
	if ((x = json_object_get(v, "label"))) {
		snprintf(child, sizeof(child), "%s.label", path);
		r = suite_get_string(p, child, x, &fs->label);
		if (r < 0)
			goto out;
		if (!*fs->label || strchr(fs->label, '/')) {
			r = suite_fail_at(p, child, false, "a label is non-empty and has no '/'");
			goto out;
		}
	}
	if ((x = json_object_get(v, "mkfs_options"))) {
		snprintf(child, sizeof(child), "%s.mkfs_options", path);
		r = suite_get_args(p, child, x, fs);
		if (r < 0)
			goto out;
	}
	if (!fs->mkfs_options)
		fs->mkfs_options = suite_strdup("");
	if ((x = json_object_get(v, "mount_options"))) {
		snprintf(child, sizeof(child), "%s.mount_options", path);
		r = suite_get_string(p, child, x, &fs->mount_options);
		if (r < 0)
			goto out;
	} else {
		fs->mount_options = suite_strdup("");
	}
	if ((x = json_object_get(v, "barrier"))) {
		snprintf(child, sizeof(child), "%s.barrier", path);
		r = suite_get_barrier(p, child, x, fs);
		if (r < 0)
			goto out;
		/* the barrier dimension owns these options: two sources would contradict */
		if (strstr(fs->mount_options, "barrier")) {
			r = suite_fail_at(
				p, child, true,
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
		return suite_fail_at(p, path, false, "expected an object, found %s",
				     suite_json_kind(v));
	r = suite_check_keys(p, path, v, keys);
	if (r < 0)
		return r;
	x = json_object_get(v, "name");
	if (!x)
		return suite_fail_at(p, path, false, "\"name\" is required");
	snprintf(child, sizeof(child), "%s.name", path);
	r = suite_get_string(p, child, x, &ks->name);
	if (r < 0)
		return r;
	if (!*ks->name || strchr(ks->name, '/'))
		return suite_fail_at(p, child, false, "a name is non-empty and has no '/'");
	x = json_object_get(v, "knobs");
	snprintf(child, sizeof(child), "%s.knobs", path);
	if (!x)
		x = json_object(); /* a baseline set: nothing changed */
	else if (!json_is_object(x))
		return suite_fail_at(p, child, false, "expected an object of knob: value, found %s",
				     suite_json_kind(x));
	else
		json_incref(x);
	ks->map = x;
	if (json_object_size(x) > SUITE_MAX_KNOBS)
		return suite_fail_at(p, child, false, "at most %d knobs", SUITE_MAX_KNOBS);
	json_object_foreach(x, k, v)
	{
		char *val = suite_scalar_text(v), kv[512];

		snprintf(child, sizeof(child), "%s.knobs.%s", path, k);
		/* values depend on the device (a scheduler must be one it lists): checked when
		 * applied; names are known now */
		if (!knob_def_find(k)) {
			free(val);
			return suite_fail_at(
				p, child, true,
				"no knob '%s' (fsbench knobs PATH lists them; e.g. write_cache, nr_requests, scheduler, dirty_ratio)",
				k);
		}
		if (!val)
			return suite_fail_at(p, child, false,
					     "expected a string or an integer, found %s",
					     suite_json_kind(v));
		/* what the CLI refuses without a device, a suite refuses too (dirty_ratio=-1) */
		if (knob_check_value(k, val, kv, sizeof(kv)) < 0) {
			free(val);
			return suite_fail_at(p, child, false, "%s", kv);
		}
		snprintf(kv, sizeof(kv), "%s=%s", k, val);
		free(val);
		ks->knob[ks->n++] = suite_strdup(kv);
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
		return suite_fail_at(p, path, false, "expected an object, found %s",
				     suite_json_kind(v));
	r = suite_check_keys(p, path, v, keys);
	if (r < 0)
		return r;
	x = json_object_get(v, "name");
	if (!x)
		return suite_fail_at(p, path, false, "\"name\" is required");
	snprintf(child, sizeof(child), "%s.name", path);
	r = suite_get_string(p, child, x, &name);
	if (r < 0)
		return r;
	w->wl = fsb_workload_find(name);
	if (!w->wl) {
		char list[256] = "";

		for (int i = 0; fsb_workloads[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", fsb_workloads[i]->name);
		r = suite_fail_at(p, child, false, "no workload '%s' (expected one of: %s)", name,
				  list);
		free(name);
		return r;
	}
	free(name);
	if ((x = json_object_get(v, "label"))) {
		snprintf(child, sizeof(child), "%s.label", path);
		r = suite_get_string(p, child, x, &w->label);
		if (r < 0)
			return r;
		if (!*w->label || strchr(w->label, '/'))
			return suite_fail_at(p, child, false,
					     "a label is non-empty and has no '/'");
	}
	if ((x = json_object_get(v, "threads"))) {
		snprintf(child, sizeof(child), "%s.threads", path);
		r = suite_get_threads(p, child, x, w->threads, &w->nthreads);
		if (r < 0)
			return r;
	}
	x = json_object_get(v, "params");
	snprintf(child, sizeof(child), "%s.params", path);
	if (x && !json_is_object(x))
		return suite_fail_at(p, child, false,
				     "expected an object of option: value, found %s",
				     suite_json_kind(x));
	w->params = x ? json_deep_copy(x) : json_object();
	if (json_object_size(w->params) > SUITE_MAX_PARAMS - 1)
		return suite_fail_at(p, child, false, "at most %d params", SUITE_MAX_PARAMS - 1);
	json_object_foreach(w->params, k, pv)
	{
		char ppath[512];

		snprintf(ppath, sizeof(ppath), "%s.params.%s", path, k);
		for (int i = 0; reserved_params[i]; i++)
			if (!strcmp(k, reserved_params[i]))
				return suite_fail_at(p, ppath, true,
						     "'%s' is set by the suite itself%s", k,
						     !strcmp(k, "threads") ?
							     " (use the \"threads\" list)" :
						     !strcmp(k, "knob") ? " (use \"knob_sets\")" :
									  "");
		w->pvalue[w->np] = suite_scalar_text(pv);
		if (!w->pvalue[w->np])
			return suite_fail_at(p, ppath, false,
					     "expected a string, an integer or a boolean, found %s",
					     suite_json_kind(pv));
		w->pname[w->np++] = suite_strdup(k);
	}
	if ((x = json_object_get(v, "victim"))) {
		/* shorthand for params.victim, the "and the victim" */
		snprintf(child, sizeof(child), "%s.victim", path);
		if (json_object_get(w->params, "victim"))
			return suite_fail_at(p, child, true, "the victim is already set in params");
		if (!json_is_string(x))
			return suite_fail_at(p, child, false, "expected a string, found %s",
					     suite_json_kind(x));
		json_object_set(w->params, "victim", x);
		w->pname[w->np] = suite_strdup("victim");
		w->pvalue[w->np++] = suite_strdup(json_string_value(x));
		w->victim_top = true;
	}
	return 0;
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

		r = fsb_job_init(&job, w->wl, fsb_exts, msg, sizeof(msg));
		if (r < 0) {
			fsb_job_free(&job);
			return suite_fail_at(p, "", false, "%s", msg);
		}
		for (int k = 0; k < w->np && !r; k++) {
			r = fsb_job_set(&job, w->pname[k], w->pvalue[k], msg, sizeof(msg));
			snprintf(path, sizeof(path), "workloads[%d].%s%s", i,
				 w->victim_top && !strcmp(w->pname[k], "victim") ? "" : "params.",
				 w->pname[k]);
			if (r == -ENOENT)
				r = suite_fail_at(p, path, true, "%s has no option '%s'",
						  w->wl->name, w->pname[k]);
			else if (r < 0)
				r = suite_fail_at(p, path, false, "%s", msg);
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
				r = suite_fail_at(p, path, false, "%s: %s", w->wl->name, msg);
			}
		}
		for (int k = 0; k < s->nks && !r; k++)
			for (int j = 0; j < s->ks[k].n && !r; j++) {
				r = fsb_job_set(&job, "knob", s->ks[k].knob[j], msg, sizeof(msg));
				snprintf(path, sizeof(path), "knob_sets[%d].knobs.%.*s", k,
					 (int)strcspn(s->ks[k].knob[j], "="), s->ks[k].knob[j]);
				if (r == -ENOENT)
					r = suite_fail_at(
						p, path, true,
						"this fsbench has no --knob (knobs are not built in)");
				else if (r < 0)
					r = suite_fail_at(p, path, false, "%s", msg);
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
	return suite_fail_at(p, path, false, "same name '%s' as %s[%d]; give it a \"label\"", name,
			     what, j);
}

static int check_unique(struct parse *p, struct suite *s)
{
	int i, j;

	for (i = 0; i < s->nfs; i++)
		for (j = 0; j < i; j++)
			if (same_fs(&s->fs[i], &s->fs[j])) {
				char path[64];

				snprintf(path, sizeof(path), "filesystems[%d]", i);
				return suite_fail_at(
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
		return suite_fail_at(p, path, false, "same name as knob_sets[%d]", j);
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
		return suite_fail_at(p, key, false, "expected a non-empty array, found %s",
				     json_is_array(v) ? "an empty array" : suite_json_kind(v));
	if (json_array_size(v) > (size_t)max)
		return suite_fail_at(p, key, false, "at most %d entries", max);
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
	s->path = suite_strdup(path);
	s->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!s->root) {
		snprintf(err, errlen, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	suite_scan_value(&p, "", SIZE_MAX);
	if (!json_is_object(s->root)) {
		r = suite_fail_at(&p, "", false, "expected an object, found %s",
				  suite_json_kind(s->root));
		goto out;
	}
	r = suite_check_keys(&p, "", s->root, keys);
	if (r < 0)
		goto out;
	if ((v = json_object_get(s->root, "name"))) {
		r = suite_get_string(&p, "name", v, &s->name);
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
		r = suite_get_string(&p, "description", v, &s->description);
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
		r = suite_get_threads(&p, "threads", v, s->threads, &s->nthreads);
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
		r = suite_get_int(&p, "repetitions", v, 1, SUITE_MAX_REPETITIONS, &s->repetitions);
		if (r < 0)
			goto out;
	}
	s->image_size = SUITE_DEFAULT_IMAGE_SIZE;
	if ((v = json_object_get(s->root, "image_size"))) {
		char *t = suite_scalar_text(v);

		r = t && !json_is_boolean(v) ? opt_parse_size(t, &s->image_size) : -EINVAL;
		if (r < 0 || s->image_size < (INT64_C(64) << 20))
			r = suite_fail_at(
				&p, "image_size", false,
				"expected a size of at least 64M (bytes, or 512M, 4G...), found %s%s%s",
				t ? "'" : "", t ? t : suite_json_kind(v), t ? "'" : "");
		free(t);
		if (r < 0)
			goto out;
	}
	suite_label_filesystems(s);
	suite_label_workloads(s);
	r = check_unique(&p, s);
	if (r < 0)
		goto out;
	r = validate_jobs(&p, s);
out:
	suite_scan_free(&p);
	return r;
}
