/* The HTML report's groups: the complete runs of one workload on one line, and runs' names. */
#include "report/html_group.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/result_file.h"
#include "model/run.h"
#include "model/schema.h"
#include "report/sample.h"

/*
 * A run's line in its workload's plots: its side (@label: baseline, candidate, a file) and
 * its filesystem when it has coords, else its file. A and B never share a line.
 */
static void line_name(const json_t *run, const char *path, const char *label, char *buf, size_t len)
{
	const char *fs =
		json_string_value(json_object_get(json_object_get(run, MDL_KEY_COORDS), "fs"));
	char *copy;

	if (fs) {
		snprintf(buf, len, "%s%s%s", label ? label : "", label ? ": " : "", fs);
		return;
	}
	if (label) {
		snprintf(buf, len, "%s", label);
		return;
	}
	copy = strdup(path);
	snprintf(buf, len, "%s", copy ? basename(copy) : path);
	free(copy);
}

static const char *run_workload(const json_t *run)
{
	return mdl_json_str(run, MDL_KEY_WORKLOAD, "");
}

/*
 * The group of @workload named @name with runs of sample key @key (taken: the group keeps
 * it, or it is freed); a new one while there are fewer than MAX_GROUPS, else NULL.
 */
static struct group *group_get(struct group *g, int *n, const char *workload, const char *name,
			       json_t *key, const char *side, const char *line)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(g[i].workload, workload) && !strcmp(g[i].name, name) &&
		    json_equal(g[i].key, key)) {
			json_decref(key);
			return &g[i];
		}
	if (*n >= MAX_GROUPS) {
		json_decref(key);
		return NULL;
	}
	memset(&g[*n], 0, sizeof(g[*n]));
	snprintf(g[*n].workload, sizeof(g[*n].workload), "%s", workload);
	snprintf(g[*n].name, sizeof(g[*n].name), "%s", name);
	snprintf(g[*n].side, sizeof(g[*n].side), "%s", side ? side : "");
	snprintf(g[*n].line, sizeof(g[*n].line), "%s", line ? line : "");
	g[*n].key = key;
	return &g[(*n)++];
}

bool rpt_html_workload_first(const struct group *g, int i)
{
	for (int k = 0; k < i; k++)
		if (!strcmp(g[k].workload, g[i].workload))
			return false;
	return true;
}

/*
 * Which run a time plot shows: its side (@label), suite cell and repetition, else its file,
 * workload and index. Repetitions and runs count from 1, as `fsbench suite` prints them.
 */
void rpt_html_run_label(const json_t *run, const char *path, const char *label, size_t index,
			char *buf, size_t len)
{
	const json_t *coords = json_object_get(run, MDL_KEY_COORDS);
	const char *cell = json_string_value(json_object_get(coords, "cell"));
	char *copy;

	if (cell) {
		snprintf(buf, len, "%s%s%s rep %lld", label ? label : "", label ? ": " : "", cell,
			 (long long)json_integer_value(json_object_get(coords, "repetition")) + 1);
		return;
	}
	copy = strdup(path);
	snprintf(buf, len, "%s %s run %zu",
		 label ? label :
		 copy  ? basename(copy) :
			 path,
		 run_workload(run), index + 1);
	free(copy);
}

/*
 * A run's percentiles of op @k (its JSON @op) into @gr: the stored keys, else @h's (the
 * run's histogram of it, NULL when its bins did not read). 0 or -ENOMEM.
 */
static int group_pct_add(struct group *gr, int k, const json_t *op, const struct hist *h)
{
	json_int_t count = json_integer_value(json_object_get(op, "count"));
	struct group_pct *np, *p;

	if (count <= 0)
		return 0;
	np = realloc(gr->pcts[k], (gr->npcts[k] + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	gr->pcts[k] = np;
	p = &np[gr->npcts[k]++];
	p->count = (uint64_t)count;
	for (int m = 0; m < MDL_NPERCENTILES; m++) {
		const json_t *v = json_object_get(op, mdl_percentiles[m].key);

		p->ns[m] = json_is_number(v) ? json_number_value(v) :
			   h && h->count     ? (double)hist_percentile(h, mdl_percentiles[m].pct) :
					       NAN;
	}
	return 0;
}

/* Adds complete run @run to its group @gr: throughput at its thread count, its histograms. */
static int group_add(struct group *gr, const json_t *run)
{
	const json_t *sum = mdl_run_summary(run), *op;
	json_int_t th = json_integer_value(json_object_get(run, MDL_KEY_THREADS));
	const char *opname;
	int bytes;

	bytes = mdl_run_unit(run) == MDL_UNIT_BYTES;
	if (th >= 1 && th <= MDL_MAX_THREADS) {
		double v = bytes ? json_number_value(json_object_get(sum, "bytes_per_sec")) / 1e6 :
				   json_number_value(json_object_get(sum, "files_per_sec"));
		struct group_sample *ns =
			realloc(gr->samples, (gr->nsamples + 1) * sizeof(*gr->samples));

		if (!ns)
			return -ENOMEM;
		gr->samples = ns;
		gr->samples[gr->nsamples++] = (struct group_sample){ (int)th, bytes, v };
		gr->tsum[bytes][th] += v;
		gr->tn[bytes][th]++;
	}
	json_object_foreach((json_t *)mdl_run_ops(run), opname, op)
	{
		struct hist one;
		int k = mdl_op_find(opname), e;
		bool read;

		if (k < 0) /* an operation this build does not know: no plot */
			continue;
		if (!gr->h[k]) {
			gr->h[k] = malloc(sizeof(struct hist));
			if (!gr->h[k])
				return -ENOMEM;
			hist_init(gr->h[k]);
		}
		read = mdl_hist_from_json(op, &one) == 0;
		if (read)
			hist_add(gr->h[k], &one);
		e = group_pct_add(gr, k, op, read ? &one : NULL);
		if (e)
			return e;
	}
	return 0;
}

/* Whether the complete runs of @workload in @docs ran at more than one thread count. */
static bool workload_threads_vary(json_t *const *docs, size_t ndocs, const char *workload)
{
	json_int_t first = 0;

	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;

		json_array_foreach(json_object_get(docs[d], MDL_KEY_RUNS), r, run)
		{
			json_int_t t = json_integer_value(json_object_get(run, MDL_KEY_THREADS));

			if (!mdl_run_complete(run) || strcmp(run_workload(run), workload))
				continue;
			if (first && t != first)
				return true;
			first = t;
		}
	}
	return false;
}

/*
 * Names each group by its line and, where other groups of its workload have the same line
 * (on any side: a line's colour pairs the sides), by what tells its sample apart from
 * theirs, as compare's labels do: "ext4" becomes "ext4 mount_options=noatime". A line
 * that was unique keeps its name. 0 or -ENOMEM.
 */
static int groups_name(struct group *g, int ng)
{
	char *suffix[MAX_GROUPS] = { 0 };
	int e = 0;

	for (int i = 0; i < ng && !e; i++) {
		const json_t *others[MAX_GROUPS];
		size_t n = 0;

		for (int j = 0; j < ng; j++)
			if (j != i && !strcmp(g[j].workload, g[i].workload) &&
			    !strcmp(g[j].line, g[i].line) && !json_equal(g[j].key, g[i].key))
				others[n++] = g[j].key;
		suffix[i] = strdup("");
		if (suffix[i])
			rpt_label_append_differing(&suffix[i], g[i].key, others, n);
		else
			e = -ENOMEM;
	}
	for (int i = 0; i < ng && !e; i++) {
		size_t at = strlen(g[i].name), lt = strlen(g[i].line);

		if (!*suffix[i])
			continue;
		snprintf(g[i].name + at, sizeof(g[i].name) - at, "%s", suffix[i]);
		/* a line without a filesystem or thread count is its difference alone */
		snprintf(g[i].line + lt, sizeof(g[i].line) - lt, "%s", suffix[i] + !lt);
	}
	for (int i = 0; i < ng; i++)
		free(suffix[i]);
	return e;
}

static int groups_build(struct group *g, int *ng, json_t *const *docs, const char *const *paths,
			size_t ndocs, const char *const *labels, bool cells, const char *across)
{
	for (size_t d = 0; d < ndocs; d++) {
		const json_t *run;
		size_t r;

		json_array_foreach(json_object_get(docs[d], MDL_KEY_RUNS), r, run)
		{
			const char *fs = json_string_value(
				json_object_get(json_object_get(run, MDL_KEY_COORDS), "fs"));
			char name[sizeof(g->name)], line[sizeof(g->line)];
			json_t *key;
			struct group *gr;
			int e;

			if (!mdl_run_complete(run))
				continue;
			/* compare's sample, which a throughput line spans over thread counts */
			key = mdl_run_sample_keyobj(run, cells ? NULL : MDL_KEY_THREADS);
			if (!key)
				return -ENOMEM;
			line_name(run, paths[d], labels ? labels[d] : NULL, name, sizeof(name));
			snprintf(line, sizeof(line), "%s", fs ? fs : "");
			/* a cell is a filesystem at a thread count: its own line, as its verdicts */
			if (cells && workload_threads_vary(docs, ndocs, run_workload(run))) {
				json_int_t t =
					json_integer_value(json_object_get(run, MDL_KEY_THREADS));
				size_t at = strlen(name), lt = strlen(line);

				snprintf(name + at, sizeof(name) - at, " t=%lld", (long long)t);
				snprintf(line + lt, sizeof(line) - lt, "%st=%lld", lt ? " " : "",
					 (long long)t);
			}
			gr = group_get(g, ng, run_workload(run), name, key,
				       labels ? labels[d] : NULL, line);
			if (!gr)
				continue;
			if (cells && !gr->sample) {
				gr->sample = mdl_run_sample_keyobj(run, across);
				if (!gr->sample)
					return -ENOMEM;
			}
			e = group_add(gr, run);
			if (e)
				return e;
		}
	}
	return groups_name(g, *ng);
}

int rpt_html_groups_build(struct group *g, int *ng, json_t *const *docs, const char *const *paths,
			  size_t ndocs, const char *const *labels)
{
	return groups_build(g, ng, docs, paths, ndocs, labels, false, NULL);
}

int rpt_html_groups_build_cells(struct group *g, int *ng, json_t *const *docs,
				const char *const *paths, size_t ndocs, const char *const *labels,
				const char *across)
{
	return groups_build(g, ng, docs, paths, ndocs, labels, true, across);
}

void rpt_html_groups_free(struct group *g, int ng)
{
	for (int i = 0; i < ng; i++) {
		for (int k = 0; k < MDL_OP_COUNT; k++) {
			free(g[i].h[k]);
			g[i].h[k] = NULL;
			free(g[i].pcts[k]);
			g[i].pcts[k] = NULL;
			g[i].npcts[k] = 0;
		}
		free(g[i].samples);
		g[i].samples = NULL;
		g[i].nsamples = 0;
		json_decref(g[i].key);
		g[i].key = NULL;
		json_decref(g[i].sample);
		g[i].sample = NULL;
	}
}

bool rpt_html_group_in_sample(const struct group *g, const struct rpt_cmp_sample *s)
{
	return g->sample && s->key && json_equal(g->sample, s->key);
}

size_t rpt_html_group_samples(const struct group *g, bool bytes, int threads, double *ret,
			      size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < g->nsamples; i++)
		if (g->samples[i].bytes == bytes && g->samples[i].threads == threads) {
			if (n < max)
				ret[n] = g->samples[i].v;
			n++;
		}
	return n;
}
