/* The store read back: kernels in order, counts, and every series judged for change points. */
#include "fsbench/history/series.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mix64.h"
#include "report/metric.h"

/* The same key sorts alike everywhere: strcmp of sort_key (ident.h), then release, commit. */
int hist_kernel_cmp(const void *a, const void *b)
{
	const struct hist_kernel_row *x = a, *y = b;
	int r = strcmp(x->k.sort_key, y->k.sort_key);

	if (!r)
		r = hist_release_cmp(x->k.release, y->k.release);
	if (!r)
		r = strcmp(x->k.commit, y->k.commit);
	return r;
}

static void text(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

static long long num(const char *s)
{
	return s ? atoll(s) : 0;
}

static int kernel_row(void *arg, const struct hist_row *row)
{
	struct hist_summary *s = arg;
	struct hist_kernel_row *k, *grown = realloc(s->kernels, (s->nkernels + 1) * sizeof(*k));

	if (!grown)
		return -ENOMEM;
	s->kernels = grown;
	k = &s->kernels[s->nkernels++];
	memset(k, 0, sizeof(*k));
	k->id = num(row->v[0]);
	text(k->k.release, sizeof(k->k.release), row->v[1]);
	text(k->k.package, sizeof(k->k.package), row->v[2]);
	text(k->k.commit, sizeof(k->k.commit), row->v[3]);
	/* the key as this fsbench makes it, whatever an older one stored */
	hist_kernel_key(&k->k);
	k->runs = num(row->v[4]);
	k->files = num(row->v[5]);
	return 0;
}

static int counts_row(void *arg, const struct hist_row *row)
{
	struct hist_summary *s = arg;

	s->files = num(row->v[0]);
	s->runs = num(row->v[1]);
	s->incomplete = num(row->v[2]);
	s->series = num(row->v[3]);
	s->values = num(row->v[4]);
	return 0;
}

int hist_summary_load(struct hist_db *db, struct hist_summary *ret, char *err, size_t errlen)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	r = hist_db_query(db,
			  "SELECT k.id, k.release, k.package, k.git_commit, count(r.id), "
			  "count(DISTINCT r.file_id) FROM kernels k LEFT JOIN runs r "
			  "ON r.kernel_id = k.id GROUP BY k.id, k.release, k.package, k.git_commit",
			  NULL, kernel_row, ret, err, errlen);
	if (!r)
		r = hist_db_query(
			db,
			"SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM runs), "
			"(SELECT count(*) FROM runs WHERE complete = 0), "
			"(SELECT count(*) FROM series), "
			"(SELECT count(*) FROM run_values)",
			NULL, counts_row, ret, err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "reading the store: %s", strerror(ENOMEM));
	if (r) {
		hist_summary_free(ret);
		return r;
	}
	qsort(ret->kernels, ret->nkernels, sizeof(*ret->kernels), hist_kernel_cmp);
	return 0;
}

void hist_summary_free(struct hist_summary *s)
{
	free(s->kernels);
	memset(s, 0, sizeof(*s));
}

/* One sample as read: its kernel's place in the order, and the value. */
struct sample {
	size_t kernel;
	double v;
	int rep; /* the run's repetition in its suite (0 for a run without one) */
};

/* One series as read: its row, then every sample of it. */
struct gather {
	long long id;
	char *key, *sample_key, metric[64];
	struct sample *v;
	size_t n, cap;
};

/*
 * The store read for judging: its series (in key order), a series' place by its id and a
 * kernel's place in the order by its id (both arrays over ids, which are dense), then
 * every value, in the order the store keeps them.
 */
struct gathering {
	const struct hist_summary *sum;
	const struct hist_cp_opts *o;
	struct hist_findings *f;
	struct gather *s;
	size_t ns, cap;
	size_t *series_at, *kernel_at; /* by id; (size_t)-1: none */
	long long max_series, max_kernel;
};

static int by_kernel(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

static void series_free(struct hist_series *s)
{
	free(s->key);
	free(s->sample_key);
	free(s->kernel);
	free(s->n);
	free(s->x);
	free(s->rep);
	free(s->res.cps);
}

/*
 * The gathered series @g judged into @s (zeroed by the caller): no shared state is written,
 * so series are judged on several threads at once. 0 or -errno.
 */
static int judge(const struct gathering *gg, struct gather *g, struct hist_series *s)
{
	struct hist_cp_series in;
	struct hist_cp_opts o = *gg->o;

	if (!g->n)
		return 0;
	qsort(g->v, g->n, sizeof(*g->v), by_kernel);
	s->kernel = calloc(g->n, sizeof(*s->kernel));
	s->n = calloc(g->n, sizeof(*s->n));
	s->x = calloc(g->n, sizeof(*s->x));
	s->rep = calloc(g->n, sizeof(*s->rep));
	if (!s->kernel || !s->n || !s->x || !s->rep)
		return -ENOMEM;
	for (size_t i = 0; i < g->n; i++) {
		if (!s->nk || s->kernel[s->nk - 1] != g->v[i].kernel) {
			s->kernel[s->nk] = g->v[i].kernel;
			s->n[s->nk++] = 0;
		}
		s->n[s->nk - 1]++;
		s->x[i] = g->v[i].v;
		s->rep[i] = g->v[i].rep;
	}
	in = (struct hist_cp_series){ .nk = s->nk, .n = s->n, .x = s->x, .rep = s->rep };
	/* a latency percentile's step must exceed one bucket of its histogram */
	if (rpt_metric_percentile(g->metric)) {
		o.metric = g->metric;
		o.scale = rpt_metric_lookup(g->metric)->scale;
	}
	/* each series its own permutations, the same on every run over the same store */
	for (const char *p = g->key; *p; p++)
		o.seed = base_mix64(o.seed ^ (unsigned char)*p);
	return hist_cp_find(&in, &o, &s->res);
}

/*
 * Series @g's judgement @s counted in @gg->f, in the series' order: a series with a change
 * point kept (@s moved into it, and zeroed), one that could not be judged named. What is
 * left in @s is the caller's to free.
 */
static int judged_keep(struct gathering *gg, const struct gather *g, struct hist_series *s)
{
	struct hist_series *grown;

	if (!g->n)
		return 0;
	gg->f->judged += s->res.status == HIST_CP_JUDGED;
	gg->f->short_ += s->res.status == HIST_CP_SHORT;
	gg->f->noisy += s->res.status == HIST_CP_NOISY;
	if (s->res.status == HIST_CP_SHORT || s->res.status == HIST_CP_NOISY) {
		struct hist_unjudged *u =
			realloc(gg->f->unjudged, (gg->f->nunjudged + 1) * sizeof(*u));

		if (!u)
			return -ENOMEM;
		gg->f->unjudged = u;
		u += gg->f->nunjudged;
		*u = (struct hist_unjudged){ .key = strdup(g->key),
					     .sample_key = strdup(g->sample_key),
					     .status = s->res.status,
					     .spread_pct = s->res.spread_pct };
		snprintf(u->metric, sizeof(u->metric), "%s", g->metric);
		gg->f->nunjudged++;
		if (!u->key || !u->sample_key)
			return -ENOMEM;
	}
	if (!s->res.ncps) /* nothing to keep: the caller frees @s */
		return 0;
	s->key = strdup(g->key);
	s->sample_key = strdup(g->sample_key);
	snprintf(s->metric, sizeof(s->metric), "%s", g->metric);
	grown = realloc(gg->f->series, (gg->f->nseries + 1) * sizeof(*grown));
	if (!s->key || !s->sample_key || !grown) {
		if (grown)
			gg->f->series = grown;
		return -ENOMEM;
	}
	gg->f->series = grown;
	gg->f->series[gg->f->nseries++] = *s;
	memset(s, 0, sizeof(*s));
	return 0;
}

/* The judges: the next series to take, and each series' judgement and status. */
struct judges {
	struct gathering *gg;
	struct hist_series *out;
	int *e;
	size_t next;
	pthread_mutex_t lock;
};

static void *judge_thread(void *arg)
{
	struct judges *j = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&j->lock);
		i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->gg->ns)
			return NULL;
		j->e[i] = judge(j->gg, &j->gg->s[i], &j->out[i]);
	}
}

#define JUDGE_THREADS_MAX 16

/*
 * Every gathered series judged, on one thread per processor (the permutation tests are
 * most of `history changes`' time), then counted and kept in the series' order, so that
 * the findings are the same however the threads ran. 0 or -errno.
 */
static int judge_all(struct gathering *gg)
{
	struct judges j = { .gg = gg };
	pthread_t tid[JUDGE_THREADS_MAX];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int started = 0, r = 0;

	j.out = calloc(gg->ns ? gg->ns : 1, sizeof(*j.out));
	j.e = calloc(gg->ns ? gg->ns : 1, sizeof(*j.e));
	if (!j.out || !j.e) {
		free(j.out);
		free(j.e);
		return -ENOMEM;
	}
	pthread_mutex_init(&j.lock, NULL);
	for (long t = 1; t < cpus && t < JUDGE_THREADS_MAX && (size_t)t < gg->ns; t++)
		if (!pthread_create(&tid[started], NULL, judge_thread, &j))
			started++;
	judge_thread(&j);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&j.lock);
	for (size_t i = 0; i < gg->ns; i++) {
		if (!r)
			r = j.e[i] ? j.e[i] : judged_keep(gg, &gg->s[i], &j.out[i]);
		series_free(&j.out[i]);
	}
	free(j.out);
	free(j.e);
	return r;
}

/* Grows @arr (of @size-byte items, @cap of them) to hold @need. */
static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

static int series_row(void *arg, const struct hist_row *row)
{
	struct gathering *gg = arg;
	struct gather *g;
	int e;

	if (row->n < 4 || !row->v[0] || !row->v[1] || !row->v[2] || !row->v[3])
		return 0;
	if ((e = grow((void **)&gg->s, &gg->cap, gg->ns + 1, sizeof(*gg->s))))
		return e;
	g = &gg->s[gg->ns];
	memset(g, 0, sizeof(*g));
	g->id = num(row->v[0]);
	g->key = strdup(row->v[1]);
	g->sample_key = strdup(row->v[3]);
	snprintf(g->metric, sizeof(g->metric), "%s", row->v[2]);
	gg->ns++;
	if (!g->key || !g->sample_key)
		return -ENOMEM;
	if (g->id > gg->max_series)
		gg->max_series = g->id;
	return 0;
}

static int value_row(void *arg, const struct hist_row *row)
{
	struct gathering *gg = arg;
	long long sid, kid;
	struct gather *g;
	size_t k;
	int e;

	if (row->n < 3 || !row->v[0] || !row->v[1] || !row->v[2])
		return 0;
	sid = num(row->v[0]);
	kid = num(row->v[1]);
	/* a series or kernel added after they were read (a writer meanwhile): the next look */
	if (sid < 0 || sid > gg->max_series || gg->series_at[sid] == (size_t)-1 || kid < 0 ||
	    kid > gg->max_kernel || gg->kernel_at[kid] == (size_t)-1)
		return 0;
	g = &gg->s[gg->series_at[sid]];
	k = gg->kernel_at[kid];
	if ((e = grow((void **)&g->v, &g->cap, g->n + 1, sizeof(*g->v))))
		return e;
	g->v[g->n++] = (struct sample){ k, strtod(row->v[2], NULL),
					row->n > 3 && row->v[3] ? atoi(row->v[3]) : 0 };
	return 0;
}

/* The arrays by id: a series' place in @gg->s, a kernel's in the summary's order. */
static int index_ids(struct gathering *gg)
{
	for (size_t i = 0; i < gg->sum->nkernels; i++)
		if (gg->sum->kernels[i].id > gg->max_kernel)
			gg->max_kernel = gg->sum->kernels[i].id;
	gg->series_at = malloc((size_t)(gg->max_series + 1) * sizeof(size_t));
	gg->kernel_at = malloc((size_t)(gg->max_kernel + 1) * sizeof(size_t));
	if (!gg->series_at || !gg->kernel_at)
		return -ENOMEM;
	memset(gg->series_at, 0xff, (size_t)(gg->max_series + 1) * sizeof(size_t));
	memset(gg->kernel_at, 0xff, (size_t)(gg->max_kernel + 1) * sizeof(size_t));
	for (size_t i = 0; i < gg->ns; i++)
		if (gg->s[i].id >= 0)
			gg->series_at[gg->s[i].id] = i;
	for (size_t i = 0; i < gg->sum->nkernels; i++)
		if (gg->sum->kernels[i].id >= 0)
			gg->kernel_at[gg->sum->kernels[i].id] = i;
	return 0;
}

/* The size of a change in its bad direction: regressions first, the largest first. */
static int change_order(const void *a, const void *b)
{
	const struct hist_change *x = a, *y = b;
	double dx = fabs(x->cp->change_pct), dy = fabs(y->cp->change_pct);

	if (x->regression != y->regression)
		return x->regression ? -1 : 1;
	return (dx < dy) - (dx > dy);
}

static int changes_list(struct hist_findings *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nseries; i++)
		n += f->series[i].res.ncps;
	f->changes = calloc(n ? n : 1, sizeof(*f->changes));
	if (!f->changes)
		return -ENOMEM;
	for (size_t i = 0; i < f->nseries; i++) {
		const struct rpt_metric_def *d = rpt_metric_lookup(f->series[i].metric);

		for (size_t j = 0; j < f->series[i].res.ncps; j++) {
			const struct hist_cp *cp = &f->series[i].res.cps[j];
			bool worse = d && (d->dir == RPT_HIGHER_IS_BETTER ? cp->change_pct < 0 :
									    cp->change_pct > 0);

			f->changes[f->nchanges++] = (struct hist_change){ .s = &f->series[i],
									  .cp = cp,
									  .regression = worse };
			f->nregressions += worse;
		}
	}
	qsort(f->changes, f->nchanges, sizeof(*f->changes), change_order);
	return 0;
}

int hist_findings_load(struct hist_db *db, const struct hist_summary *sum, const char *metric,
		       const struct hist_cp_opts *o, struct hist_findings *ret, char *err,
		       size_t errlen)
{
	struct gathering gg = { .sum = sum, .o = o, .f = ret };
	const char *p[] = { metric };
	const struct hist_row *params = metric ? &(struct hist_row){ p, 1 } : NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = hist_db_query(db,
			  metric ? "SELECT id, key, metric, sample_key FROM series "
				   "WHERE metric = $1 ORDER BY key" :
				   "SELECT id, key, metric, sample_key FROM series ORDER BY key",
			  params, series_row, &gg, err, errlen);
	if (!r)
		r = index_ids(&gg);
	/* complete runs only: an incomplete run is kept, but is no sample of its kernel */
	if (!r && gg.ns)
		r = hist_db_query(
			db,
			"SELECT v.series_id, r.kernel_id, v.value, r.repetition FROM "
			"run_values v JOIN runs r ON r.id = v.run_id WHERE r.complete = 1",
			NULL, value_row, &gg, err, errlen);
	if (!r)
		r = judge_all(&gg);
	if (!r)
		r = changes_list(ret);
	if (r == -ENOMEM || r == -EINVAL)
		snprintf(err, errlen, "judging the series: %s", strerror(-r));
	for (size_t i = 0; i < gg.ns; i++) {
		free(gg.s[i].key);
		free(gg.s[i].sample_key);
		free(gg.s[i].v);
	}
	free(gg.s);
	free(gg.series_at);
	free(gg.kernel_at);
	if (r)
		hist_findings_free(ret);
	return r;
}

void hist_findings_free(struct hist_findings *f)
{
	for (size_t i = 0; i < f->nseries; i++)
		series_free(&f->series[i]);
	free(f->series);
	free(f->changes);
	for (size_t i = 0; i < f->nunjudged; i++) {
		free(f->unjudged[i].key);
		free(f->unjudged[i].sample_key);
	}
	free(f->unjudged);
	memset(f, 0, sizeof(*f));
}

/* " name=value" of a scalar; nothing for others. */
static void label_pair(FILE *f, const char *name, const json_t *v)
{
	const char *sep = ftell(f) ? " " : "";

	if (json_is_string(v))
		fprintf(f, "%s%s=%s", sep, name, json_string_value(v));
	else if (json_is_integer(v))
		fprintf(f, "%s%s=%lld", sep, name, (long long)json_integer_value(v));
	else if (json_is_boolean(v))
		fprintf(f, "%s%s=%s", sep, name, json_is_true(v) ? "true" : "false");
}

/* The parameters that tell loads of one workload apart (the key itself has them all). */
static void label_params(FILE *f, const json_t *params)
{
	static const char *const shown[] = { "mode", "size", "files", "chunk", "sync", "fdatasync" };

	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		label_pair(f, shown[i], json_object_get(params, shown[i]));
}

char *hist_sample_label(const char *sample_key)
{
	json_t *k = json_loads(sample_key, 0, NULL), *v;
	const char *name;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f) {
		json_decref(k);
		return NULL;
	}
	if (!json_is_object(k))
		fputs(sample_key, f);
	json_object_foreach(k, name, v)
	{
		if (json_is_object(v))
			label_params(f, v);
		else
			label_pair(f, name, v);
	}
	json_decref(k);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

struct paths {
	char **v;
	size_t n, cap;
};

static int path_row(void *arg, const struct hist_row *row)
{
	struct paths *p = arg;
	int e;

	if (row->n < 1 || !row->v[0])
		return 0;
	if ((e = grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v))))
		return e;
	p->v[p->n] = strdup(row->v[0]);
	return p->v[p->n++] ? 0 : -ENOMEM;
}

int hist_cell_files(struct hist_db *db, long long kernel_id, const char *sample_key, char ***ret,
		    size_t *n, char *err, size_t errlen)
{
	struct paths p = { 0 };
	char kid[24];
	const char *params[] = { kid, sample_key };
	int r;

	snprintf(kid, sizeof(kid), "%lld", kernel_id);
	r = hist_db_query(db,
			  "SELECT f.path FROM files f WHERE EXISTS (SELECT 1 FROM runs r WHERE "
			  "r.file_id = f.id AND r.kernel_id = $1 AND r.sample_key = $2 AND "
			  "r.complete = 1) ORDER BY f.id",
			  &(struct hist_row){ params, 2 }, path_row, &p, err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "reading the store: %s", strerror(ENOMEM));
	if (r) {
		for (size_t i = 0; i < p.n; i++)
			free(p.v[i]);
		free(p.v);
		return r;
	}
	*ret = p.v;
	*n = p.n;
	return 0;
}
