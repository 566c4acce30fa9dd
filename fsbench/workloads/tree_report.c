/* The tree workload's figures: compilebench's summary lines, and per phase MB/s, latency and device bytes. */
#include "fsbench/workloads/tree.h"
#include "model/result_file.h"

#include <inttypes.h>

/* compilebench's avg: the mean of the runs' own rates (MB = 10^6 bytes), or of their seconds. */
static double acc_avg(const struct tree_acc *a, enum tree_phase p)
{
	if (!a->runs)
		return 0;
	if (tree_phase_is_rate(p))
		return a->rate_sum / 1e6 / a->runs;
	return (double)a->ns / 1e9 / a->runs;
}

static json_t *shape_json(const struct tree_shape *s)
{
	return json_pack("{s:s,s:I,s:I,s:I,s:I,s:I}", "from", s->from, "dirs", (json_int_t)s->ndirs,
			 "files", (json_int_t)s->nfiles, "bytes", (json_int_t)s->bytes, "sources",
			 (json_int_t)s->nsources, "source_bytes", (json_int_t)s->source_bytes);
}

static json_t *phase_json(const struct tree_state *s, enum tree_phase p)
{
	const struct tree_acc *a = &s->acc[p];
	json_t *o, *ops = json_object();
	bool dev = a->runs && a->dev_runs == a->runs;

	o = json_pack("{s:s,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f}", "phase", tree_phase_names[p],
		      "runs", (int)a->runs, "elapsed_ns", (json_int_t)a->ns, "sync_ns",
		      (json_int_t)a->sync_ns, "bytes", (json_int_t)a->bytes, "bytes_written",
		      (json_int_t)a->bytes_written, "bytes_read", (json_int_t)a->bytes_read,
		      "files", (json_int_t)a->files, "dirs", (json_int_t)a->dirs, "user_s",
		      a->user_s, "sys_s", a->sys_s);
	if (!o)
		return NULL;
	if (tree_phase_is_rate(p))
		json_object_set_new(o, "avg_mb_per_sec", json_real(acc_avg(a, p)));
	else
		json_object_set_new(o, "avg_seconds", json_real(acc_avg(a, p)));
	/* every run's device figures, or none: a partial sum would pass for the phase's */
	json_object_set_new(o, "device_write_bytes",
			    dev ? json_integer((json_int_t)a->dev_write_bytes) : json_null());
	json_object_set_new(o, "device_read_bytes",
			    dev ? json_integer((json_int_t)a->dev_read_bytes) : json_null());
	for (int op = 0; op < OP_COUNT; op++)
		if (a->hist[op] && a->hist[op]->count)
			json_object_set_new(ops, mdl_ops[op].name, mdl_hist_to_json(a->hist[op]));
	json_object_set_new(o, "ops", ops);
	return o;
}

void tree_report_json(const struct fsb_run *run, json_t *summary)
{
	const struct tree_state *s = run->priv;
	json_t *tree, *phases = json_array(), *runs = json_array();

	if (!s)
		return;
	for (int p = 0; p < TP_COUNT; p++)
		json_array_append_new(phases, phase_json(s, (enum tree_phase)p));
	/* the runs that finished; a failed one ends the list */
	for (int l = 0; l < run->nloops && (size_t)l < s->nsteps; l++) {
		const struct tree_done *d = &s->done[l];

		if (run->loops[l].failed)
			break;
		json_array_append_new(
			runs, json_pack("{s:s,s:I,s:I,s:I,s:I,s:o}", "phase",
					tree_phase_names[s->steps[l].phase], "tree",
					(json_int_t)s->steps[l].tree, "elapsed_ns",
					(json_int_t)d->ns, "sync_ns", (json_int_t)d->sync_ns,
					"bytes", (json_int_t)d->bytes, "device_write_bytes",
					d->dev_ok ? json_integer((json_int_t)d->dev_write_bytes) :
						    json_null()));
	}
	tree = json_pack("{s:o,s:i,s:b,s:o,s:o}", "shape", shape_json(&s->shape), "trees",
			 (int)s->ntrees, "sync", s->sync, "phases", phases, "runs", runs);
	if (!tree)
		return;
	if (s->have_device) {
		json_object_set_new(tree, "device", json_string(s->disk));
		json_object_set_new(tree, "device_scope",
				    json_string(s->whole_disk_of_partition ?
							"whole_disk_of_partition" :
							"device"));
	} else {
		json_object_set_new(tree, "device", json_null());
		json_object_set_new(tree, "device_reason", json_string(s->device_note));
	}
	/* what PTS reads for the test it appended: that phase's line of the summary */
	if (s->pts_phase < TP_COUNT)
		json_object_set_new(
			tree, "pts_result",
			json_pack("{s:s,s:o}", "phase", tree_phase_names[s->pts_phase],
				  "avg_mb_per_sec",
				  s->acc[s->pts_phase].runs ?
					  json_real(acc_avg(&s->acc[s->pts_phase], s->pts_phase)) :
					  json_null()));
	json_object_set_new(summary, "tree", tree);
}

/*
 * compilebench's summary, line for line: the harnesses that read compilebench (autotest,
 * Phoronix) match a line's start ("intial create", "read compiled tree") and take a
 * field by position, so fsbench's own figures follow on lines that start with '#'.
 */
static void print_compilebench(const struct tree_state *s, FILE *out)
{
	fprintf(out, "\nrun complete:\n");
	fprintf(out,
		"==========================================================================\n");
	for (int p = 0; p < TP_COUNT; p++) {
		const struct tree_acc *a = &s->acc[p];

		if (!a->runs) {
			fprintf(out, "no runs for %s\n", tree_phase_names[p]);
			continue;
		}
		fprintf(out, "%s total runs %u avg %.2f %s (user %.2fs sys %.2fs)\n",
			tree_phase_names[p], a->runs, acc_avg(a, (enum tree_phase)p),
			tree_phase_is_rate((enum tree_phase)p) ? "MB/s" : "seconds",
			a->user_s / a->runs, a->sys_s / a->runs);
	}
}

void tree_report_print(const struct fsb_run *run, FILE *out)
{
	const struct tree_state *s = run->priv;
	uint64_t dev_total = 0;
	bool dev_all = true;

	if (!s)
		return;
	print_compilebench(s, out);
	fprintf(out,
		"\n# tree shape: %s; %" PRIu32 " directories, %" PRIu32 " files, %.1f MB, %" PRIu32
		" sources\n",
		s->shape.from, s->shape.ndirs, s->shape.nfiles, (double)s->shape.bytes / 1e6,
		s->shape.nsources);
	fprintf(out, "# %-20s %5s %10s %10s %10s %12s %10s %10s  (MB = 10^6 bytes, MiB = 2^20)\n",
		"phase", "runs", "MB/s", "seconds", "sync s", "device MiB", "p50 us", "p99 us");
	for (int p = 0; p < TP_COUNT; p++) {
		const struct tree_acc *a = &s->acc[p];
		struct hist all;
		char dev[32] = "-";

		if (!a->runs)
			continue;
		hist_init(&all);
		for (int op = 0; op < OP_COUNT; op++)
			if (a->hist[op] && op != OP_SYNCFS)
				hist_add(&all, a->hist[op]);
		if (a->dev_runs == a->runs) {
			snprintf(dev, sizeof(dev), "%.1f", (double)a->dev_write_bytes / 1048576.0);
			dev_total += a->dev_write_bytes;
		} else {
			dev_all = false;
		}
		fprintf(out, "# %-20s %5u %10.2f %10.3f %10.3f %12s %10.1f %10.1f\n",
			tree_phase_names[p], a->runs,
			a->ns ? (double)a->bytes / 1e6 / ((double)a->ns / 1e9) : 0.0,
			(double)a->ns / 1e9, (double)a->sync_ns / 1e9, dev,
			(double)hist_percentile(&all, 50) / 1e3,
			(double)hist_percentile(&all, 99) / 1e3);
	}
	if (dev_all && s->have_device)
		fprintf(out, "# device %s: %.1f MiB written in all phases%s\n", s->disk,
			(double)dev_total / 1048576.0,
			s->whole_disk_of_partition ? " (whole disk of the partition)" : "");
	else
		fprintf(out, "# device: %s\n",
			s->have_device ? "figures missing for some runs" : s->device_note);
}
