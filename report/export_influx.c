/* InfluxDB line protocol exporter: measurement "fsbench", tags for where, fields for the statistics. */
#include "export.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static void tag(FILE *out, const char *k, const char *v)
{
	fprintf(out, ",%s=", k);
	for (; v && *v; v++) {
		if (*v == ',' || *v == ' ' || *v == '=' || *v == '\\')
			fputc('\\', out);
		fputc(*v == '\n' ? ' ' : *v, out);
	}
}

static long long created_ns(const char *created)
{
	struct tm tm = { 0 };

	if (!created || !strptime(created, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return 0;
	return (long long)timegm(&tm) * 1000000000LL;
}

static int influx_point(const struct rpt_point *p, void *ctx)
{
	FILE *out = ctx;
	char t[32];
	long long ts = created_ns(p->created);

	snprintf(t, sizeof(t), "%lld", p->threads);
	fprintf(out, "fsbench");
	tag(out, "metric", p->metric);
	tag(out, "sample", p->label);
	tag(out, "side", p->side);
	tag(out, "threads", t);
	tag(out, "unit", p->unit);
	tag(out, "workload", p->workload);
	fprintf(out, " mean=%.10g,median=%.10g,stddev=%.10g,ci_lo=%.10g,ci_hi=%.10g,n=%lldi",
		p->mean, p->median, p->stddev, p->ci_lo, p->ci_hi, p->n);
	if (p->verdict)
		fprintf(out, ",change_pct=%.6g,verdict=\"%s\"", p->change_pct, p->verdict);
	if (ts)
		fprintf(out, " %lld", ts);
	fputc('\n', out);
	return 0;
}

static int influx_write(const json_t *cmp, const struct rpt_export_opts *o, FILE *out)
{
	rpt_export_foreach(cmp, o, influx_point, out);
	return ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_influx = {
	.name = "influx",
	.summary = "InfluxDB line protocol (measurement fsbench)",
	.write = influx_write,
};
