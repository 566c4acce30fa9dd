/*
 * LAVA exporter: "<test> pass|fail <measurement> <units>" lines, fail only for a regression
 * verdict, for `lava-test-case "$test" --result "$r" --measurement "$m" --units "$u"`. The
 * dispatcher splits its TESTCASE signal on whitespace into key=value pairs and ends it at
 * '>', and lava-test-case makes a directory named after the test: so the test name is a
 * slug (rpt_slug, export.h, says what LAVA allows), the units have no blank, '=' or '>',
 * and the measurement is a plain decimal number (Python's Decimal). Kernel, host and device are the LAVA job's own
 * metadata; the name carries what identifies the series.
 */
#include "report/export.h"

#include <errno.h>
#include <string.h>

/* Units with whatever would break the signal (blanks, '=', '>') turned into '_'. */
static void lava_units(const char *unit, char *buf, size_t len)
{
	size_t o = 0;

	for (; unit && *unit && o + 1 < len; unit++)
		buf[o++] = strchr(" \t\n=>", *unit) ? '_' : *unit;
	buf[o] = 0;
}

static int lava_point(const struct rpt_point *p, void *ctx)
{
	FILE *out = ctx;
	char series[1024], name[1200], test[1400], unit[64], metric[128];
	size_t mlen;

	rpt_point_series(p, series, sizeof(series));
	rpt_slug(p->metric, '_', metric, sizeof(metric));
	mlen = strlen(metric) + 1;
	rpt_slug(series, '_', name, sizeof(name));
	/* the series is cut (and hashed), never the metric: dashboards group by the metric */
	if (mlen + 10 < RPT_LAVA_NAME_MAX)
		rpt_slug_shorten(name, RPT_LAVA_NAME_MAX - mlen, '_');
	snprintf(test, sizeof(test), "%s_%s", name, metric);
	lava_units(p->unit, unit, sizeof(unit));
	fprintf(out, "%s %s %.10g %s\n", test,
		p->verdict && !strcmp(p->verdict, "regression") ? "fail" : "pass", p->mean, unit);
	return 0;
}

static int lava_write(const struct rpt_cmp *cmp, const struct rpt_export_opts *o, FILE *out)
{
	rpt_export_foreach(cmp, o, lava_point, out);
	return ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_lava = {
	.name = "lava",
	.summary = "LAVA test-case lines: <test> pass|fail <measurement> <units>",
	.write = lava_write,
};
