/* LAVA's test cases back as an fsbench result (import.h): bounded reading, a run index, the document. */
#include "fsbench/lava/import.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <yaml.h>

#include "base/escape.h"

#include "base/errf.h"
#include "fsbench/lava/jobdef.h"
#include "fsbench/suite/suite.h"
#include "report/metric.h"
#include "model/result_file.h"
#include "model/schema.h"

/*
 * LAVA results are a flat list of small mappings, so what a file may cost is bounded far
 * above any real one: its size, the nesting (libyaml's own parser slows to a crawl on
 * 100,000 nested brackets), the aliases (none in what LAVA writes; "- &x [*x, *x]" doubles
 * with each level) and the nodes after aliases are expanded.
 */
#define LAVA_FILE_MAX (64 << 20)
#define LAVA_DEPTH_MAX 16
#define LAVA_ALIASES_MAX 64
#define LAVA_NODES_MAX 4000000
/* Values a run can have (the result schema's ranges); 9.2e18 is INT64_MAX's magnitude. */
#define LAVA_THREADS_MAX 65536
#define LAVA_REPS_MAX 1000000
#define LAVA_VALUE_MAX 9.2e18

/*
 * LAVA's results as JSON straight from libyaml's events: one pass, no document tree built,
 * walked and freed (that and a pass of its own for the bounds took twice the instructions
 * on 60k cases), every bound checked as its event comes. Mappings and sequences as such,
 * every scalar a string; a value under a key that is not a scalar is dropped. An alias
 * shares its anchor's JSON (the cases are only read) and costs the anchor's nodes against
 * the budget, as if it were expanded; keys cost nothing.
 */
struct yb_frame {
	json_t *j; /* NULL past the budget */
	json_t *key; /* a mapping's key waiting for its value */
	bool have_key;
	char *anchor; /* registered with the node when it ends */
	long budget; /* before the node: what it cost, once it ends */
};

struct yaml_build {
	struct yb_frame st[LAVA_DEPTH_MAX];
	int depth;
	long budget; /* nodes left */
	bool over; /* past the budget: nothing more is built */
	int aliases;
	json_t *anchors; /* name -> [node, its cost] */
	json_t *root; /* the first document's */
	bool done; /* the first document ended: later ones are checked, not kept */
};

/* Whether the node to come is a mapping's key (keys cost nothing against the budget). */
static bool yb_is_key(const struct yaml_build *b)
{
	return b->depth && json_is_object(b->st[b->depth - 1].j) && !b->st[b->depth - 1].have_key;
}

/*
 * Whether @n more nodes fit the budget. Past it, what was built is dropped and the rest
 * of the file only checked for the errors that the budget's own comes after (syntax,
 * nesting, aliases), as when the bounds took a pass of their own before the nodes.
 */
static bool yb_cost(struct yaml_build *b, long n)
{
	if (b->over || yb_is_key(b) || (b->budget -= n) >= 0)
		return !b->over;
	b->over = true;
	for (int i = 0; i < b->depth; i++) {
		json_decref(b->st[i].j);
		json_decref(b->st[i].key);
		b->st[i].j = b->st[i].key = NULL;
	}
	json_decref(b->root);
	b->root = NULL;
	return false;
}

/* @v (NULL: a dropped node) into the open collection, or as the document's root. Takes @v. */
static int yb_add(struct yaml_build *b, json_t *v)
{
	struct yb_frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
	int r = 0;

	if (!f) {
		if (!b->done && !b->root)
			b->root = v;
		else
			json_decref(v);
	} else if (json_is_array(f->j)) {
		r = v ? json_array_append_new(f->j, v) : 0;
	} else if (!f->have_key) {
		f->key = v;
		f->have_key = true;
	} else {
		if (json_is_string(f->key) && v)
			r = json_object_set_new(f->j, json_string_value(f->key), v);
		else
			json_decref(v);
		json_decref(f->key);
		f->key = NULL;
		f->have_key = false;
	}
	return r ? -ENOMEM : 0;
}

/* @v under @anchor (a later anchor of that name replaces it), @cost nodes. Takes @v. */
static int yb_add_anchored(struct yaml_build *b, const char *anchor, json_t *v, long cost)
{
	if (anchor && v &&
	    json_object_set_new(b->anchors, anchor, json_pack("[O,I]", v, (json_int_t)cost))) {
		json_decref(v);
		return -ENOMEM;
	}
	return yb_add(b, v);
}

/* Takes one event into @b: 0, or -errno with @err ("LINE: why"). */
static int yb_event(struct yaml_build *b, const yaml_event_t *e, char *err, size_t errlen)
{
	size_t line = e->start_mark.line + 1;
	bool seq = e->type == YAML_SEQUENCE_START_EVENT;
	const char *anchor;
	json_t *a;

	switch (e->type) {
	case YAML_SCALAR_EVENT:
		if (!yb_cost(b, 1))
			return 0;
		return yb_add_anchored(
			b, (const char *)e->data.scalar.anchor,
			json_stringn((const char *)e->data.scalar.value, e->data.scalar.length), 1);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth == LAVA_DEPTH_MAX)
			return errf(err, errlen, -E2BIG, "%zu: nested deeper than %d", line,
				    LAVA_DEPTH_MAX);
		anchor = (const char *)(seq ? e->data.sequence_start.anchor :
					      e->data.mapping_start.anchor);
		b->st[b->depth] = (struct yb_frame){ .budget = b->budget };
		if (!yb_cost(b, 1)) {
			b->depth++;
			return 0;
		}
		b->st[b->depth].j = seq ? json_array() : json_object();
		b->st[b->depth].anchor = anchor ? strdup(anchor) : NULL;
		b->depth++;
		return !b->st[b->depth - 1].j || (anchor && !b->st[b->depth - 1].anchor) ? -ENOMEM :
											   0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: {
		struct yb_frame f = b->st[--b->depth];
		int r = f.j ? yb_add_anchored(b, f.anchor, f.j, f.budget - b->budget) : 0;

		json_decref(f.key); /* a key without a value: none in well-formed YAML */
		free(f.anchor);
		return r;
	}
	case YAML_ALIAS_EVENT:
		if (++b->aliases > LAVA_ALIASES_MAX)
			return errf(err, errlen, -E2BIG, "%zu: more than %d aliases", line,
				    LAVA_ALIASES_MAX);
		if (b->over)
			return 0;
		/* an anchor whose node is still open is not registered yet: no loops */
		a = json_object_get(b->anchors, (const char *)e->data.alias.anchor);
		if (!a)
			return errf(err, errlen, -EPROTO, "%zu: found undefined alias", line);
		if (!yb_cost(b, (long)json_integer_value(json_array_get(a, 1))))
			return 0;
		return yb_add(b, json_incref(json_array_get(a, 0)));
	case YAML_DOCUMENT_END_EVENT:
		b->done = true;
		return 0;
	default:
		return 0;
	}
}

/* @buf's first YAML document as JSON into *@ret (NULL: none), or -errno with @err. */
static int yaml_load_json(const unsigned char *buf, size_t len, json_t **ret, char *err,
			  size_t errlen)
{
	struct yaml_build b = { .budget = LAVA_NODES_MAX, .anchors = json_object() };
	yaml_parser_t p;
	yaml_event_t e;
	bool end = false;
	int r = b.anchors ? 0 : -ENOMEM;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, buf, len);
	while (!end && !r) {
		if (!yaml_parser_parse(&p, &e)) {
			r = errf(err, errlen, -EPROTO, "%zu: %s", p.problem_mark.line + 1,
				 p.problem ? p.problem : "not YAML or JSON");
			break;
		}
		r = yb_event(&b, &e, err, errlen);
		end = e.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&p);
	while (b.depth--) {
		json_decref(b.st[b.depth].j);
		json_decref(b.st[b.depth].key);
		free(b.st[b.depth].anchor);
	}
	json_decref(b.anchors);
	if (!r && b.over)
		r = errf(err, errlen, -E2BIG, "more than %d nodes once aliases are expanded",
			 LAVA_NODES_MAX);
	if (r == -ENOMEM)
		errf(err, errlen, r, "%s", strerror(ENOMEM));
	if (r)
		json_decref(b.root);
	else
		*ret = b.root;
	return r;
}

/* @path's bytes, at most LAVA_FILE_MAX. */
static unsigned char *read_bounded(const char *path, size_t *ret_len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	unsigned char *buf = NULL;
	struct stat st;
	size_t n = 0;

	if (!f) {
		errf(err, errlen, 0, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > LAVA_FILE_MAX) {
		errf(err, errlen, 0, "%s",
		     !S_ISREG(st.st_mode) ? "not a regular file" : "larger than 64 MiB");
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf)
		n = fread(buf, 1, (size_t)st.st_size + 1, f);
	if (!buf || ferror(f) || n > (size_t)st.st_size) {
		errf(err, errlen, 0, "%s", !buf ? strerror(ENOMEM) : "changed while read");
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*ret_len = n;
	return buf;
}

/* LAVA's results as its API gives them: YAML (a JSON document is YAML too). */
int lava_results_load(const char *path, json_t **ret, char *err, size_t errlen)
{
	char why[512];
	size_t len = 0;
	unsigned char *buf = read_bounded(path, &len, why, sizeof(why));
	json_t *j = NULL;
	int r;

	if (!buf)
		return errf(err, errlen, -EIO, "%s: %s", path, why);
	r = yaml_load_json(buf, len, &j, why, sizeof(why));
	free(buf);
	if (r)
		return errf(err, errlen, r, "%s:%s%s", path,
			    isdigit((unsigned char)why[0]) ? "" : " ",
			    why); /* "path:LINE: why", or "path: why" */
	/* REST API pages: {"count": N, "results": [...]}; lavacli and /results/JOB/yaml: a list */
	if (json_is_object(j) && json_is_array(json_object_get(j, "results"))) {
		json_t *list = json_incref(json_object_get(j, "results"));
		json_decref(j);
		j = list;
	}
	if (!json_is_array(j)) {
		json_decref(j);
		return errf(err, errlen, -EPROTO, "%s: expected a list of test cases", path);
	}
	*ret = j;
	return 0;
}

/* The LAVA job @tc (a test case) names, as text into @out ("" for none). */
static void case_job(const json_t *tc, char *out, size_t len)
{
	const json_t *jv = json_object_get(tc, "job");

	out[0] = 0;
	if (json_is_string(jv))
		snprintf(out, len, "%s", json_string_value(jv));
	else if (json_is_integer(jv))
		snprintf(out, len, "%lld", (long long)json_integer_value(jv));
}

/*
 * -EINVAL with @err when a LAVA job of @cases (file @a of @paths) is one that an earlier file
 * held (@jobs: job -> its file's index, @cases' added): the same runs would count twice.
 */
static int jobs_once(json_t *jobs, const json_t *cases, char *const *paths, int a, char *err,
		     size_t errlen)
{
	const json_t *tc, *seen;
	char job[64], esc[256];
	size_t i;

	json_array_foreach(cases, i, tc)
	{
		case_job(tc, job, sizeof(job));
		if (!job[0])
			continue;
		seen = json_object_get(jobs, job);
		if (seen && json_integer_value(seen) != a)
			return errf(err, errlen, -EINVAL,
				    "%s and %s both hold LAVA job %s's test cases: its runs would "
				    "count twice",
				    paths[json_integer_value(seen)], paths[a],
				    base_escape_str(esc, sizeof(esc), job));
		if (!seen && json_object_set_new(jobs, job, json_integer(a)))
			return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	}
	return 0;
}

int lava_results_load_all(char *const *paths, int n, json_t **ret, char *err, size_t errlen)
{
	json_t *all = json_array(), *jobs = json_object();
	int r = all && jobs ? 0 : -ENOMEM;

	for (int a = 0; a < n && !r; a++) {
		json_t *j;

		if (lava_results_load(paths[a], &j, err, errlen))
			r = -EINVAL;
		else if ((r = jobs_once(jobs, j, paths, a, err, errlen)))
			json_decref(j); /* refused: not kept */
		else if (json_array_append_new(all, j)) /* (which frees @j either way) */
			r = -ENOMEM;
	}
	json_decref(jobs);
	if (r) {
		json_decref(all);
		return r == -ENOMEM ? errf(err, errlen, r, "%s", strerror(ENOMEM)) : r;
	}
	*ret = all;
	return 0;
}

void lava_import_free(struct lava_import *im)
{
	json_decref(im->runs);
	json_decref(im->index);
	json_decref(im->rep_base);
	im->runs = im->index = im->rep_base = NULL;
	im->last_len = 0;
	im->last_run = NULL;
}

json_t *lava_import_run(struct lava_import *im, const char *workload, long threads,
			const char *cell, long rep)
{
	char key[256];
	json_t *run;

	if ((!im->runs && !(im->runs = json_array())) ||
	    (!im->index && !(im->index = json_object())))
		return NULL;
	/* the repetition's digits end at the colon: no two (rep, cell) share a key */
	snprintf(key, sizeof(key), "%ld:%s", rep, cell);
	if ((run = json_object_get(im->index, key)))
		return run;
	run = json_pack("{s:s, s:i, s:{s:s, s:s, s:i, s:i, s:s}, s:{s:b}, s:{}, s:{}}", "workload",
			workload, "threads", (json_int_t)threads, "coords", "fs", cell, "workload",
			workload, "threads", (json_int_t)threads, "repetition", (json_int_t)rep,
			"cell", cell, "summary", "complete", 1, "ops", "kernel");
	if (!run || json_object_set(im->index, key, run) || json_array_append_new(im->runs, run))
		return NULL;
	return run;
}

int lava_import_next_file(struct lava_import *im)
{
	json_t *run;
	size_t i;

	if (!im->rep_base && !(im->rep_base = json_object()))
		return -ENOMEM;
	json_array_foreach(im->runs, i, run)
	{
		const json_t *coords = json_object_get(run, "coords");
		const char *cell = json_string_value(json_object_get(coords, "cell"));
		json_int_t next = json_integer_value(json_object_get(coords, "repetition")) + 1;

		if (cell && next > json_integer_value(json_object_get(im->rep_base, cell)) &&
		    json_object_set_new(im->rep_base, cell, json_integer(next)))
			return -ENOMEM;
	}
	/* a prefix of the last file's names is another run in this one */
	im->last_len = 0;
	im->last_run = NULL;
	return 0;
}

/* The object at @path ("kernel", "probes/sources/jbd2/...") in @run, made as needed. */
static json_t *section_make(json_t *run, const char *path)
{
	json_t *o = run;
	char key[128];

	while (o && *path) {
		size_t n = strcspn(path, "/");
		json_t *next;

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		next = json_object_get(o, key);
		if (!next) {
			next = json_object();
			if (json_object_set_new(o, key, next))
				return NULL;
		}
		o = json_is_object(next) ? next : NULL;
		path += n + (path[n] == '/');
	}
	return o;
}

/*
 * The metric after a case's run prefix as sscanf's "%95s" with nothing after it takes it:
 * blanks before it, none in it, 1..95 characters.
 */
static bool case_metric(const char *s, char *ret, size_t size)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	if (!n || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		if (isspace((unsigned char)s[i]))
			return false;
	memcpy(ret, s, n + 1);
	return true;
}

/*
 * One test case into @im's runs: 1 when it is one of fsbench's ("<workload>.t<threads>.<cell>.
 * r<repetition>.<metric>", passed), 0 when it is not, -ERANGE with @err when it is one with
 * values no run can have (a hostile or broken file: nothing is written).
 */
static int import_case(struct lava_import *im, const json_t *tc, char *err, size_t errlen)
{
	const char *name = json_string_value(json_object_get(tc, "name"));
	const char *res = json_string_value(json_object_get(tc, "result"));
	const json_t *mv = json_object_get(tc, "measurement");
	char wl[64], cell[160], metric[96], *end;
	long threads, rep;
	double v;
	int pre = 0;
	json_t *run = NULL, *sect;

	if (!name || !mv || json_is_null(mv))
		return 0;
	if (im->last_len && !strncmp(name, im->last, im->last_len)) {
		run = im->last_run;
		threads = im->last_threads;
		rep = im->last_rep;
		pre = (int)im->last_len;
	} else if (sscanf(name, "%63[^.].t%ld.%159[^.].r%ld.%n", wl, &threads, cell, &rep, &pre) !=
			   4 ||
		   !pre)
		return 0; /* lava's own cases (job, boot...) and others' */
	if (!case_metric(name + pre, metric, sizeof(metric)))
		return 0;
	/*
	 * What the server hands back is checked as strictly as a guest's: a name fsbench wrote
	 * holds letters, digits and ._- only (lava_case_prefix), so anything else (an ESC that
	 * would reach a terminal through compare) is refused, and so is a measurement that is
	 * not a number (an object read as 0 would be files/s 0.0).
	 */
	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	    strlen(name)) {
		char esc[256];

		return errf(err, errlen, -ERANGE,
			    "test case '%s': a character fsbench never writes in a case name",
			    base_escape_str(esc, sizeof(esc), name));
	}
	if (json_is_number(mv))
		v = json_number_value(mv);
	else if (json_string_value(mv) && *json_string_value(mv) &&
		 (v = strtod(json_string_value(mv), &end), !*end))
		;
	else
		return errf(err, errlen, -ERANGE, "test case %s: measurement is not a number",
			    name);
	const struct rpt_metric_def *d = rpt_metric_lookup(metric);
	if (!d || (res && strcmp(res, "pass")))
		return 0;
	/*
	 * `lava cases` wrote base units (s, B, B/s) since one spelling per quantity went to LAVA;
	 * jobs before wrote compare's (us, MiB, MB/s). The case's unit says which: both are read,
	 * anything else is refused rather than read a million times off, and so is a case
	 * without a unit where the two differ.
	 */
	const char *unit = json_string_value(json_object_get(tc, "unit"));
	double to_display = 1;

	if (!unit && rpt_metric_base(d, 1) == 1)
		; /* files/s, x: one spelling either way */
	else if (unit && !strcmp(unit, rpt_metric_base_unit(d)))
		to_display = 1 / rpt_metric_base(d, 1);
	else if (!unit || strcmp(unit, d->unit)) {
		char esc[128];

		return errf(err, errlen, -ERANGE,
			    "test case %s: unit '%s' is neither %s (fsbench lava cases) nor %s "
			    "(before it wrote base units)",
			    name, unit ? base_escape_str(esc, sizeof(esc), unit) : "(none)",
			    rpt_metric_base_unit(d), d->unit);
	}
	v *= to_display;
	/* what the result schema allows: a run is made by 1.. threads, repetitions count from
	 * 0, and a rate or a latency is a finite number >= 0 (nanoseconds fit in an int64) */
	if (threads < 1 || threads > LAVA_THREADS_MAX || rep < 0 || rep > LAVA_REPS_MAX ||
	    !isfinite(v) || v < 0 || v / d->scale > LAVA_VALUE_MAX)
		return errf(err, errlen, -ERANGE,
			    "test case %s: threads %ld, repetition %ld or value %g out of range "
			    "(threads 1..%d, repetition 0..%d, a value 0..%g)",
			    name, threads, rep, v, LAVA_THREADS_MAX, LAVA_REPS_MAX,
			    LAVA_VALUE_MAX * d->scale);
	double raw = v / d->scale;

	if (!run) {
		/* a later file's runs: repetitions after the earlier files' of the cell */
		long base = (long)json_integer_value(json_object_get(im->rep_base, cell));

		if (rep + base > LAVA_REPS_MAX)
			return errf(err, errlen, -ERANGE,
				    "test case %s: repetition %ld after the %ld of the files "
				    "before it is beyond %d",
				    name, rep, base, LAVA_REPS_MAX);
		if (!(run = lava_import_run(im, wl, threads, cell, rep + base)))
			return -ENOMEM;
	}
	if (run != im->last_run && (size_t)pre < sizeof(im->last)) {
		memcpy(im->last, name, (size_t)pre);
		im->last_len = (size_t)pre;
		im->last_threads = threads;
		im->last_rep = rep;
		im->last_run = run;
	}

	if (d->kind == RPT_KIND_LATENCY) {
		char op[64];
		size_t n = (size_t)(strchr(metric, '.') - metric);

		n = n < sizeof(op) ? n : sizeof(op) - 1;
		memcpy(op, metric, n);
		op[n] = 0;
		sect = json_object_get(json_object_get(run, "ops"), op);
		if (!sect) { /* LAVA reports no call count: only the quantiles */
			sect = json_object();
			json_object_set_new(json_object_get(run, "ops"), op, sect);
		}
		/* schema 2: "p99_ns" beside count, nanoseconds as integers */
		json_object_set_new(sect, d->key, json_integer((json_int_t)llround(raw)));
		return 1;
	}
	sect = section_make(run, d->section);
	if (!sect)
		return 0;
	json_object_set_new(sect, d->key, json_real(raw));
	return 1;
}

int lava_cases_bound(const json_t *cases, long job, const char *token, const char *release,
		     char *ret_release, size_t rlen, char *err, size_t errlen)
{
	char want[96], jobs[32], esc[256], slug[256];
	bool tok = false;
	const json_t *tc;
	size_t i;

	snprintf(want, sizeof(want), "fsbench-token-%s", token);
	snprintf(jobs, sizeof(jobs), "%ld", job);
	ret_release[0] = 0;
	json_array_foreach(cases, i, tc)
	{
		const json_t *jv = json_object_get(tc, "job");
		const char *n = json_string_value(json_object_get(tc, "name"));
		char other[32] = "";

		if (json_is_string(jv))
			snprintf(other, sizeof(other), "%s", json_string_value(jv));
		else if (json_is_integer(jv))
			snprintf(other, sizeof(other), "%lld", (long long)json_integer_value(jv));
		if (strcmp(other, jobs))
			return errf(err, errlen, -EBADMSG,
				    "LAVA job %ld's results hold a test case of job '%s': not this "
				    "job's results",
				    job, base_escape_str(esc, sizeof(esc), other));
		if (n && !strcmp(n, want))
			tok = true;
		if (n && !strncmp(n, "fsbench-release-", 16))
			snprintf(ret_release, rlen, "%s", n + 16);
	}
	if (!tok)
		return errf(
			err, errlen, -EBADMSG,
			"LAVA job %ld's results lack the job's token (test case fsbench-token-...): "
			"not the results of the job this gate submitted",
			job);
	if (!ret_release[0])
		return errf(err, errlen, -EBADMSG,
			    "LAVA job %ld's results do not say which kernel booted (test case "
			    "fsbench-release-...)",
			    job);
	/* the guest wrote it as a case name: what lava-test-case takes, the rest as '_' */
	snprintf(slug, sizeof(slug), "%s", release);
	for (char *p = slug; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
			    *p))
			*p = '_';
	if (strcmp(ret_release, slug))
		return errf(err, errlen, -EBADMSG,
			    "LAVA job %ld booted kernel %s, not %s: not the kernel asked for", job,
			    base_escape_str(esc, sizeof(esc), ret_release), release);
	/* the same kernel: its release as uname gives it, '+' and all */
	snprintf(ret_release, rlen, "%s", release);
	return 0;
}

int lava_import_cases(struct lava_import *im, const json_t *cases, char *err, size_t errlen)
{
	const json_t *tc;
	size_t i;

	json_array_foreach(cases, i, tc)
	{
		int n = import_case(im, tc, err, errlen);

		if (n < 0)
			return n == -ENOMEM ? errf(err, errlen, n, "%s", strerror(ENOMEM)) : n;
		im->used += (size_t)n;
		im->seen++;
	}
	return 0;
}

/*
 * A run's test cases name its cell only as a slug, so its coords hold little more than that;
 * compare pairs runs by every coordinate but the repetition and the cell (report/sample.c),
 * so a run must carry what the suite gives a local one. The suite's cells are named as
 * jobdef.c names them (lava_case_prefix) and each run takes the coords of the cell whose
 * name is its own.
 */
int lava_import_suite(struct lava_import *im, const struct suite *s, char *err, size_t errlen)
{
	struct suite_cell *cells = NULL;
	json_t *run;
	size_t i;
	int n = 0, r;

	if ((r = suite_expand(s, &cells, &n, err, errlen)))
		return r;
	json_array_foreach(im->runs, i, run)
	{
		json_t *coords = json_object_get(run, "coords"), *full = NULL;
		long long rep = json_integer_value(json_object_get(coords, "repetition"));
		char mine[256], theirs[256];

		/* as jobdef.c named it: the slugs again (a slug's slug is itself), so that a
		 * second call finds the cells the first one named */
		lava_case_prefix(mdl_json_str(run, "workload", ""),
				 (long long)json_integer_value(json_object_get(run, "threads")),
				 mdl_json_str(coords, "cell", ""), rep, mine, sizeof(mine));
		for (int c = 0; c < n && !full; c++) {
			if (cells[c].skip)
				continue;
			lava_case_prefix(s->wl[cells[c].wl].wl->name, cells[c].threads,
					 cells[c].name, rep, theirs, sizeof(theirs));
			if (!strcmp(mine, theirs))
				full = suite_coords(s, &cells[c], (int)rep);
		}
		if (!full) {
			free(cells);
			return errf(err, errlen, -ENOENT,
				    "the run %s is none of suite %s's cells (another suite, or "
				    "other --fs or --threads?)",
				    mine, s->path);
		}
		/* the workload's own name, not its slug, as a local run has it */
		json_object_set(run, "workload", json_object_get(full, "workload"));
		json_object_set_new(run, "coords", full);
	}
	free(cells);
	return 0;
}

static bool all_of(const char *s, const char *set, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && strspn(s, set) == n;
}

int lava_import_kernel_check(const char *kernel, const char *package, const char *commit, char *err,
			     size_t errlen)
{
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char set[128];

	snprintf(set, sizeof(set), "%s.+-_~", alnum);
	if (kernel && !all_of(kernel, set, 255))
		return errf(err, errlen, -EINVAL,
			    "--kernel %s: not a kernel release (letters, digits and .+-_~)",
			    kernel);
	snprintf(set, sizeof(set), "%s.+-~:", alnum);
	if (package && !all_of(package, set, 255))
		return errf(err, errlen, -EINVAL, "--kernel-package %s: not a Debian version",
			    package);
	if (commit && (!all_of(commit, "0123456789abcdef", 40) || strlen(commit) < 7))
		return errf(err, errlen, -EINVAL,
			    "--kernel-commit %s: not a git commit (7 to 40 lowercase hex digits)",
			    commit);
	return 0;
}

json_t *lava_import_doc(const struct lava_import *im, char *const *from, int nfiles,
			const char *kernel, const char *package, const char *commit)
{
	json_t *doc;
	time_t t = time(NULL);
	struct tm tm;
	char when[32];
	json_t *files = json_array();

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (int a = 0; a < nfiles && files; a++)
		json_array_append_new(files, json_string(from[a]));
	if (!files)
		return NULL;
	doc = json_pack("{s:s, s:{s:s, s:s}, s:s, s:b, s:{s:s, s:i}, s:{s:[s], s:s},"
			" s:O, s:{s:s, s:o}}",
			"schema", MDL_RESULT_SCHEMA, "tool", "name", "fsbench", "version",
			FSB_VERSION, "created", when, "complete", 1, "host", "kernel",
			kernel ? kernel : "unknown (imported from LAVA)", "cores", 1, "config",
			"argv", "lava", "command", "lava-import", "runs", im->runs, "imported",
			"from", "lava", "files", files);
	/* the kernel as the user named it, for the history's identity (package, commit) */
	if (doc && kernel &&
	    json_object_set_new(json_object_get(doc, "imported"), "kernel",
				json_pack("{s:s, s:s?, s:s?}", "release", kernel, "package",
					  package, "commit", commit))) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int lava_import_suite_load(const char *name, const char *fs, const char *threads, struct suite *ret,
			   char *err, size_t errlen)
{
	char path[4096];
	int r;

	memset(ret, 0, sizeof(*ret));
	if (suite_find(name, path, sizeof(path)))
		return errf(err, errlen, -ENOENT, "no such suite");
	r = suite_load(ret, path, err, errlen);
	if (!r && fs)
		r = suite_select_fs(ret, fs, err, errlen);
	if (!r && threads)
		r = suite_set_threads(ret, threads, err, errlen);
	if (r)
		suite_free(ret);
	return r ? (r < 0 ? r : -EINVAL) : 0;
}
