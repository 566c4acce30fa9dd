/* The HTML report's head: what each side is, from the comparison's per-side contexts. */
#include "report/html_head.h"
#include "report/html_table.h"
#include "model/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row of the table: where the fact is in a side's context, and its name on the page. */
static const struct {
	const char *obj, *key, *name;
} facts[] = {
	{ "labels", "kernel", "kernel release" },
	{ "labels", "kernel_version", "kernel build" },
	{ "about", "cmdline", "kernel command line" },
	{ "about", "booted", "booted by" },
	{ "labels", "host", "host" },
	{ "about", "cpu", "CPU" },
	{ "labels", "arch", "arch" },
	{ "about", "device", "device" },
	{ "labels", "device_model", "device model" },
	{ "labels", "fs", "filesystem" },
	{ "labels", "mount_options", "mount options" },
	{ "labels", "knob_set", "knobs" },
	{ "about", "fsbench", "fsbench version" },
	{ "about", "command", "command" },
};

/* Adds @v to @list unless it is there. */
static void distinct_add(json_t *list, const char *v)
{
	const json_t *x;
	size_t i;

	if (!v)
		return;
	json_array_foreach(list, i, x) if (!strcmp(json_string_value(x), v)) return;
	json_array_append_new(list, json_string(v));
}

/* The distinct values of fact @f on side @k over every sample, printed joined; false: none. */
static bool fact_cell(FILE *out, const struct rpt_cmp *cmp, int k, size_t f)
{
	json_t *list = json_array();
	const json_t *x;
	size_t i;
	bool any;

	for (i = 0; list && i < cmp->nsamples; i++) {
		const json_t *ctx = json_array_get(cmp->samples[i].context, (size_t)k);

		distinct_add(list,
			     mdl_json_str(json_object_get(ctx, facts[f].obj), facts[f].key, NULL));
	}
	any = json_array_size(list) > 0;
	if (out)
		json_array_foreach(list, i, x)
		{
			fprintf(out, "%s", i ? " | " : "");
			rpt_html_esc(out, json_string_value(x));
		}
	json_decref(list);
	return any;
}

struct rpt_html_load rpt_html_side_load(const struct rpt_cmp *cmp, int k)
{
	struct rpt_html_load l = { 0, 0, NAN, 0 };
	double wait = 0, nwait = 0;

	for (size_t i = 0; i < cmp->nsamples; i++) {
		const json_t *hl = json_object_get(
			json_object_get(json_array_get(cmp->samples[i].context, (size_t)k),
					"about"),
			"host_load");
		double n = json_number_value(json_object_get(hl, "runs"));
		const json_t *o = json_object_get(hl, "others_pct"),
			     *s = json_object_get(hl, "steal_pct"),
			     *w = json_object_get(hl, "self_wait_pct");

		/* a comparison file is anyone's: take only what is whole */
		if (!(n > 0) || !json_is_number(o) || !json_is_number(s))
			continue;
		l.others_pct += json_number_value(o) * n;
		l.steal_pct += json_number_value(s) * n;
		l.runs += n;
		if (json_is_number(w)) {
			wait += json_number_value(w) * n;
			nwait += n;
		}
	}
	if (l.runs > 0) {
		l.others_pct /= l.runs;
		l.steal_pct /= l.runs;
	}
	if (nwait > 0)
		l.self_wait_pct = wait / nwait;
	return l;
}

/* Side @k's first and last result's start time over every sample. */
static void dates_cell(FILE *out, const struct rpt_cmp *cmp, int k)
{
	const char *first = NULL, *last = NULL;

	for (size_t i = 0; i < cmp->nsamples; i++) {
		const json_t *ctx = json_array_get(cmp->samples[i].context, (size_t)k);
		const char *s = mdl_json_str(ctx, "start_time", NULL),
			   *e = mdl_json_str(ctx, "last_start_time", s);

		/* RFC 3339 UTC with the same layout compares as text */
		if (s && (!first || strcmp(s, first) < 0))
			first = s;
		if (e && (!last || strcmp(e, last) > 0))
			last = e;
	}
	rpt_html_esc(out, first);
	if (last && first && strcmp(first, last)) {
		fprintf(out, " to ");
		rpt_html_esc(out, last);
	}
}

static void load_cell(FILE *out, const struct rpt_cmp *cmp, int k)
{
	struct rpt_html_load l = rpt_html_side_load(cmp, k);

	if (!(l.runs > 0)) {
		fprintf(out, "not measured");
		return;
	}
	fprintf(out, "others %.1f %% of the CPUs, steal %.1f %%", l.others_pct, l.steal_pct);
	if (isfinite(l.self_wait_pct))
		fprintf(out, ", fsbench waited %.1f %% of its runnable time", l.self_wait_pct);
	fprintf(out, " (%.0f run%s)", l.runs, l.runs == 1 ? "" : "s");
}

/* Side @k's canary: the mean of its samples' before and after fsync p50s; false: none. */
static bool canary_cell(FILE *out, const struct rpt_cmp *cmp, int k)
{
	double sum[2] = { 0, 0 }, n[2] = { 0, 0 };
	char buf[48];

	for (size_t i = 0; i < cmp->nsamples; i++) {
		const json_t *c = json_object_get(
			json_object_get(json_array_get(cmp->samples[i].context, (size_t)k),
					"about"),
			"canary");

		for (int w = 0; w < 2; w++) {
			const json_t *v = json_object_get(c, w ? "after_p50_us" : "before_p50_us");

			if (json_is_number(v) && isfinite(json_number_value(v))) {
				sum[w] += json_number_value(v);
				n[w]++;
			}
		}
	}
	if (!n[0] && !n[1])
		return false;
	for (int w = 0; out && w < 2; w++)
		if (n[w]) {
			rpt_html_fmt_value(buf, sizeof(buf), sum[w] / n[w], NAN, "us");
			fprintf(out, "%s%s %s", w && n[0] ? ", " : "", buf, w ? "after" : "before");
		}
	return true;
}

/* Side @k's text of row @f (a fact, or FACT_DATES / FACT_LOAD) into a new string, or NULL. */
#define FACT_DATES ((size_t)-1)
#define FACT_LOAD ((size_t)-2)
#define FACT_CANARY ((size_t)-3)
static char *row_text(const struct rpt_cmp *cmp, int k, size_t f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	if (f == FACT_DATES)
		dates_cell(m, cmp, k);
	else if (f == FACT_LOAD)
		load_cell(m, cmp, k);
	else if (f == FACT_CANARY) {
		if (!canary_cell(m, cmp, k))
			fprintf(m, "-");
	} else if (!fact_cell(m, cmp, k, f))
		fprintf(m, "-");
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * One row: a fact all sides share once across their columns, else each side's, marked as
 * differing (what a reader looks for first).
 */
static void sides_row(FILE *out, const struct rpt_cmp *cmp, size_t f, const char *key,
		      const char *name)
{
	char *first = row_text(cmp, 0, f);
	bool same = first != NULL;

	for (int k = 1; same && k < cmp->nsides; k++) {
		char *t = row_text(cmp, k, f);

		same = t && !strcmp(t, first);
		free(t);
	}
	fprintf(out, "<tr data-fact=\"%s\"%s><th>%s</th>", key, same ? "" : " class=\"differs\"",
		name);
	if (same) {
		fprintf(out, "<td colspan=\"%d\">", cmp->nsides);
		rpt_html_esc(out, first);
		fprintf(out, "</td>");
	} else {
		for (int k = 0; k < cmp->nsides; k++) {
			char *t = row_text(cmp, k, f);

			fprintf(out, "<td>");
			rpt_html_esc(out, t);
			fprintf(out, "</td>");
			free(t);
		}
	}
	fprintf(out, "</tr>\n");
	free(first);
}

void rpt_html_sides(FILE *out, const struct rpt_cmp *cmp)
{
	bool dates = false;

	if (!cmp || !cmp->nsides || !cmp->nsamples)
		return;
	fprintf(out,
		"<h2>What was compared</h2>\n<table id=\"sides\" class=\"sides\"><tr><th></th>");
	for (int k = 0; k < cmp->nsides; k++) {
		fprintf(out, "<th>");
		rpt_html_esc(out, cmp->side_names[k]);
		fprintf(out, "%s</th>",
			k || !strcmp(cmp->side_names[k], "baseline") ? "" : " (baseline)");
	}
	fprintf(out, "</tr>\n");
	for (size_t f = 0; f < sizeof(facts) / sizeof(facts[0]); f++) {
		bool any = false;

		for (int k = 0; k < cmp->nsides; k++)
			any |= fact_cell(NULL, cmp, k, f);
		if (any)
			sides_row(out, cmp, f, facts[f].key, facts[f].name);
	}
	for (size_t i = 0; i < cmp->nsamples; i++)
		dates |= json_is_string(
			json_object_get(json_array_get(cmp->samples[i].context, 0), "start_time"));
	if (dates)
		sides_row(out, cmp, FACT_DATES, "dates", "started");
	sides_row(out, cmp, FACT_LOAD, "host_load", "host load");
	for (int k = 0; k < cmp->nsides; k++)
		if (canary_cell(NULL, cmp, k)) {
			sides_row(out, cmp, FACT_CANARY, "canary", "device canary (fsync p50)");
			break;
		}
	fprintf(out, "</table>\n");
}
