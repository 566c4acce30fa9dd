/* The HTML report's verdict: what compare --gate would say, then the changes ranked by size. */
#include "report/html_verdict.h"
#include "report/html_table.h"
#include "report/gate.h"
#include "report/hostload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples shown one by one rather than summarised: the spread of 2-9 runs says more. */
#define VERDICT_SHOW_VALUES 9
/* Rows of the ranked list; the rest are in the full comparison below it. */
#define VERDICT_ROWS 50

struct change {
	const struct rpt_cmp_sample *sample;
	const struct rpt_cmp_metric *metric;
	const struct rpt_cmp_judged *cmp;
};

bool rpt_html_has_verdict(const struct rpt_cmp *cmp)
{
	return cmp && cmp->nsides >= 2;
}

/* The change as the list ranks and shows it: 0 when there is none (a zero baseline). */
static double shown_change(const struct rpt_cmp_judged *c)
{
	return isfinite(c->change_pct) ? c->change_pct : 0;
}

static int change_cmp(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	double ca = fabs(shown_change(a->cmp)), cb = fabs(shown_change(b->cmp));

	return (ca < cb) - (ca > cb);
}

/* The regressed and improved comparisons of @cmp, into *@ret (the caller frees). */
static size_t changes(const struct rpt_cmp *cmp, struct change **ret)
{
	size_t n = 0, cap = 0;
	struct change *v = NULL;

	for (size_t i = 0; i < cmp->nsamples; i++)
		for (size_t j = 0; j < cmp->samples[i].nmetrics; j++)
			for (int k = 0; k + 1 < cmp->nsides; k++) {
				const struct rpt_cmp_metric *m = &cmp->samples[i].metrics[j];
				const struct rpt_cmp_judged *c = &m->judged[k];

				if (c->verdict != RPT_REGRESSION && c->verdict != RPT_IMPROVEMENT)
					continue;
				if (n == cap) {
					struct change *nv =
						realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

					if (!nv)
						goto out;
					v = nv;
				}
				v[n++] = (struct change){ &cmp->samples[i], m, c };
			}
out:
	if (n)
		qsort(v, n, sizeof(*v), change_cmp);
	*ret = v;
	return n;
}

/* A side's value: its samples one by one when few ("1.20, 1.31, 1.25 ms"), else mean ± CI. */
static void side_value(FILE *out, const struct rpt_cmp_metric *metric, int side)
{
	const struct rpt_cmp_side *st = &metric->sides[side];
	char buf[64];

	if (!st->n) {
		fprintf(out, "-");
		return;
	}
	rpt_html_fmt_value(buf, sizeof(buf), st->st.mean, NAN, metric->unit);
	rpt_html_esc(out, buf);
	if (st->n > 1 && st->n <= VERDICT_SHOW_VALUES) {
		fprintf(out, "<br><small>");
		for (size_t i = 0; i < st->n; i++) {
			rpt_html_fmt_value(buf, sizeof(buf), st->values[i], NAN, metric->unit);
			fprintf(out, "%s", i ? ", " : "");
			rpt_html_esc(out, buf);
		}
		fprintf(out, "</small>");
	} else if (st->n > VERDICT_SHOW_VALUES) {
		fprintf(out, " <small>(n=%zu)</small>", st->n);
	}
}

void rpt_html_verdict(FILE *out, const struct rpt_cmp *cmp)
{
	enum rpt_gate_status st = rpt_cmp_gate_status(cmp);
	size_t gated_reg = rpt_cmp_count(cmp, RPT_REGRESSION, true);
	size_t blocking = rpt_cmp_count_blocking(cmp);
	struct change *v = NULL;
	size_t n = changes(cmp, &v), i;
	const char *why;

	if (st == RPT_GATE_REGRESSED)
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict regression\">Regressed: %zu gated metric%s got worse</h1>\n",
			gated_reg, gated_reg == 1 ? "" : "s");
	else if (st == RPT_GATE_UNJUDGED && cmp->cannot_judge) {
		fprintf(out, "<h1 id=\"verdict\" class=\"verdict noisy\">Cannot judge: ");
		rpt_html_esc(out, cmp->cannot_judge_reason);
		fprintf(out, "</h1>\n");
	} else if (st == RPT_GATE_UNJUDGED && rpt_hostload_count(cmp, false, &why)) {
		fprintf(out, "<h1 id=\"verdict\" class=\"verdict noisy\">Cannot judge: ");
		rpt_html_esc(out, why); /* side names come from the files */
		fprintf(out, "</h1>\n");
	} else if (st == RPT_GATE_UNJUDGED)
		fprintf(out, "<h1 id=\"verdict\" class=\"verdict noisy\">Cannot judge: %s</h1>\n",
			blocking ? "gated metrics could not be judged (strict gate)" :
				   "no gated metric was compared");
	else if (!rpt_cmp_count(cmp, RPT_UNCHANGED, false) &&
		 !rpt_cmp_count(cmp, RPT_IMPROVEMENT, false) &&
		 !rpt_cmp_count(cmp, RPT_REGRESSION, false))
		/* the gate passes, but saying "good" of nothing judged would mislead */
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict noisy\">Not judged: no metric had "
			"enough runs or little enough noise (%zu insufficient, %zu noisy)</h1>\n",
			rpt_cmp_count(cmp, RPT_INSUFFICIENT, false),
			rpt_cmp_count(cmp, RPT_NOISY, false));
	else
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict improvement\">Good: no gated metric regressed</h1>\n");
	fprintf(out, "<p>What <code>fsbench compare --gate</code> says of these inputs: exit %d",
		(int)st);
	if (blocking)
		fprintf(out, "; %zu gated metric%s could not be judged", blocking,
			blocking == 1 ? "" : "s");
	if (rpt_cmp_count(cmp, RPT_INSUFFICIENT, false))
		fprintf(out, "; %zu metrics had fewer than %d runs a side and were not judged",
			rpt_cmp_count(cmp, RPT_INSUFFICIENT, false), RPT_MIN_SAMPLES);
	fprintf(out, ". %zu regression%s, %zu improvement%s.</p>\n",
		rpt_cmp_count(cmp, RPT_REGRESSION, false),
		rpt_cmp_count(cmp, RPT_REGRESSION, false) == 1 ? "" : "s",
		rpt_cmp_count(cmp, RPT_IMPROVEMENT, false),
		rpt_cmp_count(cmp, RPT_IMPROVEMENT, false) == 1 ? "" : "s");
	/* unlike probes make per-call latencies unjudged: say which source, where */
	for (i = 0; i < cmp->nsamples; i++)
		for (size_t j = 0; j < cmp->samples[i].ninstr; j++) {
			fprintf(out, "<p class=\"warn\">Instrumentation differs in ");
			rpt_html_esc(out, cmp->samples[i].label);
			fprintf(out, ": ");
			rpt_html_esc(out, cmp->samples[i].instr[j].differs);
			fprintf(out, "; its per-call latencies are not judged.</p>\n");
		}
	if (n) {
		fprintf(out,
			"<h2>What changed, largest first</h2>\n<table id=\"changed\"><tr><th>#</th>"
			"<th>cell</th><th>metric</th><th>baseline</th><th>candidate</th>"
			"<th>change</th><th>verdict</th><th>why (kernel side, per call)</th></tr>\n");
		for (i = 0; i < n && i < VERDICT_ROWS; i++) {
			const char *vd = rpt_verdict_names[v[i].cmp->verdict];
			const char *why = json_string_value(json_object_get(v[i].cmp->why, "text"));
			const char *colon = why ? strstr(why, ": ") : NULL;

			fprintf(out, "<tr class=\"%s\"><td>%zu</td><td>", vd, i + 1);
			rpt_html_esc(out, v[i].sample->label);
			fprintf(out, "</td><td>");
			rpt_html_esc(out, v[i].metric->name);
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, v[i].metric, 0);
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, v[i].metric, v[i].cmp->side);
			fprintf(out, "</td><td class=\"num\">%+.1f %%</td><td>%s%s</td><td>",
				shown_change(v[i].cmp), vd,
				v[i].cmp->rule.gate ? "" : " (not gated)");
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

void rpt_html_verdict_fold(FILE *out, const struct rpt_cmp *cmp)
{
	fprintf(out,
		"<summary>%zu unchanged, %zu noisy, %zu insufficient: the full comparison</summary>\n",
		rpt_cmp_count(cmp, RPT_UNCHANGED, false), rpt_cmp_count(cmp, RPT_NOISY, false),
		rpt_cmp_count(cmp, RPT_INSUFFICIENT, false));
}
