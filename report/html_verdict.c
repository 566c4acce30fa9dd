/* The HTML report's verdict: what compare --gate would say, then the changes ranked by size. */
#include "report/html_verdict.h"
#include "report/html_table.h"
#include "report/gate.h"
#include "report/hostload.h"
#include "model/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples shown one by one rather than summarised: the spread of 2-9 runs says more. */
#define VERDICT_SHOW_VALUES 9
/* Rows of the ranked list; the rest are in the full comparison below it. */
#define VERDICT_ROWS 50

struct change {
	const json_t *sample, *metric, *cmp;
	double change;
};

bool rpt_html_has_verdict(const json_t *cmp)
{
	return json_array_size(json_object_get(cmp, "sides")) >= 2;
}

static int change_cmp(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	double ca = fabs(a->change), cb = fabs(b->change);

	return (ca < cb) - (ca > cb);
}

/* The regressed and improved comparisons of @cmp, into *@ret (the caller frees). */
static size_t changes(const json_t *cmp, struct change **ret)
{
	const json_t *s, *m, *c;
	size_t i, j, k, n = 0, cap = 0;
	struct change *v = NULL;

	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		const char *vd = mdl_json_str(c, "verdict", "");

		if (strcmp(vd, "regression") && strcmp(vd, "improvement"))
			continue;
		if (n == cap) {
			struct change *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n++] = (struct change){ s, m, c,
					  json_number_value(json_object_get(c, "change_pct")) };
	}
	if (n)
		qsort(v, n, sizeof(*v), change_cmp);
	*ret = v;
	return n;
}

/* A side's value: its samples one by one when few ("1.20, 1.31, 1.25 ms"), else mean ± CI. */
static void side_value(FILE *out, const json_t *metric, const char *side)
{
	const char *unit = mdl_json_str(metric, "unit", "");
	const json_t *st = NULL, *x, *vals;
	char buf[64];
	size_t i;

	json_array_foreach(json_object_get(metric, "sides"), i,
			   x) if (!strcmp(mdl_json_str(x, "side", ""), side)) st = x;
	vals = json_object_get(st, "values");
	if (!json_array_size(vals)) {
		fprintf(out, "-");
		return;
	}
	rpt_html_fmt_value(buf, sizeof(buf), json_number_value(json_object_get(st, "mean")), NAN,
			   unit);
	rpt_html_esc(out, buf);
	if (json_array_size(vals) > 1 && json_array_size(vals) <= VERDICT_SHOW_VALUES) {
		fprintf(out, "<br><small>");
		json_array_foreach(vals, i, x)
		{
			rpt_html_fmt_value(buf, sizeof(buf), json_number_value(x), NAN, unit);
			fprintf(out, "%s", i ? ", " : "");
			rpt_html_esc(out, buf);
		}
		fprintf(out, "</small>");
	} else if (json_array_size(vals) > VERDICT_SHOW_VALUES) {
		fprintf(out, " <small>(n=%zu)</small>", json_array_size(vals));
	}
}

void rpt_html_verdict(FILE *out, const json_t *cmp)
{
	enum rpt_gate_status st = rpt_gate_status(cmp);
	size_t gated_reg = rpt_compare_count(cmp, RPT_REGRESSION, true);
	size_t blocking = rpt_gate_count_blocking(cmp);
	struct change *v = NULL;
	size_t n = changes(cmp, &v), i, j;
	const json_t *s, *x;
	const char *why;

	if (st == RPT_GATE_REGRESSED)
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict regression\">Regressed: %zu gated metric%s got worse</h1>\n",
			gated_reg, gated_reg == 1 ? "" : "s");
	else if (st == RPT_GATE_UNJUDGED && rpt_hostload_count(cmp, false, &why)) {
		fprintf(out, "<h1 id=\"verdict\" class=\"verdict noisy\">Cannot judge: ");
		rpt_html_esc(out, why); /* side names come from the files */
		fprintf(out, "</h1>\n");
	} else if (st == RPT_GATE_UNJUDGED)
		fprintf(out, "<h1 id=\"verdict\" class=\"verdict noisy\">Cannot judge: %s</h1>\n",
			blocking ? "gated metrics could not be judged (strict gate)" :
				   "no gated metric was compared");
	else if (!rpt_compare_count(cmp, RPT_UNCHANGED, false) &&
		 !rpt_compare_count(cmp, RPT_IMPROVEMENT, false) &&
		 !rpt_compare_count(cmp, RPT_REGRESSION, false))
		/* the gate passes, but saying "good" of nothing judged would mislead */
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict noisy\">Not judged: no metric had "
			"enough runs or little enough noise (%zu insufficient, %zu noisy)</h1>\n",
			rpt_compare_count(cmp, RPT_INSUFFICIENT, false),
			rpt_compare_count(cmp, RPT_NOISY, false));
	else
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict improvement\">Good: no gated metric regressed</h1>\n");
	fprintf(out, "<p>What <code>fsbench compare --gate</code> says of these inputs: exit %d",
		(int)st);
	if (blocking)
		fprintf(out, "; %zu gated metric%s could not be judged", blocking,
			blocking == 1 ? "" : "s");
	if (rpt_compare_count(cmp, RPT_INSUFFICIENT, false))
		fprintf(out, "; %zu metrics had fewer than %d runs a side and were not judged",
			rpt_compare_count(cmp, RPT_INSUFFICIENT, false), RPT_MIN_SAMPLES);
	fprintf(out, ". %zu regression%s, %zu improvement%s.</p>\n",
		rpt_compare_count(cmp, RPT_REGRESSION, false),
		rpt_compare_count(cmp, RPT_REGRESSION, false) == 1 ? "" : "s",
		rpt_compare_count(cmp, RPT_IMPROVEMENT, false),
		rpt_compare_count(cmp, RPT_IMPROVEMENT, false) == 1 ? "" : "s");
	/* unlike probes make per-call latencies unjudged: say which source, where */
	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "instrumentation"), j, x)
	{
		fprintf(out, "<p class=\"warn\">Instrumentation differs in ");
		rpt_html_esc(out, mdl_json_str(s, "label", "?"));
		fprintf(out, ": ");
		rpt_html_esc(out, mdl_json_str(x, "differs", "?"));
		fprintf(out, "; its per-call latencies are not judged.</p>\n");
	}
	if (n) {
		fprintf(out,
			"<h2>What changed, largest first</h2>\n<table id=\"changed\"><tr><th>#</th>"
			"<th>cell</th><th>metric</th><th>baseline</th><th>candidate</th>"
			"<th>change</th><th>verdict</th><th>why (kernel side, per call)</th></tr>\n");
		for (i = 0; i < n && i < VERDICT_ROWS; i++) {
			const char *vd = mdl_json_str(v[i].cmp, "verdict", "");
			const char *why = json_string_value(
				json_object_get(json_object_get(v[i].cmp, "why"), "text"));
			const char *colon = why ? strstr(why, ": ") : NULL;

			fprintf(out, "<tr class=\"%s\"><td>%zu</td><td>", vd, i + 1);
			rpt_html_esc(out, mdl_json_str(v[i].sample, "label", "?"));
			fprintf(out, "</td><td>");
			rpt_html_esc(out, mdl_json_str(v[i].metric, "name", "?"));
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, v[i].metric, mdl_json_str(v[i].cmp, "baseline", ""));
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, v[i].metric, mdl_json_str(v[i].cmp, "side", ""));
			fprintf(out, "</td><td class=\"num\">%+.1f %%</td><td>%s%s</td><td>",
				v[i].change, vd,
				json_is_false(json_object_get(v[i].cmp, "gate")) ? " (not gated)" :
										   "");
			/* the line without its "metric +x %:" lead, which the row already says */
			rpt_html_esc(out, colon ? colon + 2 :
					  why	? why :
						  "no probes on both sides");
			fprintf(out, "</td></tr>\n");
		}
		fprintf(out, "</table>\n");
		if (n > VERDICT_ROWS)
			fprintf(out, "<p>%zu more changes in the full comparison below.</p>\n",
				n - VERDICT_ROWS);
	} else {
		fprintf(out, "<p>No metric regressed or improved.</p>\n");
	}
	free(v);
}

void rpt_html_verdict_fold(FILE *out, const json_t *cmp)
{
	fprintf(out,
		"<summary>%zu unchanged, %zu noisy, %zu insufficient: the full comparison</summary>\n",
		rpt_compare_count(cmp, RPT_UNCHANGED, false),
		rpt_compare_count(cmp, RPT_NOISY, false),
		rpt_compare_count(cmp, RPT_INSUFFICIENT, false));
}
