/* Suites: each run's coordinates and the expanded suite, as result JSON. */
#include "fsbench/suite/suite.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *suite_coords(const struct suite *s, const struct suite_cell *c, int repetition)
{
	const struct suite_fs *fs = &s->fs[c->fs];
	const struct suite_workload *w = &s->wl[c->wl];

	/* labels live only in the cell's name: coords hold what was run, so compare --across fs
	 * lines up ext4 and xfs cells that differ in nothing else */
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:s,s:O,s:i,s:i,s:s}", "fs", fs->type,
			 "mkfs_options", fs->mkfs_options, "mount_options", c->mount_options,
			 "barrier", c->barrier >= 0 ? json_integer(c->barrier) : json_null(),
			 "knob_set", c->ks >= 0 ? json_string(s->ks[c->ks].name) : json_null(),
			 "knobs", c->ks >= 0 ? json_deep_copy(s->ks[c->ks].map) : json_object(),
			 "workload", w->wl->name, "params", w->params, "threads", c->threads,
			 "repetition", repetition, "cell", c->name);
}

json_t *suite_json(const struct suite *s, const struct suite_cell *cells, int n)
{
	json_t *o = json_object(), *names = json_array(), *skipped = json_array();

	for (int i = 0; i < n; i++) {
		if (cells[i].skip)
			json_array_append_new(skipped, json_pack("{s:s,s:s}", "cell", cells[i].name,
								 "why", cells[i].skip));
		else
			json_array_append_new(names, json_string(cells[i].name));
	}
	json_object_set_new(o, "file", json_string(s->path));
	json_object_set_new(o, "name", json_string(s->name));
	if (s->description)
		json_object_set_new(o, "description", json_string(s->description));
	json_object_set_new(o, "repetitions", json_integer(s->repetitions));
	json_object_set_new(o, "image_size", json_integer(s->image_size));
	json_object_set_new(o, "cells", names);
	json_object_set_new(o, "skipped", skipped);
	json_object_set(o, "definition", s->root);
	return o;
}
