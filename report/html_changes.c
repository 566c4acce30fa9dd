/* The HTML report's ranked changes: regressions, "could not tell", improvements; how sure and why. */
#include "report/html_changes.h"
#include "report/html_head.h"
#include "report/html_table.h"
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

/* The why item named @fmt with "%s" as @per ("commits per fsync"), or NULL. */
static const json_t *why_item(const json_t *why, const char *fmt, const char *per)
{
	const json_t *it;
	char name[96];
	size_t i;

	snprintf(name, sizeof(name), fmt, per);
	json_array_foreach(
		json_object_get(why, "items"), i,
		it) if (!strcmp(mdl_str_or(json_string_value(json_object_get(it, "name")), ""),
				name)) return it;
	return NULL;
}

static double item_side(const json_t *it, const char *side)
{
	const json_t *v = json_object_get(it, side);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * Whether the why line counts per the call that commits: the sync call (fsync, fdatasync),
 * or a file of a files/s figure (each file ends in one). Other calls share the same totals
 * divided by their own counts ("commits per close 1.00"), which explains nothing of them.
 */
static bool per_commits(const struct change *c, const char *per)
{
	if (!strcmp(per, "fsync") || !strcmp(per, "fdatasync"))
		return true;
	return !strcmp(per, "file") && !strcmp(c->metric->name, "files_per_sec");
}

/* Device time per call on side @side in µs: requests x write d2c + flushes x flush d2c. */
static double device_us(const json_t *why, const char *per, const char *side)
{
	double req = item_side(why_item(why, "requests per %s", per), side),
	       wd2c = item_side(why_item(why, "write d2c", per), side),
	       fl = item_side(why_item(why, "flushes per %s", per), side),
	       fd2c = item_side(why_item(why, "flush d2c", per), side);
	double t = 0;

	if (isfinite(req) && isfinite(wd2c))
		t += req * wd2c;
	if (isfinite(fl) && isfinite(fd2c))
		t += fl * fd2c;
	return isfinite(wd2c) || isfinite(fd2c) ? t : NAN;
}

/*
 * The change of the metric as time per call in µs (NAN when it is not a time): a latency's
 * mean, or per-file time of a files/s figure (threads / files per second).
 */
static double metric_delta_us(const struct change *c)
{
	const struct rpt_cmp_metric *m = c->metric;
	double a = m->sides[0].st.mean, b = m->sides[c->j->side].st.mean;
	double t = json_is_integer(c->sample->threads) ?
			   (double)json_integer_value(c->sample->threads) :
			   1;

	if (!m->sides[0].n || !m->sides[c->j->side].n)
		return NAN;
	if (m->unit && !strcmp(m->unit, "us"))
		return b - a;
	if (m->unit && !strcmp(m->unit, "files/s") && a > 0 && b > 0)
		return t * 1e6 / b - t * 1e6 / a;
	return NAN;
}

/* One why item "name a → b unit" in the page's units (µs scaled, KiB for KB). */
static void item_text(FILE *out, const json_t *it)
{
	const char *name = mdl_str_or(json_string_value(json_object_get(it, "name")), "?"),
		   *unit = mdl_str_or(json_string_value(json_object_get(it, "unit")), "");
	bool us = !strcmp(unit, "us");
	size_t n = strlen(unit);
	char a[48], b[48];

	/* a name that leads with its unit ("KB written per fsync") takes the page's spelling */
	if (n && !strncmp(name, unit, n) && name[n] == ' ') {
		rpt_html_esc(out, rpt_html_unit(unit));
		name += n;
	}
	rpt_html_fmt_value(a, sizeof(a), item_side(it, "baseline"), NAN, us ? unit : "");
	rpt_html_fmt_value(b, sizeof(b), item_side(it, "candidate"), NAN, us ? unit : "");
	rpt_html_esc(out, name);
	fprintf(out, " %s → %s", a, b);
	if (n && !us) {
		fprintf(out, " ");
		rpt_html_esc(out, rpt_html_unit(unit));
	}
}

/*
 * ". Device time per fsync +0.5 ms explains 14 % of the +3.7 ms change": the share of the
 * metric's change (as time per call) that the device's time per call accounts for.
 */
static void share_text(FILE *out, const struct change *c, const char *per)
{
	const json_t *why = c->j->why;
	double da = device_us(why, per, "baseline"), db = device_us(why, per, "candidate");
	double dm = metric_delta_us(c), share;
	char x[48], y[48];

	if (!isfinite(da) || !isfinite(db) || !isfinite(dm) || dm == 0)
		return;
	share = (db - da) / dm * 100;
	rpt_html_fmt_value(x, sizeof(x), db - da, NAN, "us");
	rpt_html_fmt_value(y, sizeof(y), dm, NAN, "us");
	fprintf(out, " Device time per %s %s%s", per, db >= da ? "+" : "", x);
	if (share < 0)
		fprintf(out, " moved against");
	else if (share > 100)
		fprintf(out, " is more than");
	else
		fprintf(out, " explains %.0f %% of", share);
	fprintf(out, " the %s%s change%s%s.", dm >= 0 ? "+" : "", y,
		strcmp(c->metric->unit ? c->metric->unit : "", "us") ? " in time per " : "",
		strcmp(c->metric->unit ? c->metric->unit : "", "us") ? per : "");
}

/* The items that moved 5 % or more (of a cell, the same on every metric of its call). */
static void why_text(FILE *out, const struct change *c, const char *per)
{
	const json_t *it;
	size_t i, shown = 0;

	json_array_foreach(json_object_get(c->j->why, "items"), i, it)
	{
		const json_t *ch = json_object_get(it, "change_pct");

		if (json_is_number(ch) && fabs(json_number_value(ch)) < 5)
			continue;
		fprintf(out, "%s", shown++ ? "; " : "");
		item_text(out, it);
	}
	if (!shown)
		fprintf(out, "no kernel-side quantity per %s moved 5 %% or more", per);
	fprintf(out, ".");
}

/* A why line already on the page: its cell, side and call, and the row it is under. */
struct said {
	const struct rpt_cmp_sample *sample;
	int side;
	const char *per;
	size_t row;
};

/*
 * The why row under change @c (row @row): the kernel side's account once per cell, side and
 * call (@said, *@nsaid of them so far), then on later rows only the share of their change.
 */
static void why_row(FILE *out, const struct change *c, size_t row, struct said *said, size_t *nsaid)
{
	const char *per = json_string_value(json_object_get(c->j->why, "per"));

	if (!per || !per_commits(c, per))
		return;
	for (size_t r = 0; r < *nsaid; r++)
		if (said[r].sample == c->sample && said[r].side == c->j->side &&
		    !strcmp(said[r].per, per)) {
			char *buf = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&buf, &len);

			if (!m)
				return;
			share_text(m, c, per);
			if (!fclose(m) && len)
				fprintf(out,
					"<tr class=\"why\"><td></td><td colspan=\"6\">Kernel side "
					"as in row %zu.%s</td></tr>\n",
					said[r].row, buf);
			free(buf);
			return;
		}
	said[(*nsaid)++] = (struct said){ c->sample, c->j->side, per, row };
	fprintf(out, "<tr class=\"why\"><td></td><td colspan=\"6\">Kernel side per %s: ", per);
	why_text(out, c, per);
	share_text(out, c, per);
	fprintf(out, "</td></tr>\n");
}

/* The anchor of the plot a metric of @c is drawn in (html_plot.c's figure ids). */
static void plot_link(FILE *out, const struct change *c)
{
	const char *w = json_string_value(c->sample->workload), *dot = strchr(c->metric->name, '.');
	char cap[160];

	if (!w)
		return;
	if (dot && c->metric->unit && !strcmp(c->metric->unit, "us"))
		snprintf(cap, sizeof(cap), "%s: %.*s latency by percentile", w,
			 (int)(dot - c->metric->name), c->metric->name);
	else if (!strcmp(c->metric->name, "files_per_sec") ||
		 !strcmp(c->metric->name, "bytes_per_sec"))
		snprintf(cap, sizeof(cap), "throughput %s", w); /* html.c's anchor */
	else
		return;
	fprintf(out, " <a href=\"#");
	rpt_html_fig_id(out, cap);
	fprintf(out, "\">plot</a>");
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

void rpt_html_changes(FILE *out, const struct rpt_cmp *cmp)
{
	struct change *v[G_COUNT] = { 0 };
	size_t n[G_COUNT], total = 0, row = 0, nsaid = 0;
	struct said *said;

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
	said = calloc(total, sizeof(*said));
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
			plot_link(out, c);
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, c->metric, 0);
			fprintf(out, "</td><td class=\"num\">");
			side_value(out, c->metric, c->j->side);
			fprintf(out, "</td><td class=\"num chg\">%s</td><td>", chg);
			how_sure_cell(out, c->j);
			fprintf(out, "</td></tr>\n");
			if (said)
				why_row(out, c, row, said, &nsaid);
		}
		if (n[g] > GROUP_ROWS)
			fprintf(out,
				"<tr><td></td><td colspan=\"6\">%zu more in the full comparison below.</td></tr>\n",
				n[g] - GROUP_ROWS);
	}
	free(said);
	fprintf(out, "</table>\n");
	for (int g = 0; g < G_COUNT; g++)
		free(v[g]);
}
