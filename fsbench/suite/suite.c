/* A suite's life (suite.h): read from its file and parsed, freed. */
#include "fsbench/suite/suite.h"
#include "fsbench/suite/parser.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int suite_load(struct suite *s, const char *path, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	char *text = NULL;
	size_t len = 0;
	int r;

	memset(s, 0, sizeof(*s));
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "reading suite %s: %s", path, strerror(errno));
		return r;
	}
	/* a directory opens for reading, and only read(2) refuses it, as EISDIR */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(err, errlen, "reading suite %s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	/* a suite is a few KiB; 1 MiB is far past any sensible one */
	text = malloc(1 << 20);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "reading suite %s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	len = fread(text, 1, 1 << 20, f);
	if (ferror(f) || len == 1 << 20) {
		r = ferror(f) ? (errno ? -errno : -EIO) : -EFBIG;
		snprintf(err, errlen, "reading suite %s: %s", path, strerror(-r));
		fclose(f);
		free(text);
		return r;
	}
	fclose(f);
	r = suite_parse(s, path, text, len, err, errlen);
	free(text);
	return r;
}

void suite_fs_release(struct suite_fs *fs)
{
	free(fs->type);
	free(fs->label);
	free(fs->mkfs_options);
	free(fs->mount_options);
	for (int j = 0; fs->mkfs_argv[j]; j++)
		free(fs->mkfs_argv[j]);
}

void suite_free(struct suite *s)
{
	for (int i = 0; i < s->nfs; i++)
		suite_fs_release(&s->fs[i]);
	for (int i = 0; i < s->nks; i++) {
		free(s->ks[i].name);
		for (int j = 0; j < s->ks[i].n; j++)
			free(s->ks[i].knob[j]);
		json_decref(s->ks[i].map);
	}
	for (int i = 0; i < s->nwl; i++) {
		free(s->wl[i].label);
		for (int j = 0; j < s->wl[i].np; j++) {
			free(s->wl[i].pname[j]);
			free(s->wl[i].pvalue[j]);
		}
		json_decref(s->wl[i].params);
	}
	free(s->path);
	free(s->name);
	free(s->description);
	json_decref(s->root);
	memset(s, 0, sizeof(*s));
}
