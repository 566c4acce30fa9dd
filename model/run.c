/* The typed run and its sample key (see run.h). */
#include "model/run.h"
#include "model/result_file.h"
#include "model/schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *mdl_run_sample_keyobj(const json_t *run, const char *across)
{
	const json_t *coords = json_object_get(run, MDL_KEY_COORDS);
	json_t *k, *params;

	if (json_is_object(coords)) {
		k = json_deep_copy(coords);
		if (!k)
			return NULL;
		json_object_del(k, "repetition");
		json_object_del(k, "cell");
		if (across)
			json_object_del(k, across);
		return k;
	}
	params = json_deep_copy(json_object_get(run, "params"));
	if (!params)
		params = json_object();
	k = json_object();
	if (!params || !k) {
		json_decref(params);
		json_decref(k);
		return NULL;
	}
	/* where it ran and where it wrote differ between repetitions and say nothing about the load */
	json_object_del(params, "dir");
	json_object_del(params, "json");
	json_object_del(params, "quiet");
	json_object_del(params, "log");
	json_object_set(k, MDL_KEY_WORKLOAD, json_object_get(run, MDL_KEY_WORKLOAD));
	json_object_set(k, MDL_KEY_THREADS, json_object_get(run, MDL_KEY_THREADS));
	if (across) {
		/* the thread count is in both (it differs from params' with more -d than -t) */
		json_object_del(k, across);
		json_object_del(params, across);
	}
	json_object_set_new(k, "params", params);
	return k;
}

char *mdl_run_sample_key(const json_t *run, const char *across)
{
	json_t *k = mdl_run_sample_keyobj(run, across);
	char *s = k ? json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(k);
	return s;
}

char *mdl_metric_key(const char *sample_key, const char *metric)
{
	char *s;

	return asprintf(&s, "%s#%s", sample_key, metric) < 0 ? NULL : s;
}

static void load_decode(const json_t *hl, struct mdl_host_load *ret)
{
	const json_t *o = json_object_get(hl, "others_pct"), *st = json_object_get(hl, "steal_pct");
	const json_t *w = json_object_get(hl, "self_wait_pct");

	*ret = (struct mdl_host_load){ 0 };
	if (json_is_number(o) && json_is_number(st)) {
		ret->measured = true;
		ret->others_pct = json_number_value(o);
		ret->steal_pct = json_number_value(st);
	}
	if (json_is_number(w)) {
		ret->has_wait = true;
		ret->self_wait_pct = json_number_value(w);
	}
}

int mdl_run_decode(const json_t *run, const json_t *doc, struct mdl_run *ret)
{
	const json_t *coords = json_object_get(run, MDL_KEY_COORDS);
	const json_t *rep = json_object_get(coords, "repetition");

	*ret = (struct mdl_run){
		.json = run,
		.doc = doc,
		.workload = json_string_value(json_object_get(run, MDL_KEY_WORKLOAD)),
		.threads = json_integer_value(json_object_get(run, MDL_KEY_THREADS)),
		.repetition = json_is_integer(rep) ? json_integer_value(rep) : -1,
		.cell = json_string_value(json_object_get(coords, "cell")),
		.fs = json_string_value(json_object_get(coords, "fs")),
		.complete = mdl_run_complete(run),
		.error = json_string_value(json_object_get(mdl_run_summary(run), MDL_KEY_ERROR)),
		.unit = mdl_run_unit(run),
		.kernel =
			json_string_value(json_object_get(json_object_get(doc, "host"), "kernel")),
	};
	if (!ret->fs)
		ret->fs = json_string_value(
			json_object_get(json_object_get(run, "target"), "fstype"));
	load_decode(json_object_get(run, "host_load"), &ret->load);
	ret->key = mdl_run_sample_key(run, NULL);
	return ret->key ? 0 : -ENOMEM;
}

void mdl_run_clear(struct mdl_run *r)
{
	free(r->key);
	r->key = NULL;
}
