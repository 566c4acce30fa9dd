/* Suites: the matrix expanded into cells (names, mount options, skips) and each cell's job. */
#include "fsbench/suite/suite.h"

#include "probes/target/fs_traits.h"
#include "probes/knob/knob.h"
#include "fsbench/core/opt.h"
#include "fsbench/core/workload.h"
#include "fsbench/ext/ext_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int suite_barrier_option(const char *fstype, int barrier, const char **ret)
{
	/* one table for knobs and suites: xfs has no option either way, on is its only state */
	*ret = fs_traits_barrier_option(fstype, barrier);
	return *ret ? 0 : -EOPNOTSUPP;
}

static void cell_name(const struct suite *s, struct suite_cell *c)
{
	char *o = c->name;
	size_t len = sizeof(c->name), n;

	n = (size_t)snprintf(o, len, "%s", s->fs[c->fs].label);
	if (c->barrier >= 0 && n < len)
		n += (size_t)snprintf(o + n, len - n, "/barrier=%d", c->barrier);
	/* one knob set is a constant of the suite, not a dimension worth naming */
	if (c->ks >= 0 && s->nks > 1 && n < len)
		n += (size_t)snprintf(o + n, len - n, "/%s", s->ks[c->ks].name);
	if (n < len)
		snprintf(o + n, len - n, "/%s/t=%d", s->wl[c->wl].label, c->threads);
}

int suite_expand(const struct suite *s, struct suite_cell **ret, int *ret_n, char *err,
		 size_t errlen)
{
	struct suite_cell *cells = NULL;
	int n = 0, cap = 0;

	*ret = NULL;
	*ret_n = 0;
	for (int f = 0; f < s->nfs; f++) {
		const struct suite_fs *fs = &s->fs[f];
		int nb = fs->nbarrier ? fs->nbarrier : 1;

		for (int b = 0; b < nb; b++)
			for (int k = 0; k < (s->nks ? s->nks : 1); k++)
				for (int w = 0; w < s->nwl; w++) {
					const struct suite_workload *wl = &s->wl[w];
					int nth = wl->nthreads ? wl->nthreads : s->nthreads;

					for (int t = 0; t < nth; t++) {
						struct suite_cell *c;
						const char *bopt = "";

						if (n == SUITE_MAX_CELLS) {
							free(cells);
							snprintf(err, errlen,
								 "suite %s: more than %d cells",
								 s->path, SUITE_MAX_CELLS);
							return -E2BIG;
						}
						if (n == cap) {
							int nc = cap ? cap * 2 : 64;
							struct suite_cell *a = realloc(
								cells, (size_t)nc * sizeof(*a));

							if (!a) {
								free(cells);
								snprintf(err, errlen, "%s",
									 strerror(ENOMEM));
								return -ENOMEM;
							}
							cells = a;
							cap = nc;
						}
						c = &cells[n++];
						memset(c, 0, sizeof(*c));
						c->fs = f;
						c->barrier = fs->nbarrier ? fs->barrier[b] : -1;
						c->ks = s->nks ? k : -1;
						c->wl = w;
						c->threads = wl->nthreads ? wl->threads[t] :
									    s->threads[t];
						cell_name(s, c);
						if (c->barrier >= 0 &&
						    suite_barrier_option(fs->type, c->barrier,
									 &bopt) < 0)
							c->skip =
								c->barrier ?
									"barriers cannot be set on this filesystem" :
									"this filesystem cannot turn barriers off (xfs removed nobarrier in 4.19)";
						snprintf(c->mount_options, sizeof(c->mount_options),
							 "%s%s%s", fs->mount_options,
							 *fs->mount_options && bopt && *bopt ? "," :
											       "",
							 bopt ? bopt : "");
					}
				}
	}
	*ret = cells;
	*ret_n = n;
	return 0;
}

void suite_slot(int ncells, int i, int *ret_cell, int *ret_rep)
{
	int round = i / ncells, pos = i % ncells;

	/* serpentine: every cell's mean place over two rounds is the middle, so linear drift cancels */
	*ret_cell = round % 2 ? ncells - 1 - pos : pos;
	*ret_rep = round + 1;
}

int suite_job(const struct suite *s, const struct suite_cell *c, struct fsb_job *job, char *err,
	      size_t errlen)
{
	const struct suite_workload *w = &s->wl[c->wl];
	char v[16];
	int r;

	r = fsb_job_init(job, w->wl, fsb_exts, err, errlen);
	for (int k = 0; k < w->np && !r; k++)
		r = fsb_job_set(job, w->pname[k], w->pvalue[k], err, errlen);
	snprintf(v, sizeof(v), "%d", c->threads);
	if (!r)
		r = fsb_job_set(job, "threads", v, err, errlen);
	for (int k = 0; c->ks >= 0 && k < s->ks[c->ks].n && !r; k++)
		r = fsb_job_set(job, "knob", s->ks[c->ks].knob[k], err, errlen);
	return r;
}
