/* `fsbench history`: results kept over kernels: add, list, change points, a page of each series. */
#include "fsbench/cli/args.h"
#include "fsbench/cli/commands.h"
#include "fsbench/cli/history_run.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <jansson.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/spawn.h"
#include "fsbench/history/db.h"
#include "fsbench/history/page.h"
#include "fsbench/history/series.h"
#include "report/metric.h"

/*
 * The exit status of a store's -errno (fsbench/history/db.h): a bad --db is usage; a store
 * that cannot be used (down, damaged, of a newer schema) is the system's, 128, which
 * `git bisect run` stops on, never a status it would read as "bad".
 */
static int store_status(int e)
{
	return e == -EINVAL ? FSB_EXIT_USAGE : FSB_EXIT_SYSTEM;
}

static int store_open(const char *cmd, const char *target, struct hist_db **ret)
{
	char err[2048];
	int e = hist_db_open(target, ret, err, sizeof(err));

	if (e)
		return cmd_fail(store_status(e), cmd, "opening the store %s%s", err,
				e == -EBADMSG ? " (damaged, truncated, or not a history store)" :
						"");
	return 0;
}

/* What changes and report judge by: bound to a struct judge_cfg at @off in the command's. */
struct judge_cfg {
	char *metric, *git, *git_rev;
	double alpha, floor, min_change;
	int64_t permutations;
};

#define JUDGE_OPTS(off)                                                                                                                                                    \
	{ .name = "metric",                                                                                                                                                \
	  .type = OPT_STRING,                                                                                                                                              \
	  .offset = (off) + offsetof(struct judge_cfg, metric),                                                                                                            \
	  .help = "only this metric's series (files_per_sec, bytes_per_sec, fsync.p50, "                                                                                   \
		  "fdatasync.p99...)" },                                                                                                                                   \
		{ .name = "alpha",                                                                                                                                         \
		  .type = OPT_DOUBLE,                                                                                                                                      \
		  .offset = (off) + offsetof(struct judge_cfg, alpha),                                                                                                     \
		  .dmin = 1e-6,                                                                                                                                            \
		  .dmax = 0.5,                                                                                                                                             \
		  .def = CMD_XSTR(HIST_CP_ALPHA),                                                                                                                          \
		  .help = "a change must be significant at this level (permutation test)" },                                                                               \
		{ .name = "floor",                                                                                                                                         \
		  .type = OPT_DOUBLE,                                                                                                                                      \
		  .offset = (off) + offsetof(struct judge_cfg, floor),                                                                                                     \
		  .dmax = 100,                                                                                                                                             \
		  .def = CMD_XSTR(HIST_CP_FLOOR_MULTIPLE),                                                                                                                 \
		  .help = "and larger than MULTIPLE times the pooled standard deviation between boots "                                                                    \
			  "of one kernel" },                                                                                                                               \
		{ .name = "min-change",                                                                                                                                    \
		  .type = OPT_DOUBLE,                                                                                                                                      \
		  .offset = (off) + offsetof(struct judge_cfg, min_change),                                                                                                \
		  .dmax = 1000,                                                                                                                                            \
		  .def = "0",                                                                                                                                              \
		  .unit = "%",                                                                                                                                             \
		  .help = "and at least this much of the mean before it (a latency percentile: also more "                                                                 \
			  "than one bucket of its histogram)" },                                                                                                           \
		{ .name = "git",                                                                                                                                           \
		  .type = OPT_STRING,                                                                                                                                      \
		  .offset = (off) + offsetof(struct judge_cfg, git),                                                                                                       \
		  .file = OPT_DIR,                                                                                                                                         \
		  .help = "kernels in the order of their commits in this git tree (rev-list --topo-order), not by version; kernels without a commit there are left out" }, \
		{ .name = "git-rev",                                                                                                                                       \
		  .type = OPT_STRING,                                                                                                                                      \
		  .offset = (off) + offsetof(struct judge_cfg, git_rev),                                                                                                   \
		  .def = "HEAD",                                                                                                                                           \
		  .help = "with --git: the history walked (a branch, a tag, a commit)" },                                                                                  \
	{                                                                                                                                                                  \
		.name = "permutations", .type = OPT_INT,                                                                                                                   \
		.offset = (off) + offsetof(struct judge_cfg, permutations), .min = 19,                                                                                     \
		.max = 100000, .def = CMD_XSTR(HIST_CP_PERMUTATIONS),                                                                                                      \
		.help = "permutations of the significance test"                                                                                                            \
	}

/*
 * --history: the results at @paths (@n of them) added to the store, one transaction each,
 * from this thread once the boots are over. A store that refuses is the system's failure
 * (128), not the kernel's; the command's own status stands otherwise.
 */
int cmd_history_add(const char *cmd, const char *store, const char *const *paths, size_t n,
		    bool name_files, int status)
{
	struct hist_db *db = NULL;
	char err[2048];
	int e;

	if (!n) /* no result: nothing to keep, the status says why */
		return status;
	e = hist_db_open(strcmp(store, "default") ? store : NULL, &db, err, sizeof(err));
	for (size_t i = 0; !e && i < n; i++) {
		struct hist_add_res res;

		e = hist_add_file(db, paths[i], &res, err, sizeof(err));
		if (!e)
			fprintf(stderr, "fsbench %s: --history: %s: %s%s%s (%d runs)\n", cmd, store,
				name_files ? paths[i] : "", name_files ? ": " : "",
				res.present ? "already in the store" : "added", res.runs);
	}
	hist_db_close(db);
	if (e) {
		fprintf(stderr, "fsbench %s: --history: %s\n", cmd, err);
		return status ? status : FSB_EXIT_SYSTEM;
	}
	return status;
}

/* `history add` */

struct add_cfg {
	char *db;
	bool quiet;
	struct cmd_files files;
};

#define O(f) offsetof(struct add_cfg, f)
static const struct fsb_opt add_opts[] = {
	OPT_DB(O(db)),
	{ .name = "quiet",
	  .short_name = 'q',
	  .type = OPT_BOOL,
	  .offset = O(quiet),
	  .help = "no line per file, only the total" },
	{ 0 },
};
#undef O

#define ADD_DEPTH_MAX 16
#define ADD_FILES_MAX 10000000

static void add_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench history add [--db STORE] RESULT.json|DIR...\n\n"
		"Keeps every run of each result file (host runs, suites, each boot of kernel-run and\n"
		"kernel-gate, LAVA imports) with what identifies it: the kernel (release, Debian package\n"
		"version, git commit), host, disk, filesystem and mount options, workload and parameters,\n"
		"fsbench version and date, and its metric values. One transaction per file; a file the\n"
		"store has (by its content's SHA-256) adds nothing, so adding a directory every night adds\n"
		"only what is new. A DIR is walked (at most " CMD_XSTR(
			ADD_DEPTH_MAX) " levels down, following no symbolic\n"
				       "link) for its *.json files, taken in version order of their paths. A file that is not\n"
				       "an fsbench result is refused (exit 2) and the others are still added.\n\n");
}

/* The files of a DIR operand: *.json below it, no symbolic link followed, paths in version order. */
struct add_list {
	char **v;
	size_t n, cap;
	int error; /* a directory that could not be read: -errno, with err */
	char err[1024];
};

static struct add_list *walk_list; /* nftw() takes no argument */

static int list_push(struct add_list *l, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(path)))
		return -ENOMEM;
	l->n++;
	return 0;
}

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct add_list *l = walk_list;
	size_t len = strlen(path);

	(void)st;
	if (type == FTW_DNR || type == FTW_NS) {
		l->error = -EACCES;
		snprintf(l->err, sizeof(l->err), "reading %s: cannot read or stat it", path);
		return 1;
	}
	if (type == FTW_D && ftw->level > ADD_DEPTH_MAX) {
		l->error = -ELOOP;
		snprintf(l->err, sizeof(l->err), "walking %s: more than %d levels down", path,
			 ADD_DEPTH_MAX);
		return 1;
	}
	/* regular files by name; a symbolic link (FTW_SL, never followed) is left */
	if (type != FTW_F || !S_ISREG(st->st_mode) || len < 5 || strcmp(path + len - 5, ".json"))
		return 0;
	if (l->n >= ADD_FILES_MAX) {
		l->error = -E2BIG;
		snprintf(l->err, sizeof(l->err), "walking %s: more than %d result files", path,
			 ADD_FILES_MAX);
		return 1;
	}
	if (list_push(l, path)) {
		l->error = -ENOMEM;
		snprintf(l->err, sizeof(l->err), "walking %s: %s", path, strerror(ENOMEM));
		return 1;
	}
	return 0;
}

static int path_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* @files, each DIR among them replaced by its result files: 0, or -errno with @l->err. */
static int add_expand(const struct cmd_files *files, struct add_list *l)
{
	for (int i = 0; i < files->n; i++) {
		struct stat st;
		size_t from = l->n;

		if (lstat(files->v[i], &st) || !S_ISDIR(st.st_mode)) {
			/* a file (or what is not there): the reader's to judge and say */
			if (list_push(l, files->v[i]))
				return -ENOMEM;
			continue;
		}
		walk_list = l;
		if (nftw(files->v[i], walk_one, 32, FTW_PHYS) && !l->error) {
			l->error = -errno;
			snprintf(l->err, sizeof(l->err), "walking %s: %s", files->v[i],
				 strerror(errno));
		}
		walk_list = NULL;
		if (l->error)
			return l->error;
		qsort(l->v + from, l->n - from, sizeof(*l->v), path_cmp);
	}
	return 0;
}

static void add_list_free(struct add_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

struct add_tally {
	bool quiet;
	int bad, added, present, runs, values;
};

static int add_one(void *arg, size_t i, const char *path, const struct hist_add_res *res, int error,
		   const char *err)
{
	struct add_tally *t = arg;

	(void)i;
	if (error == -EPROTO) { /* this file only: the others are still added */
		fprintf(stderr, "fsbench history add: %s: not added\n", err);
		t->bad++;
		return 0;
	}
	if (error) /* the system's (no memory): stop, said by the caller */
		return error;
	t->present += res->present;
	t->added += !res->present;
	t->runs += res->runs;
	t->values += res->values;
	if (t->quiet)
		return 0;
	if (res->present)
		printf("%s: in the store already (%.12s)\n", path, res->sha256);
	else
		printf("%s: %d run%s, %d values (%.12s)%s\n", path, res->runs,
		       res->runs == 1 ? "" : "s", res->values, res->sha256,
		       res->incomplete ? ", incomplete runs kept outside the series" : "");
	return 0;
}

static int add_run(void *cfg)
{
	struct add_cfg *c = cfg;
	struct add_tally t = { .quiet = c->quiet };
	struct hist_db *db = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct timespec t0, t1;
	char err[2048];
	int status, e;

	struct add_list files = { .n = 0 };

	if (!c->files.n)
		return cmd_fail(FSB_EXIT_USAGE, "history add", "no result files (see --help)");
	if ((e = add_expand(&c->files, &files))) {
		status = cmd_fail(e == -ENOMEM ? FSB_EXIT_SYSTEM : FSB_EXIT_USAGE, "history add",
				  "%s", files.error ? files.err : strerror(-e));
		add_list_free(&files);
		return status;
	}
	if (!files.n) {
		add_list_free(&files);
		return cmd_fail(FSB_EXIT_USAGE, "history add", "no *.json file in %s%s",
				c->files.v[0], c->files.n > 1 ? " and the others given" : "");
	}
	if ((status = store_open("history add", c->db, &db))) {
		add_list_free(&files);
		return status;
	}
	/*
	 * A file's bytes (a few hundred KiB) as heap, not a mapping made and unmade per file,
	 * and the heap kept between files: 9 % less CPU in an add of 1000 files.
	 */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* decoding is most of the time: as many at once as there are processors */
	e = hist_add_files(db, (const char *const *)files.v, files.n, cpus > 0 ? (int)cpus : 1,
			   add_one, &t, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hist_db_close(db);
	add_list_free(&files);
	if (e) {
		fprintf(stderr, "fsbench history add: %s\n", err);
		return store_status(e);
	}
	printf("added %d file%s (%d runs, %d values), %d already there, %d refused, in %.2f s\n",
	       t.added, t.added == 1 ? "" : "s", t.runs, t.values, t.present, t.bad,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return t.bad ? FSB_EXIT_USAGE : FSB_EXIT_OK;
}

/* `history list` */

struct list_cfg {
	char *db;
};

static const struct fsb_opt list_opts[] = { OPT_DB(offsetof(struct list_cfg, db)), { 0 } };

static void list_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench history list [--db STORE]\n\n"
		"What the store holds: its files, runs and series, and its kernels in version order\n"
		"(Debian package versions in dpkg's order, else upstream release order), each with its\n"
		"runs and files.\n\n");
}

static int list_run(void *cfg)
{
	struct list_cfg *c = cfg;
	struct hist_summary sum;
	struct hist_db *db = NULL;
	char err[2048];
	int status, e;

	if ((status = store_open("history list", c->db, &db)))
		return status;
	e = hist_summary_load(db, &sum, err, sizeof(err));
	if (e) {
		hist_db_close(db);
		return cmd_fail(store_status(e), "history list", "%s", err);
	}
	printf("store %s (%s, schema %d): %lld files, %lld runs (%lld incomplete), %lld series, "
	       "%lld values\n",
	       db->where, db->be->name, HIST_SCHEMA_VERSION, sum.files, sum.runs, sum.incomplete,
	       sum.series, sum.values);
	printf("%zu kernel%s in version order:\n", sum.nkernels, sum.nkernels == 1 ? "" : "s");
	for (size_t i = 0; i < sum.nkernels; i++) {
		const struct hist_kernel *k = &sum.kernels[i].k;

		printf("  %3zu  %-32s %-24s %-14s %5lld runs %4lld files\n", i + 1, k->release,
		       k->package[0] ? k->package : "-", k->commit[0] ? k->commit : "-",
		       sum.kernels[i].runs, sum.kernels[i].files);
	}
	hist_summary_free(&sum);
	hist_db_close(db);
	return FSB_EXIT_OK;
}

/* `history changes` */

/* At most this many arguments after `--` are handed to `fsbench bisect`. */
#define CHANGES_BISECT_ARGS 64

struct changes_cfg {
	char *db;
	struct judge_cfg j;
	bool json;
	char *bisect; /* --bisect DIR: each regression's kernels bisected among DIR's */
	char *bargs[CHANGES_BISECT_ARGS]; /* the operands after `--`: bisect's own */
	int nbargs;
};

#define O(f) offsetof(struct changes_cfg, f)
static const struct fsb_opt changes_opts[] = {
	OPT_DB(O(db)),
	JUDGE_OPTS(O(j)),
	{ .name = "json",
	  .type = OPT_BOOL,
	  .offset = O(json),
	  .help = "the change points as JSON (fsbench-history-changes/1) on stdout" },
	{ .name = "bisect",
	  .type = OPT_STRING,
	  .offset = O(bisect),
	  .file = OPT_DIR,
	  .help = "hand each regression's two kernels to fsbench bisect over the kernels "
		  "(.deb files) in DIR, its boots added to the store (kernel-gate --history); "
		  "what follows -- goes to bisect" },
	{ 0 },
};
#undef O

/* `history changes --bisect DIR -- ARGS`: the operands are bisect's. */
static int changes_operand(void *cfg, char *arg, char *err, size_t errlen)
{
	struct changes_cfg *c = cfg;

	if (c->nbargs >= CHANGES_BISECT_ARGS) {
		snprintf(err, errlen, "%s: at most %d arguments for bisect", arg,
			 CHANGES_BISECT_ARGS);
		return -EINVAL;
	}
	c->bargs[c->nbargs++] = arg;
	return 0;
}

static void changes_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench history changes [--db STORE] [--metric M] [--json]\n"
		"       fsbench history changes [--db STORE] [--metric M] --bisect DIR [-- BISECT-ARGS]\n\n"
		"The change points of every series (one metric of one cell over kernels in version\n"
		"order; each kernel's complete runs its samples): E-Divisive means with a permutation\n"
		"test, split only between kernels, and a change counted only when it is significant AND\n"
		"beyond --floor times how far boots of one kernel differ. Regressions first. Exit 0: no\n"
		"regression; 1: a regression; 2: usage; 125: no series could be judged (too short:\n"
		"fewer than 2 kernels, or no kernel with 2 runs; too noisy); 128: the store failed.\n\n");
}

/* The kernel @i of @sum as "RELEASE (PACKAGE)". */
static void kernel_name(const struct hist_summary *sum, size_t i, char *out, size_t len)
{
	const struct hist_kernel *k = &sum->kernels[i].k;

	if (k->package[0])
		snprintf(out, len, "%s (%s)", k->release, k->package);
	else
		snprintf(out, len, "%s%s%s", k->release, k->commit[0] ? " " : "", k->commit);
}

static json_t *kernel_json(const struct hist_kernel *k)
{
	return json_pack("{s:s, s:s?, s:s?}", "release", k->release, "package",
			 k->package[0] ? k->package : NULL, "commit",
			 k->commit[0] ? k->commit : NULL);
}

static json_t *changes_json(const struct hist_findings *f, const struct hist_summary *sum,
			    const char *verdict)
{
	json_t *arr = json_array(), *doc;

	for (size_t i = 0; arr && i < f->nchanges; i++) {
		const struct hist_change *ch = &f->changes[i];
		const struct hist_cp *cp = ch->cp;
		const struct rpt_metric_def *d = rpt_metric_lookup(ch->s->metric);
		double scale = d ? d->scale : 1;

		json_array_append_new(
			arr,
			json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:f, s:[f,f], s:f, s:f, s:I, s:I, "
				  "s:I, s:I, s:f, s:f, s:s, s:f}",
				  "metric", ch->s->metric, "sample_key", ch->s->sample_key,
				  "series", ch->s->key, "regression", ch->regression, "before",
				  kernel_json(&sum->kernels[ch->s->kernel[cp->before]].k), "after",
				  kernel_json(&sum->kernels[ch->s->kernel[cp->before + 1]].k),
				  "change_pct", cp->change_pct, "interval_pct", cp->lo_pct,
				  cp->hi_pct, "p", cp->p, "floor_pct", cp->floor_pct, "runs_before",
				  (json_int_t)cp->n_before, "runs_after", (json_int_t)cp->n_after,
				  "kernels_before", (json_int_t)(cp->before + 1 - cp->seg_lo),
				  "kernels_after", (json_int_t)(cp->seg_hi - cp->before - 1),
				  "mean_before", cp->mean_before * scale, "mean_after",
				  cp->mean_after * scale, "unit", d ? d->unit : "", "bar_pct",
				  cp->bar_pct));
	}
	doc = json_pack("{s:s, s:s, s:{s:I, s:I, s:I}, s:I, s:o}", "schema",
			"fsbench-history-changes/1", "verdict", verdict, "series", "judged",
			(json_int_t)f->judged, "too_short", (json_int_t)f->short_, "too_noisy",
			(json_int_t)f->noisy, "regressions", (json_int_t)f->nregressions, "changes",
			arr);
	arr = json_array();
	for (size_t i = 0; doc && arr && i < f->nunjudged; i++) {
		const struct hist_unjudged *u = &f->unjudged[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "metric", u->metric, "sample_key",
				      u->sample_key, "series", u->key, "reason",
				      u->status == HIST_CP_SHORT ? "too short" : "too noisy");

		if (o && u->status == HIST_CP_NOISY)
			json_object_set_new(o, "spread_pct", json_real(u->spread_pct));
		json_array_append_new(arr, o);
	}
	if (doc && json_object_set_new(doc, "not_judged", arr))
		return json_decref(doc), NULL;
	return doc;
}

static void changes_text(const struct hist_findings *f, const struct hist_summary *sum)
{
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct hist_change *ch = &f->changes[i];
		const struct hist_cp *cp = ch->cp;
		char a[600], b[600], *label = hist_sample_label(ch->s->sample_key);

		kernel_name(sum, ch->s->kernel[cp->before], a, sizeof(a));
		kernel_name(sum, ch->s->kernel[cp->before + 1], b, sizeof(b));
		printf("%s %s  %s\n", ch->regression ? "REGRESSION" : "change", ch->s->metric,
		       label ? label : ch->s->sample_key);
		printf("  %s -> %s: %+.2f %% [%+.2f, %+.2f] (floor %.2f %%", a, b, cp->change_pct,
		       cp->lo_pct, cp->hi_pct, cp->floor_pct);
		if (cp->bar_pct > cp->floor_pct)
			printf(", bar %.2f %%", cp->bar_pct);
		printf(", p %.3g), runs %zu | %zu over kernels %zu | %zu\n", cp->p, cp->n_before,
		       cp->n_after, cp->before + 1 - cp->seg_lo, cp->seg_hi - cp->before - 1);
		free(label);
	}
	for (size_t i = 0; i < f->nunjudged; i++) {
		const struct hist_unjudged *u = &f->unjudged[i];
		char *label = hist_sample_label(u->sample_key);

		if (u->status == HIST_CP_NOISY)
			printf("cannot judge %s  %s: too noisy (spread between boots %.1f %%, above "
			       "%.0f %%)\n",
			       u->metric, label ? label : u->sample_key, u->spread_pct,
			       HIST_CP_NOISY_PCT);
		else
			printf("cannot judge %s  %s: too short (fewer than 2 kernels, or no kernel "
			       "with 2 runs)\n",
			       u->metric, label ? label : u->sample_key);
		free(label);
	}
	printf("%zu series judged, %zu too short, %zu too noisy: %zu change point%s, %zu "
	       "regression%s\n",
	       f->judged, f->short_, f->noisy, f->nchanges, f->nchanges == 1 ? "" : "s",
	       f->nregressions, f->nregressions == 1 ? "" : "s");
}

/*
 * --git TREE --git-rev REV name a commit of a git tree: checked before the store is opened,
 * so that a wrong tree or revision is a usage error (2) before any work.
 */
static int git_usable(const char *cmd, const struct judge_cfg *j)
{
	char spec[600], msg[512] = "";
	char *argv[] = { "git", "-C", j->git, "rev-parse", "--verify", "-q", spec, NULL };
	int st;

	if (!j->git_rev[0] || j->git_rev[0] == '-' || strlen(j->git_rev) > 500)
		return cmd_fail(FSB_EXIT_USAGE, cmd, "--git-rev %s: not a revision", j->git_rev);
	snprintf(spec, sizeof(spec), "%s^{commit}", j->git_rev);
	st = base_spawn_tool(argv, NULL, BASE_SPAWN_FIRST, msg, sizeof(msg));
	if (st < 0)
		return cmd_fail(FSB_EXIT_SYSTEM, cmd, "--git %s: running git: %s", j->git,
				strerror(-st));
	if (st)
		return cmd_fail(FSB_EXIT_USAGE, cmd,
				"--git %s --git-rev %s: no such commit there%s%s", j->git,
				j->git_rev, msg[0] ? ": " : "", msg);
	return 0;
}

/* The store's findings as @j asks; 0 or an exit status (said). */
static int findings(const char *cmd, char *dbname, const struct judge_cfg *j, struct hist_db **db,
		    struct hist_summary *sum, struct hist_findings *f)
{
	const char *metric = j->metric;
	struct hist_cp_opts o;
	size_t dropped = 0;
	char err[2048];
	int status, e;

	if (metric && !rpt_metric_lookup(metric))
		return cmd_fail(FSB_EXIT_USAGE, cmd,
				"--metric %s: not a metric (files_per_sec, bytes_per_sec, "
				"OP.p50, OP.p99, write_amplification...)",
				metric);
	if (j->git && (status = git_usable(cmd, j)))
		return status;
	if ((status = store_open(cmd, dbname, db)))
		return status;
	hist_cp_opts_init(&o);
	o.alpha = j->alpha;
	o.floor_multiple = j->floor;
	o.min_change_pct = j->min_change;
	o.permutations = (int)j->permutations;
	e = hist_summary_load(*db, sum, err, sizeof(err));
	if (!e && j->git &&
	    (e = hist_order_git(sum, j->git, j->git_rev, &dropped, err, sizeof(err))))
		hist_summary_free(sum);
	if (!e && dropped)
		fprintf(stderr,
			"fsbench %s: %zu kernel%s without a commit in %s's history of %s: left out\n",
			cmd, dropped, dropped == 1 ? "" : "s", j->git, j->git_rev);
	if (!e && (e = hist_findings_load(*db, sum, metric, &o, f, err, sizeof(err))))
		hist_summary_free(sum);
	if (e) {
		*db = hist_db_close(*db);
		return cmd_fail(e == -ENOMEM ? FSB_EXIT_SYSTEM : store_status(e), cmd, "%s", err);
	}
	return 0;
}

/* 1 for a regression, 125 when nothing could be judged, else 0. */
static int findings_status(const struct hist_findings *f, const char **verdict)
{
	*verdict = f->nregressions ? "regressed" : !f->judged ? "cannot judge" : "good";
	return f->nregressions ? FSB_EXIT_REGRESSED :
	       !f->judged      ? FSB_EXIT_CANNOT_JUDGE :
				 FSB_EXIT_OK;
}

/*
 * @argv to its end, its stdout and stderr ours (bisect's steps are its own lines): 0 with
 * *@ret_status the wait status, or -errno when it could not be started.
 */
static int run_child(char *const *argv, int *ret_status)
{
	pid_t pid;
	int e = 0;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, ret_status, 0) < 0)
		if (errno != EINTR) {
			e = -errno;
			break;
		}
	return e;
}

/*
 * Each regression's last kernel before and first after, bisected among DIR's kernels by
 * `fsbench bisect` (a child: its lines are its own), every step's boots added to the store.
 * A pair is bisected once however many series changed between them. The worst status of
 * the bisections that stopped for the system (128 and up) or refused their arguments (2),
 * else 0.
 */
static int changes_bisect(const struct changes_cfg *c, const struct hist_findings *f,
			  const struct hist_summary *sum)
{
	size_t(*done)[2] = calloc(f->nchanges + 1, sizeof(*done)), ndone = 0;
	int worst = 0;

	if (!done)
		return cmd_fail(FSB_EXIT_SYSTEM, "history changes", "%s", strerror(ENOMEM));
	for (size_t i = 0; i < f->nchanges; i++) {
		const struct hist_change *ch = &f->changes[i];
		size_t a = ch->s->kernel[ch->cp->before], b = ch->s->kernel[ch->cp->before + 1];
		const struct hist_kernel *ka = &sum->kernels[a].k, *kb = &sum->kernels[b].k;
		char *argv[CHANGES_BISECT_ARGS + 16];
		bool seen = false, sep = false;
		int n = 0, st = 0, r;

		for (size_t k = 0; k < ndone; k++)
			seen |= done[k][0] == a && done[k][1] == b;
		if (!ch->regression || seen)
			continue;
		done[ndone][0] = a;
		done[ndone++][1] = b;
		argv[n++] = "/proc/self/exe";
		argv[n++] = "bisect";
		argv[n++] = "--good";
		argv[n++] = (char *)(ka->package[0] ? ka->package : ka->release);
		argv[n++] = "--bad";
		argv[n++] = (char *)(kb->package[0] ? kb->package : kb->release);
		argv[n++] = "--metric";
		argv[n++] = (char *)ch->s->metric;
		argv[n++] = c->bisect;
		for (int k = 0; k < c->nbargs; k++) {
			sep |= !strcmp(c->bargs[k], "--");
			argv[n++] = c->bargs[k];
		}
		/* each gate's boots into this store: the page shows the bisection's points */
		if (!sep)
			argv[n++] = "--";
		argv[n++] = "--history";
		argv[n++] = c->db ? c->db : "default";
		argv[n] = NULL;
		printf("bisecting %s %s -> %s (%s) among the kernels in %s\n", ka->release,
		       ka->package, kb->release, ch->s->metric, c->bisect);
		fflush(stdout);
		r = run_child(argv, &st);
		if (r < 0) {
			fprintf(stderr, "fsbench history changes: running fsbench bisect: %s\n",
				strerror(-r));
			worst = FSB_EXIT_SYSTEM;
			continue;
		}
		st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		printf("bisect of %s -> %s: exit %d\n", ka->release, kb->release, st);
		/* the system's failure, or bisect's arguments refused: not the kernels' finding */
		if ((st >= 128 || st == FSB_EXIT_USAGE) && st > worst)
			worst = st;
	}
	free(done);
	return worst;
}

static int changes_run(void *cfg)
{
	struct changes_cfg *c = cfg;
	struct hist_summary sum;
	struct hist_findings f;
	struct hist_db *db = NULL;
	const char *verdict;
	int status;

	if (c->nbargs && !c->bisect)
		return cmd_fail(FSB_EXIT_USAGE, "history changes",
				"%s: arguments are bisect's, and need --bisect DIR", c->bargs[0]);
	if (c->bisect && c->json)
		return cmd_fail(FSB_EXIT_USAGE, "history changes",
				"--bisect prints bisect's steps: not with --json");
	if (c->bisect) {
		struct stat st;

		if (stat(c->bisect, &st))
			return cmd_fail(FSB_EXIT_USAGE, "history changes", "--bisect %s: %s",
					c->bisect, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return cmd_fail(FSB_EXIT_USAGE, "history changes",
					"--bisect %s: not a directory of kernels", c->bisect);
	}
	status = findings("history changes", c->db, &c->j, &db, &sum, &f);
	if (status)
		return status;
	status = findings_status(&f, &verdict);
	if (c->json) {
		json_t *doc = changes_json(&f, &sum, verdict);

		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6))) {
			fprintf(stderr, "fsbench history changes: writing JSON: %s\n",
				strerror(ENOMEM));
			status = FSB_EXIT_SYSTEM;
		}
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		changes_text(&f, &sum);
	}
	/* the system's failure in a bisection stops a caller's loop; its findings stand */
	if (c->bisect && f.nregressions) {
		int b = changes_bisect(c, &f, &sum);

		status = b ? b : status;
	}
	if (!f.judged)
		fprintf(stderr,
			"fsbench history changes: cannot judge: no series has 2 kernels with a kernel "
			"of 2 runs and a spread under %.0f %%\n",
			HIST_CP_NOISY_PCT);
	hist_findings_free(&f);
	hist_summary_free(&sum);
	hist_db_close(db);
	return status;
}

/* `history report` */

struct page_cfg {
	char *db, *output, *title;
	int64_t pairs;
	struct judge_cfg j;
};

#define O(f) offsetof(struct page_cfg, f)
static const struct fsb_opt page_opts[] = {
	OPT_DB(O(db)),
	{ .name = "output",
	  .short_name = 'o',
	  .type = OPT_STRING,
	  .offset = O(output),
	  .def = "history.html",
	  .file = OPT_FILE,
	  .help = "the page to write" },
	{ .name = "title",
	  .type = OPT_STRING,
	  .offset = O(title),
	  .def = "fsbench history",
	  .help = "the page's title" },
	{ .name = "pairs",
	  .type = OPT_INT,
	  .offset = O(pairs),
	  .max = 1000,
	  .def = "10",
	  .help = "pair pages made for the first N changes (fsbench report of the cell's results "
		  "on the kernel before and the kernel after), each beside the page and linked "
		  "from its change; 0: none" },
	JUDGE_OPTS(O(j)),
	{ 0 },
};
#undef O

static void page_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench history report [--db STORE] [-o history.html] [--metric M]\n\n"
		"One self-contained HTML page (inline SVG, no external assets, readable at 800 px):\n"
		"for every series with a change point, regressions first, the metric over kernels in\n"
		"version order, each run a dot, each kernel's spread (min to max), and the change\n"
		"marked between the last kernel before and the first after. Exit statuses as\n"
		"history changes'.\n\n");
}

/* @path usable as a report's input: a regular file, not a link; else why not in @why. */
static bool input_ok(const char *path, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st))
		snprintf(why, len, "%s: %s (moved or removed since it was added?)", path,
			 strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, len, "%s: %s", path,
			 S_ISLNK(st.st_mode) ? "a symbolic link now" : "not a regular file now");
	else
		return true;
	return false;
}

/*
 * `fsbench report -o @out --baseline @a... --candidate @b...`, its stdout to /dev/null (its
 * errors stay on stderr): "" in @why when it wrote the page (whatever its verdict), else
 * why not.
 */
static void pair_report(const char *out, const char *title, char **a, size_t na, char **b,
			size_t nb, char *why, size_t len)
{
	char **argv = calloc(na + nb + 10, sizeof(*argv));
	int n = 0, st = 0, e;
	pid_t pid;

	if (!argv) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return;
	}
	argv[n++] = "/proc/self/exe";
	argv[n++] = "report";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--title";
	argv[n++] = (char *)title;
	argv[n++] = "--baseline";
	for (size_t i = 0; i < na; i++)
		argv[n++] = a[i];
	argv[n++] = "--candidate";
	for (size_t i = 0; i < nb; i++)
		argv[n++] = b[i];
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (fd >= 0)
			dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	e = pid < 0 ? errno : 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			e = errno;
			break;
		}
	free(argv);
	if (e)
		snprintf(why, len, "running fsbench report: %s", strerror(e));
	else if (!WIFEXITED(st))
		snprintf(why, len, "fsbench report was killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) != FSB_EXIT_OK && WEXITSTATUS(st) != FSB_EXIT_REGRESSED &&
		 WEXITSTATUS(st) != FSB_EXIT_CANNOT_JUDGE)
		snprintf(why, len, "fsbench report exited %d", WEXITSTATUS(st));
	else
		why[0] = 0;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The pair pages of the first @max changes, beside @output ("DIR/history.html" ->
 * "DIR/history-pair-N.html"); changes of one cell between the same two kernels share one.
 * -ENOMEM, or 0 (a page that could not be made says why in @p->why).
 */
static int pairs_make(struct hist_db *db, const struct hist_summary *sum,
		      const struct hist_findings *f, const char *output, size_t max,
		      struct hist_pairs *p)
{
	const char *base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
	size_t dirlen = (size_t)(base - output), stem = strlen(base), made = 0;

	if (stem > 5 && !strcmp(base + stem - 5, ".html"))
		stem -= 5;
	p->n = f->nchanges < max ? f->nchanges : max;
	p->href = calloc(p->n + 1, sizeof(*p->href));
	p->why = calloc(p->n + 1, sizeof(*p->why));
	if (!p->href || !p->why)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		const struct hist_change *ch = &f->changes[i];
		size_t ka = ch->s->kernel[ch->cp->before], kb = ch->s->kernel[ch->cp->before + 1];
		char **a = NULL, **b = NULL, why[1024] = "", out[4400], title[1200], err[1024];
		size_t na = 0, nb = 0;
		char *label;

		for (size_t j = 0; j < i && !p->href[i]; j++) {
			const struct hist_change *o = &f->changes[j];

			if (p->href[j] && o->s->kernel[o->cp->before] == ka &&
			    o->s->kernel[o->cp->before + 1] == kb &&
			    !strcmp(o->s->sample_key, ch->s->sample_key) &&
			    !(p->href[i] = strdup(p->href[j])))
				return -ENOMEM;
		}
		if (p->href[i])
			continue;
		if (hist_cell_files(db, sum->kernels[ka].id, ch->s->sample_key, &a, &na, err,
				    sizeof(err)) ||
		    hist_cell_files(db, sum->kernels[kb].id, ch->s->sample_key, &b, &nb, err,
				    sizeof(err)))
			snprintf(why, sizeof(why), "%s", err);
		for (size_t j = 0; !why[0] && j < na; j++)
			input_ok(a[j], why, sizeof(why));
		for (size_t j = 0; !why[0] && j < nb; j++)
			input_ok(b[j], why, sizeof(why));
		if (!why[0] && (!na || !nb))
			snprintf(why, sizeof(why), "the store names no result file of this cell");
		if (!why[0]) {
			label = hist_sample_label(ch->s->sample_key);
			snprintf(title, sizeof(title), "%s, %s: %s -> %s", ch->s->metric,
				 label ? label : "", sum->kernels[ka].k.release,
				 sum->kernels[kb].k.release);
			free(label);
			made++;
			snprintf(out, sizeof(out), "%.*s%.*s-pair-%zu.html", (int)dirlen, output,
				 (int)stem, base, made);
			pair_report(out, title, a, na, b, nb, why, sizeof(why));
			if (!why[0] && !(p->href[i] = strdup(out + dirlen)))
				snprintf(why, sizeof(why), "%s", strerror(ENOMEM));
		}
		strv_free(a, na);
		strv_free(b, nb);
		if (why[0] && !(p->why[i] = strdup(why)))
			return -ENOMEM;
		if (why[0])
			fprintf(stderr, "fsbench history report: change %zu: no pair page: %s\n",
				i + 1, why);
	}
	return 0;
}

static void pairs_free(struct hist_pairs *p)
{
	strv_free(p->href, p->n);
	strv_free(p->why, p->n);
}

static int page_run(void *cfg)
{
	struct page_cfg *c = cfg;
	struct hist_summary sum;
	struct hist_findings f;
	struct hist_pairs pairs = { 0 };
	struct hist_db *db = NULL;
	const char *verdict;
	char *tmp = NULL;
	int status, e;
	FILE *out;

	if ((e = base_out_check(c->output)) < 0)
		return cmd_fail(FSB_EXIT_USAGE, "history report", "-o %s: %s", c->output,
				strerror(-e));
	status = findings("history report", c->db, &c->j, &db, &sum, &f);
	if (status)
		return status;
	status = findings_status(&f, &verdict);
	if (pairs_make(db, &sum, &f, c->output, (size_t)c->pairs, &pairs)) {
		status = cmd_fail(FSB_EXIT_SYSTEM, "history report", "pair pages: %s",
				  strerror(ENOMEM));
		out = NULL;
	} else if (!(out = base_out_open(c->output, &tmp))) {
		status = cmd_fail(FSB_EXIT_SYSTEM, "history report",
				  "creating a temporary file beside %s: %s", c->output,
				  strerror(errno));
	} else {
		e = hist_page_write(out, c->title, &sum, &f, &pairs);
		e = base_out_commit(out, tmp, c->output, e);
		if (e)
			status = cmd_fail(FSB_EXIT_SYSTEM, "history report", "writing %s: %s",
					  c->output, strerror(-e));
		else
			fprintf(stderr, "fsbench history report: wrote %s (%zu series, %s)\n",
				c->output, f.nseries, verdict);
	}
	pairs_free(&pairs);
	hist_findings_free(&f);
	hist_summary_free(&sum);
	hist_db_close(db);
	return status;
}

static const struct cmd_spec history_cmds[] = {
	{ .name = "history add",
	  .opts = add_opts,
	  .files_offset = offsetof(struct add_cfg, files),
	  .usage = add_usage,
	  .run = add_run },
	{ .name = "history list",
	  .opts = list_opts,
	  .operand = cmd_no_operand,
	  .usage = list_usage,
	  .run = list_run },
	{ .name = "history changes",
	  .opts = changes_opts,
	  .operand = changes_operand,
	  .usage = changes_usage,
	  .run = changes_run },
	{ .name = "history report",
	  .opts = page_opts,
	  .operand = cmd_no_operand,
	  .usage = page_usage,
	  .run = page_run },
	{ .name = "history run",
	  .opts = hrun_opts,
	  .operand = hrun_operand,
	  .usage = hrun_usage,
	  .run = hrun_run },
};

static void history_usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench history add [--db STORE] RESULT.json...  keep results, once each\n"
		"       fsbench history list [--db STORE]                what the store holds\n"
		"       fsbench history changes [--db STORE] [--json]    change points per series\n"
		"       fsbench history report [--db STORE] -o PAGE.html each changed series drawn\n"
		"       fsbench history run [--db STORE] KERNEL...       boot each, add the results\n"
		"(fsbench history SUBCOMMAND --help for its options)\n");
}

int cmd_history(int argc, char **argv)
{
	union {
		struct add_cfg add;
		struct list_cfg list;
		struct changes_cfg changes;
		struct page_cfg page;
		struct hrun_cfg run;
	} cfg;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		history_usage(stdout);
		return FSB_EXIT_OK;
	}
	for (size_t i = 0; argc >= 2 && i < sizeof(history_cmds) / sizeof(history_cmds[0]); i++)
		if (!strcmp(argv[1], history_cmds[i].name + strlen("history "))) {
			memset(&cfg, 0, sizeof(cfg));
			return cmd_args_run(&history_cmds[i], &cfg, argc - 1, argv + 1);
		}
	if (argc >= 2)
		fprintf(stderr, "fsbench history: '%s' is not a subcommand\n", argv[1]);
	history_usage(stderr);
	return FSB_EXIT_USAGE;
}
