/* The figures of a suite's closing table and progress (suite_run.h): rates, columns, means, the ETA. */
#include "fsbench/suite/suite_run.h"

#include <stdio.h>
#include <string.h>

const char *suite_rate_unit(const struct suite_workload *w)
{
	return w->wl->unit == MDL_UNIT_BYTES ? "MB/s" : "files/s";
}

double suite_run_rate(const struct suite_workload *w, const json_t *run)
{
	json_t *sum = json_object_get(run, "summary");

	if (w->wl->unit == MDL_UNIT_BYTES)
		return json_number_value(json_object_get(sum, "bytes_per_sec")) / 1e6;
	return json_number_value(json_object_get(sum, "files_per_sec"));
}

void suite_cell_column(const struct suite_run *x, const struct suite_cell *c, char *out, size_t len)
{
	size_t n = strlen(c->name), tail;
	char suffix[300];

	snprintf(suffix, sizeof(suffix), "/%s/t=%d", x->s.wl[c->wl].label, c->threads);
	tail = strlen(suffix);
	snprintf(out, len, "%.*s", (int)(n >= tail ? n - tail : n), c->name);
}

/* The cell a run of the result belongs to (its coords.cell), or NULL. */
static const struct suite_cell *run_cell(const struct suite_run *x, const json_t *run)
{
	const char *cell =
		json_string_value(json_object_get(json_object_get(run, "coords"), "cell"));

	for (int i = 0; cell && i < x->ncells; i++)
		if (!strcmp(x->cells[i].name, cell))
			return &x->cells[i];
	return NULL;
}

double suite_column_mean(const struct suite_run *x, int w, int threads, const char *col, int *ret_n)
{
	json_t *runs = json_object_get(x->result.doc, "runs"), *run;
	double sum = 0;
	size_t i;

	*ret_n = 0;
	json_array_foreach(runs, i, run)
	{
		const struct suite_cell *rc = run_cell(x, run);
		char c[256];

		if (!rc || rc->wl != w || rc->threads != threads)
			continue;
		suite_cell_column(x, rc, c, sizeof(c));
		if (strcmp(c, col) ||
		    !json_is_true(json_object_get(json_object_get(run, "summary"), "complete")))
			continue;
		sum += suite_run_rate(&x->s.wl[w], run);
		(*ret_n)++;
	}
	return *ret_n ? sum / *ret_n : 0;
}

void suite_eta(const struct suite_run *x, double elapsed, char *out, size_t len)
{
	double s = x->done ? elapsed / x->done * (x->nrun - x->done) : 0;
	int t = s > 0 ? (int)(s + 0.5) : 0;

	if (!x->done)
		snprintf(out, len, "?");
	else if (t >= 3600)
		snprintf(out, len, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(out, len, "%d:%02d", t / 60, t % 60);
}

void suite_table_axes(const struct suite_run *x, int w, struct suite_table *ret)
{
	struct suite_table *t = ret;

	t->ncols = t->nth = 0;
	t->width = 10;
	for (int i = 0; i < x->ncells; i++) {
		const struct suite_cell *c = &x->cells[i];
		char col[256];
		int k;

		if (c->wl != w || c->skip)
			continue;
		suite_cell_column(x, c, col, sizeof(col));
		for (k = 0; k < t->ncols && strcmp(t->cols[k], col); k++)
			;
		if (k == t->ncols && t->ncols < 64) {
			snprintf(t->cols[t->ncols++], sizeof(t->cols[0]), "%s", col);
			if ((int)strlen(col) + 2 > t->width)
				t->width = (int)strlen(col) + 2;
		}
		for (k = 0; k < t->nth && t->th[k] != c->threads; k++)
			;
		if (k == t->nth && t->nth < (int)(sizeof(t->th) / sizeof(t->th[0])))
			t->th[t->nth++] = c->threads;
	}
}
