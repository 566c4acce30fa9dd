/* What a step's gate decided: the comparison in its kernel-gate.json that made the verdict. */
#include "fsbench/bisect/bisect.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "model/result_file.h"

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

int bs_gate_read(const char *path, const char *metric, const char *cell, struct bs_gate *ret,
		 char *err, size_t errlen)
{
	json_t *doc = mdl_json_file(path, err, errlen), *s, *m, *c;
	struct bs_gate g = { .change = NAN, .floor = NAN };
	size_t i, j, k;

	if (!doc)
		return -EPROTO;
	json_array_foreach(json_object_get(json_object_get(doc, "compare"), "samples"), i, s)
		json_array_foreach(json_object_get(s, "metrics"), j, m)
			json_array_foreach(json_object_get(m, "comparisons"), k, c)
	{
		const char *label = json_string_value(json_object_get(s, "label"));
		const char *name = json_string_value(json_object_get(m, "name"));
		const char *v = json_string_value(json_object_get(c, "verdict"));
		double ch = num(c, "change_pct");
		bool reg = v && !strcmp(v, "regression");

		if (!name || (metric && strcmp(name, metric)) ||
		    (cell && (!label || strcmp(label, cell))))
			continue;
		g.named = true;
		if (!v || !isfinite(ch))
			continue;
		/* without --metric only gated metrics decide, as they decided the gate */
		if (!metric && !json_is_true(json_object_get(c, "gate")))
			continue;
		if (!strcmp(v, "noisy") || !strcmp(v, "insufficient"))
			continue;
		/* a regression outranks any change that is none; then the larger change */
		if (g.found &&
		    (g.regressed > reg || (g.regressed == reg && fabs(g.change) >= fabs(ch))))
			continue;
		g.found = true;
		g.regressed = reg;
		g.change = ch;
		g.floor = num(c, "floor_pct");
		snprintf(g.metric, sizeof(g.metric), "%s", name);
		snprintf(g.cell, sizeof(g.cell), "%s", label ? label : "");
	}
	json_decref(doc);
	*ret = g;
	return 0;
}
