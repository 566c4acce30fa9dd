/* The HTML report: one self-contained page (inline SVG from gnuplot, tables) from results and a comparison. */
#include "report/html.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/attrib.h"
#include "base/fileio.h"
#include "model/hist.h"
#include "model/result_file.h"

#define MAX_GROUPS 32

struct page {
	FILE *out;
	const struct rpt_html_opts *o;
	char dir[256]; /* temporary directory for data, scripts and SVG */
	int nplots; /* plots attempted, to number files and SVG ids */
	int drawn;
};

static const char *str_or(const char *s)
{
	return s ? s : "";
}

static void esc(FILE *out, const char *s)
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

/* A number as people read it: three significant digits or so, never an exponent. */
static void fmt_num(char *buf, size_t len, double v)
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
static const char *time_unit(double ns, double *ret_scale)
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
static void fmt_value(char *buf, size_t len, double v, double pm, const char *unit)
{
	char a[32], b[32] = "";
	double scale = 1;

	if (unit && !strcmp(unit, "us")) {
		unit = time_unit(v * 1e3, &scale);
		v = v * 1e3 / scale;
		pm = pm * 1e3 / scale;
	} else if (unit && !strcmp(unit, "MiB") && fabs(v) < 1) {
		unit = "KiB";
		v *= 1024;
		pm *= 1024;
	}
	fmt_num(a, sizeof(a), v);
	if (isfinite(pm))
		fmt_num(b, sizeof(b), pm);
	snprintf(buf, len, "%s%s%s%s%s", a, *b ? " ± " : "", b, unit && *unit ? " " : "",
		 unit ? unit : "");
}

static int run_gnuplot(const char *prog, const char *script)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp(prog, prog, script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
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

/*
 * One plot: @data is gnuplot's inline data already written into @script_body by the
 * caller, which also set the terminal-independent settings. Emits a <figure>.
 */
static void plot(struct page *pg, const char *caption, const char *script_body)
{
	char script[320], svg[320];
	FILE *f;
	int n = ++pg->nplots;

	if (!pg->o->gnuplot)
		return;
	snprintf(script, sizeof(script), "%s/plot%d.gp", pg->dir, n);
	snprintf(svg, sizeof(svg), "%s/plot%d.svg", pg->dir, n);
	f = fopen(script, "w");
	if (!f)
		return;
	/* no title inside the plot: the figcaption says it once */
	fprintf(f, "set encoding utf8\nset terminal svg size 760,380 font \"sans,11\" "
		   "background \"white\"\nset output ");
	gp_str(f, svg);
	fprintf(f, "\nset grid\nset key outside right top\n%s", script_body);
	fclose(f);
	fprintf(pg->out, "<figure>\n");
	if (run_gnuplot(pg->o->gnuplot, script) == 0 && inline_svg(pg->out, svg, n) == 0)
		pg->drawn++;
	else
		fprintf(pg->out, "<p class=\"warn\">gnuplot failed to draw this plot.</p>\n");
	fprintf(pg->out, "<figcaption>");
	esc(pg->out, caption);
	fprintf(pg->out, "</figcaption></figure>\n");
}

/*
 * A run's line in its workload's plots: its side (@label: baseline, candidate, a file) and
 * its filesystem when it has coords, else its file. A and B never share a line.
 */
static void line_name(const json_t *run, const char *path, const char *label, char *buf, size_t len)
{
	const char *fs = json_string_value(json_object_get(json_object_get(run, "coords"), "fs"));
	char *copy;

	if (fs) {
		snprintf(buf, len, "%s%s%s", label ? label : "", label ? ": " : "", fs);
		return;
	}
	if (label) {
		snprintf(buf, len, "%s", label);
		return;
	}
	copy = strdup(path);
	snprintf(buf, len, "%s", copy ? basename(copy) : path);
	free(copy);
}

static const char *run_workload(const json_t *run)
{
	return str_or(json_string_value(json_object_get(run, "workload")));
}

/*
 * What the plots average over: the runs of one workload on one line. A 4 KiB small-file
 * write and an 8 MiB streaming write share an op name and nothing else, so workloads never
 * share a group.
 */
struct group {
	char workload[64];
	char name[128];
	struct hist *h[RPT_OP_COUNT]; /* per op, merged over the group's complete runs, or NULL */
	/* throughput by thread count (1..RPT_MAX_THREADS): [0] files/s, [1] MB/s */
	double tsum[2][RPT_MAX_THREADS + 1], tn[2][RPT_MAX_THREADS + 1];
};

static struct group *group_get(struct group *g, int *n, const char *workload, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(g[i].workload, workload) && !strcmp(g[i].name, name))
			return &g[i];
	if (*n >= MAX_GROUPS)
		return NULL;
	memset(&g[*n], 0, sizeof(g[*n]));
	snprintf(g[*n].workload, sizeof(g[*n].workload), "%s", workload);
	snprintf(g[*n].name, sizeof(g[*n].name), "%s", name);
	return &g[(*n)++];
}

/* Whether group @i is the first of its workload: the plots loop over workloads this way. */
static bool workload_first(const struct group *g, int i)
{
	for (int k = 0; k < i; k++)
		if (!strcmp(g[k].workload, g[i].workload))
			return false;
	return true;
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
static void throughput_plot(struct page *pg, struct group *g, int ng, const char *workload,
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
		fprintf(f, "%s'-' using 1:2 with linespoints lw 2 title ", any++ ? ", " : "");
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
static void pct_plots(struct page *pg, struct group *g, int ng, const char *workload)
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
		unit = time_unit((double)maxns, &scale);
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
				fprintf(f, "%s'-' using 1:2 with steps lw 2 title ",
					any++ ? ", " : "");
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

/*
 * Which run a time plot shows: its side (@label), suite cell and repetition, else its file,
 * workload and index. Repetitions and runs count from 1, as `fsbench suite` prints them.
 */
static void run_label(const json_t *run, const char *path, const char *label, size_t index,
		      char *buf, size_t len)
{
	const json_t *coords = json_object_get(run, "coords");
	const char *cell = json_string_value(json_object_get(coords, "cell"));
	char *copy;

	if (cell) {
		snprintf(buf, len, "%s%s%s rep %lld", label ? label : "", label ? ": " : "", cell,
			 (long long)json_integer_value(json_object_get(coords, "repetition")) + 1);
		return;
	}
	copy = strdup(path);
	snprintf(buf, len, "%s %s run %zu",
		 label ? label :
		 copy  ? basename(copy) :
			 path,
		 run_workload(run), index + 1);
	free(copy);
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
static void time_plots(struct page *pg, json_t *const *docs, const char *const *paths,
		       const char *const *labels, size_t ndocs)
{
	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;

		json_array_foreach(json_object_get(docs[d], "runs"), r, run)
		{
			const json_t *series = json_object_get(run, "series"),
				     *ks = json_object_get(json_object_get(run, "kernel"),
							   "samples");
			char name[160];

			if (rpt_run_unit(run) != RPT_UNIT_BYTES)
				continue;
			run_label(run, paths[d], labels ? labels[d] : NULL, r, name, sizeof(name));
			if (json_array_size(json_object_get(series, "t_ns")) >= 2)
				series_plot(pg, series, name);
			if (json_array_size(json_object_get(ks, "t_ns")) >= 2)
				dirty_plot(pg, ks, name);
		}
	}
}

/* Sector against time of a run's requests (probes.iomap: seekwatcher's picture). */
static void iomap_plot(struct page *pg, const json_t *iomap, const char *name)
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
	plot(pg, cap, body);
	free(body);
}

/* For each run with eBPF probes: its attribution table and its I/O map. */
static void kernel_sections(struct page *pg, json_t *const *docs, const char *const *paths,
			    const char *const *labels, size_t ndocs)
{
	bool any = false;

	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;

		json_array_foreach(json_object_get(docs[d], "runs"), r, run)
		{
			const json_t *iomap =
				json_object_get(json_object_get(run, "probes"), "iomap");
			char name[160];

			if (!json_object_get(run, "probes"))
				continue;
			if (!any)
				fprintf(pg->out,
					"<h2>Kernel-side attribution</h2>\n"
					"<p>The slowest calls of each run and what the kernel did "
					"on the device while each ran (eBPF probes).</p>\n");
			any = true;
			run_label(run, paths[d], labels ? labels[d] : NULL, r, name, sizeof(name));
			fprintf(pg->out, "<h3>");
			esc(pg->out, name);
			fprintf(pg->out, "</h3>\n");
			rpt_attrib_html(pg->out, run, 20, esc);
			if (json_array_size(json_object_get(iomap, "points")) >= 2)
				iomap_plot(pg, iomap, name);
		}
	}
}

/* "label (file run N, missing on side)" items of a compare document's @key list, if any. */
static void compare_list(FILE *out, const json_t *cmp, const char *key, const char *what)
{
	const json_t *list = json_object_get(cmp, key), *x;
	size_t i;

	if (!json_array_size(list))
		return;
	fprintf(out, "<p class=\"warn\">%s:</p>\n<ul>\n", what);
	json_array_foreach(list, i, x)
	{
		const char *label = json_string_value(json_object_get(x, "label"));

		fprintf(out, "<li>");
		esc(out, label ? label : json_string_value(json_object_get(x, "reason")));
		fprintf(out, " (<code>");
		esc(out, json_string_value(json_object_get(x, "file")));
		fprintf(out, "</code> run %lld",
			(long long)json_integer_value(json_object_get(x, "run")) + 1);
		if (json_object_get(x, "missing_on")) {
			fprintf(out, ", none on ");
			esc(out, json_string_value(json_object_get(x, "missing_on")));
		}
		fprintf(out, ")</li>\n");
	}
	fprintf(out, "</ul>\n");
}

static void compare_table(FILE *out, const json_t *cmp, const char *note)
{
	const json_t *sides = json_object_get(cmp, "sides"), *s, *m, *st, *c, *f;
	const char *across =
		json_string_value(json_object_get(json_object_get(cmp, "settings"), "across"));
	size_t i, j, k;

	fprintf(out, "<h2>Comparison</h2>\n");
	if (note) {
		fprintf(out, "<p class=\"warn\">");
		esc(out, note);
		fprintf(out, "</p>\n");
	}
	if (!cmp)
		return;
	/* what each side is: the files on it, or the coordinate value */
	fprintf(out, "<p>Sides%s", across ? " by coords." : "");
	esc(out, across);
	fprintf(out, ":</p>\n<ul>\n");
	json_array_foreach(sides, k, s)
	{
		const char *name = json_string_value(json_object_get(s, "name"));

		fprintf(out, "<li><b>");
		esc(out, name);
		fprintf(out, "</b>%s",
			!k && name && strcmp(name, "baseline") ? " (the baseline)" : "");
		json_array_foreach(json_object_get(s, "files"), j, f)
		{
			/* a side named by its only file says nothing more */
			if (json_array_size(json_object_get(s, "files")) == 1 && name &&
			    !strcmp(name, json_string_value(f)))
				break;
			fprintf(out, "%s<code>", j ? ", " : " from ");
			esc(out, json_string_value(f));
			fprintf(out, "</code>");
		}
		fprintf(out, "</li>\n");
	}
	fprintf(out, "</ul>\n");
	compare_list(out, cmp, "unmatched", "Samples with no match on a side, not compared");
	compare_list(out, cmp, "excluded", "Incomplete runs, left out");
	fprintf(out, "<table class=\"cmp\"><tr><th>sample</th><th>metric</th>");
	json_array_foreach(sides, k, s)
	{
		fprintf(out, "<th>");
		esc(out, json_string_value(json_object_get(s, "name")));
		fprintf(out, " (mean ± 95%% CI, n)</th>");
	}
	for (k = 1; k < json_array_size(sides); k++)
		fprintf(out, "<th>change</th><th>p</th><th>verdict</th>");
	fprintf(out, "</tr>\n");
	json_array_foreach(json_object_get(cmp, "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
	{
		const char *unit = json_string_value(json_object_get(m, "unit"));

		fprintf(out, "<tr><td>");
		esc(out, json_string_value(json_object_get(s, "label")));
		fprintf(out, "</td><td>");
		esc(out, json_string_value(json_object_get(m, "name")));
		fprintf(out, "</td>");
		json_array_foreach(json_object_get(m, "sides"), k, st)
		{
			double mean = json_number_value(json_object_get(st, "mean"));
			const json_t *ci = json_object_get(st, "ci95");
			char v[96];

			if (!json_integer_value(json_object_get(st, "n"))) {
				fprintf(out, "<td class=\"num\">(0)</td>");
				continue;
			}
			fmt_value(v, sizeof(v), mean,
				  json_number_value(json_array_get(ci, 1)) - mean, unit);
			fprintf(out, "<td class=\"num\">");
			esc(out, v);
			fprintf(out, " (%lld)</td>",
				(long long)json_integer_value(json_object_get(st, "n")));
		}
		json_array_foreach(json_object_get(m, "comparisons"), k, c)
		{
			const char *v = json_string_value(json_object_get(c, "verdict"));
			const json_t *chg = json_object_get(c, "change_pct"),
				     *p = json_object_get(c, "p");

			fprintf(out, "<td class=\"num\">");
			if (json_is_number(chg))
				fprintf(out, "%+.1f %%", json_number_value(chg));
			fprintf(out, "</td><td class=\"num\">");
			if (json_is_number(p))
				fprintf(out, json_number_value(p) < 0.001 ? "&lt; 0.001" : "%.3f",
					json_number_value(p));
			fprintf(out, "</td><td class=\"%s\">%s</td>", v ? v : "", v ? v : "");
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table>\n");
}

/* The page's own check, read by tests through a headless browser: every SVG has a size. */
static const char page_check_js[] =
	"<script>\n"
	"window.addEventListener('error', function () { document.body.dataset.jsErrors = 'yes'; });\n"
	"window.addEventListener('load', function () {\n"
	"  var svgs = document.querySelectorAll('figure svg'), ok = 0;\n"
	"  for (var i = 0; i < svgs.length; i++) {\n"
	"    var r = svgs[i].getBoundingClientRect();\n"
	"    if (r.width > 0 && r.height > 0 && svgs[i].querySelector('path')) ok++;\n"
	"  }\n"
	"  document.body.dataset.svgCount = svgs.length;\n"
	"  document.body.dataset.plots = svgs.length && ok === svgs.length ? 'ok' : (svgs.length ? 'broken' : 'none');\n"
	"});\n"
	"</script>\n";

int rpt_html_write(json_t *const *docs, const char *const *paths, size_t ndocs, const json_t *cmp,
		   const struct rpt_html_opts *o, FILE *out, int *ret_plotted)
{
	struct page pg = { .out = out, .o = o };
	struct group *g = calloc(MAX_GROUPS, sizeof(*g));
	int ng = 0, e = 0;
	const char *tmp = getenv("TMPDIR");
	char num[32];

	if (!g)
		return -ENOMEM;
	snprintf(pg.dir, sizeof(pg.dir), "%s/fsbench-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (o->gnuplot && !mkdtemp(pg.dir)) {
		free(g);
		return -errno;
	}
	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;

		json_array_foreach(json_object_get(docs[d], "runs"), r, run)
		{
			char name[128];
			struct group *gr;
			const json_t *sum = json_object_get(run, "summary"), *op;
			const char *opname;
			json_int_t th = json_integer_value(json_object_get(run, "threads"));
			int bytes;

			if (!json_is_true(json_object_get(sum, "complete")))
				continue;
			line_name(run, paths[d], o->labels ? o->labels[d] : NULL, name,
				  sizeof(name));
			gr = group_get(g, &ng, run_workload(run), name);
			if (!gr)
				continue;
			bytes = rpt_run_unit(run) == RPT_UNIT_BYTES;
			if (th >= 1 && th <= RPT_MAX_THREADS) {
				gr->tsum[bytes][th] +=
					bytes ? json_number_value(
							json_object_get(sum, "bytes_per_sec")) /
							1e6 :
						json_number_value(
							json_object_get(sum, "files_per_sec"));
				gr->tn[bytes][th]++;
			}
			json_object_foreach((json_t *)json_object_get(run, "ops"), opname, op)
			{
				struct hist one;
				int k = rpt_op_find(opname);

				if (k < 0) /* an operation this build does not know: no plot */
					continue;
				if (!gr->h[k]) {
					gr->h[k] = malloc(sizeof(struct hist));
					if (!gr->h[k]) {
						e = -ENOMEM;
						goto out;
					}
					hist_init(gr->h[k]);
				}
				if (rpt_hist_from_json(op, &one) == 0)
					hist_add(gr->h[k], &one);
			}
		}
	}

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	esc(out, o->title);
	fprintf(out,
		"</title>\n<style>\nbody{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}\n"
		"table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px}\n"
		"td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}\n"
		".regression{background:#f8d0d0;font-weight:bold}.improvement{background:#d0f0d0}\n"
		".noisy{background:#fff3c4}.insufficient{color:#888}.warn{background:#fff3c4;padding:.5em}\n"
		"figure{margin:1em 0}figcaption{font-size:90%%;color:#555}\n</style></head>\n<body>\n<h1>");
	esc(out, o->title);
	fprintf(out, "</h1>\n<p>Inputs:");
	for (size_t d = 0; d < (ndocs ? ndocs : 1); d++) {
		fprintf(out, " <code>");
		esc(out, paths[d]);
		fprintf(out, "</code>");
		if (o->labels && o->labels[d]) {
			fprintf(out, " (");
			esc(out, o->labels[d]);
			fprintf(out, ")");
		}
	}
	fprintf(out, "</p>\n");
	if (o->inputs_note) {
		fprintf(out, "<p>");
		esc(out, o->inputs_note);
		fprintf(out, "</p>\n");
	}
	if (!ndocs)
		goto tables; /* a comparison alone: no runs to plot */
	if (!o->gnuplot)
		fprintf(out,
			"<p class=\"warn\">gnuplot is not installed: plots were skipped; the tables below hold the "
			"numbers.</p>\n");

	fprintf(out, "<h2>Throughput against threads</h2>\n");
	for (int i = 0; i < ng; i++)
		if (workload_first(g, i)) {
			throughput_plot(&pg, g, ng, g[i].workload, false);
			throughput_plot(&pg, g, ng, g[i].workload, true);
		}
	fprintf(out,
		"<table><tr><th>workload</th><th>line</th><th>threads</th><th>mean</th><th>unit</th>"
		"<th>runs</th></tr>\n");
	for (int w = 0; w < ng; w++)
		for (int b = 0; workload_first(g, w) && b < 2; b++)
			for (int i = w; i < ng; i++)
				for (int t = 1; t <= RPT_MAX_THREADS; t++) {
					if (strcmp(g[i].workload, g[w].workload) || !g[i].tn[b][t])
						continue;
					fprintf(out, "<tr><td>");
					esc(out, g[i].workload);
					fprintf(out, "</td><td>");
					esc(out, g[i].name);
					fmt_num(num, sizeof(num), g[i].tsum[b][t] / g[i].tn[b][t]);
					fprintf(out,
						"</td><td class=\"num\">%d</td><td class=\"num\">%s</td><td>%s</td>"
						"<td class=\"num\">%.0f</td></tr>\n",
						t, num, b ? "MB/s" : "files/s", g[i].tn[b][t]);
				}
	fprintf(out, "</table>\n<h2>Latency distributions</h2>\n");
	for (int i = 0; i < ng; i++)
		if (workload_first(g, i)) {
			fprintf(out, "<h3>");
			esc(out, g[i].workload);
			fprintf(out, "</h3>\n");
			pct_plots(&pg, g, ng, g[i].workload);
		}
	fprintf(out, "<h2>Streaming runs over time</h2>\n");
	time_plots(&pg, docs, paths, o->labels, ndocs);
	kernel_sections(&pg, docs, paths, o->labels, ndocs);
tables:
	if (cmp || o->compare_note)
		compare_table(out, cmp, o->compare_note);
	fprintf(out, "%s</body></html>\n", page_check_js);
	if (ferror(out))
		e = -EIO;
out:
	for (int i = 0; i < ng; i++)
		for (int k = 0; k < RPT_OP_COUNT; k++)
			free(g[i].h[k]);
	free(g);
	if (o->gnuplot)
		fsb_rm_tree(pg.dir);
	*ret_plotted = pg.drawn;
	return e;
}
