/* The HTML report's kernel-side attribution, built to scale with a suite (issue 24, item 3). */
#include "report/html_attrib.h"
#include "report/html_table.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/runs.h"
#include "model/schema.h"
#include "report/attrib.h"
#include "report/why.h"

/* The page's runs with their side and cell: what every table of the section groups by. */
struct att {
	struct mdl_run_ref *refs;
	size_t nrefs;
	size_t *cell; /* per ref: its index into cells */
	char (*cells)[160]; /* coords.cell, else "WORKLOAD t=THREADS" */
	size_t ncells;
	const char **sides; /* per side: its label (NULL: the page has no sides) */
	int nsides;
	size_t *idx; /* scratch: one cell's runs on one side */
};

static void att_free(struct att *a)
{
	mdl_runs_free(a->refs, a->nrefs);
	free(a->cell);
	free(a->cells);
	free(a->sides);
	free(a->idx);
}

/* A run's cell: its suite cell, else its workload and threads (one file's runs). */
static void cell_name(const json_t *run, char *buf, size_t len)
{
	const char *cell =
		json_string_value(json_object_get(json_object_get(run, MDL_KEY_COORDS), "cell"));

	if (cell)
		snprintf(buf, len, "%s", cell);
	else
		snprintf(buf, len, "%s t=%lld", mdl_json_str(run, MDL_KEY_WORKLOAD, ""),
			 (long long)json_integer_value(json_object_get(run, MDL_KEY_THREADS)));
}

/*
 * Puts every run on its side (the documents' labels in order of first appearance, as the
 * plots' lines do) and in its cell. 0 or -ENOMEM.
 */
static int att_build(struct att *a, json_t *const *docs, const char *const *paths,
		     const char *const *labels, size_t ndocs)
{
	memset(a, 0, sizeof(*a));
	a->sides = calloc(ndocs + 1, sizeof(*a->sides));
	if (!a->sides)
		return -ENOMEM;
	for (size_t d = 0; d < ndocs; d++) {
		const char *l = labels ? labels[d] : NULL;
		int s;

		for (s = 0; s < a->nsides; s++)
			if ((!l && !a->sides[s]) || (l && a->sides[s] && !strcmp(l, a->sides[s])))
				break;
		if (s == a->nsides)
			a->sides[a->nsides++] = l;
		if (mdl_runs_add(&a->refs, &a->nrefs, docs[d], paths[d], s))
			return -ENOMEM;
	}
	a->cell = calloc(a->nrefs + 1, sizeof(*a->cell));
	a->cells = calloc(a->nrefs + 1, sizeof(*a->cells));
	a->idx = calloc(a->nrefs + 1, sizeof(*a->idx));
	if (!a->cell || !a->cells || !a->idx)
		return -ENOMEM;
	for (size_t i = 0; i < a->nrefs; i++) {
		char name[160];
		size_t c;

		cell_name(a->refs[i].run, name, sizeof(name));
		for (c = 0; c < a->ncells && strcmp(a->cells[c], name); c++)
			;
		if (c == a->ncells)
			memcpy(a->cells[a->ncells++], name, sizeof(name));
		a->cell[i] = c;
	}
	return 0;
}

/* Cell @c's complete runs on side @s into a->idx; their number. */
static size_t att_select(struct att *a, size_t c, int s)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nrefs; i++)
		if (a->cell[i] == c && a->refs[i].side == s && mdl_run_complete(a->refs[i].run))
			a->idx[n++] = i;
	return n;
}

/* The sync call a cell's kernel work is counted per: fsync, else fdatasync, else none. */
static const char *cell_sync_op(const struct att *a, size_t c)
{
	static const char *const ops[] = { "fsync", "fdatasync" };

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		for (size_t i = 0; i < a->nrefs; i++)
			if (a->cell[i] == c &&
			    json_number_value(json_object_get(mdl_run_op(a->refs[i].run, ops[k]),
							      "count")) > 0)
				return ops[k];
	return NULL;
}

/* Whether @name says its unit first ("KB written per fsync"): no "(KB)" after it then. */
static bool unit_leads(const char *name, const char *unit)
{
	size_t n = strlen(unit);

	return !strncmp(name, unit, n) && name[n] == ' ';
}

static void num_cell(FILE *out, const struct rpt_why_value *v)
{
	char b[32];

	if (!v->have) {
		fprintf(out, "<td class=\"num\">-</td>");
		return;
	}
	rpt_html_fmt_num(b, sizeof(b), v->v);
	fprintf(out, "<td class=\"num\">%s</td>", b);
}

/* Side @k's difference from side 0: "+1.00" and "+50.0 %" (or "-" where a side lacks it). */
static void diff_cells(FILE *out, const struct rpt_why_value *a, const struct rpt_why_value *b)
{
	double pct;
	char d[32];

	if (!a->have || !b->have) {
		fprintf(out, "<td class=\"num\">-</td><td class=\"num\">-</td>");
		return;
	}
	rpt_html_fmt_num(d, sizeof(d), b->v - a->v);
	pct = rpt_why_change_pct(a->v, b->v);
	fprintf(out, "<td class=\"num%s\">%s%s</td>", fabs(pct) >= 5 ? " moved" : "",
		b->v > a->v ? "+" : "", d);
	if (isfinite(pct))
		fprintf(out, "<td class=\"num%s\">%+.1f %%</td>", fabs(pct) >= 5 ? " moved" : "",
			pct);
	else
		fprintf(out, "<td class=\"num moved\">from 0</td>");
}

/*
 * One cell's rows: its name over a row per quantity any side measured, each side's value
 * and, against the first side, each other side's difference and change. False when no
 * side of the cell measured anything.
 */
static bool cell_rows(FILE *out, struct att *a, size_t c, const char *op)
{
	struct rpt_why_value(*v)[RPT_WHY_ITEMS] = calloc((size_t)a->nsides, sizeof(*v));
	size_t nruns[a->nsides > 0 ? a->nsides : 1];
	bool any = false;

	if (!v)
		return false;
	for (int s = 0; s < a->nsides; s++) {
		nruns[s] = att_select(a, c, s);
		rpt_why_side(a->refs, a->idx, nruns[s], op, v[s]);
		for (size_t q = 0; q < RPT_WHY_ITEMS; q++)
			any |= v[s][q].have;
	}
	if (!any) {
		free(v);
		return false;
	}
	fprintf(out, "<tr class=\"cell\"><th colspan=\"%d\">", 1 + a->nsides + 2 * (a->nsides - 1));
	rpt_html_esc(out, a->cells[c]);
	fprintf(out, ", per %s (", op);
	for (int s = 0; s < a->nsides; s++) {
		fprintf(out, "%s%zu run%s", s ? ", " : "", nruns[s], nruns[s] == 1 ? "" : "s");
		if (a->sides[s]) {
			fprintf(out, " ");
			rpt_html_esc(out, a->sides[s]);
		}
	}
	fprintf(out, ")</th></tr>\n");
	for (size_t q = 0; q < RPT_WHY_ITEMS; q++) {
		bool have = false;

		for (int s = 0; s < a->nsides; s++)
			have |= v[s][q].have;
		if (!have)
			continue;
		fprintf(out, "<tr><td>");
		/* in the page's spelling of the unit, leading the name or after it */
		if (*v[0][q].unit && unit_leads(v[0][q].name, v[0][q].unit)) {
			rpt_html_esc(out, rpt_html_unit(v[0][q].unit));
			rpt_html_esc(out, v[0][q].name + strlen(v[0][q].unit));
		} else {
			rpt_html_esc(out, v[0][q].name);
		}
		if (*v[0][q].unit && !unit_leads(v[0][q].name, v[0][q].unit))
			fprintf(out, " (%s)", rpt_html_unit(v[0][q].unit));
		fprintf(out, "</td>");
		for (int s = 0; s < a->nsides; s++)
			num_cell(out, &v[s][q]);
		for (int s = 1; s < a->nsides; s++)
			diff_cells(out, &v[0][q], &v[s][q]);
		fprintf(out, "</tr>\n");
	}
	free(v);
	return true;
}

/*
 * What the kernel did per sync call, per cell and side: what the why lines compare, for
 * every cell rather than the changed metrics only, so that a reader sees the flushes per
 * fsync of a cell that did not move too.
 */
static void cell_summary(FILE *out, struct att *a)
{
	bool head = false;

	for (size_t c = 0; c < a->ncells; c++) {
		const char *op = cell_sync_op(a, c);

		if (!op)
			continue;
		if (!head) {
			fprintf(out,
				"<h3>Kernel work per call, by cell</h3>\n<p>Per fsync (fdatasync "
				"where a cell has no fsync): the counters of every complete run of "
				"a cell and side summed, then divided by its calls; commit phases "
				"and d2c are means per commit or request.</p>\n"
				"<div style=\"overflow-x:auto\"><table class=\"cellsum\"><tr>"
				"<th>quantity</th>");
			for (int s = 0; s < a->nsides; s++) {
				fprintf(out, "<th>");
				rpt_html_esc(out, a->sides[s] ? a->sides[s] : "per call");
				fprintf(out, "</th>");
			}
			for (int s = 1; s < a->nsides; s++) {
				fprintf(out, "<th>");
				rpt_html_esc(out, a->sides[s]);
				fprintf(out, " − ");
				rpt_html_esc(out, a->sides[0]);
				fprintf(out, "</th><th>change</th>");
			}
			fprintf(out, "</tr>\n");
			head = true;
		}
		cell_rows(out, a, c, op);
	}
	if (head)
		fprintf(out, "</table></div>\n");
}

struct slow_ref {
	const json_t *call;
	size_t ref;
	json_int_t ns;
};

static int slow_ref_cmp(const void *x, const void *y)
{
	const struct slow_ref *a = x, *b = y;

	return (a->ns < b->ns) - (a->ns > b->ns);
}

/* Every slow call of every run, slowest first, into *@ret; their number (0 on ENOMEM). */
static size_t slow_calls(const struct att *a, struct slow_ref **ret)
{
	struct slow_ref *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < a->nrefs; i++) {
		const json_t *call;
		size_t c;

		json_array_foreach(json_object_get(json_object_get(a->refs[i].run, "probes"),
						   "slow_calls"),
				   c, call)
		{
			if (n == cap) {
				struct slow_ref *nv =
					realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!nv) {
					free(v);
					return 0;
				}
				v = nv;
			}
			v[n++] = (struct slow_ref){
				call, i, json_integer_value(json_object_get(call, "duration_ns"))
			};
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), slow_ref_cmp);
	*ret = v;
	return n;
}

/* One row of a slowest-calls table: its rank, its run, what the kernel did meanwhile. */
static void slow_row(FILE *out, const struct att *a, const struct slow_ref *r, size_t rank)
{
	const struct mdl_run_ref *ref = &a->refs[r->ref];
	const char *dev =
		json_string_value(json_object_get(json_object_get(ref->run, "probes"), "device"));
	char name[160], sentence[1024];

	rpt_html_run_label(ref->run, ref->file, a->sides[ref->side], ref->index, name,
			   sizeof(name));
	rpt_attrib_sentence(r->call, dev, sentence, sizeof(sentence));
	fprintf(out, "<tr><td>%zu</td><td>", rank);
	rpt_html_esc(out, name);
	fprintf(out, "</td><td>");
	rpt_html_esc(out, sentence);
	fprintf(out, "</td></tr>\n");
}

/*
 * The slowest calls of every run together (issue 24, item 3: a suite's 24 runs held 1768
 * rows a side when every run's own table was open), then each cell's and side's slowest.
 */
static void slowest(FILE *out, const struct att *a)
{
	struct slow_ref *v = NULL;
	size_t n = slow_calls(a, &v);

	if (n >= 2) {
		fprintf(out, "<h3>Slowest calls overall</h3>\n<table class=\"slowest\"><tr>"
			     "<th>#</th><th>run</th><th>what the kernel did meanwhile</th></tr>\n");
		for (size_t i = 0; i < n && i < RPT_HTML_SLOWEST_OVERALL; i++)
			slow_row(out, a, &v[i], i + 1);
		fprintf(out, "</table>\n");
	}
	/* one cell alone: the table above is its own */
	if (n >= 2 && a->ncells > 1) {
		fprintf(out, "<h3>Slowest calls per cell</h3>\n<table class=\"slowest-cell\"><tr>"
			     "<th>#</th><th>run</th><th>what the kernel did meanwhile</th></tr>\n");
		for (size_t c = 0; c < a->ncells; c++)
			for (int s = 0; s < a->nsides; s++) {
				size_t rank = 0;

				for (size_t i = 0; i < n && rank < RPT_HTML_SLOWEST_PER_CELL; i++) {
					const struct mdl_run_ref *ref = &a->refs[v[i].ref];

					if (a->cell[v[i].ref] != c || ref->side != s)
						continue;
					if (!rank) {
						fprintf(out,
							"<tr class=\"cell\"><th colspan=\"3\">");
						if (a->sides[s]) {
							rpt_html_esc(out, a->sides[s]);
							fprintf(out, ": ");
						}
						rpt_html_esc(out, a->cells[c]);
						fprintf(out, "</th></tr>\n");
					}
					slow_row(out, a, &v[i], ++rank);
				}
			}
		fprintf(out, "</table>\n");
	}
	free(v);
}

/*
 * Whether run @i is the first of its cell (the typed run's sample key) on its side among
 * those @mapped so far (its indices, *@n of them); if so it is added. Without memory for the
 * list (@mapped NULL) every run is drawn, as before.
 */
static bool first_of_cell(const struct mdl_run_ref *refs, size_t *mapped, size_t *n, size_t i)
{
	if (!mapped || !refs[i].r.key)
		return true;
	for (size_t k = 0; k < *n; k++)
		if (refs[mapped[k]].side == refs[i].side &&
		    !strcmp(refs[mapped[k]].r.key, refs[i].r.key))
			return false;
	mapped[(*n)++] = i;
	return true;
}

void rpt_html_kernel_sections(struct page *pg, json_t *const *docs, const char *const *paths,
			      const char *const *labels, size_t ndocs)
{
	struct att a;
	bool any = false;
	size_t *mapped, nmapped = 0, skipped_maps = 0;

	if (att_build(&a, docs, paths, labels, ndocs)) {
		fprintf(pg->out, "<p class=\"warn\">Kernel-side attribution left out: %s.</p>\n",
			strerror(ENOMEM));
		att_free(&a);
		return;
	}
	for (size_t i = 0; i < a.nrefs && !any; i++)
		any = json_object_get(a.refs[i].run, "probes") != NULL;
	if (!any) {
		att_free(&a);
		return;
	}
	fprintf(pg->out, "<h2>Kernel-side attribution</h2>\n"
			 "<p>What the kernel did on the device per call in each cell, the slowest "
			 "calls and what the kernel did while each ran (eBPF probes); each run's "
			 "own table is folded under its name.</p>\n");
	cell_summary(pg->out, &a);
	slowest(pg->out, &a);
	mapped = calloc(a.nrefs + 1, sizeof(*mapped));
	for (size_t i = 0; i < a.nrefs; i++) {
		const struct mdl_run_ref *ref = &a.refs[i];
		const json_t *iomap = json_object_get(json_object_get(ref->run, "probes"), "iomap");
		char name[160];

		if (!json_object_get(ref->run, "probes"))
			continue;
		rpt_html_run_label(ref->run, ref->file, a.sides[ref->side], ref->index, name,
				   sizeof(name));
		/* a suite has dozens of runs: each table is one click away, not 20 rows each */
		fprintf(pg->out, "<details class=\"run\"><summary><b>");
		rpt_html_esc(pg->out, name);
		fprintf(pg->out, "</b></summary>\n");
		rpt_attrib_html(pg->out, ref->run, 20, rpt_html_esc);
		if (json_array_size(json_object_get(iomap, "points")) >= 2 &&
		    first_of_cell(a.refs, mapped, &nmapped, i))
			rpt_html_iomap_plot(pg, iomap, name);
		else if (json_array_size(json_object_get(iomap, "points")) >= 2)
			skipped_maps++;
		fprintf(pg->out, "</details>\n");
	}
	/* a plot is a gnuplot run (about 0.3 s): one map a cell and side, not one a run */
	if (skipped_maps)
		fprintf(pg->out,
			"<p>I/O maps are drawn for the first run of each cell on each side; %zu "
			"other runs have one too (<code>fsbench report</code> of their own file "
			"draws it).</p>\n",
			skipped_maps);
	free(mapped);
	att_free(&a);
}
