/* What dashboards filter on, for the runs of one side of a sample: labels, start time, call totals. */
#include "report/context.h"
#include "model/schema.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Adds @v to the list of distinct values of label @k (the list is joined at the end). */
static void label_add(json_t *labels, const char *k, const char *v)
{
	json_t *list = json_object_get(labels, k), *x;
	size_t i;

	if (!v)
		return;
	if (!list) {
		list = json_array();
		json_object_set_new(labels, k, list);
	}
	json_array_foreach(list, i, x) if (!strcmp(json_string_value(x), v)) return;
	json_array_append_new(list, json_string(v));
}

/* "k=v,k=v" of a single run's --knob list; NULL when it set none. */
static char *knob_list(const json_t *knobs)
{
	size_t i, len = 1;
	const json_t *k;
	char *out;

	if (!json_array_size(knobs))
		return NULL;
	json_array_foreach(knobs, i, k) len += strlen(mdl_str_or(json_string_value(k), "")) + 1;
	out = calloc(1, len);
	if (!out)
		return NULL;
	json_array_foreach(knobs, i, k)
	{
		if (i)
			strcat(out, ",");
		strcat(out, mdl_str_or(json_string_value(k), ""));
	}
	return out;
}

static void run_labels(json_t *labels, const struct mdl_run_ref *r)
{
	const json_t *coords = json_object_get(r->run, MDL_KEY_COORDS),
		     *target = json_object_get(r->run, "target"),
		     *host = json_object_get(r->doc, "host");
	const json_t *barrier = json_object_get(coords, "barrier");
	char *knobs = NULL;

	const char *requested = mdl_json_str(coords, "mount_options", NULL);

	label_add(labels, "fs", mdl_json_str(coords, "fs", mdl_json_str(target, "fstype", NULL)));
	/*
	 * One meaning wherever the run came from: the options the filesystem was mounted with,
	 * as the kernel showed them. What a suite asked for ("" is the filesystem's defaults) is
	 * kept beside them as mount_requested; a standalone run asked for nothing.
	 */
	label_add(labels, "mount_options", mdl_json_str(target, "mount_options", requested));
	if (requested)
		label_add(labels, "mount_requested", *requested ? requested : "defaults");
	if (json_is_object(coords)) {
		label_add(labels, "knob_set", mdl_json_str(coords, "knob_set", "none"));
	} else {
		knobs = knob_list(json_object_get(json_object_get(r->run, "params"), "knob"));
		label_add(labels, "knob_set", knobs ? knobs : "none");
		free(knobs);
	}
	if (json_is_integer(barrier))
		label_add(labels, "barrier", json_integer_value(barrier) ? "1" : "0");
	label_add(labels, "device_model", mdl_json_str(target, "model", NULL));
	label_add(labels, "kernel", mdl_json_str(host, "kernel", NULL));
	label_add(labels, "kernel_version", mdl_json_str(host, "kernel_version", NULL));
	label_add(labels, "arch", mdl_json_str(host, "machine", NULL));
	label_add(labels, "host", mdl_json_str(host, "hostname", NULL));
}

/* Distinct values joined by " | ": runs pooled from two hosts say so instead of hiding one. */
static void labels_join(json_t *labels)
{
	const char *k;
	json_t *list, *x;
	void *tmp;

	json_object_foreach_safe(labels, tmp, k, list)
	{
		size_t i, len = 1;
		char *joined;

		json_array_foreach(list, i, x) len += strlen(json_string_value(x)) + 3;
		joined = calloc(1, len);
		if (!joined) {
			json_object_del(labels, k);
			continue;
		}
		json_array_foreach(list, i, x)
		{
			if (i)
				strcat(joined, " | ");
			strcat(joined, json_string_value(x));
		}
		json_object_set_new(labels, k, json_string(joined));
		free(joined);
	}
}

/*
 * Adds @op's @key to the total's: a result file is anyone's, so two runs whose sums are
 * near INT64_MAX saturate instead of overflowing (the total is then a bound, not a sum).
 */
static void total_add(json_t *t, const json_t *op, const char *key)
{
	json_int_t a = json_integer_value(json_object_get(t, key)),
		   b = json_integer_value(json_object_get(op, key)), sum;

	if (__builtin_add_overflow(a, b, &sum))
		sum = b > 0 ? INT64_MAX : INT64_MIN;
	json_object_set_new(t, key, json_integer(sum));
}

static void ops_add(json_t *ops, const json_t *run)
{
	const char *name;
	json_t *op;

	json_object_foreach((json_t *)mdl_run_ops(run), name, op)
	{
		json_t *t = json_object_get(ops, name);

		if (!t) {
			t = json_pack("{s:I,s:I}", "count", (json_int_t)0, "sum_ns", (json_int_t)0);
			json_object_set_new(ops, name, t);
		}
		total_add(t, op, "count");
		total_add(t, op, "sum_ns");
	}
}

/* Sums of a side's host load (a run without host_load adds nothing: older results lack it). */
struct load_sum {
	double others, steal, wait;
	size_t n, nwait;
	double canary[2]; /* fsync p50 of the device's canary before and after the runs, µs */
	size_t ncanary[2];
};

/*
 * What names a side for a reader (the report's head): the kernel's build and command line,
 * the CPU, fsbench's version, the command that made the result; values the runs disagree on
 * are joined like labels. @load sums the runs' host_load when they have it.
 */
static void run_about(json_t *about, const struct mdl_run_ref *r, struct load_sum *load)
{
	const json_t *host = json_object_get(r->doc, "host"),
		     *argv = json_object_get(json_object_get(r->doc, "config"), "argv"),
		     *hl = json_object_get(r->run, "host_load"), *x;
	char cmd[512] = "fsbench";
	size_t i, at = strlen(cmd);

	label_add(about, "device", mdl_json_str(json_object_get(r->run, "target"), "device", NULL));
	label_add(about, "cmdline", mdl_json_str(host, "cmdline", NULL));
	/* a kernel gate's boot: where (a LAVA job's guest runs its suite from LAVA's test shell) */
	if (json_is_object(json_object_get(r->doc, "vm")))
		label_add(about, "booted",
			  mdl_json_str(json_object_get(r->doc, "vm"), "backend", "local"));
	label_add(about, "cpu", mdl_json_str(host, "cpu_model", NULL));
	label_add(about, "fsbench", mdl_json_str(json_object_get(r->doc, "tool"), "version", NULL));
	json_array_foreach(argv, i, x)
	{
		const char *a = mdl_str_or(json_string_value(x), "?");
		int w;

		/* where the result was written says nothing of how it ran, and differs per run */
		if (!strcmp(a, "--json") || !strcmp(a, "-o")) {
			i++;
			continue;
		}
		w = snprintf(cmd + at, sizeof(cmd) - at, " %s", a);

		if (w < 0 || (size_t)w >= sizeof(cmd) - at)
			break;
		at += (size_t)w;
	}
	if (json_array_size(argv))
		label_add(about, "command", cmd);
	/* read defensively: a result file is anyone's, and older ones have no host_load */
	if (json_is_number(json_object_get(hl, "others_pct")) &&
	    json_is_number(json_object_get(hl, "steal_pct"))) {
		load->others += json_number_value(json_object_get(hl, "others_pct"));
		load->steal += json_number_value(json_object_get(hl, "steal_pct"));
		load->n++;
	}
	if (json_is_number(json_object_get(hl, "self_wait_pct"))) {
		load->wait += json_number_value(json_object_get(hl, "self_wait_pct"));
		load->nwait++;
	}
	for (int w = 0; w < 2; w++) {
		const json_t *p50 = json_object_get(
			json_object_get(json_object_get(r->run, "canary"), w ? "after" : "before"),
			"p50_us");

		if (json_is_number(p50) && json_number_value(p50) > 0) {
			load->canary[w] += json_number_value(p50);
			load->ncanary[w]++;
		}
	}
}

/* "host_load": the runs' mean others' CPU share, steal and (when known) own run-queue wait. */
static void load_set(json_t *about, const struct load_sum *l)
{
	json_t *o;

	/* the device's own speed around the runs (suites' canary): a drifting disk shows here */
	if (l->ncanary[0] || l->ncanary[1]) {
		o = json_object();
		for (int w = 0; o && w < 2; w++)
			if (l->ncanary[w])
				json_object_set_new(
					o, w ? "after_p50_us" : "before_p50_us",
					json_real(l->canary[w] / (double)l->ncanary[w]));
		if (o)
			json_object_set_new(about, "canary", o);
	}
	if (!l->n)
		return;
	o = json_pack("{s:f,s:f,s:I}", "others_pct", l->others / (double)l->n, "steal_pct",
		      l->steal / (double)l->n, "runs", (json_int_t)l->n);
	if (o && l->nwait)
		json_object_set_new(o, "self_wait_pct", json_real(l->wait / (double)l->nwait));
	if (o)
		json_object_set_new(about, "host_load", o);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * "results": the start times of the result files a side pooled, sorted (the same set in any
 * order gives the same list), and "last_start_time", the latest of them.
 */
static void results_set(json_t *ctx, const json_t *files, const char *last)
{
	size_t n = json_object_size(files), i = 0;
	const char **v = calloc(n, sizeof(*v));
	json_t *set = json_array(), *x;
	const char *k;

	if (!v || !set) {
		free(v);
		json_decref(set);
		return;
	}
	json_object_foreach((json_t *)files, k, x) v[i++] = json_string_value(x);
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++)
		json_array_append_new(set, json_string(v[i]));
	free(v);
	json_object_set_new(ctx, "results", set);
	if (last)
		json_object_set_new(ctx, "last_start_time", json_string(last));
}

json_t *rpt_side_context(const char *side, const struct mdl_run_ref *runs, const size_t *idx,
			 size_t n)
{
	json_t *ctx, *labels = json_object(), *ops = json_object(), *files = json_object();
	json_t *about = json_object();
	const char *start = NULL, *last = NULL;
	struct load_sum load = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct mdl_run_ref *r = &runs[idx[i]];
		const char *created = mdl_json_str(r->doc, "created", NULL);
		char key[32];

		if (!mdl_run_complete(r->run))
			continue;
		run_labels(labels, r);
		run_about(about, r, &load);
		ops_add(ops, r->run);
		/* RFC 3339 UTC with the same layout compares as text */
		if (created && (!start || strcmp(created, start) < 0))
			start = created;
		if (created && (!last || strcmp(created, last) > 0))
			last = created;
		snprintf(key, sizeof(key), "%p", (const void *)r->doc);
		json_object_set_new(files, key, json_string(created ? created : ""));
	}
	labels_join(labels);
	labels_join(about);
	load_set(about, &load);
	ctx = json_pack("{s:s,s:o,s:o,s:o}", "side", side, "labels", labels, MDL_KEY_OPS, ops,
			"about", about);
	if (ctx && start)
		json_object_set_new(ctx, "start_time", json_string(start));
	/* runs pooled from several result files: the exporters give them an identity of their own */
	if (ctx && json_object_size(files) > 1)
		results_set(ctx, files, last);
	json_decref(files);
	return ctx;
}
