/* A suite run set up from what the caller asks (suite_run.h): the suite loaded, narrowed, expanded. */
#include "fsbench/suite/suite_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errf.h"

/* What @q selects of the loaded suite: filesystems, workloads, threads, repetitions. */
static int narrow(struct suite *s, const struct suite_request *q, char *err, size_t errlen)
{
	const char *workloads = q->workloads ? q->workloads : q->only_workloads;
	int ret = 0;

	if (q->fs)
		ret = suite_select_fs(s, q->fs, err, errlen);
	if (ret == 0 && workloads)
		ret = suite_select_workloads(s, workloads, err, errlen);
	if (ret == 0 && !s->nwl)
		ret = errf(err, errlen, -EINVAL, "--workloads: no workload of the suite is left");
	if (ret == 0 && q->threads)
		ret = suite_set_threads(s, q->threads, err, errlen);
	if (ret == 0 && q->repetitions)
		s->repetitions = (int)q->repetitions;
	return ret;
}

/* The target's options: one kind of target, and no empty value (never what was meant). */
static int check_target(const struct suite_request *q, char *err, size_t errlen)
{
	const struct {
		const char *name;
		const char *value;
	} nonempty[] = { { "json", q->json },
			 { "image", q->image },
			 { "device", q->device },
			 { "dir", q->dir },
			 { "fs", q->fs },
			 { "threads", q->threads },
			 { "workloads", q->workloads } };

	if (q->dir && (q->image || q->device))
		return errf(err, errlen, -EINVAL,
			    "--dir runs without mkfs: it excludes --image and --device");
	if (q->image && q->device)
		return errf(err, errlen, -EINVAL, "--image and --device exclude each other");
	for (size_t i = 0; i < sizeof(nonempty) / sizeof(nonempty[0]); i++)
		if (nonempty[i].value && !*nonempty[i].value)
			return errf(err, errlen, -EINVAL, "--%s: an empty value", nonempty[i].name);
	return 0;
}

int suite_run_prepare(struct suite_run *x, const struct suite_request *q, char *err, size_t errlen)
{
	char path[4096];
	int ret;

	suite_find(q->file, path, sizeof(path));
	ret = suite_load(&x->s, path, err, errlen);
	if (ret == 0)
		ret = narrow(&x->s, q, err, errlen);
	if (ret == 0)
		ret = check_target(q, err, errlen);
	x->dir = q->dir;
	x->image = q->image;
	x->device = q->device;
	x->size = q->size;
	x->force = q->force;
	x->keep_image = q->keep_image;
	x->fail_fast = q->fail_fast;
	x->no_canary = q->no_canary;
	x->quiet = q->quiet;
	x->json = q->json;
	if (ret == 0 && q->dir)
		ret = suite_use_dir(x, err, errlen);
	if (ret == 0 && !q->dir && !q->device)
		ret = suite_check_image_size(x, err, errlen);
	if (ret == 0)
		ret = suite_expand(&x->s, &x->cells, &x->ncells, err, errlen);
	for (int i = 0; ret == 0 && i < x->ncells; i++)
		if (!x->cells[i].skip)
			x->nrun += x->s.repetitions;
	return ret;
}

int suite_cell_lines(const struct suite_run *x, const struct suite_cell *c, char **ret_mkfs,
		     char **ret_cmd)
{
	const struct suite_workload *w = &x->s.wl[c->wl];
	char *argv[PROBE_SCRATCH_ARGV_MAX + 1] = { 0 }, *mkfs = NULL, *cmd = NULL;
	size_t mlen = 0, clen = 0;
	FILE *f;

	if (!x->dir && probe_scratch_mkfs_argv(x->s.fs[c->fs].type, "DEVICE",
					       (const char *const *)x->s.fs[c->fs].mkfs_argv, argv,
					       PROBE_SCRATCH_ARGV_MAX) == 0) {
		f = open_memstream(&mkfs, &mlen);
		for (int k = 0; argv[k]; k++) {
			if (f)
				fprintf(f, "%s%s", k ? " " : "", argv[k]);
			free(argv[k]);
		}
		if (!f || fclose(f))
			return -ENOMEM;
	}
	f = open_memstream(&cmd, &clen);
	if (!f) {
		free(mkfs);
		return -ENOMEM;
	}
	fprintf(f, "%s --threads %d", w->wl->name, c->threads);
	for (int k = 0; k < w->np; k++)
		fprintf(f, " --%s %s", w->pname[k], w->pvalue[k]);
	for (int k = 0; c->ks >= 0 && k < x->s.ks[c->ks].n; k++)
		fprintf(f, " --knob %s", x->s.ks[c->ks].knob[k]);
	if (fclose(f)) {
		free(mkfs);
		return -ENOMEM;
	}
	*ret_mkfs = mkfs;
	*ret_cmd = cmd;
	return 0;
}
