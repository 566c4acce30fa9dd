/* The stream workload's figures: iozone's throughput lines, the per-writer table and the summary. */
#include "fsbench/workloads/stream.h"
#include "fsbench/core/workload.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

int stream_figures(const uint64_t *bytes, const uint64_t *ns, int n, uint64_t total_bytes,
		   uint64_t wall_ns, struct stream_figures *ret)
{
	struct stream_figures f = { 0 };

	if (n < 1)
		return -EINVAL;
	f.min_xfer = UINT64_MAX;
	for (int i = 0; i < n; i++) {
		double rate;

		if (bytes[i] < f.min_xfer)
			f.min_xfer = bytes[i];
		if (!ns[i])
			continue;
		rate = (double)bytes[i] / ((double)ns[i] / 1e9);
		if (!f.writers || rate < f.min_writer)
			f.min_writer = rate;
		if (!f.writers || rate > f.max_writer)
			f.max_writer = rate;
		f.children_see += rate;
		f.writers++;
	}
	f.avg_writer = f.writers ? f.children_see / f.writers : 0.0;
	f.parent_sees = wall_ns ? (double)total_bytes / ((double)wall_ns / 1e9) : 0.0;
	*ret = f;
	return 0;
}

static uint64_t thread_ns(const struct fsb_thread *t)
{
	return t->t_end > t->t_start ? t->t_end - t->t_start : 0;
}

/* The run's totals: bytes and the wall time (common start to the last end, final sync included). */
static void run_totals(const struct fsb_run *run, uint64_t *ret_bytes, uint64_t *ret_wall)
{
	*ret_bytes = *ret_wall = 0;
	for (int l = 0; l < run->nloops; l++) {
		*ret_bytes += run->loops[l].bytes;
		*ret_wall += run->loops[l].end_ns - run->loops[l].start_ns;
	}
}

/* The figures of @run; 0 or -errno (no threads, or out of memory). */
static int run_figures(const struct fsb_run *run, struct stream_figures *ret)
{
	uint64_t *b, *ns, bytes, wall;
	int r = -ENOMEM;

	b = calloc((size_t)run->nthreads + 1, sizeof(*b));
	ns = calloc((size_t)run->nthreads + 1, sizeof(*ns));
	if (b && ns) {
		for (int i = 0; i < run->nthreads; i++) {
			b[i] = run->threads[i].total_bytes;
			ns[i] = thread_ns(&run->threads[i]);
		}
		run_totals(run, &bytes, &wall);
		r = stream_figures(b, ns, run->nthreads, bytes, wall, ret);
	}
	free(b);
	free(ns);
	return r;
}

void stream_report_json(const struct fsb_run *run, json_t *summary)
{
	json_t *per = json_array(), *io;
	struct stream_figures f;
	uint64_t bytes, wall;

	run_totals(run, &bytes, &wall);
	for (int i = 0; i < run->nthreads; i++) {
		uint64_t dt = thread_ns(&run->threads[i]);

		json_array_append_new(per, json_real(dt ? (double)run->threads[i].total_bytes /
								     1e6 / ((double)dt / 1e9) :
							  0.0));
	}
	json_object_set_new(summary, "bytes_per_sec",
			    json_real(wall ? (double)bytes / ((double)wall / 1e9) : 0));
	json_object_set_new(summary, "mb_per_sec",
			    json_real(wall ? (double)bytes / 1e6 / ((double)wall / 1e9) : 0));
	json_object_set_new(summary, "per_thread_mb_per_sec", per);
	if (run_figures(run, &f) < 0)
		return;
	io = json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:I}", "writers", f.writers,
		       "children_see_bytes_per_sec", f.children_see, "parent_sees_bytes_per_sec",
		       f.parent_sees, "min_writer_bytes_per_sec", f.min_writer,
		       "max_writer_bytes_per_sec", f.max_writer, "avg_writer_bytes_per_sec",
		       f.avg_writer, "min_xfer_bytes", (json_int_t)f.min_xfer);
	if (io)
		json_object_set_new(summary, "iozone", io);
}

/* iozone's lines, its units (kB = 1024 bytes) and its spacing, so the seed's tables sit beside them. */
static void print_iozone(const struct fsb_run *run, FILE *out)
{
	struct stream_figures f;

	if (run_figures(run, &f) < 0)
		return;
	fprintf(out, "\n\tChildren see throughput for %2d initial writers \t= %10.2f kB/sec\n",
		run->nthreads, f.children_see / 1024);
	fprintf(out, "\tParent sees throughput for %2d initial writers \t= %10.2f kB/sec\n",
		run->nthreads, f.parent_sees / 1024);
	fprintf(out, "\tMin throughput per thread \t\t\t= %10.2f kB/sec \n", f.min_writer / 1024);
	fprintf(out, "\tMax throughput per thread \t\t\t= %10.2f kB/sec\n", f.max_writer / 1024);
	fprintf(out, "\tAvg throughput per thread \t\t\t= %10.2f kB/sec\n", f.avg_writer / 1024);
	fprintf(out, "\tMin xfer \t\t\t\t\t= %10.2f kB\n\n", (double)f.min_xfer / 1024);
}

void stream_report_print(const struct fsb_run *run, const char *mode, int64_t chunk, FILE *out)
{
	uint64_t bytes, wall;

	run_totals(run, &bytes, &wall);
	fprintf(out, "# stream: mode %s, %d thread(s), %" PRId64 "-byte chunks; MB = 10^6 bytes\n",
		mode, run->nthreads, chunk);
	fprintf(out, "%8s %16s %10s %10s\n", "thread", "bytes", "seconds", "MB/s");
	for (int i = 0; i < run->nthreads; i++) {
		const struct fsb_thread *t = &run->threads[i];
		uint64_t dt = thread_ns(t);

		fprintf(out, "%8d %16" PRIu64 " %10.3f %10.1f\n", i, t->total_bytes,
			(double)dt / 1e9,
			dt ? (double)t->total_bytes / 1e6 / ((double)dt / 1e9) : 0.0);
	}
	fprintf(out, "%8s %16" PRIu64 " %10.3f %10.1f\n", "total", bytes, (double)wall / 1e9,
		wall ? (double)bytes / 1e6 / ((double)wall / 1e9) : 0.0);
	print_iozone(run, out);
	fprintf(out, "%-16s %10s %10s %10s %10s %10s %10s   (microseconds)\n", "op", "count", "min",
		"mean", "p50", "p99", "max");
	for (int op = 0; op < OP_COUNT; op++) {
		const struct hist *h = run->total[op];

		if (!h || !h->count)
			continue;
		fprintf(out, "%-16s %10" PRIu64 " %10.1f %10.1f %10.1f %10.1f %10.1f\n",
			mdl_ops[op].name, h->count, (double)h->min / 1e3, hist_mean(h) / 1e3,
			(double)hist_percentile(h, 50) / 1e3, (double)hist_percentile(h, 99) / 1e3,
			(double)h->max / 1e3);
	}
}
