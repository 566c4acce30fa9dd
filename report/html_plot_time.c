/* The HTML report's time plots (MB/s, Dirty and Writeback over a run) and the I/O map. */
#include "report/html_plot.h"
#include "report/html_plot_priv.h"
#include "report/html_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "model/result_file.h"
#include "model/schema.h"

/* One run in a time plot: its series or kernel samples, its side's name and rank, its colour. */
struct tline {
	const json_t *run;
	const char *side; /* NULL: a page without sides */
	int rank, colour;
};

/* Solid on the first side, dashed on the others, with the side's name in the key. */
static void tline_style(FILE *f, const struct tline *l, const char *what)
{
	if (!l->side) {
		fprintf(f, " title \"%s\"", what);
		return;
	}
	rpt_plot_pair_line(f, l->colour, l->rank);
	fprintf(f, " title ");
	{
		char t[128];

		snprintf(t, sizeof(t), "%s%s%s", l->side, *what ? " " : "", what);
		rpt_plot_gp_str(f, t);
	}
	fprintf(f, " noenhanced");
}

/* A time plot's script into *@body: its axes in @ylabel, up to "plot ". NULL on failure. */
static FILE *time_plot_open(char **body, size_t *blen, const char *ylabel)
{
	FILE *f = open_memstream(body, blen);

	if (f)
		fprintf(f, "set xlabel \"time (s)\"\nset ylabel \"%s\"\nset yrange [0:*]\nplot ",
			ylabel);
	return f;
}

/* MB/s over time from each run's series.done: the interval's rate from its start. */
static void series_plot(struct page *pg, const struct tline *l, size_t n, const char *name)
{
	char cap[320], *body = NULL;
	size_t blen = 0;
	FILE *f = time_plot_open(&body, &blen, "MB/s");

	if (!f)
		return;
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%s'-' using 1:2 with steps lw 2", k ? ", " : "");
		tline_style(f, &l[k], l[k].side ? "" : "written");
	}
	fprintf(f, "\n");
	for (size_t k = 0; k < n; k++) {
		const json_t *series = json_object_get(l[k].run, "series");
		const json_t *t = json_object_get(series, "t_ns"),
			     *done = json_object_get(series, "done");

		for (size_t i = 1; i < json_array_size(t); i++) {
			double t0 = (double)json_integer_value(json_array_get(t, i - 1)),
			       t1 = (double)json_integer_value(json_array_get(t, i));
			double d0 = (double)json_integer_value(json_array_get(done, i - 1)),
			       d1 = (double)json_integer_value(json_array_get(done, i));

			/* the interval's rate from its start; the last one repeated at the end closes the step */
			if (t1 > t0) {
				fprintf(f, "%.6g %.6g\n", t0 / 1e9,
					(d1 - d0) / 1e6 / ((t1 - t0) / 1e9));
				if (i + 1 == json_array_size(t))
					fprintf(f, "%.6g %.6g\n", t1 / 1e9,
						(d1 - d0) / 1e6 / ((t1 - t0) / 1e9));
			}
		}
		fprintf(f, "e\n");
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: throughput over time", name);
	rpt_plot_svg(pg, cap, body);
	free(body);
}

/*
 * Dirty and Writeback over time from each run's kernel.samples; with sides, Dirty thick and
 * Writeback thin in the cell's colour, each side dashed its own way.
 */
static void dirty_plot(struct page *pg, const struct tline *l, size_t n, const char *name)
{
	char cap[320], *body = NULL;
	size_t blen = 0;
	FILE *f = time_plot_open(&body, &blen, "MiB");

	if (!f)
		return;
	for (size_t k = 0; k < n; k++)
		for (int which = 0; which < 2; which++) {
			fprintf(f, "%s'-' using 1:2 with lines lw %d", k || which ? ", " : "",
				l[k].side && which ? 1 : 2);
			tline_style(f, &l[k], which ? "Writeback" : "Dirty");
		}
	fprintf(f, "\n");
	for (size_t k = 0; k < n; k++) {
		const json_t *ks = json_object_get(json_object_get(l[k].run, "kernel"), "samples");
		const json_t *t = json_object_get(ks, "t_ns");

		for (int which = 0; which < 2; which++) {
			const json_t *v =
				json_object_get(ks, which ? "writeback_bytes" : "dirty_bytes");

			for (size_t i = 0; i < json_array_size(t); i++)
				fprintf(f, "%.6g %.6g\n",
					(double)json_integer_value(json_array_get(t, i)) / 1e9,
					json_number_value(json_array_get(v, i)) / 1048576);
			fprintf(f, "e\n");
		}
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: Dirty and Writeback over time", name);
	rpt_plot_svg(pg, cap, body);
	free(body);
}

static bool has_series(const json_t *run)
{
	return json_array_size(json_object_get(json_object_get(run, "series"), "t_ns")) >= 2;
}

static bool has_samples(const json_t *run)
{
	return json_array_size(json_object_get(
		       json_object_get(json_object_get(run, "kernel"), "samples"), "t_ns")) >= 2;
}

/*
 * Where a run sits for pairing: its cell and repetition; a run outside a suite, its place
 * in its file (two files of one command line hold their runs in the same order).
 */
static void pair_key_of(const json_t *run, size_t index, char *buf, size_t len)
{
	const json_t *coords = json_object_get(run, MDL_KEY_COORDS);
	const char *cell = json_string_value(json_object_get(coords, "cell"));

	if (cell)
		snprintf(buf, len, "%s rep %lld", cell,
			 (long long)json_integer_value(json_object_get(coords, "repetition")));
	else
		snprintf(buf, len, "run %zu", index);
}

/* A byte-counting run of the page: what the time plots draw. */
struct trun {
	const json_t *run;
	size_t doc, index;
	int side; /* rank of its document's label */
	bool done;
	char key[256];
};

/*
 * Two sides or more: one plot per cell and repetition with each side's run of it, in the
 * colour of the cell's filesystem, solid on the first side and dashed on the others; a run
 * without a partner alone, in the same style.
 */
static void time_plots_paired(struct page *pg, struct trun *tr, size_t n, const char *const *sides,
			      int nsides, const char *const *paths)
{
	const char *fses[8];
	int nfs = 0;

	for (size_t i = 0; i < n; i++) {
		struct tline ls[nsides], ld[nsides];
		size_t nls = 0, nld = 0;
		int colour = 0;
		const char *fs;
		char name[160];

		if (tr[i].done)
			continue;
		fs = json_string_value(
			json_object_get(json_object_get(tr[i].run, MDL_KEY_COORDS), "fs"));
		for (colour = 0; fs && colour < nfs && strcmp(fses[colour], fs); colour++)
			;
		if (fs && colour == nfs && nfs < (int)(sizeof(fses) / sizeof(fses[0])))
			fses[nfs++] = fs;
		if (!fs)
			colour = 0;
		for (int s = 0; s < nsides; s++)
			for (size_t k = i; k < n; k++) {
				struct tline l = { tr[k].run, sides[s], s, colour };

				if (tr[k].done || tr[k].side != s || strcmp(tr[k].key, tr[i].key))
					continue;
				tr[k].done = true;
				if (has_series(tr[k].run))
					ls[nls++] = l;
				if (has_samples(tr[k].run))
					ld[nld++] = l;
				break;
			}
		/* the cell and repetition, without a side: the key names the sides */
		rpt_html_run_label(tr[i].run, paths[tr[i].doc], NULL, tr[i].index, name,
				   sizeof(name));
		if (nls)
			series_plot(pg, ls, nls, name);
		if (nld)
			dirty_plot(pg, ld, nld, name);
	}
}

/*
 * For each byte-counting run: throughput and Dirty/Writeback over time, each when it has
 * two points or more (a run shorter than the series interval still has kernel samples).
 * With sides, a cell's runs on each side share a plot.
 */
void rpt_html_time_plots(struct page *pg, json_t *const *docs, const char *const *paths,
			 const char *const *labels, size_t ndocs)
{
	struct trun *tr = NULL;
	const char **sides = calloc(ndocs + 1, sizeof(*sides));
	size_t n = 0;
	int nsides = 0;

	if (!sides)
		return;
	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;
		int s;

		for (s = 0; labels && labels[d] && s < nsides && strcmp(sides[s], labels[d]); s++)
			;
		if (labels && labels[d] && s == nsides)
			sides[nsides++] = labels[d];
		json_array_foreach(json_object_get(docs[d], MDL_KEY_RUNS), r, run)
		{
			struct trun *nt;

			if (mdl_run_unit(run) != MDL_UNIT_BYTES)
				continue;
			nt = realloc(tr, (n + 1) * sizeof(*tr));
			if (!nt)
				goto out;
			tr = nt;
			tr[n] = (struct trun){ .run = run, .doc = d, .index = r, .side = s };
			pair_key_of(run, r, tr[n].key, sizeof(tr[n].key));
			n++;
		}
	}
	if (nsides >= 2) {
		time_plots_paired(pg, tr, n, sides, nsides, paths);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *label = labels ? labels[tr[i].doc] : NULL;
		struct tline l = { tr[i].run, NULL, 0, 0 };
		char name[160];

		rpt_html_run_label(tr[i].run, paths[tr[i].doc], label, tr[i].index, name,
				   sizeof(name));
		if (has_series(tr[i].run))
			series_plot(pg, &l, 1, name);
		if (has_samples(tr[i].run))
			dirty_plot(pg, &l, 1, name);
	}
out:
	free(tr);
	free(sides);
}

/* Sector against time of a run's requests (probes.iomap: seekwatcher's picture). */
void rpt_html_iomap_plot(struct page *pg, const json_t *iomap, const char *name)
{
	static const char *const ops[] = { "write", "read", "discard" };
	const json_t *pts = json_object_get(iomap, "points"), *p;
	char cap[320], *body = NULL;
	size_t blen = 0, i;
	FILE *f;

	f = open_memstream(&body, &blen);
	if (!f)
		return;
	fprintf(f,
		"set xlabel \"time (s)\"\nset ylabel \"offset (MiB)\"\nset xrange [0:*]\nset yrange [0:*]\nplot ");
	for (int k = 0; k < 3; k++)
		fprintf(f, "%s'-' using 1:2 with points pt 7 ps 0.3 title \"%s\"", k ? ", " : "",
			ops[k]);
	fprintf(f, "\n");
	for (int k = 0; k < 3; k++) {
		json_array_foreach(pts, i, p)
		{
			const char *op = json_string_value(json_array_get(p, 3));

			/* flushes have no sector; gnuplot needs one point per block at least */
			if (op && !strcmp(op, ops[k]) && json_is_integer(json_array_get(p, 1)))
				fprintf(f, "%.6f %.3f\n",
					(double)json_integer_value(json_array_get(p, 0)) / 1e9,
					(double)json_integer_value(json_array_get(p, 1)) * 512 /
						1048576);
		}
		fprintf(f, "-1 -1\ne\n");
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: I/O map, %lld of %lld requests (one in %lld)", name,
		 (long long)json_integer_value(json_object_get(iomap, "kept")),
		 (long long)json_integer_value(json_object_get(iomap, "events")),
		 (long long)json_integer_value(json_object_get(iomap, "stride")));
	rpt_plot_as(pg, cap, body, true);
	free(body);
}
