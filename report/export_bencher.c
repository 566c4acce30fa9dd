/* Bencher Metric Format exporter: {benchmark: {measure: {value, lower_value, upper_value}}}, bounds from the 95 % CI. */
#include "export.h"

#include <errno.h>
#include <stdlib.h>

static void point_name(const struct rpt_point *p, char *buf, size_t len)
{
	if (p->nsides > 1)
		snprintf(buf, len, "%s [%s]", p->label, p->side);
	else
		snprintf(buf, len, "%s", p->label);
}

static int bencher_point(const struct rpt_point *p, void *ctx)
{
	json_t *root = ctx, *bench, *m;
	char name[256];

	point_name(p, name, sizeof(name));
	bench = json_object_get(root, name);
	if (!bench) {
		bench = json_object();
		json_object_set_new(root, name, bench);
	}
	m = json_pack("{s:f}", "value", p->mean);
	if (p->n >= 2) {
		json_object_set_new(m, "lower_value", json_real(p->ci_lo));
		json_object_set_new(m, "upper_value", json_real(p->ci_hi));
	}
	json_object_set_new(bench, p->metric, m);
	return 0;
}

static int bencher_write(const json_t *cmp, const struct rpt_export_opts *o, FILE *out)
{
	json_t *root = json_object();
	int e;

	rpt_export_foreach(cmp, o, bencher_point, root);
	e = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return e || ferror(out) ? -EIO : 0;
}

const struct rpt_exporter rpt_export_bencher = {
	.name = "bencher",
	.summary = "Bencher Metric Format (BMF) JSON; lower/upper_value are the 95 % CI",
	.write = bencher_write,
};
