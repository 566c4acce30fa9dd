/* Suite files: labels that tell apart entries of the same type in cell names. */
#include "fsbench/suite/parser.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Labels that tell apart entries of the same type: the options in which they differ. */
static char *auto_label(const char *base, const char *detail, int idx)
{
	char *out = NULL;

	if (detail && *detail) {
		if (asprintf(&out, "%s:%s", base, detail) < 0)
			return NULL;
	} else if (asprintf(&out, "%s#%d", base, idx + 1) < 0) {
		return NULL;
	}
	for (char *c = out; *c; c++)
		if (*c == '/')
			*c = '_';
	return out;
}

void suite_label_filesystems(struct suite *s)
{
	bool given[SUITE_MAX_FS];

	/* an entry with its own label leaves the type to the others */
	for (int i = 0; i < s->nfs; i++)
		given[i] = s->fs[i].label != NULL;
	for (int i = 0; i < s->nfs; i++) {
		struct suite_fs *fs = &s->fs[i];
		bool same_mount = false;
		int same = 0;

		if (fs->label)
			continue;
		for (int j = 0; j < s->nfs; j++)
			if (j != i && !given[j] && !strcmp(s->fs[j].type, fs->type)) {
				same++;
				if (!strcmp(s->fs[j].mount_options, fs->mount_options))
					same_mount = true;
			}
		if (!same)
			fs->label = suite_strdup(fs->type);
		else if (!same_mount)
			fs->label = auto_label(fs->type, fs->mount_options, i);
		else
			fs->label = auto_label(fs->type, fs->mkfs_options, i);
	}
}

void suite_label_workloads(struct suite *s)
{
	bool given[SUITE_MAX_WORKLOADS];

	for (int i = 0; i < s->nwl; i++)
		given[i] = s->wl[i].label != NULL;
	for (int i = 0; i < s->nwl; i++) {
		struct suite_workload *w = &s->wl[i];
		char detail[256] = "";
		bool dup = false;

		if (w->label)
			continue;
		for (int j = 0; j < s->nwl; j++)
			if (j != i && !given[j] && s->wl[j].wl == w->wl)
				dup = true;
		if (!dup) {
			w->label = suite_strdup(w->wl->name);
			continue;
		}
		/* name the params in which this entry differs from its namesakes */
		for (int k = 0; k < w->np; k++) {
			bool differs = false;

			for (int j = 0; j < s->nwl; j++) {
				json_t *o = json_object_get(s->wl[j].params, w->pname[k]);

				if (j != i && !given[j] && s->wl[j].wl == w->wl &&
				    !json_equal(o, json_object_get(w->params, w->pname[k])))
					differs = true;
			}
			if (differs)
				snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
					 "%s%s=%s", *detail ? "," : "", w->pname[k], w->pvalue[k]);
		}
		w->label = auto_label(w->wl->name, detail, i);
	}
}
