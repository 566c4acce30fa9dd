/* The HTML report's plots: gnuplot scripts run to SVG and inlined, from groups of runs. */
#include "report/html_plot.h"
#include "report/html_table.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/spawn.h"
#include "model/result_file.h"
#include "model/schema.h"

/* Gnuplot titles: double-quoted strings where " and \ need escaping and @ & _ ^ are safe without enhanced text. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* gnuplot on @script, its output unwanted: 0, or -errno / -ECHILD when it failed. */
static int run_gnuplot(const char *prog, const char *script)
{
	char *argv[] = { (char *)prog, (char *)script, NULL };
	struct base_spawn sp = { .argv = argv,
				 .out = BASE_SPAWN_DEVNULL,
				 .err = BASE_SPAWN_DEVNULL,
				 .die_with_parent = true };
	int st, r = base_spawn_run(&sp, &st);

	if (r)
		return r;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

/* Copies an SVG file into the page without its XML prolog, with ids made unique to plot @n. */
static int inline_svg(FILE *out, const char *path, int n)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *p, *start;
	size_t cap = 0, len;
	char pref[16];

	if (!f)
		return -errno;
	len = 0;
	for (;;) {
		char chunk[8192];
		size_t r = fread(chunk, 1, sizeof(chunk), f);
		char *nb;

		if (!r)
			break;
		nb = realloc(buf, cap + r + 1);
		if (!nb) {
			free(buf);
			fclose(f);
			return -ENOMEM;
		}
		buf = nb;
		memcpy(buf + cap, chunk, r);
		cap += r;
		buf[cap] = 0;
	}
	fclose(f);
	if (!buf)
		return -EIO;
	start = strstr(buf, "<svg");
	if (!start) {
		free(buf);
		return -EIO;
	}
	snprintf(pref, sizeof(pref), "p%d", n);
	/* gnuplot names its markers gpPt0... in every file; in one page they would collide */
	for (p = start; *p; p++) {
		if (!strncmp(p, "id='gp", 6) || !strncmp(p, "id=\"gp", 6)) {
			fprintf(out, "%.4s%s", p, pref);
			p += 3;
			continue;
		}
		if (!strncmp(p, "#gp", 3)) {
			fprintf(out, "#%s", pref);
			continue;
		}
		fputc(*p, out);
	}
	(void)len;
	free(buf);
	return 0;
}

/* @path's bytes as base64 into @out: a PNG inlined as a data: URI. 0 or -errno. */
static int inline_base64(FILE *out, const char *path)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	FILE *f = fopen(path, "rb");
	unsigned char in[3];
	size_t r;

	if (!f)
		return -errno;
	while ((r = fread(in, 1, 3, f)) > 0) {
		unsigned v = (unsigned)in[0] << 16 | (r > 1 ? (unsigned)in[1] << 8 : 0) |
			     (r > 2 ? in[2] : 0);

		fputc(tab[v >> 18 & 63], out);
		fputc(tab[v >> 12 & 63], out);
		fputc(r > 1 ? tab[v >> 6 & 63] : '=', out);
		fputc(r > 2 ? tab[v & 63] : '=', out);
		if (r < 3)
			break;
	}
	r = ferror(f) ? EIO : 0;
	fclose(f);
	return -(int)r;
}

/*
 * One plot: @data is gnuplot's inline data already written into @script_body by the
 * caller, which also set the terminal-independent settings. Emits a <figure>: inline SVG,
 * or with @raster a PNG image as a data: URI, for plots of many points (an SVG of a
 * 1024-point I/O map is 130 KB: 48 of them made a 24-run pair's page 6.7 MB, issue 24).
 */
static void plot_as(struct page *pg, const char *caption, const char *script_body, bool raster)
{
	char script[320], img[320];
	FILE *f;
	int n = ++pg->nplots;

	if (!pg->o->gnuplot)
		return;
	snprintf(script, sizeof(script), "%s/plot%d.gp", pg->dir, n);
	snprintf(img, sizeof(img), "%s/plot%d.%s", pg->dir, n, raster ? "png" : "svg");
	f = fopen(script, "w");
	if (!f)
		return;
	/* no title inside the plot: the figcaption says it once */
	fprintf(f,
		"set encoding utf8\nset terminal %s size 760,380 font \"sans,%d\" "
		"background \"white\"\nset output ",
		raster ? "pngcairo" : "svg", raster ? 9 : 11);
	gp_str(f, img);
	fprintf(f, "\nset grid\nset key outside right top\n%s", script_body);
	fclose(f);
	fprintf(pg->out, "<figure>\n");
	if (run_gnuplot(pg->o->gnuplot, script) != 0) {
		fprintf(pg->out, "<p class=\"warn\">gnuplot failed to draw this plot.</p>\n");
	} else if (!raster) {
		if (inline_svg(pg->out, img, n) == 0)
			pg->drawn++;
		else
			fprintf(pg->out,
				"<p class=\"warn\">gnuplot's SVG could not be read.</p>\n");
	} else {
		fprintf(pg->out, "<img class=\"raster\" width=\"760\" height=\"380\" alt=\"");
		rpt_html_esc(pg->out, caption);
		fprintf(pg->out, "\" src=\"data:image/png;base64,");
		if (inline_base64(pg->out, img) == 0)
			pg->drawn++;
		fprintf(pg->out, "\">\n");
	}
	fprintf(pg->out, "<figcaption>");
	rpt_html_esc(pg->out, caption);
	fprintf(pg->out, "</figcaption></figure>\n");
}

static void plot(struct page *pg, const char *caption, const char *script_body)
{
	plot_as(pg, caption, script_body, false);
}

/*
 * Baseline beside candidate (issue 24, item 2): a line named "SIDE: LINE" gets the colour
 * of LINE (the filesystem or cell), the same on every side, and is solid on the first side
 * seen and dashed on the others, so ext4's baseline and candidate read as a pair. A name
 * without a side keeps gnuplot's own colours.
 */
static void line_style(FILE *f, const struct group *g, int ng, int i)
{
	static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
					       "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };
	const char *sep = strstr(g[i].name, ": ");
	int colour = -1, side = -1, ncolours = 0, nsides = 0;

	if (!sep)
		return;
	for (int k = 0; k < ng && k <= i; k++) {
		const char *ks = strstr(g[k].name, ": ");
		bool seen_line = false, seen_side = false;

		if (!ks || strcmp(g[k].workload, g[i].workload))
			continue;
		for (int j = 0; j < k; j++) {
			const char *js = strstr(g[j].name, ": ");

			if (!js || strcmp(g[j].workload, g[i].workload))
				continue;
			seen_line |= !strcmp(js, ks);
			seen_side |= js - g[j].name == ks - g[k].name &&
				     !strncmp(g[j].name, g[k].name, (size_t)(ks - g[k].name));
		}
		if (!seen_line)
			ncolours++;
		if (!seen_side)
			nsides++;
		if (colour < 0 && !strcmp(ks, sep))
			colour = ncolours - 1;
		if (side < 0 && ks - g[k].name == sep - g[i].name &&
		    !strncmp(g[k].name, g[i].name, (size_t)(sep - g[i].name)))
			side = nsides - 1;
	}
	if (colour < 0 || side < 0)
		return;
	fprintf(f, " lc rgb \"%s\" dt %d",
		palette[colour % (int)(sizeof(palette) / sizeof(palette[0]))], side ? 2 : 1);
}

static bool has_threads(const struct group *g, bool bytes)
{
	for (int t = 1; t <= RPT_MAX_THREADS; t++)
		if (g->tn[bytes][t])
			return true;
	return false;
}

/* The one thread count every line of @workload has in @bytes' unit, or 0 when there are more. */
static int single_thread_count(const struct group *g, int ng, const char *workload, bool bytes)
{
	int only = 0;

	for (int i = 0; i < ng; i++)
		for (int t = 1; !strcmp(g[i].workload, workload) && t <= RPT_MAX_THREADS; t++) {
			if (!g[i].tn[bytes][t])
				continue;
			if (only && only != t)
				return 0;
			only = t;
		}
	return only;
}

/* Throughput at the one thread count @t of @workload: a bar per line. Closes @f, frees *@body. */
static void bars_plot(struct page *pg, FILE *f, char **body, struct group *g, int ng,
		      const char *workload, bool bytes, int t)
{
	char cap[160];
	int n = 0, bars = 0;

	for (int i = 0; i < ng; i++)
		bars += !strcmp(g[i].workload, workload) && g[i].tn[bytes][t];
	fprintf(f,
		"set ylabel \"%s\"\nset yrange [0:*]\nset xrange [-0.6:%g]\nset style fill solid 0.6\n"
		"set boxwidth 0.6\nset key off\nset grid noxtics\nset xtics noenhanced\n"
		"plot '-' using 0:2:xtic(1) with boxes lw 2 notitle\n",
		bytes ? "MB/s" : "files/s", bars - 0.4);
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !g[i].tn[bytes][t])
			continue;
		gp_str(f, g[i].name);
		fprintf(f, " %.6g\n", g[i].tsum[bytes][t] / g[i].tn[bytes][t]);
		n++;
	}
	fprintf(f, "e\n");
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: %s at %d thread%s", workload, bytes ? "MB/s" : "files/s", t,
		 t == 1 ? "" : "s");
	if (n)
		plot(pg, cap, *body);
	free(*body);
}

/* @unit's throughput against threads, one line per group of @workload. */
void rpt_html_throughput_plot(struct page *pg, struct group *g, int ng, const char *workload,
			      bool bytes)
{
	char *body = NULL, cap[160];
	size_t blen = 0;
	FILE *f = open_memstream(&body, &blen);
	int any = 0;

	int only = single_thread_count(g, ng, workload, bytes);

	if (!f)
		return;
	if (only) {
		/* one thread count: a bar per line, not lone points on a log axis */
		bars_plot(pg, f, &body, g, ng, workload, bytes, only);
		return;
	}
	fprintf(f,
		"set xlabel \"threads\"\nset ylabel \"%s\"\nset logscale x 2\nset yrange [0:*]\nplot ",
		bytes ? "MB/s" : "files/s");
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !has_threads(&g[i], bytes))
			continue;
		fprintf(f, "%s'-' using 1:2 with linespoints lw 2", any++ ? ", " : "");
		line_style(f, g, ng, i);
		fprintf(f, " title ");
		gp_str(f, g[i].name);
		fprintf(f, " noenhanced");
	}
	fprintf(f, "\n");
	for (int i = 0; i < ng; i++) {
		if (strcmp(g[i].workload, workload) || !has_threads(&g[i], bytes))
			continue;
		for (int t = 1; t <= RPT_MAX_THREADS; t++)
			if (g[i].tn[bytes][t])
				fprintf(f, "%d %.6g\n", t, g[i].tsum[bytes][t] / g[i].tn[bytes][t]);
		fprintf(f, "e\n");
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: %s against threads", workload, bytes ? "MB/s" : "files/s");
	if (any)
		plot(pg, cap, body);
	free(body);
}

/*
 * Latency by percentile, the way HdrHistogram plots it: x is 1/(1-p) on a log axis, so
 * 50 %, 90 %, 99 %, 99.9 % and 99.99 % are evenly spaced and a stall in the last thousandth
 * of calls gets as much room as the median; latency on a log axis too.
 */
#define PCT_MARKS 5
static const struct {
	double x; /* 1/(1-p) */
	const char *label; /* gnuplot reads tic labels as formats: %% is a percent sign */
} pct_marks[PCT_MARKS] = { { 2, "50 %%" },
			   { 10, "90 %%" },
			   { 100, "99 %%" },
			   { 1000, "99.9 %%" },
			   { 10000, "99.99 %%" } };

/*
 * The steps of @h's percentile curve: from each bin's first percentile on, the bin's upper
 * bound (capped at the maximum), and the maximum at the last call's own percentile,
 * 1 - 1/count, where the line ends. Latencies are divided by @scale.
 */
static void pct_steps(FILE *f, const struct hist *h, double scale)
{
	uint64_t below = 0;

	for (unsigned b = 0; b < HIST_NBINS; b++) {
		uint64_t lo, hi;

		if (!h->bins[b])
			continue;
		hist_bin_bounds(b, &lo, &hi);
		fprintf(f, "%.9g %.6g\n", 1 / (1 - (double)below / (double)h->count),
			(double)(hi - 1 < h->max ? hi - 1 : h->max) / scale);
		below += h->bins[b];
	}
	if (h->overflow)
		fprintf(f, "%.9g %.6g\n", 1 / (1 - (double)below / (double)h->count),
			(double)h->max / scale);
	fprintf(f, "%.9g %.6g\ne\n", (double)h->count, (double)h->max / scale);
}

/* One latency-by-percentile plot per operation of @workload, one line per group. */
void rpt_html_pct_plots(struct page *pg, struct group *g, int ng, const char *workload)
{
	for (int rank = 0; rpt_op_name_at(rank); rank++) {
		const char *opname = rpt_op_name_at(rank), *unit;
		int op = rpt_op_find(opname);
		char *body = NULL, cap[160];
		size_t blen = 0;
		FILE *f;
		int any = 0;
		uint64_t maxcount = 0, maxns = 0;
		double scale;

		for (int i = 0; i < ng; i++)
			if (!strcmp(g[i].workload, workload) && g[i].h[op] && g[i].h[op]->count) {
				any++;
				if (g[i].h[op]->count > maxcount)
					maxcount = g[i].h[op]->count;
				if (g[i].h[op]->max > maxns)
					maxns = g[i].h[op]->max;
			}
		if (!any)
			continue;
		f = open_memstream(&body, &blen);
		if (!f)
			return;
		unit = rpt_html_time_unit((double)maxns, &scale);
		/* the marks a line reaches, and "max" where the longest line ends */
		fprintf(f,
			"set xlabel \"percentile\"\nset ylabel \"latency (%s)\"\n"
			"set logscale x 10\nset logscale y 10\nset xrange [1:%g]\nset xtics (",
			unit, maxcount > 2 ? (double)maxcount : 3.0);
		for (int m = 0; m < PCT_MARKS; m++)
			if (pct_marks[m].x * 2 <= (double)maxcount || m == 0)
				fprintf(f, "%s\"%s\" %g", m ? ", " : "", pct_marks[m].label,
					pct_marks[m].x);
		fprintf(f, ", \"max\" %g)\nset mxtics 10\nset key left top inside\nplot ",
			maxcount > 2 ? (double)maxcount : 3.0);
		any = 0;
		for (int i = 0; i < ng; i++)
			if (!strcmp(g[i].workload, workload) && g[i].h[op] && g[i].h[op]->count) {
				fprintf(f, "%s'-' using 1:2 with steps lw 2", any++ ? ", " : "");
				line_style(f, g, ng, i);
				fprintf(f, " title ");
				gp_str(f, g[i].name);
				fprintf(f, " noenhanced");
			}
		fprintf(f, "\n");
		for (int i = 0; i < ng; i++)
			if (!strcmp(g[i].workload, workload) && g[i].h[op] && g[i].h[op]->count)
				pct_steps(f, g[i].h[op], scale);
		fclose(f);
		snprintf(cap, sizeof(cap), "%s: %s latency by percentile", workload, opname);
		plot(pg, cap, body);
		free(body);
	}
}

/* MB/s over time from a run's series.done: the interval's rate from its start. */
static void series_plot(struct page *pg, const json_t *series, const char *name)
{
	const json_t *t = json_object_get(series, "t_ns"), *done = json_object_get(series, "done");
	char cap[320], *body = NULL;
	size_t blen = 0;
	FILE *f;

	f = open_memstream(&body, &blen);
	if (!f)
		return;
	fprintf(f, "set xlabel \"time (s)\"\nset ylabel \"MB/s\"\nset yrange [0:*]\n"
		   "plot '-' using 1:2 with steps lw 2 title \"written\"\n");
	for (size_t i = 1; i < json_array_size(t); i++) {
		double t0 = (double)json_integer_value(json_array_get(t, i - 1)),
		       t1 = (double)json_integer_value(json_array_get(t, i));
		double d0 = (double)json_integer_value(json_array_get(done, i - 1)),
		       d1 = (double)json_integer_value(json_array_get(done, i));

		/* the interval's rate from its start; the last one repeated at the end closes the step */
		if (t1 > t0) {
			fprintf(f, "%.6g %.6g\n", t0 / 1e9, (d1 - d0) / 1e6 / ((t1 - t0) / 1e9));
			if (i + 1 == json_array_size(t))
				fprintf(f, "%.6g %.6g\n", t1 / 1e9,
					(d1 - d0) / 1e6 / ((t1 - t0) / 1e9));
		}
	}
	fprintf(f, "e\n");
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: throughput over time", name);
	plot(pg, cap, body);
	free(body);
}

/* Dirty and Writeback over time from a run's kernel.samples. */
static void dirty_plot(struct page *pg, const json_t *ks, const char *name)
{
	const json_t *t = json_object_get(ks, "t_ns");
	char cap[320], *body = NULL;
	size_t blen = 0;
	FILE *f;

	f = open_memstream(&body, &blen);
	if (!f)
		return;
	fprintf(f,
		"set xlabel \"time (s)\"\nset ylabel \"MiB\"\nset yrange [0:*]\n"
		"plot '-' using 1:2 with lines lw 2 title \"Dirty\", '-' using 1:2 with lines lw 2 title \"Writeback\"\n");
	for (int which = 0; which < 2; which++) {
		const json_t *v = json_object_get(ks, which ? "writeback_bytes" : "dirty_bytes");

		for (size_t i = 0; i < json_array_size(t); i++)
			fprintf(f, "%.6g %.6g\n",
				(double)json_integer_value(json_array_get(t, i)) / 1e9,
				json_number_value(json_array_get(v, i)) / 1048576);
		fprintf(f, "e\n");
	}
	fclose(f);
	snprintf(cap, sizeof(cap), "%s: Dirty and Writeback over time", name);
	plot(pg, cap, body);
	free(body);
}

/*
 * For each byte-counting run: throughput and Dirty/Writeback over time, each when it has
 * two points or more (a run shorter than the series interval still has kernel samples).
 */
void rpt_html_time_plots(struct page *pg, json_t *const *docs, const char *const *paths,
			 const char *const *labels, size_t ndocs)
{
	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;

		json_array_foreach(json_object_get(docs[d], RPT_KEY_RUNS), r, run)
		{
			const json_t *series = json_object_get(run, "series"),
				     *ks = json_object_get(json_object_get(run, "kernel"),
							   "samples");
			char name[160];

			if (rpt_run_unit(run) != RPT_UNIT_BYTES)
				continue;
			rpt_html_run_label(run, paths[d], labels ? labels[d] : NULL, r, name,
					   sizeof(name));
			if (json_array_size(json_object_get(series, "t_ns")) >= 2)
				series_plot(pg, series, name);
			if (json_array_size(json_object_get(ks, "t_ns")) >= 2)
				dirty_plot(pg, ks, name);
		}
	}
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
	plot_as(pg, cap, body, true);
	free(body);
}
