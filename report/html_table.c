/* The HTML report's tables and numbers: the comparison, throughput by threads, values with units. */
#include "report/html_table.h"
#include "model/op.h"
#include "model/schema.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

void rpt_html_esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

void rpt_html_id(char *buf, size_t len, const char *prefix, const char *s)
{
	size_t at = (size_t)snprintf(buf, len, "%s", prefix);
	bool dash = false;

	for (; s && *s && at + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			buf[at++] = (char)c;
			dash = false;
		} else if (c >= 'A' && c <= 'Z') {
			buf[at++] = (char)(c - 'A' + 'a');
			dash = false;
		} else if (!dash) {
			buf[at++] = '-';
			dash = true;
		}
	}
	if (at < len)
		buf[at] = 0;
}

void rpt_html_fig_id(FILE *out, const char *s)
{
	char id[512];

	rpt_html_id(id, sizeof(id), "fig-", s);
	fputs(id, out);
}

void rpt_html_cell_plot_id(char *buf, size_t len, const struct rpt_cmp_sample *s, const char *op)
{
	char name[320];

	snprintf(name, sizeof(name), "%s %s", s->label, op);
	rpt_html_id(buf, len, "plot-", name);
}

bool rpt_html_metric_op(const struct rpt_cmp_metric *m, char *buf, size_t len)
{
	const char *dot = strchr(m->name, '.');

	if (!dot || m->kind != RPT_KIND_LATENCY)
		return false;
	snprintf(buf, len, "%.*s", (int)(dot - m->name), m->name);
	return mdl_op_find(buf) >= 0;
}

void rpt_html_plot_link(FILE *out, const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
			enum rpt_html_links links)
{
	const char *w = json_string_value(s->workload);
	char op[64], id[512];

	if (links == RPT_LINKS_NONE)
		return;
	if (rpt_html_metric_op(m, op, sizeof(op)) && links == RPT_LINKS_CELL) {
		rpt_html_cell_plot_id(id, sizeof(id), s, op);
	} else if (rpt_html_metric_op(m, op, sizeof(op)) && w) {
		char cap[160];

		snprintf(cap, sizeof(cap), "%s: %s latency by percentile", w,
			 op); /* html_plot_pct.c's */
		rpt_html_id(id, sizeof(id), "fig-", cap);
	} else if (w && (!strcmp(m->name, "files_per_sec") || !strcmp(m->name, "bytes_per_sec"))) {
		char cap[160];

		snprintf(cap, sizeof(cap), "throughput %s", w); /* html.c's anchor */
		rpt_html_id(id, sizeof(id), "fig-", cap);
	} else {
		return;
	}
	fprintf(out, " <a href=\"#%s\">plot</a>", id);
}

const char *rpt_html_unit(const char *unit)
{
	if (unit && !strcmp(unit, "us"))
		return "µs";
	if (unit && !strcmp(unit, "KB"))
		return "KiB"; /* the probes' KB are 1024 bytes */
	return unit;
}

/* A number as people read it: three significant digits or so, never an exponent. */
void rpt_html_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	snprintf(buf, len,
		 a >= 100 ? "%.0f" :
		 a >= 10  ? "%.1f" :
		 a >= 1	  ? "%.2f" :
		 a == 0	  ? "0" :
			    "%.2g",
		 v);
}

/* The unit a latency of @ns nanoseconds reads best in, and its size in nanoseconds. */
const char *rpt_html_time_unit(double ns, double *ret_scale)
{
	static const struct {
		double scale;
		const char *name;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "µs" }, { 1, "ns" } };
	size_t i;

	for (i = 0; i + 1 < sizeof(units) / sizeof(units[0]) && fabs(ns) < units[i].scale; i++)
		;
	*ret_scale = units[i].scale;
	return units[i].name;
}

/*
 * "12.3 ± 6.9 ms": @v and its half-width @pm (NAN: none) in @unit, a compare metric's
 * unit; latencies ("us") move to the unit that suits @v.
 */
void rpt_html_fmt_value(char *buf, size_t len, double v, double pm, const char *unit)
{
	char a[32], b[32] = "";
	double scale = 1;

	if (unit && !strcmp(unit, "us")) {
		unit = rpt_html_time_unit(v * 1e3, &scale);
		v = v * 1e3 / scale;
		pm = pm * 1e3 / scale;
	} else if (unit && !strcmp(unit, "MiB") && fabs(v) < 1) {
		unit = "KiB";
		v *= 1024;
		pm *= 1024;
	}
	rpt_html_fmt_num(a, sizeof(a), v);
	if (isfinite(pm))
		rpt_html_fmt_num(b, sizeof(b), pm);
	snprintf(buf, len, "%s%s%s%s%s", a, *b ? " ± " : "", b, unit && *unit ? " " : "",
		 unit ? unit : "");
}

/* "label (file run N, missing on side)" items of a comparison's run notes, if any. */
static void compare_list(FILE *out, const struct rpt_cmp *cmp, const struct rpt_cmp_run_note *v,
			 size_t n, bool unmatched, const char *what)
{
	if (!n)
		return;
	fprintf(out, "<p class=\"warn\">%s:</p>\n<ul>\n", what);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<li>");
		rpt_html_esc(out, v[i].what);
		fprintf(out, " (<code>");
		rpt_html_esc(out, v[i].file);
		fprintf(out, "</code> run %lld", v[i].run + 1);
		if (unmatched) {
			fprintf(out, ", none on ");
			rpt_html_esc(out, cmp->side_names[v[i].side]);
		}
		fprintf(out, ")</li>\n");
	}
	fprintf(out, "</ul>\n");
}

void rpt_html_compare_table(FILE *out, const struct rpt_cmp *cmp, const char *note,
			    enum rpt_html_links links)
{
	const char *across = cmp ? cmp->set.across : NULL;

	fprintf(out, "<h2>Comparison</h2>\n");
	if (note) {
		fprintf(out, "<p class=\"warn\">");
		rpt_html_esc(out, note);
		fprintf(out, "</p>\n");
	}
	if (!cmp)
		return;
	/* what each side is: the files on it, or the coordinate value */
	fprintf(out, "<p>Sides%s", across ? " by coords." : "");
	rpt_html_esc(out, across);
	fprintf(out, ":</p>\n<ul>\n");
	for (int k = 0; k < cmp->nsides; k++) {
		const char *name = cmp->side_names[k];
		const json_t *files = cmp->side_files[k], *f;
		size_t j;

		fprintf(out, "<li><b>");
		rpt_html_esc(out, name);
		fprintf(out, "</b>%s", !k && strcmp(name, "baseline") ? " (the baseline)" : "");
		json_array_foreach(files, j, f)
		{
			/* a side named by its only file says nothing more */
			if (json_array_size(files) == 1 &&
			    !strcmp(name, mdl_str_or(json_string_value(f), "")))
				break;
			fprintf(out, "%s<code>", j ? ", " : " from ");
			rpt_html_esc(out, json_string_value(f));
			fprintf(out, "</code>");
		}
		fprintf(out, "</li>\n");
	}
	fprintf(out, "</ul>\n");
	compare_list(out, cmp, cmp->unmatched, cmp->nunmatched, true,
		     "Samples with no match on a side, not compared");
	compare_list(out, cmp, cmp->excluded, cmp->nexcluded, false, "Incomplete runs, left out");
	fprintf(out, "<table class=\"cmp\"><tr><th>sample</th><th>metric</th>");
	for (int k = 0; k < cmp->nsides; k++) {
		fprintf(out, "<th>");
		rpt_html_esc(out, cmp->side_names[k]);
		fprintf(out, " (mean ± 95%% CI, n)</th>");
	}
	for (int k = 1; k < cmp->nsides; k++)
		fprintf(out, "<th>change</th><th>p</th><th>verdict</th>");
	fprintf(out, "</tr>\n");
	for (size_t i = 0; i < cmp->nsamples; i++)
		for (size_t j = 0; j < cmp->samples[i].nmetrics; j++) {
			const struct rpt_cmp_metric *m = &cmp->samples[i].metrics[j];

			fprintf(out, "<tr><td>");
			rpt_html_esc(out, cmp->samples[i].label);
			fprintf(out, "</td><td>");
			rpt_html_esc(out, m->name);
			rpt_html_plot_link(out, &cmp->samples[i], m, links);
			fprintf(out, "</td>");
			for (int k = 0; k < cmp->nsides; k++) {
				const struct rpt_cmp_side *st = &m->sides[k];
				char v[96];

				if (!st->n) {
					fprintf(out, "<td class=\"num\">(0)</td>");
					continue;
				}
				rpt_html_fmt_value(v, sizeof(v), st->st.mean,
						   st->st.ci_hi - st->st.mean, m->unit);
				fprintf(out, "<td class=\"num\">");
				rpt_html_esc(out, v);
				fprintf(out, " (%zu)</td>", st->n);
			}
			for (int k = 0; k + 1 < cmp->nsides; k++) {
				const struct rpt_cmp_judged *c = &m->judged[k];
				const char *v = rpt_verdict_names[c->verdict];

				fprintf(out, "<td class=\"num\">");
				if (c->stats && isfinite(c->change_pct))
					fprintf(out, "%+.1f %%", c->change_pct);
				fprintf(out, "</td><td class=\"num\">");
				if (c->stats && c->tested && isfinite(c->p))
					fprintf(out, c->p < 0.001 ? "&lt; 0.001" : "%.3f", c->p);
				fprintf(out, "</td><td class=\"%s\">%s</td>", v, v);
			}
			fprintf(out, "</tr>\n");
		}
	fprintf(out, "</table>\n");
}

void rpt_html_throughput_table(FILE *out, const struct group *g, int ng)
{
	char num[32];

	fprintf(out,
		"<table><tr><th>workload</th><th>line</th><th>threads</th><th>mean</th><th>unit</th>"
		"<th>runs</th></tr>\n");
	for (int w = 0; w < ng; w++)
		for (int b = 0; rpt_html_workload_first(g, w) && b < 2; b++)
			for (int i = w; i < ng; i++)
				for (int t = 1; t <= MDL_MAX_THREADS; t++) {
					if (strcmp(g[i].workload, g[w].workload) || !g[i].tn[b][t])
						continue;
					fprintf(out, "<tr><td>");
					rpt_html_esc(out, g[i].workload);
					fprintf(out, "</td><td>");
					rpt_html_esc(out, g[i].name);
					rpt_html_fmt_num(num, sizeof(num),
							 g[i].tsum[b][t] / g[i].tn[b][t]);
					fprintf(out,
						"</td><td class=\"num\">%d</td><td class=\"num\">%s</td><td>%s</td>"
						"<td class=\"num\">%.0f</td></tr>\n",
						t, num, b ? "MB/s" : "files/s", g[i].tn[b][t]);
				}
	fprintf(out, "</table>\n");
}
