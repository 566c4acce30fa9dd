/*
 * JUnit XML for CI test views (Jenkins, GitLab, GitHub): a <testsuite> per sample, a
 * <testcase> per metric. With a comparison, a gated regression is a <failure>; what the gate
 * could not judge (not_proven, noisy, insufficient, cannot judge) is <skipped> with its
 * reason, never a silent pass; the figures ride in <properties>. A plain export (one side)
 * has nothing to fail: its cases pass and carry the values.
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/gate.h"

/* XML text and attribute values: the five entities, and no control character at all. */
static void xml_esc(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			/* XML 1.0 allows no C0 control but tab, LF, CR: a label's ESC is dropped */
			if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
				fputc(*s, out);
		}
}

static void prop(FILE *out, const char *name, const char *fmt, double v)
{
	if (!isfinite(v))
		return;
	fprintf(out, "        <property name=\"%s\" value=\"", name);
	fprintf(out, fmt, v);
	fputs("\"/>\n", out);
}

/* What a judged metric is to a CI view: 0 pass, 1 failure, 2 skipped (with @ret_why). */
static int outcome(const struct rpt_cmp *cmp, const struct rpt_cmp_metric *m,
		   const struct rpt_cmp_judged *j, const char **ret_why)
{
	*ret_why = j->reason;
	if (j->cannot_judge)
		return 2;
	if (j->verdict == RPT_REGRESSION && j->rule.gate)
		return 1;
	if (j->verdict == RPT_NOT_PROVEN) {
		*ret_why = rpt_cmp_blocks(cmp, m, j) ?
				   "beyond the threshold but not proven: the gate cannot judge it" :
				   "beyond the threshold but not proven";
		return 2;
	}
	if (j->verdict == RPT_NOISY || j->verdict == RPT_INSUFFICIENT) {
		if (!*ret_why)
			*ret_why = j->verdict == RPT_NOISY ? "noisy: the spread hides any change" :
							     "too few runs a side";
		return 2;
	}
	return 0;
}

static void sample_write(FILE *out, const struct rpt_cmp *cmp, const struct rpt_cmp_sample *s)
{
	size_t tests = 0, failures = 0, skipped = 0;
	int k0 = cmp->nsides >= 2 ? 1 : 0;

	for (size_t i = 0; i < s->nmetrics; i++)
		for (int k = k0; k < (k0 ? cmp->nsides : 1); k++) {
			const char *why;
			int o = k0 ? outcome(cmp, &s->metrics[i], &s->metrics[i].judged[k - 1],
					     &why) :
				     0;

			tests++;
			failures += o == 1;
			skipped += o == 2;
		}
	fputs("  <testsuite name=\"", out);
	xml_esc(out, s->label);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", tests,
		failures, skipped);
	for (size_t i = 0; i < s->nmetrics; i++) {
		const struct rpt_cmp_metric *m = &s->metrics[i];

		for (int k = k0; k < (k0 ? cmp->nsides : 1); k++) {
			const struct rpt_cmp_judged *j = k0 ? &m->judged[k - 1] : NULL;
			const struct rpt_cmp_side *sd = &m->sides[k];
			const char *why = NULL;
			int o = j ? outcome(cmp, m, j, &why) : 0;

			fputs("    <testcase classname=\"fsbench.", out);
			xml_esc(out, s->label);
			fputs("\" name=\"", out);
			xml_esc(out, m->name);
			if (k0 && cmp->nsides > 2) {
				fputs(" (", out);
				xml_esc(out, cmp->side_names[k]);
				fputs(")", out);
			}
			fputs("\" time=\"0\">\n      <properties>\n", out);
			fputs("        <property name=\"unit\" value=\"", out);
			xml_esc(out, m->unit);
			fputs("\"/>\n", out);
			if (sd->n)
				prop(out, "mean", "%.6g", sd->st.mean);
			prop(out, "n", "%.0f", (double)sd->n);
			if (j && m->sides[0].n)
				prop(out, "baseline_mean", "%.6g", m->sides[0].st.mean);
			if (j && j->stats) {
				prop(out, "change_pct", "%.3f", j->change_pct);
				prop(out, "p", "%.4g", j->p);
				prop(out, "q", "%.4g", j->q);
				prop(out, "floor_pct", "%.3f", j->floor_pct);
			}
			if (j) {
				fputs("        <property name=\"verdict\" value=\"", out);
				xml_esc(out, rpt_verdict_names[j->verdict]);
				fputs("\"/>\n", out);
			}
			fputs("      </properties>\n", out);
			if (o == 1) {
				fprintf(out, "      <failure type=\"regression\" message=\"");
				xml_esc(out, m->name);
				fprintf(out, " %+.2f %% (%s)\"/>\n", j->change_pct,
					m->dir == RPT_HIGHER_IS_BETTER ? "higher is better" :
									 "lower is better");
			} else if (o == 2) {
				fputs("      <skipped message=\"", out);
				xml_esc(out, why ? why : rpt_verdict_names[j->verdict]);
				fputs("\"/>\n", out);
			}
			fputs("    </testcase>\n", out);
		}
	}
	fputs("  </testsuite>\n", out);
}

static int junit_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	(void)o;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fsbench\">\n", out);
	for (size_t i = 0; i < cmp->nsamples; i++)
		sample_write(out, cmp, &cmp->samples[i]);
	fputs("</testsuites>\n", out);
	return ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_junit = {
	.name = "junit",
	.summary = "JUnit XML for CI test views: a suite per sample, a case per metric; a "
		   "regression fails, what could not be judged is skipped with its reason",
	.write = junit_write,
};
