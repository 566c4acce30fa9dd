/* Text and markdown output of a comparison: tables, rows the samples, columns the sides. */
#include "report/compare_text.h"
#include "report/gate.h"
#include "model/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL_MAX 96

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static void side_cell(char *buf, size_t len, const json_t *st)
{
	double mean = json_number_value(json_object_get(st, "mean"));
	const json_t *ci = json_object_get(st, "ci95");
	json_int_t n = json_integer_value(json_object_get(st, "n"));
	char m[32];

	if (!n) {
		snprintf(buf, len, "- (0)");
		return;
	}
	fmt_num(m, sizeof(m), mean);
	if (n >= 2 && mean != 0)
		snprintf(buf, len, "%s ±%.1f%% (%lld)", m,
			 (json_number_value(json_array_get(ci, 1)) - mean) / fabs(mean) * 100,
			 (long long)n);
	else
		snprintf(buf, len, "%s (%lld)", m, (long long)n);
}

static void cmp_cell(char *buf, size_t len, const json_t *c, bool markdown)
{
	const char *v = mdl_str_or(json_string_value(json_object_get(c, "verdict")), "?");
	const json_t *ch = json_object_get(c, "change_pct"), *p = json_object_get(c, "p"),
		     *fl = json_object_get(c, "floor_pct");
	bool loud = !strcmp(v, "regression") || !strcmp(v, "improvement");
	char pt[32] = "";

	/* decided by the A/A floor (rpt_compare_floor): the floor beside the verdict */
	if (json_is_number(fl))
		snprintf(pt, sizeof(pt), " floor %.2f%%", json_number_value(fl));
	else if (json_is_number(p))
		snprintf(pt, sizeof(pt), " p=%.3g", json_number_value(p));
	/* no relative change: the baseline's mean is 0 (a count that was nothing) */
	if (!json_is_number(ch))
		snprintf(buf, len, "from 0 %s%s%s%s%s", markdown && loud ? "**" : "", v,
			 markdown && loud ? "**" : "",
			 json_is_false(json_object_get(c, "gate")) ? " (not gated)" : "", pt);
	else
		snprintf(buf, len, json_is_number(fl) ? "%+.2f%% %s%s%s%s%s" : "%+.1f%% %s%s%s%s%s",
			 json_number_value(ch), markdown && loud ? "**" : "", v,
			 markdown && loud ? "**" : "",
			 json_is_false(json_object_get(c, "gate")) ? " (not gated)" : "", pt);
}

static void print_table(FILE *out, char (*cells)[CELL_MAX], size_t rows, size_t cols, size_t nleft,
			bool markdown)
{
	size_t w[cols];

	for (size_t c = 0; c < cols; c++) {
		w[c] = 0;
		for (size_t r = 0; r < rows; r++)
			if (strlen(cells[r * cols + c]) > w[c])
				w[c] = strlen(cells[r * cols + c]);
	}
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < cols; c++) {
			if (markdown)
				fprintf(out, "| %s ", cells[r * cols + c]);
			else
				fprintf(out, c < nleft ? "%s%-*s" : "%s%*s", c ? "  " : "",
					(int)w[c], cells[r * cols + c]);
		}
		fprintf(out, markdown ? "|\n" : "\n");
		if (markdown && r == 0) {
			for (size_t c = 0; c < cols; c++)
				fprintf(out, c < nleft ? "|:---" : "|---:");
			fprintf(out, "|\n");
		}
	}
}

/*
 * One table of @names: rows the samples (and, with @metric_col, the metric), columns the
 * sides' means with their 95 % CI and n, then each side against the baseline.
 */
static void print_metric_table(FILE *out, const json_t *cmp, const json_t *names, bool metric_col,
			       bool markdown)
{
	const json_t *samples = json_object_get(cmp, "samples"),
		     *sides = json_object_get(cmp, "sides"), *s, *m, *x;
	size_t nsides = json_array_size(sides), lead = metric_col ? 2 : 1,
	       cols = lead + nsides + (nsides - 1);
	size_t rows = 1, cap = 1, i, j, n;
	char(*cells)[CELL_MAX];

	if (!nsides) /* mdl_compare_load refuses such documents; cols would wrap */
		return;
	json_array_foreach(samples, i, s) cap += json_array_size(json_object_get(s, "metrics"));
	cells = calloc(cap * cols, CELL_MAX);
	if (!cells)
		return;
	snprintf(cells[0], CELL_MAX, "sample");
	if (metric_col)
		snprintf(cells[1], CELL_MAX, "metric");
	for (size_t k = 0; k < nsides; k++)
		snprintf(cells[lead + k], CELL_MAX, "%s",
			 json_string_value(json_object_get(json_array_get(sides, k), "name")));
	for (size_t k = 1; k < nsides; k++)
		snprintf(cells[lead + nsides + k - 1], CELL_MAX, "%s vs %s", cells[lead + k],
			 cells[lead]);
	json_array_foreach(names, n, x) json_array_foreach(samples, i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
	{
		char(*row)[CELL_MAX] = &cells[rows * cols];

		if (strcmp(mdl_str_or(json_string_value(json_object_get(m, "name")), ""),
			   mdl_str_or(json_string_value(x), "")))
			continue;
		snprintf(row[0], CELL_MAX, "%s", json_string_value(json_object_get(s, "label")));
		if (metric_col)
			snprintf(row[1], CELL_MAX, "%s", json_string_value(x));
		for (size_t k = 0; k < nsides; k++)
			side_cell(row[lead + k], CELL_MAX,
				  json_array_get(json_object_get(m, "sides"), k));
		for (size_t k = 1; k < nsides; k++)
			cmp_cell(row[lead + nsides + k - 1], CELL_MAX,
				 json_array_get(json_object_get(m, "comparisons"), k - 1),
				 markdown);
		rows++;
	}
	print_table(out, cells, rows, cols, lead, markdown);
	fprintf(out, "\n");
	free(cells);
}

/* A comparison's why text split at its first ": ": "fsync.p99 +18 %" and what the kernel did. */
struct why_line {
	const char *verdict, *text;
	int lead; /* bytes of text before the ": " */
	bool done;
};

/*
 * One sample's why lines, @w[0..@n), printed as few lines: those with one verdict and the
 * same kernel-side text (the same op's figures) share a line, their metrics listed first.
 */
static size_t why_print_grouped(FILE *out, const char *label, struct why_line *w, size_t n,
				size_t printed, bool markdown)
{
	size_t lines = 0;

	for (size_t i = 0; i < n; i++) {
		const char *detail = w[i].text + w[i].lead;

		if (w[i].done)
			continue;
		if (!printed && !lines)
			fprintf(out, markdown ? "\n#### why (kernel side)\n\n" :
						"why (kernel side, per call):\n");
		fprintf(out, "%s%s [%s]: %.*s", markdown ? "- " : "  ", label, w[i].verdict,
			w[i].lead, w[i].text);
		for (size_t j = i + 1; j < n; j++)
			if (!w[j].done && !strcmp(w[j].verdict, w[i].verdict) &&
			    !strcmp(w[j].text + w[j].lead, detail)) {
				fprintf(out, ", %.*s", w[j].lead, w[j].text);
				w[j].done = true;
			}
		fprintf(out, "%s\n", detail);
		lines++;
	}
	return lines;
}

size_t rpt_compare_why_print(const json_t *cmp, FILE *out, bool markdown)
{
	const json_t *s, *m, *c, *x;
	size_t i, j, l, n = 0;

	json_array_foreach(json_object_get(cmp, "samples"), i, s)
	{
		const char *label = mdl_str_or(json_string_value(json_object_get(s, "label")), "?");
		struct why_line *w = NULL;
		size_t nw = 0, cap = 0;

		json_array_foreach(json_object_get(s, "instrumentation"), j, x) fprintf(
			out, "%sinstrumentation: %s (%s): %s; its per-call latencies not judged\n",
			markdown ? "- " : "", label, mdl_json_str(x, "side", "?"),
			mdl_json_str(x, "differs", "?"));
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), l, c)
		{
			const char *why = json_string_value(
				json_object_get(json_object_get(c, "why"), "text"));
			const char *colon = why ? strstr(why, ": ") : NULL;

			if (!why)
				continue;
			if (nw == cap) {
				struct why_line *nwp =
					realloc(w, (cap = cap ? 2 * cap : 16) * sizeof(*w));

				if (!nwp)
					break;
				w = nwp;
			}
			w[nw++] = (struct why_line){ .verdict = mdl_json_str(c, "verdict", "?"),
						     .text = why,
						     .lead = colon ? (int)(colon - why) : 0 };
		}
		n += why_print_grouped(out, label, w, nw, n, markdown);
		free(w);
	}
	return n;
}

void rpt_compare_print(const json_t *cmp, FILE *out, bool markdown)
{
	const json_t *samples = json_object_get(cmp, "samples"), *m, *s, *x;
	size_t nsides = json_array_size(json_object_get(cmp, "sides")), i, j;
	json_t *seen = json_object(), *latency = json_array();

	if (markdown) {
		fprintf(out, "### fsbench compare:");
		for (int v = 0; v < RPT_VERDICT_COUNT; v++)
			fprintf(out, " %zu %s%s", rpt_compare_count(cmp, v, false),
				rpt_verdict_names[v], v + 1 < RPT_VERDICT_COUNT ? "," : "\n\n");
	}
	/* throughput and kernel metrics: a table each, rows the samples (the seed threads' layout) */
	json_array_foreach(samples, i, s) json_array_foreach(json_object_get(s, "metrics"), j, m)
	{
		const char *n = json_string_value(json_object_get(m, "name"));
		json_t *one;

		if (json_object_get(seen, n))
			continue;
		json_object_set_new(seen, n, json_true());
		if (!strcmp(mdl_str_or(json_string_value(json_object_get(m, "kind")), ""),
			    "latency")) {
			json_array_append_new(latency, json_string(n));
			continue;
		}
		fprintf(out,
			markdown ? "#### %s (%s, %s is better)\n\n" : "%s (%s, %s is better)\n", n,
			json_string_value(json_object_get(m, "unit")),
			json_string_value(json_object_get(m, "direction")));
		one = json_pack("[s]", n);
		print_metric_table(out, cmp, one, false, markdown);
		json_decref(one);
	}
	/* latency percentiles: one table, a row per sample and percentile */
	if (json_array_size(latency)) {
		fprintf(out, markdown ? "#### latency (us, lower is better)\n\n" :
					"latency (us, lower is better)\n");
		print_metric_table(out, cmp, latency, true, markdown);
	}
	json_array_foreach(json_object_get(cmp, "excluded"), i, x)
		fprintf(out, "%sexcluded: %s run %lld: %s\n", markdown ? "- " : "",
			json_string_value(json_object_get(x, "file")),
			(long long)json_integer_value(json_object_get(x, "run")),
			json_string_value(json_object_get(x, "reason")));
	json_array_foreach(json_object_get(cmp, "unmatched"), i, x)
		fprintf(out, "%sunmatched: %s run %lld (%s): nothing on side '%s'\n",
			markdown ? "- " : "", json_string_value(json_object_get(x, "file")),
			(long long)json_integer_value(json_object_get(x, "run")),
			json_string_value(json_object_get(x, "label")),
			json_string_value(json_object_get(x, "missing_on")));
	rpt_compare_why_print(cmp, out, markdown);
	if (!markdown && nsides > 1) {
		fprintf(out, "verdicts:");
		for (int v = 0; v < RPT_VERDICT_COUNT; v++)
			fprintf(out, " %zu %s%s", rpt_compare_count(cmp, v, false),
				rpt_verdict_names[v], v + 1 < RPT_VERDICT_COUNT ? "," : "\n");
	}
	json_decref(seen);
	json_decref(latency);
}
