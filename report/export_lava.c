/* LAVA exporter: "<test> pass|fail <measurement> <units>" lines, fail only for a regression verdict. */
#include "export.h"

#include <errno.h>
#include <string.h>

static int lava_point(const struct rpt_point *p, void *ctx)
{
	FILE *out = ctx;
	char label[256], metric[96], side[96], unit[64];

	rpt_slug(p->label, label, sizeof(label));
	rpt_slug(p->metric, metric, sizeof(metric));
	rpt_slug(p->side, side, sizeof(side));
	snprintf(unit, sizeof(unit), "%s", p->unit);
	fprintf(out, "%s_%s%s%s %s %.10g %s\n", label, metric, p->nsides > 1 ? "_" : "",
		p->nsides > 1 ? side : "",
		p->verdict && !strcmp(p->verdict, "regression") ? "fail" : "pass", p->mean, unit);
	return 0;
}

static int lava_write(const json_t *cmp, const struct rpt_export_opts *o, FILE *out)
{
	rpt_export_foreach(cmp, o, lava_point, out);
	return ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_lava = {
	.name = "lava",
	.summary = "LAVA test-case lines: <test> pass|fail <measurement> <units>",
	.write = lava_write,
};
