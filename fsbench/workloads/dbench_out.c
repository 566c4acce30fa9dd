/* dbench's text and figures: the header, the line of every second, the Operation table, Throughput. */
#include "fsbench/workloads/dbench_out.h"
#include "fsbench/workloads/dbench.h"

#include <inttypes.h>
#include <stdio.h>

static uint64_t max_latency_ns(const struct fsb_run *run)
{
	uint64_t m = 0;

	for (int op = 0; op < NB_NOPS; op++) {
		const struct hist *h = run->total[OP_NB_FIRST + op];

		if (h && h->count && h->max > m)
			m = h->max;
	}
	return m;
}

/* dbench's Throughput: execute-phase bytes over the execute phase's wall time, in MB/s. */
static double throughput_mb(const struct fsb_run *run)
{
	const struct fsb_loop *l = run->nloops ? &run->loops[0] : NULL;

	if (!l || l->end_ns <= l->start_ns)
		return 0;
	return (double)l->bytes / 1e6 / ((double)(l->end_ns - l->start_ns) / 1e9);
}

void dbench_summary_json(const struct fsb_run *run, json_t *summary)
{
	uint64_t passes = 0, mismatches = 0, short_reads = 0;

	for (int i = 0; i < run->nthreads; i++) {
		const struct nb_client *c = run->threads[i].priv;

		if (!c)
			continue;
		passes += c->passes;
		mismatches += c->mismatches;
		short_reads += c->short_reads;
	}
	json_object_set_new(summary, "mb_per_sec", json_real(throughput_mb(run)));
	json_object_set_new(summary, "max_latency_ms",
			    json_real((double)max_latency_ns(run) / 1e6));
	json_object_set_new(summary, "loadfile_passes", json_integer((json_int_t)passes));
	json_object_set_new(summary, "status_mismatches", json_integer((json_int_t)mismatches));
	json_object_set_new(summary, "short_reads", json_integer((json_int_t)short_reads));
}

void dbench_print_header(const struct fsb_run *run, FILE *out)
{
	const struct dbench_cfg *cfg = run->cfg;
	const struct dbench_state *s = run->priv;

	fprintf(out, "fsbench dbench %s - dbench 4.00's load on the fileio backend\n\n",
		FSB_VERSION);
	fprintf(out,
		"Running for %" PRId64 " seconds with load '%s' and minimum warmup %" PRIu64
		" secs\n",
		cfg->timelimit, cfg->loadfile, s->warmup_ns / 1000000000u);
	fprintf(out, "%d of %d processes prepared for launch   0 sec\n", (int)cfg->clients,
		(int)cfg->clients);
	fprintf(out, "releasing clients\n");
}

/* dbench's line of every second: warmup, execute or cleanup, with the worst latency since. */
void dbench_print_tick(const struct fsb_run *run, uint64_t now, FILE *out)
{
	const struct dbench_state *s = run->priv;
	uint64_t exec_start = run->run_start_ns + s->warmup_ns, warm = 0, exec = 0, lines = 0;
	uint64_t lat = 0;
	int n = run->nthreads, in_cleanup = 0, finished = 0, warming = 0;
	double t;

	for (int i = 0; i < n; i++) {
		struct nb_client *c = run->threads[i].priv;
		int phase = atomic_load(&c->phase);
		uint64_t last = atomic_load_explicit(&c->last_ns, memory_order_relaxed);
		uint64_t m = atomic_exchange_explicit(&c->maxlat_ns, 0, memory_order_relaxed);

		warm += atomic_load_explicit(&c->bytes_warm, memory_order_relaxed);
		exec += atomic_load_explicit(&c->bytes_exec, memory_order_relaxed);
		lines += atomic_load_explicit(&c->lines, memory_order_relaxed);
		in_cleanup += phase >= NB_CLEANUP;
		finished += phase == NB_DONE;
		warming += phase == NB_WARMUP;
		/* as dbench: a client stuck in one call counts with the time since it began */
		if (phase < NB_CLEANUP && last && now > last && now - last > m)
			m = now - last;
		if (m > lat)
			lat = m;
	}
	if (in_cleanup == n || now >= exec_start + s->limit_ns) {
		fprintf(out, "%4d  cleanup %3.0f sec\n", n - finished,
			(double)(now - exec_start) / 1e9);
		return;
	}
	/* warmup counts from the run's start, execute from its own: the bytes of each phase */
	bool warmup = now < exec_start || warming;

	t = (double)(now - (warmup ? run->run_start_ns : exec_start)) / 1e9;
	if (t >= 1)
		fprintf(out, "%4d  %8" PRIu64 "  %7.2f MB/sec  %s %3.0f sec  latency %.03f ms\n", n,
			lines / (uint64_t)n, 1e-6 * (double)(warmup ? warm : exec) / t,
			warmup ? "warmup" : "execute", t, (double)lat / 1e6);
}

/* fsbench's addition, before dbench's table so that parsers reading after it never see it. */
static void print_percentiles(const struct fsb_run *run, FILE *out)
{
	/* not "Operation": mmtests takes the 99 lines after that word as dbench's table */
	fprintf(out, "\n %-22s %9s %9s %9s %9s\n", "Latency (ms)", "p50", "p99", "p99.9", "max");
	for (int op = 0; op < NB_NOPS; op++) {
		const struct hist *h = run->total[OP_NB_FIRST + op];

		if (!h || !h->count)
			continue;
		fprintf(out, " %-22s %9.03f %9.03f %9.03f %9.03f\n", nb_op_names[op],
			(double)hist_percentile(h, 50) / 1e6, (double)hist_percentile(h, 99) / 1e6,
			(double)hist_percentile(h, 99.9) / 1e6, (double)h->max / 1e6);
	}
}

/* dbench's table: the operations that any client did (@all), with @h's figures. */
static void print_table(struct hist *const *h, struct hist *const *all, FILE *out)
{
	fprintf(out, " Operation                Count    AvgLat    MaxLat\n");
	fprintf(out, " --------------------------------------------------\n");
	for (int op = 0; op < NB_NOPS; op++) {
		const struct hist *a = all[OP_NB_FIRST + op], *x = h[OP_NB_FIRST + op];

		if (!a || !a->count)
			continue;
		fprintf(out, " %-22s %7" PRIu64 " %9.03f %9.03f\n", nb_op_names[op], x->count,
			x->count ? hist_mean(x) / 1e6 : 0.0, (double)x->max / 1e6);
	}
	fprintf(out, "\n");
}

void dbench_print_end(const struct fsb_run *run, FILE *out)
{
	const struct dbench_cfg *cfg = run->cfg;
	const struct dbench_state *s = run->priv;
	uint64_t exec_start = run->run_start_ns + s->warmup_ns, end = run->run_end_ns;

	for (int i = 0; i < run->nthreads; i++) {
		const struct nb_client *c = run->threads[i].priv;

		for (size_t k = 0; c && k < c->nsamples; k++)
			fprintf(out, "%4d completed in %" PRIu32 " ms at time %" PRIu32 " ms\n", i,
				c->pass_ms[k], c->pass_at_ms[k]);
	}
	fprintf(out, "%4d  cleanup %3.0f sec\n", 0,
		end > exec_start ? (double)(end - exec_start) / 1e9 : 0.0);
	if (cfg->percentiles)
		print_percentiles(run, out);
	fprintf(out, "\n");
	print_table(run->total, run->total, out);
	if (cfg->per_client) {
		fprintf(out, "Per client results:\n");
		for (int i = 0; i < run->nthreads; i++) {
			const struct nb_client *c = run->threads[i].priv;

			fprintf(out, "Client %d did %" PRIu64 " lines and %" PRIu64 " bytes\n", i,
				c ? atomic_load(&c->lines) : 0,
				c ? atomic_load(&c->bytes_exec) : 0);
			print_table(run->threads[i].hist, run->total, out);
		}
	}
	if (run->err || run->signal)
		return; /* no figure for a harness to take from a run that failed */
	fprintf(out, "Throughput %g MB/sec%s%s  %d clients  %d procs  max_latency=%.03f ms\n",
		throughput_mb(run), cfg->sync_open ? " (sync open)" : "",
		cfg->sync_dirs ? " (sync dirs)" : "", run->nthreads, (int)cfg->clients,
		(double)max_latency_ns(run) / 1e6);
}
