/*
 * InfluxDB line protocol exporter: measurement "fsbench", a point per metric, sample and side,
 * tags for what dashboards filter on, fields in base units, stamped with the time the side's
 * first run started. The same result written twice is the same points, which InfluxDB
 * overwrites instead of duplicating.
 */
#include "report/export.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/*
 * A tag value: ',' '=' ' ' escaped with a backslash; a newline, which no escape can carry,
 * as the two characters "\n"; an empty value (not allowed) as "none". InfluxDB 1.x keeps
 * other backslashes as they are but cannot parse one at the end of a value or before an
 * escaped character, so those become '/'.
 */
static void tag(FILE *out, const char *k, const char *v)
{
	fprintf(out, ",%s=", k);
	if (!v || !*v) {
		fputs("none", out);
		return;
	}
	for (; *v; v++) {
		bool special = *v == ',' || *v == ' ' || *v == '=';

		if (*v == '\n')
			fputs("\\n", out);
		else if (*v == '\\' && (!v[1] || strchr(", =\n", v[1])))
			fputc('/', out);
		else
			fprintf(out, "%s%c", special ? "\\" : "", *v);
	}
}

/* A string field value: '"' and '\' escaped. */
static void str_field(FILE *out, const char *k, const char *v)
{
	fprintf(out, ",%s=\"", k);
	for (; v && *v; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', out);
		fputc(*v, out);
	}
	fputc('"', out);
}

/* Tag keys in lexical order, as InfluxDB sorts them itself. */
static int influx_point(const struct rpt_point *p, void *ctx)
{
	FILE *out = ctx;
	long long ts = rpt_time_parse(p->start_time);

	fprintf(out, "fsbench");
	tag(out, "device_model", rpt_point_label(p, "device_model"));
	tag(out, "fs", rpt_point_label(p, "fs"));
	tag(out, "host", rpt_point_label(p, "host"));
	tag(out, "kernel", rpt_point_label(p, "kernel"));
	tag(out, "knob_set", rpt_point_label(p, "knob_set"));
	if (p->merged)
		tag(out, "merged", p->merged);
	tag(out, "metric", p->metric);
	tag(out, "mount_options", rpt_point_label(p, "mount_options"));
	tag(out, "sample", p->label);
	tag(out, "side", p->side);
	tag(out, "threads", p->threads_str);
	tag(out, "unit", rpt_point_base_unit(p));
	tag(out, "workload", p->workload);
	fprintf(out, " mean=%.10g,median=%.10g,stddev=%.10g", rpt_point_base(p, p->mean),
		rpt_point_base(p, p->median), rpt_point_base(p, p->stddev));
	/* one run has no interval: absent, not a zero-width one that reads as certainty */
	if (isfinite(p->ci_lo))
		fprintf(out, ",ci_lo=%.10g,ci_hi=%.10g", rpt_point_base(p, p->ci_lo),
			rpt_point_base(p, p->ci_hi));
	fprintf(out, ",n=%lldi", p->n);
	if (json_object_get(p->labels, "mount_requested"))
		str_field(out, "mount_requested", rpt_point_label(p, "mount_requested"));
	if (p->verdict) {
		fprintf(out, ",change_pct=%.6g", p->change_pct);
		str_field(out, "verdict", p->verdict);
	}
	if (ts >= 0)
		fprintf(out, " %lld000000000", ts);
	fputc('\n', out);
	return 0;
}

static int influx_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	rpt_export_foreach(cmp, o, influx_point, out);
	return ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_influx = {
	.name = "influx",
	.summary = "InfluxDB line protocol (measurement fsbench), stamped with the run's start",
	.write = influx_write,
};
