/* Assembles result JSON from finished runs. */
#include "fsbench/core/result.h"
#include "fsbench/core/common.h"

#include <math.h>
#include <time.h>

#include "probes/target/host.h"
#include "probes/target/topology.h"
#include "model/result_file.h"
#include "model/schema.h"

json_t *fsb_result_new(int argc, char **argv)
{
	json_t *doc = json_object(), *av = json_array();
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int i = 0; i < argc; i++)
		json_array_append_new(av, json_string(argv[i]));
	json_object_set_new(doc, MDL_KEY_SCHEMA, json_string(MDL_RESULT_SCHEMA));
	json_object_set_new(doc, "tool",
			    json_pack("{s:s,s:s}", "name", "fsbench", "version", FSB_VERSION));
	json_object_set_new(doc, "created", json_string(when));
	json_object_set_new(doc, "host", probe_host_json(NULL));
	json_object_set_new(json_object_get(doc, "host"), "topology", probe_topology_json());
	json_object_set_new(doc, "config", json_pack("{s:o}", "argv", av));
	json_object_set_new(doc, MDL_KEY_RUNS, json_array());
	json_object_set_new(doc, "complete", json_true());
	return doc;
}

/* Every option's effective value, keyed by its long name: enough to run it again. */
static void params_from_table(json_t *params, const struct fsb_opt *tbl, const void *cfg)
{
	for (const struct fsb_opt *o = tbl; o->name; o++) {
		const char *f = (const char *)cfg + o->offset;
		json_t *v = NULL;

		switch (o->type) {
		case OPT_BOOL:
			v = json_boolean(*(const bool *)f);
			break;
		case OPT_INT:
		case OPT_SIZE:
		case OPT_DURATION:
			v = json_integer((json_int_t) * (const int64_t *)f);
			break;
		case OPT_STRING:
			v = *(char *const *)f ? json_string(*(char *const *)f) : json_null();
			break;
		case OPT_STRLIST: {
			const struct opt_strlist *l = (const struct opt_strlist *)f;

			v = json_array();
			for (int i = 0; i < l->n; i++)
				json_array_append_new(v, json_string(l->v[i]));
			break;
		}
		case OPT_ENUM:
			v = json_string(o->choices[*(const int *)f]);
			break;
		case OPT_DOUBLE:
			/* JSON has no nan or inf: an option that allows them records null */
			v = isfinite(*(const double *)f) ? json_real(*(const double *)f) :
							   json_null();
			break;
		}
		json_object_set_new(params, o->name, v);
	}
}

/* Each op's histogram, with exact percentiles where the run kept every latency. */
static json_t *ops_json(const struct fsb_run *run)
{
	json_t *ops = json_object();

	for (int op = 0; op < OP_COUNT; op++)
		if (run->total[op] && run->total[op]->count)
			json_object_set_new(ops, mdl_ops[op].name,
					    mdl_hist_to_json_exact(run->total[op], run->exact[op],
								   run->nexact[op]));
	return ops;
}

/* Per-thread figures stay small: counts, mean, p99 and max per op, no bins. */
static json_t *thread_json(const struct fsb_thread *t, const struct fsb_run *run)
{
	json_t *o = json_object(), *ops = json_object();
	uint64_t busy;

	(void)run;
	busy = t->t_end > t->t_start ? t->t_end - t->t_start : 0;
	json_object_set_new(o, "thread", json_integer(t->id));
	/* null, not -1, when the thread was not pinned: a number would chart as CPU -1 */
	json_object_set_new(o, "cpu", t->cpu >= 0 ? json_integer(t->cpu) : json_null());
	json_object_set_new(o, "files", json_integer((json_int_t)t->total_files));
	json_object_set_new(o, "bytes", json_integer((json_int_t)t->total_bytes));
	json_object_set_new(o, "last_loop_ns", json_integer((json_int_t)busy));
	if (t->err)
		json_object_set_new(o, "error", json_string(t->errmsg));
	for (int op = 0; op < OP_COUNT; op++) {
		const struct hist *h = t->hist[op];

		if (!h || !h->count)
			continue;
		json_object_set_new(ops, mdl_ops[op].name,
				    json_pack("{s:I,s:f,s:I,s:I}", "count", (json_int_t)h->count,
					      "mean_ns", hist_mean(h), "p99_ns",
					      (json_int_t)hist_percentile(h, 99), "max_ns",
					      (json_int_t)h->max));
	}
	json_object_set_new(o, MDL_KEY_OPS, ops);
	return o;
}

json_t *fsb_run_json(const struct fsb_run *run, const struct fsb_opt *tbl)
{
	json_t *o = json_object(), *params = json_object(), *sum = json_object();
	json_t *threads = json_array(), *loops = json_array(), *series = json_object();
	json_t *st = json_array(), *sd = json_array();
	uint64_t files = 0, bytes = 0, wall = 0;
	bool complete = !run->err && !run->signal;

	params_from_table(params, tbl, run->cfg);
	json_object_del(params, "json");
	json_object_del(params, "quiet");
	for (int l = 0; l < run->nloops; l++) {
		const struct fsb_loop *lp = &run->loops[l];
		uint64_t w = lp->end_ns - lp->start_ns;

		files += lp->files;
		bytes += lp->bytes;
		wall += w;
		json_array_append_new(
			loops, json_pack("{s:i,s:I,s:I,s:I,s:f,s:f,s:I,s:i}", "loop", l, "files",
					 (json_int_t)lp->files, "bytes", (json_int_t)lp->bytes,
					 "elapsed_ns", (json_int_t)w, "files_per_sec",
					 w ? (double)lp->files / ((double)w / 1e9) : 0.0,
					 "fs_mark_files_per_sec", lp->fsmark_files_per_sec,
					 "app_overhead_ns",
					 (json_int_t)(lp->thread_ns > lp->syscall_ns ?
							      lp->thread_ns - lp->syscall_ns :
							      0),
					 "fsuse_pct", lp->fsuse_pct));
		if (lp->failed)
			json_object_set_new(json_array_get(loops, (size_t)l), "complete",
					    json_false());
	}
	json_object_set_new(o, MDL_KEY_WORKLOAD, json_string(run->wl->name));
	json_object_set_new(o, MDL_KEY_THREADS, json_integer(run->nthreads));
	json_object_set_new(o, "params", params);
	json_object_set_new(sum, "files", json_integer((json_int_t)files));
	json_object_set_new(sum, "bytes", json_integer((json_int_t)bytes));
	json_object_set_new(sum, "elapsed_ns", json_integer((json_int_t)wall));
	json_object_set_new(sum, "files_per_sec",
			    json_real(wall ? (double)files / ((double)wall / 1e9) : 0));
	json_object_set_new(sum, "bytes_per_sec",
			    json_real(wall ? (double)bytes / ((double)wall / 1e9) : 0));
	json_object_set_new(sum, "loops", json_integer(run->nloops));
	json_object_set_new(sum, MDL_KEY_COMPLETE, json_boolean(complete));
	if (!complete)
		json_object_set_new(sum, MDL_KEY_ERROR,
				    json_string(run->errmsg[0] ? run->errmsg : "incomplete"));
	json_object_set_new(sum, "stopped_by_runtime", json_boolean(run->stopped_by_runtime));
	json_object_set_new(sum, "cpu_user_s", json_real(run->cpu_user_s));
	json_object_set_new(sum, "cpu_sys_s", json_real(run->cpu_sys_s));
	if (run->wl->summary_json)
		run->wl->summary_json(run, sum);
	json_object_set_new(o, MDL_KEY_SUMMARY, sum);
	json_object_set_new(o, MDL_KEY_OPS, ops_json(run));
	for (int i = 0; i < run->nthreads; i++)
		json_array_append_new(threads, thread_json(&run->threads[i], run));
	json_object_set_new(o, MDL_KEY_PER_THREAD, threads);
	json_object_set_new(o, "loops", loops);
	for (size_t i = 0; i < run->series.n; i++) {
		json_array_append_new(st, json_integer((json_int_t)run->series.t_ns[i]));
		json_array_append_new(sd, json_integer((json_int_t)run->series.done[i]));
	}
	json_object_set_new(series, "interval_ns",
			    json_integer((json_int_t)run->series.interval_ns));
	json_object_set_new(series, "unit", json_string(mdl_unit_name(run->wl->unit)));
	json_object_set_new(series, "t_ns", st);
	json_object_set_new(series, "done", sd);
	json_object_set_new(o, "series", series);
	if (run->has_host_load)
		json_object_set_new(o, "host_load", probe_hostload_json(&run->host_load));
	return o;
}

void fsb_result_finish(json_t *doc)
{
	json_t *runs = json_object_get(doc, MDL_KEY_RUNS), *r;
	size_t i;
	bool complete = true;

	json_array_foreach(runs, i, r)
	{
		if (!mdl_run_complete(r))
			complete = false;
	}
	json_object_set_new(doc, "complete", json_boolean(complete));
}
