/* The small-file workload's fs_mark text (stdout and the -l log) and its summary fields. */
#include "fsbench/workloads/smallfile_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <time.h>

static const char *const sync_desc[7] = {
	"NO SYNC: Test does not issue sync() or fsync() calls.",
	"INBAND FSYNC: fsync() per file in write loop.",
	"SYSTEM SYNC/SINGLE FSYNC: Issue sync() after main write loop and 1 file fsync() per subdirectory.",
	"POST REVERSE: Reopen and fsync() each file in reverse order after main write loop.",
	"SYNC POST REVERSE: Issue sync() and then reopen and fsync() each file in reverse order after main write loop.",
	"POST: Reopen and fsync() each file in order after main write loop.",
	"SYNC POST: Issue sync() and then reopen and fsync() each file in order after main write loop.",
};

void smallfile_summary_json(const struct fsb_run *run, json_t *summary)
{
	double fsmark = 0;
	uint64_t overhead = 0;

	for (int l = 0; l < run->nloops; l++) {
		fsmark += run->loops[l].fsmark_files_per_sec;
		if (run->loops[l].thread_ns > run->loops[l].syscall_ns)
			overhead += run->loops[l].thread_ns - run->loops[l].syscall_ns;
	}
	json_object_set_new(summary, "fs_mark_files_per_sec",
			    json_real(run->nloops ? fsmark / run->nloops : 0));
	json_object_set_new(summary, "app_overhead_ns", json_integer((json_int_t)overhead));
	json_object_set_new(summary, "filesystem_full",
			    json_boolean(state(run) && state(run)->full));
	if (state(run) && atomic_load(&state(run)->left))
		json_object_set_new(summary, "files_left",
				    json_integer((json_int_t)atomic_load(&state(run)->left)));
}

/* fs_mark writes its table to stdout and to the -l log alike. */
static void out_printf(const struct fsb_run *run, FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void out_printf(const struct fsb_run *run, FILE *out, const char *fmt, ...)
{
	const struct smallfile_state *s = state(run);
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	if (s && s->log) {
		va_start(ap, fmt);
		vfprintf(s->log, fmt, ap);
		va_end(ap);
		fflush(s->log);
	}
}

void smallfile_print_header(const struct fsb_run *run, FILE *out)
{
	const struct smallfile_cfg *c = run->cfg;
	time_t now = time(NULL);
	char when[64];

	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime(&now));
	out_printf(run, out, "#\tVersion %s (fsbench), %d thread(s) starting at %s\n", FSB_VERSION,
		   run->nthreads, when);
	out_printf(run, out, "#\tSync method: %s%s\n", sync_desc[c->sync_method],
		   c->fdatasync && c->sync_method ? " (fdatasync instead of fsync)" : "");
	if (c->subdirs > 1)
		out_printf(run, out,
			   "#\tDirectories:  %s across %" PRId64 " subdirectories with %" PRId64
			   " %s.\n",
			   c->per_subdir ? "Round Robin between directories" :
					   "Time based hash between directories",
			   c->subdirs, c->per_subdir ? c->per_subdir : SECS_PER_SUBDIR,
			   c->per_subdir ? "files per subdirectory" : "seconds per subdirectory");
	else
		out_printf(run, out, "#\tDirectories:  no subdirectories used\n");
	out_printf(run, out,
		   "#\tFile names: %" PRId64 " bytes long, (%" PRId64
		   " initial bytes of sequence number with %" PRId64
		   " random bytes at end of name)\n",
		   c->name_len, c->name_len - c->rand_len, c->rand_len);
	out_printf(run, out,
		   "#\tFiles info: size %" PRId64 " bytes, written with an IO size of %" PRId64
		   " bytes per write\n",
		   c->size, c->wsize);
	out_printf(
		run, out,
		"#\tApp overhead is time in microseconds spent in the test not doing file writing related system calls.\n");
	out_printf(
		run, out,
		"#\tFiles/sec is all files over the wall time from the common start to the last thread's end.\n\n");
	out_printf(run, out, "%6s %12s %12s %12s %16s\n", "FSUse%", "Count", "Size", "Files/sec",
		   "App Overhead");
}

void smallfile_print_loop(const struct fsb_run *run, int loop, FILE *out)
{
	const struct smallfile_cfg *c = run->cfg;
	const struct fsb_loop *l = &run->loops[loop];
	uint64_t count = 0, wall = l->end_ns - l->start_ns;

	for (int i = 0; i <= loop; i++)
		count += run->loops[i].files;
	out_printf(run, out, "%6d %12" PRIu64 " %12" PRId64 " %12.1f %16" PRIu64 "\n", l->fsuse_pct,
		   count, c->size, wall ? (double)l->files / ((double)wall / 1e9) : 0.0,
		   (l->thread_ns > l->syscall_ns ? l->thread_ns - l->syscall_ns : 0) / 1000);
}

void smallfile_print_end(const struct fsb_run *run, FILE *out)
{
	const struct smallfile_cfg *c = run->cfg;

	if (!c->verbose)
		return;
	out_printf(run, out, "\n%-10s %10s %10s %10s %10s %10s %10s   (microseconds)\n", "op",
		   "count", "min", "mean", "p50", "p99", "max");
	for (int op = 0; op < OP_COUNT; op++) {
		const struct hist *h = run->total[op];

		if (!h || !h->count)
			continue;
		out_printf(run, out, "%-10s %10" PRIu64 " %10.1f %10.1f %10.1f %10.1f %10.1f\n",
			   mdl_ops[op].name, h->count, (double)h->min / 1e3, hist_mean(h) / 1e3,
			   (double)hist_percentile(h, 50) / 1e3,
			   (double)hist_percentile(h, 99) / 1e3, (double)h->max / 1e3);
	}
}
