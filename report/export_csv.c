/*
 * CSV exporter for spreadsheets and pandas: a header row, then one row per run and metric (not
 * per sample: a table's user groups and averages as they like), the cell's coordinates as
 * columns, values in base units (rpt_point_base_unit, the spelling every format uses). RFC
 * 4180: CRLF line ends, a field holding a comma, a quote, CR or LF is quoted and its quotes
 * doubled. Parameters are one column of compact JSON (sorted keys), since which ones a cell
 * has depends on the workload: pandas' json.loads or a spreadsheet's text search reads them.
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns, in the order every row has them; csv_point writes the values alike. */
static const char *const csv_columns[] = {
	"sample",     "workload",   "threads", "fs",	     "mount_options", "mount_requested",
	"knob_set",   "params",	    "side",    "kernel",     "host",	      "device_model",
	"metric",     "unit",	    "run",     "repetition", "value",	      "verdict",
	"change_pct", "start_time", "merged",  NULL,
};

/* One field, quoted when RFC 4180 says it must be; a leading separator unless @first. */
static void csv_field(FILE *out, const char *v, bool first)
{
	if (!first)
		fputc(',', out);
	if (!v)
		return;
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, out);
		return;
	}
	fputc('"', out);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', out);
		fputc(*v, out);
	}
	fputc('"', out);
}

/* A number, or an empty field when it is not finite (a value that does not exist). */
static void csv_number(FILE *out, const char *fmt, double v)
{
	fputc(',', out);
	if (isfinite(v))
		fprintf(out, fmt, v);
}

/*
 * The sample's parameters as compact JSON: the suite's own (coords.params, what the cell
 * varies) when it has coordinates, else the run's options as the sample key holds them.
 */
static char *csv_params(const struct rpt_point *p)
{
	const json_t *params = json_object_get(p->sample->coords, "params");

	if (!params)
		params = json_object_get(p->sample->key, "params");
	return params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
}

static int csv_point(const struct rpt_point *p, void *ctx)
{
	FILE *out = ctx;
	char *params = csv_params(p);
	const char *requested = json_object_get(p->labels, "mount_requested") ?
					rpt_point_label(p, "mount_requested") :
					NULL;

	for (long long i = 0; i < p->n; i++) {
		char run[24], rep[24] = "";

		snprintf(run, sizeof(run), "%lld", i);
		if (p->reps)
			snprintf(rep, sizeof(rep), "%lld", p->reps[i]);
		csv_field(out, p->label, true);
		csv_field(out, p->workload, false);
		csv_field(out, p->threads_str, false);
		csv_field(out, rpt_point_label(p, "fs"), false);
		csv_field(out, rpt_point_label(p, "mount_options"), false);
		csv_field(out, requested, false);
		csv_field(out, rpt_point_label(p, "knob_set"), false);
		csv_field(out, params, false);
		csv_field(out, p->side, false);
		csv_field(out, rpt_point_label(p, "kernel"), false);
		csv_field(out, rpt_point_label(p, "host"), false);
		csv_field(out, rpt_point_label(p, "device_model"), false);
		csv_field(out, p->metric, false);
		csv_field(out, rpt_point_base_unit(p), false);
		csv_field(out, run, false);
		csv_field(out, rep, false);
		csv_number(out, "%.15g", rpt_point_base(p, p->values[i]));
		csv_field(out, p->verdict, false);
		csv_number(out, "%.6g", p->verdict ? p->change_pct : NAN);
		csv_field(out, p->start_time, false);
		csv_field(out, p->merged, false);
		fputs("\r\n", out);
	}
	free(params);
	return 0;
}

static int csv_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	for (int i = 0; csv_columns[i]; i++)
		csv_field(out, csv_columns[i], i == 0);
	fputs("\r\n", out);
	rpt_export_foreach(cmp, o, csv_point, out);
	return ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_csv = {
	.name = "csv",
	.summary = "CSV (RFC 4180) for spreadsheets and pandas: a row per run and metric, the "
		   "cell's coordinates as columns, values in base units",
	.write = csv_write,
};
