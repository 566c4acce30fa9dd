/* The HTML report's ranked changes: regressions, "could not tell", improvements; how sure and why. */
#include "report/html_changes.h"
#include "report/html_head.h"
#include "report/html_table.h"
#include "report/why_text.h"
#include "model/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples shown one by one rather than summarised: the spread of 2-9 runs says more. */
#define SHOW_VALUES 9
/* Rows of each group; the rest are in the full comparison below. */
#define GROUP_ROWS 40
/* A change this large is a near-zero baseline's, not a measurement's: "from ~0". */
#define FROM_ZERO_PCT 10000.0

enum chg_group { G_REGRESSED, G_UNSURE, G_IMPROVED, G_COUNT };

static const char *const group_names[G_COUNT] = {
	"Regressions",
	"Could not tell: changes the noise hides",
	"Improvements",
};

struct change {
	const struct rpt_cmp_sample *sample;
	const struct rpt_cmp_metric *metric;
	const struct rpt_cmp_judged *j;
};

void rpt_html_fmt_change(char *buf, size_t len, double change_pct)
{
	if (!isfinite(change_pct) || fabs(change_pct) >= FROM_ZERO_PCT)
		snprintf(buf, len, "from ~0");
	else
		snprintf(buf, len, "%+.1f %%", change_pct);
}

/* The group @j belongs in, or -1: an unchanged metric, or a small unproven change. */
static int group_of(const struct rpt_cmp_judged *j)
{
	if (j->verdict == RPT_REGRESSION)
		return G_REGRESSED;
	if (j->verdict == RPT_IMPROVEMENT)
		return G_IMPROVED;
	/* a large change without proof: the reader must see it and what hid it */
	if (j->stats && (!isfinite(j->change_pct) || fabs(j->change_pct) >= j->rule.threshold_pct))
		return G_UNSURE;
	return -1;
}

static int change_cmp(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	double ca = isfinite(a->j->change_pct) ? fabs(a->j->change_pct) : INFINITY,
	       cb = isfinite(b->j->change_pct) ? fabs(b->j->change_pct) : INFINITY;

	return (ca < cb) - (ca > cb);
}

/* The comparisons of group @g, largest first, into *@ret (the caller frees). */
static size_t collect(const struct rpt_cmp *cmp, int g, struct change **ret)
{
	size_t n = 0, cap = 0;
	struct change *v = NULL;

	for (size_t i = 0; i < cmp->nsamples; i++)
		for (size_t m = 0; m < cmp->samples[i].nmetrics; m++)
			for (int k = 0; k + 1 < cmp->nsides; k++) {
				const struct rpt_cmp_metric *mt = &cmp->samples[i].metrics[m];

				if (group_of(&mt->judged[k]) != g)
					continue;
				if (n == cap) {
					struct change *nv =
						realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

					if (!nv)
						goto out;
					v = nv;
				}
				v[n++] = (struct change){ &cmp->samples[i], mt, &mt->judged[k] };
			}
out:
	if (n)
		qsort(v, n, sizeof(*v), change_cmp);
	*ret = v;
	return n;
}

/* A side's value: its samples one by one when few ("1.20, 1.31, 1.25 ms"), else mean (n). */
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
	if (st->n > 1 && st->n <= SHOW_VALUES) {
		fprintf(out, "<br><small>");
		for (size_t i = 0; i < st->n; i++) {
			rpt_html_fmt_value(buf, sizeof(buf), st->values[i], NAN, metric->unit);
			fprintf(out, "%s", i ? ", " : "");
			rpt_html_esc(out, buf);
		}
		fprintf(out, "</small>");
	} else if (st->n > SHOW_VALUES) {
		fprintf(out, " <small>(n=%zu)</small>", st->n);
	}
}

/* @s escaped, breakable after "_", "." and "/" (a narrow window wraps names, not letters). */
static void esc_wbr(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		char c[2] = { *s, 0 };

		rpt_html_esc(out, c);
		if (*s == '_' || *s == '.' || *s == '/')
			fputs("<wbr>", out);
	}
}

/* How sure the row's verdict is: q and p, or the floor, and the spread of the sides' runs. */
static void how_sure_cell(FILE *out, const struct rpt_cmp_judged *j)
{
	fprintf(out, "<b>%s</b>%s ",
		j->cannot_judge ? "cannot judge" : rpt_verdict_names[j->verdict],
		j->rule.gate ? "" : " (not gated)");
	if (isfinite(j->floor_pct)) {
		fprintf(out, "floor %.2g %%", j->floor_pct);
		if (isfinite(j->bar_pct))
			fprintf(out, ", bar %.2g %%", j->bar_pct);
	} else if (j->tested && isfinite(j->p)) {
		if (isfinite(j->q))
			fprintf(out, j->q < 0.001 ? "q&lt;0.001 " : "q=%.2g ", j->q);
		fprintf(out, j->p < 0.001 ? "p&lt;0.001" : "p=%.2g", j->p);
	} else {
		fprintf(out, "not tested");
	}
	if (isfinite(j->spread_pct))
		fprintf(out, ", spread %.0f %%", j->spread_pct);
	if (j->cannot_judge && j->reason) {
		fprintf(out, "; ");
		rpt_html_esc(out, j->reason);
	}
}

/* The why row under change @c (row @row): report/why_text.c's line, when it has one. */
static void why_row(FILE *out, const struct change *c, size_t row, struct rpt_why_lines *w)
{
	char buf[1024];

	if (!rpt_why_line(w, c->sample, c->metric, c->j, row, buf, sizeof(buf)))
		return;
	fprintf(out, "<tr class=\"why\"><td></td><td colspan=\"6\">");
	rpt_html_esc(out, buf);
	fprintf(out, "</td></tr>\n");
}

void rpt_html_how_sure(FILE *out, const struct rpt_cmp *cmp)
{
	const struct rpt_cmp_settings *s = &cmp->set;

	fprintf(out, "<p id=\"how-sure\"><b>How sure:</b> ");
	if (s->decide == RPT_DECIDE_FLOOR)
		fprintf(out,
			"a change counts when it exceeds %g times the A/A floor, the spread each side "
			"shows between its own repetitions (the floor and bar are on each row).",
			s->floor_multiple);
	else
		fprintf(out,
			"a change counts when its test's p, corrected for the %zu gated metrics "
			"compared (Benjamini-Hochberg: q &lt; %g, so on average at most %g %% of the "
			"metrics called changed are false alarms), is below %g, the change is %g %% "
			"or more, and it is larger than each side's own spread between its "
			"repetitions. Each row gives q, p and that spread.",
			rpt_cmp_count_gated(cmp), s->alpha, s->alpha * 100, s->alpha,
			s->threshold_pct);
	fprintf(out, " Host load during the runs:");
	for (int k = 0; k < cmp->nsides; k++) {
		struct rpt_html_load l = rpt_html_side_load(cmp, k);

		fprintf(out, "%s ", k ? ";" : "");
		rpt_html_esc(out, cmp->side_names[k]);
		if (l.runs > 0)
			fprintf(out, " others %.1f %% of the CPUs, steal %.1f %%", l.others_pct,
				l.steal_pct);
		else
			fprintf(out, " not measured");
	}
	fprintf(out, ".</p>\n");
}

void rpt_html_changes(FILE *out, const struct rpt_cmp *cmp, bool plots)
{
	struct change *v[G_COUNT] = { 0 };
	size_t n[G_COUNT], total = 0, row = 0;
	struct rpt_why_lines w = { .style = RPT_WHY_HTML };

	for (int g = 0; g < G_COUNT; g++)
		total += n[g] = collect(cmp, g, &v[g]);
	if (!total) {
		fprintf(out,
			"<p>No metric regressed or improved, and no change of %g %% or more "
			"was hidden by noise.</p>\n",
			cmp->set.threshold_pct);
		return;
	}
	fprintf(out, "<h2>What changed: regressions, what the noise hides, improvements</h2>\n"
		     "<table id=\"changed\"><tr><th>#</th><th>cell</th><th>metric</th>"
		     "<th>baseline</th><th>candidate</th><th>change</th>"
		     "<th>verdict, how sure</th></tr>\n");
	for (int g = 0; g < G_COUNT; g++) {
		if (!n[g])
			continue;
		fprintf(out,
			"<tr class=\"group\" data-group=\"%d\"><th colspan=\"7\">%s (%zu)</th></tr>\n",
			g, group_names[g], n[g]);
		for (size_t i = 0; i < n[g] && i < GROUP_ROWS; i++) {
			const struct change *c = &v[g][i];
			char chg[32];

			rpt_html_fmt_change(chg, sizeof(chg), c->j->change_pct);
			row++;
			fprintf(out,
				"<tr id=\"chg-%zu\" class=\"%s\" data-group=\"%d\"><td>%zu</td><td>",
				row, rpt_verdict_names[c->j->verdict], g, row);
			esc_wbr(out, c->sample->label);
			fprintf(out, "</td><td>");
			esc_wbr(out, c->metric->name);
			rpt_html_plot_link(out, c->sample, c->metric,
					   plots ? RPT_LINKS_CELL : RPT_LINKS_NONE);
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, c->metric, 0);
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, c->metric, c->j->side);
			fprintf(out, "</td><td class=\"num chg\">%s</td><td>", chg);
			how_sure_cell(out, c->j);
			fprintf(out, "</td></tr>\n");
			why_row(out, c, row, &w);
		}
		if (n[g] > GROUP_ROWS)
			fprintf(out,
				"<tr><td></td><td colspan=\"6\">%zu more in the full comparison below.</td></tr>\n",
				n[g] - GROUP_ROWS);
	}
	rpt_why_lines_free(&w);
	fprintf(out, "</table>\n");
	for (int g = 0; g < G_COUNT; g++)
		free(v[g]);
}
