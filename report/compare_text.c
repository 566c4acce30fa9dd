/* Text and markdown output of a comparison: tables, rows the samples, columns the sides. */
#include "report/compare_text.h"
#include "report/gate.h"
#include "report/why_text.h"

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

static void side_cell(char *buf, size_t len, const struct rpt_cmp_side *sd)
{
	double mean = sd->st.mean;
	char m[32];

	if (!sd->n) {
		snprintf(buf, len, "- (0)");
		return;
	}
	fmt_num(m, sizeof(m), mean);
	if (sd->n >= 2 && mean != 0)
		snprintf(buf, len, "%s ±%.1f%% (%zu)", m, (sd->st.ci_hi - mean) / fabs(mean) * 100,
			 sd->n);
	else
		snprintf(buf, len, "%s (%zu)", m, sd->n);
}

static void cmp_cell(char *buf, size_t len, const struct rpt_cmp_judged *c, bool markdown)
{
	const char *v = rpt_verdict_names[c->verdict];
	bool loud = c->verdict == RPT_REGRESSION || c->verdict == RPT_IMPROVEMENT;
	bool fl = c->stats && isfinite(c->floor_pct);
	const char *ng = !c->rule.gate ? " (not gated)" : "";
	char pt[32] = "";

	/* decided by the A/A floor (rpt_cmp_decide_floor): the floor beside the verdict */
	if (fl)
		snprintf(pt, sizeof(pt), " floor %.2f%%", c->floor_pct);
	else if (c->stats && c->tested && isfinite(c->p))
		snprintf(pt, sizeof(pt), " p=%.3g", c->p);
	/* no change computed (too few runs, a side cannot be judged): the verdict alone */
	if (!c->stats)
		snprintf(buf, len, "- %s%s", v, ng);
	/* no relative change: the baseline's mean is 0 (a count that was nothing) */
	else if (!isfinite(c->change_pct))
		snprintf(buf, len, "from 0 %s%s%s%s%s", markdown && loud ? "**" : "", v,
			 markdown && loud ? "**" : "", ng, pt);
	else
		snprintf(buf, len, fl ? "%+.2f%% %s%s%s%s%s" : "%+.1f%% %s%s%s%s%s", c->change_pct,
			 markdown && loud ? "**" : "", v, markdown && loud ? "**" : "", ng, pt);
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
static void print_metric_table(FILE *out, const struct rpt_cmp *cmp, const char *const *names,
			       size_t nnames, bool metric_col, bool markdown)
{
	size_t nsides = (size_t)cmp->nsides, lead = metric_col ? 2 : 1,
	       cols = lead + nsides + (nsides - 1);
	size_t rows = 1, cap = 1;
	char(*cells)[CELL_MAX];

	if (!nsides) /* rpt_cmp_from_json refuses such documents; cols would wrap */
		return;
	for (size_t i = 0; i < cmp->nsamples; i++)
		cap += cmp->samples[i].nmetrics;
	cells = calloc(cap * cols, CELL_MAX);
	if (!cells)
		return;
	snprintf(cells[0], CELL_MAX, "sample");
	if (metric_col)
		snprintf(cells[1], CELL_MAX, "metric");
	for (size_t k = 0; k < nsides; k++)
		snprintf(cells[lead + k], CELL_MAX, "%s", cmp->side_names[k]);
	for (size_t k = 1; k < nsides; k++)
		snprintf(cells[lead + nsides + k - 1], CELL_MAX, "%s vs %s", cells[lead + k],
			 cells[lead]);
	for (size_t n = 0; n < nnames; n++)
		for (size_t i = 0; i < cmp->nsamples; i++)
			for (size_t j = 0; j < cmp->samples[i].nmetrics; j++) {
				const struct rpt_cmp_metric *m = &cmp->samples[i].metrics[j];
				char(*row)[CELL_MAX] = &cells[rows * cols];

				if (strcmp(m->name, names[n]))
					continue;
				snprintf(row[0], CELL_MAX, "%s", cmp->samples[i].label);
				if (metric_col)
					snprintf(row[1], CELL_MAX, "%s", names[n]);
				for (size_t k = 0; k < nsides; k++)
					side_cell(row[lead + k], CELL_MAX, &m->sides[k]);
				for (size_t k = 1; k < nsides; k++)
					cmp_cell(row[lead + nsides + k - 1], CELL_MAX,
						 &m->judged[k - 1], markdown);
				rows++;
			}
	print_table(out, cells, rows, cols, lead, markdown);
	fprintf(out, "\n");
	free(cells);
}

size_t rpt_cmp_why_print(const struct rpt_cmp *cmp, FILE *out, bool markdown)
{
	struct rpt_why_lines w = { .style = RPT_WHY_TEXT };
	size_t n = 0;

	for (size_t i = 0; i < cmp->nsamples; i++) {
		const struct rpt_cmp_sample *s = &cmp->samples[i];

		for (size_t j = 0; j < s->ninstr; j++)
			fprintf(out,
				"%sinstrumentation: %s (%s): %s; its per-call latencies not judged\n",
				markdown ? "- " : "", s->label, cmp->side_names[s->instr[j].side],
				s->instr[j].differs);
		for (size_t j = 0; j < s->nmetrics; j++)
			for (int k = 0; k + 1 < cmp->nsides; k++) {
				const struct rpt_cmp_judged *c = &s->metrics[j].judged[k];
				char line[1024];

				if (!rpt_why_line(&w, s, &s->metrics[j], c, n + 1, line,
						  sizeof(line)))
					continue;
				if (!n++)
					fprintf(out, markdown ? "\n#### why (kernel side)\n\n" :
								"why (kernel side, per call):\n");
				fprintf(out, "%s%s [%s]: %s ", markdown ? "- " : "  ", s->label,
					rpt_verdict_names[c->verdict], s->metrics[j].name);
				if (!c->stats)
					fputs("-: ", out);
				else
					fprintf(out,
						isfinite(c->change_pct) ? "%+.1f %%: " : "from 0: ",
						c->change_pct);
				fprintf(out, "%s\n", line);
			}
	}
	rpt_why_lines_free(&w);
	return n;
}

/* Prints the verdict counts of @cmp: " 1 unchanged, 0 improvement, ..." and @end. */
static void counts_print(FILE *out, const struct rpt_cmp *cmp, const char *end)
{
	for (int v = 0; v < RPT_VERDICT_COUNT; v++)
		fprintf(out, " %zu %s%s", rpt_cmp_count(cmp, v, false), rpt_verdict_names[v],
			v + 1 < RPT_VERDICT_COUNT ? "," : end);
}

void rpt_cmp_print(const struct rpt_cmp *cmp, FILE *out, bool markdown)
{
	size_t cap = 1, nlat = 0, nseen = 0;
	const char **latency, **seen;

	for (size_t s = 0; s < cmp->nsamples; s++)
		cap += cmp->samples[s].nmetrics;
	latency = calloc(cap, sizeof(*latency));
	seen = calloc(cap, sizeof(*seen));
	if (!latency || !seen)
		goto out;
	if (markdown) {
		fprintf(out, "### fsbench compare:");
		counts_print(out, cmp, "\n\n");
	}
	/* throughput and kernel metrics: a table each, rows the samples (the seed threads' layout) */
	for (size_t s = 0; s < cmp->nsamples; s++)
		for (size_t j = 0; j < cmp->samples[s].nmetrics; j++) {
			const struct rpt_cmp_metric *m = &cmp->samples[s].metrics[j];
			bool dup = false;

			for (size_t k = 0; k < nseen && !dup; k++)
				dup = !strcmp(seen[k], m->name);
			if (dup)
				continue;
			seen[nseen++] = m->name;
			if (m->kind == RPT_KIND_LATENCY) {
				latency[nlat++] = m->name;
				continue;
			}
			fprintf(out,
				markdown ? "#### %s (%s, %s is better)\n\n" :
					   "%s (%s, %s is better)\n",
				m->name, m->unit,
				m->dir == RPT_HIGHER_IS_BETTER ? "higher" : "lower");
			print_metric_table(out, cmp, (const char *const *)&m->name, 1, false,
					   markdown);
		}
	/* latency percentiles: one table, a row per sample and percentile */
	if (nlat) {
		fprintf(out, markdown ? "#### latency (us, lower is better)\n\n" :
					"latency (us, lower is better)\n");
		print_metric_table(out, cmp, (const char *const *)latency, nlat, true, markdown);
	}
	for (size_t i = 0; i < cmp->nexcluded; i++)
		fprintf(out, "%sexcluded: %s run %lld: %s\n", markdown ? "- " : "",
			cmp->excluded[i].file, cmp->excluded[i].run, cmp->excluded[i].what);
	for (size_t i = 0; i < cmp->nunmatched; i++)
		fprintf(out, "%sunmatched: %s run %lld (%s): nothing on side '%s'\n",
			markdown ? "- " : "", cmp->unmatched[i].file, cmp->unmatched[i].run,
			cmp->unmatched[i].what, cmp->side_names[cmp->unmatched[i].side]);
	rpt_cmp_why_print(cmp, out, markdown);
	if (cmp->cannot_judge)
		fprintf(out, "%scannot judge: %s\n", markdown ? "- " : "",
			cmp->cannot_judge_reason);
	if (!markdown && cmp->nsides > 1) {
		fprintf(out, "verdicts:");
		counts_print(out, cmp, "\n");
	}
out:
	free(latency);
	free(seen);
}

/* The document-taking forms, for callers that hold only the document. */
void rpt_compare_print(const json_t *cmp, FILE *out, bool markdown)
{
	struct rpt_cmp *c = NULL;
	char err[8];

	if (rpt_cmp_from_json(cmp, "", &c, err, sizeof(err)))
		return;
	rpt_cmp_print(c, out, markdown);
	rpt_cmp_free(c);
}

size_t rpt_compare_why_print(const json_t *cmp, FILE *out, bool markdown)
{
	struct rpt_cmp *c = NULL;
	char err[8];
	size_t n;

	if (rpt_cmp_from_json(cmp, "", &c, err, sizeof(err)))
		return 0;
	n = rpt_cmp_why_print(c, out, markdown);
	rpt_cmp_free(c);
	return n;
}
