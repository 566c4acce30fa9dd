/*
 * LAVA exporter: "<test> pass|fail <measurement> <units>" lines, fail only for a regression
 * verdict, for `lava-test-case "$test" --result "$r" --measurement "$m" --units "$u"`. The
 * dispatcher splits its TESTCASE signal on whitespace into key=value pairs and ends it at
 * '>', and lava-test-case makes a directory named after the test: so the test name is a
 * slug (rpt_slug, export.h, says what LAVA allows), the units (rpt_point_base_unit: s, B,
 * B/s, files/s, x) have no blank, '=' or '>', and the measurement is a plain decimal number
 * (Python's Decimal) in those units. Kernel, host and device are the LAVA job's own
 * metadata; the name carries what identifies the series.
 */
#include "report/export.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/*
 * The longest metric slug there is ("nb_query_file_information_p99_9" has 31 characters) fits
 * in this; a test name's prefix keeps the rest of lava-server's RPT_LAVA_NAME_MAX.
 */
#define LAVA_METRIC_MAX 32
#define LAVA_PREFIX_MAX (RPT_LAVA_NAME_MAX - 1 - LAVA_METRIC_MAX)
#define LAVA_SIDE_MAX 24

/*
 * The test name's prefix for @p's sample and side, the same for every metric of it: the slug
 * of the series (sample, fs, mount options, knob set), then the side when there are several.
 * A prefix longer than LAVA_PREFIX_MAX keeps the series' head up to a '_', then '_' and 8 hex
 * digits of a hash of the whole prefix, then the side: cut once, at one place per sample.
 */
static void lava_prefix(const struct rpt_point *p, char *out, size_t len)
{
	char series[1024], slug[1024], side[LAVA_SIDE_MAX + 1] = "", full[1100];
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t keep;

	snprintf(series, sizeof(series), "%s fs=%s mount=%s knobs=%s", p->label,
		 rpt_point_label(p, "fs"), rpt_point_label(p, "mount_options"),
		 rpt_point_label(p, "knob_set"));
	rpt_slug(series, '_', slug, sizeof(slug));
	if (p->nsides > 1) {
		char s[256];

		snprintf(s, sizeof(s), "side_%s", p->side);
		rpt_slug(s, '_', side, sizeof(side));
	}
	snprintf(full, sizeof(full), "%s%s%s", slug, side[0] ? "_" : "", side);
	if (strlen(full) <= LAVA_PREFIX_MAX || len <= LAVA_PREFIX_MAX) {
		snprintf(out, len, "%s", full);
		return;
	}
	for (const char *c = full; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	/* head, '_', hash, and the side with its '_' */
	keep = LAVA_PREFIX_MAX - 9 - (side[0] ? strlen(side) + 1 : 0);
	while (keep > 8 && slug[keep] != '_')
		keep--;
	while (keep && slug[keep - 1] == '_')
		keep--;
	snprintf(out, len, "%.*s_%08x%s%s", (int)keep, slug, (unsigned)h, side[0] ? "_" : "", side);
}

void rpt_lava_number(double v, char *buf, size_t len)
{
	size_t n;

	if (!buf || !len) /* (and gcc's sanitizer build then knows buf is no null pointer) */
		return;
	snprintf(buf, len, "%.10g", v);
	if (!strchr(buf, 'e'))
		return;
	snprintf(buf, len, "%.15f", v);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = 0;
}

static int lava_point(const struct rpt_point *p, void *ctx)
{
	FILE *out = ctx;
	char prefix[RPT_LAVA_NAME_MAX + 1], metric[128], num[64];

	lava_prefix(p, prefix, sizeof(prefix));
	rpt_slug(p->metric, '_', metric, sizeof(metric));
	/* dashboards group by the metric: it is last and never cut (no slug is longer) */
	rpt_slug_shorten(metric, LAVA_METRIC_MAX, '_');
	rpt_lava_number(rpt_point_base(p, p->mean), num, sizeof(num));
	fprintf(out, "%s_%s %s %s %s\n", prefix, metric,
		p->verdict && !strcmp(p->verdict, "regression") ? "fail" : "pass", num,
		rpt_point_base_unit(p));
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
