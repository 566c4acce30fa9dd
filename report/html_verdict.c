/* The HTML report's verdict: what compare --gate would say, then the changes ranked by size. */
#include "report/html_verdict.h"
#include "report/html_changes.h"
#include "report/html_head.h"
#include "report/html_table.h"
#include "report/gate.h"
#include "report/hostload_rule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether every side of @cmp is the same one result file (a suite across filesystems). */
static bool one_file(const struct rpt_cmp *cmp)
{
	for (int k = 0; k < cmp->nsides; k++)
		if (json_array_size(cmp->side_files[k]) != 1 ||
		    !json_equal(json_array_get(cmp->side_files[k], 0),
				json_array_get(cmp->side_files[0], 0)))
			return false;
	return true;
}

bool rpt_html_has_verdict(const struct rpt_cmp *cmp)
{
	/* one file's sides ran on one kernel, one after the other: a table, no verdict */
	return cmp && cmp->nsides >= 2 && !one_file(cmp);
}

static int unproven_row(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
			const struct rpt_cmp_judged *j, void *arg)
{
	FILE *out = arg;

	if (j->verdict != RPT_NOT_PROVEN || !j->rule.gate)
		return 0;
	fprintf(out, "<li>");
	rpt_html_esc(out, s->label);
	fprintf(out, " ");
	rpt_html_esc(out, m->name);
	fprintf(out, " %+.1f %%: <b>not proven</b> (p %.3g", j->change_pct, j->p);
	if (isfinite(j->q))
		fprintf(out, ", q %.3g", j->q);
	fprintf(out, ", spread %.1f %%, threshold %g %%)</li>\n", j->spread_pct,
		j->rule.threshold_pct);
	return 0;
}

/* On the first screen: each gated change beyond its threshold that was not proven. */
static void unproven_list(FILE *out, const struct rpt_cmp *cmp)
{
	fprintf(out, "<ul class=\"unproven\">\n");
	rpt_cmp_foreach(cmp, unproven_row, out);
	fprintf(out, "</ul>\n");
	if (cmp->set.family)
		fprintf(out,
			"<p>q: each p corrected over the %zu gated metrics tested together "
			"(Benjamini-Hochberg); a call stands when q is below alpha.</p>\n",
			cmp->set.family);
}

/* Why metrics were not judged, by reason (a verdict of "insufficient" has three). */
struct few {
	size_t runs, reason, spread;
	const char *first_reason;
};

static int few_one(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
		   const struct rpt_cmp_judged *j, void *arg)
{
	struct few *f = arg;

	(void)s;
	if (j->verdict != RPT_INSUFFICIENT)
		return 0;
	if (j->cannot_judge) { /* the conditions, a canary, a probe missing on a side */
		if (!f->reason++)
			f->first_reason = j->reason;
	} else if (m->sides[0].n < RPT_MIN_SAMPLES || m->sides[j->side].n < RPT_MIN_SAMPLES) {
		f->runs++;
	} else {
		f->spread++; /* the floor: no two runs of one repetition a side */
	}
	return 0;
}

static void insufficient_reasons(FILE *out, const struct rpt_cmp *cmp)
{
	struct few f = { 0 };

	rpt_cmp_foreach(cmp, few_one, &f);
	if (f.runs)
		fprintf(out, "; %zu metric%s had fewer than %d runs a side and %s not judged",
			f.runs, f.runs == 1 ? "" : "s", RPT_MIN_SAMPLES,
			f.runs == 1 ? "was" : "were");
	if (f.reason) {
		fprintf(out, "; %zu could not be judged", f.reason);
		if (f.first_reason) {
			fputs(" (", out);
			rpt_html_esc(out, f.first_reason);
			fputs(f.reason > 1 ? ", and others" : "", out);
			fputs(")", out);
		}
	}
	if (f.spread)
		fprintf(out,
			"; %zu had no two runs of one repetition on a side to measure the spread "
			"by (the A/A floor) and %s not judged",
			f.spread, f.spread == 1 ? "was" : "were");
}

void rpt_html_verdict(FILE *out, const struct rpt_cmp *cmp, bool plots)
{
	struct rpt_cmp_unproven unproven;
	enum rpt_gate_status st = rpt_cmp_gate_status(cmp);
	size_t gated_reg = rpt_cmp_count(cmp, RPT_REGRESSION, true);
	size_t blocking = rpt_cmp_count_blocking(cmp);
	const char *why;
	size_t i;

	rpt_cmp_unproven_count(cmp, &unproven);
	if (st == RPT_GATE_REGRESSED)
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict regression\">Regressed: %zu gated metric%s got worse</h1>\n",
			gated_reg, gated_reg == 1 ? "" : "s");
	else if (st == RPT_GATE_UNJUDGED && cmp->cannot_judge) {
		fprintf(out, "<h1 id=\"verdict\" class=\"verdict noisy\">Cannot judge: ");
		rpt_html_esc(out, cmp->cannot_judge_reason);
		fprintf(out, "</h1>\n");
	} else if (st == RPT_GATE_UNJUDGED && unproven.blocking)
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict noisy\">Cannot judge: no proven regression, "
			"but %zu headline change%s of up to %+.1f %% could not be told from noise</h1>\n",
			unproven.blocking, unproven.blocking == 1 ? "" : "s", unproven.worst);
	else if (st == RPT_GATE_UNJUDGED && rpt_hostload_count(cmp, false, &why)) {
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
	else if (unproven.n)
		/* never green while a gated metric moved beyond its threshold unproven */
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict noisy\">No proven regression; %zu change%s "
			"of up to %+.1f %% could not be told from noise</h1>\n",
			unproven.n, unproven.n == 1 ? "" : "s", unproven.worst);
	else
		fprintf(out,
			"<h1 id=\"verdict\" class=\"verdict improvement\">Good: no gated metric regressed</h1>\n");
	if (unproven.n)
		unproven_list(out, cmp);
	fprintf(out, "<p>What <code>fsbench compare --gate</code> says of these inputs: exit %d",
		rpt_gate_exit_status(st));
	if (blocking)
		fprintf(out, "; %zu gated metric%s could not be judged", blocking,
			blocking == 1 ? "" : "s");
	insufficient_reasons(out, cmp);
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
	rpt_html_sides(out, cmp);
	rpt_html_how_sure(out, cmp);
	rpt_html_changes(out, cmp, plots);
}

void rpt_html_verdict_fold(FILE *out, const struct rpt_cmp *cmp)
{
	fprintf(out,
		"<summary>%zu unchanged, %zu not proven, %zu noisy, %zu insufficient: the full "
		"comparison</summary>\n",
		rpt_cmp_count(cmp, RPT_UNCHANGED, false), rpt_cmp_count(cmp, RPT_NOT_PROVEN, false),
		rpt_cmp_count(cmp, RPT_NOISY, false), rpt_cmp_count(cmp, RPT_INSUFFICIENT, false));
}
