/* Why a metric moved: kernel-side work per call on both sides, summed from the runs' probes. */
#include "report/why.h"
#include "model/schema.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a side's runs are summed into: a counter or a histogram's sum or count, per source. */
enum why_val {
	V_ISSUED,
	V_WBYTES,
	V_FLUSH,
	V_FUA,
	V_COMMITS,
	V_HANDLES,
	V_LOCKED_SUM,
	V_LOCKED_N,
	V_FLUSHING_SUM,
	V_FLUSHING_N,
	V_LOGGING_SUM,
	V_LOGGING_N,
	V_XFS_FORCES,
	V_XFS_ICLOG,
	V_BTRFS_COMMITS,
	V_WB_PAUSES,
	V_WB_PAUSE_NS,
	V_WD2C_SUM,
	V_WD2C_N,
	V_FD2C_SUM,
	V_FD2C_N,
	V_COUNT,
	V_CALLS = V_COUNT, /* the denominator "per call" */
	V_NONE, /* no denominator */
};

/* Where V_* lives in runs[].probes.sources.SRC: counters.KEY, or hists.HIST.KEY. */
static const struct why_src {
	const char *src, *hist, *key;
} why_srcs[V_COUNT] = {
	[V_ISSUED] = { "block", NULL, "issued" },
	[V_WBYTES] = { "block", NULL, "write_bytes" },
	[V_FLUSH] = { "block", NULL, "flush_issued" },
	[V_FUA] = { "block", NULL, "bio_fua" },
	[V_COMMITS] = { "jbd2", NULL, "commits" },
	[V_HANDLES] = { "jbd2", NULL, "handles" },
	[V_LOCKED_SUM] = { "jbd2", "locked", "sum_ns" },
	[V_LOCKED_N] = { "jbd2", "locked", "count" },
	[V_FLUSHING_SUM] = { "jbd2", "flushing", "sum_ns" },
	[V_FLUSHING_N] = { "jbd2", "flushing", "count" },
	[V_LOGGING_SUM] = { "jbd2", "logging", "sum_ns" },
	[V_LOGGING_N] = { "jbd2", "logging", "count" },
	[V_XFS_FORCES] = { "xfs", NULL, "log_forces" },
	[V_XFS_ICLOG] = { "xfs", NULL, "iclog_writes" },
	[V_BTRFS_COMMITS] = { "btrfs", NULL, "transaction_commits" },
	[V_WB_PAUSES] = { "writeback", NULL, "pauses" },
	[V_WB_PAUSE_NS] = { "writeback", NULL, "pause_ns" },
	[V_WD2C_SUM] = { "block", "write.d2c", "sum_ns" },
	[V_WD2C_N] = { "block", "write.d2c", "count" },
	[V_FD2C_SUM] = { "block", "flush.d2c", "sum_ns" },
	[V_FD2C_N] = { "block", "flush.d2c", "count" },
};

/*
 * The quantities a why line may name, in the order they are listed: @name has "%s" where
 * the call goes ("flushes per fsync"); the value is num / den * scale. The first two lead
 * every line (what an fsync costs the journal and the device); the rest appear when they
 * moved.
 */
static const struct why_item {
	const char *name, *unit;
	enum why_val num, den;
	double scale;
} why_items[] = {
	{ "commits per %s", "", V_COMMITS, V_CALLS, 1 },
	{ "flushes per commit", "", V_FLUSH, V_COMMITS, 1 },
	{ "flushes per %s", "", V_FLUSH, V_CALLS, 1 },
	{ "handles per commit", "", V_HANDLES, V_COMMITS, 1 },
	{ "locked", "us", V_LOCKED_SUM, V_LOCKED_N, 1e-3 },
	{ "flushing", "us", V_FLUSHING_SUM, V_FLUSHING_N, 1e-3 },
	{ "logging", "us", V_LOGGING_SUM, V_LOGGING_N, 1e-3 },
	{ "requests per %s", "", V_ISSUED, V_CALLS, 1 },
	{ "KB written per %s", "KB", V_WBYTES, V_CALLS, 1.0 / 1024 },
	{ "FUA writes per %s", "", V_FUA, V_CALLS, 1 },
	{ "log forces per %s", "", V_XFS_FORCES, V_CALLS, 1 },
	{ "iclog writes per %s", "", V_XFS_ICLOG, V_CALLS, 1 },
	{ "btrfs commits per %s", "", V_BTRFS_COMMITS, V_CALLS, 1 },
	{ "throttle pauses per %s", "", V_WB_PAUSES, V_CALLS, 1 },
	{ "throttled per %s", "us", V_WB_PAUSE_NS, V_CALLS, 1e-3 },
	{ "write d2c", "us", V_WD2C_SUM, V_WD2C_N, 1e-3 },
	{ "flush d2c", "us", V_FD2C_SUM, V_FD2C_N, 1e-3 },
};
_Static_assert(sizeof(why_items) / sizeof(why_items[0]) == RPT_WHY_ITEMS,
	       "why.h's RPT_WHY_ITEMS counts why_items[]");
#define WHY_LEADS 2
/* A quantity that moved less than this is left out of the text (it stays in items). */
#define WHY_MOVED_PCT 5.0
/* Items in the text at most: a line a reader takes in at once. */
#define WHY_TEXT_MAX 6

struct why_side {
	double v[V_COUNT + 1]; /* V_CALLS last */
	bool have[V_COUNT]; /* the source loaded on every run */
	size_t nruns;
};

static const json_t *source_get(const json_t *run, const char *name)
{
	const json_t *s =
		json_object_get(json_object_get(json_object_get(run, "probes"), "sources"), name);
	const char *st = json_string_value(json_object_get(s, "status"));

	return st && !strcmp(st, "ok") ? s : NULL;
}

/* The calls a quantity is divided by, and their name: @op's, files, or every operation's. */
static double run_calls(const json_t *run, const char *op, bool files)
{
	const json_t *v, *o;
	const char *k;
	double n = 0;

	if (op)
		return json_number_value(json_object_get(mdl_run_op(run, op), "count"));
	if (files)
		return json_number_value(json_object_get(mdl_run_summary(run), "files"));
	json_object_foreach((json_t *)mdl_run_ops(run), k, o)
	{
		v = json_object_get(o, "count");
		n += json_number_value(v);
	}
	return n;
}

static void side_sum(struct why_side *s, const struct mdl_run_ref *runs, const size_t *idx,
		     size_t n, const char *op, bool files)
{
	memset(s, 0, sizeof(*s));
	for (int q = 0; q < V_COUNT; q++)
		s->have[q] = true;
	for (size_t i = 0; i < n; i++) {
		const json_t *run = runs[idx[i]].run;

		if (!mdl_run_complete(run))
			continue;
		s->nruns++;
		s->v[V_CALLS] += run_calls(run, op, files);
		for (int q = 0; q < V_COUNT; q++) {
			const json_t *src = source_get(run, why_srcs[q].src), *v;

			if (why_srcs[q].hist)
				v = json_object_get(json_object_get(json_object_get(src, "hists"),
								    why_srcs[q].hist),
						    why_srcs[q].key);
			else
				v = json_object_get(json_object_get(src, "counters"),
						    why_srcs[q].key);
			if (!json_is_number(v))
				s->have[q] = false;
			else
				s->v[q] += json_number_value(v);
		}
	}
	if (!s->nruns)
		for (int q = 0; q < V_COUNT; q++)
			s->have[q] = false;
}

/* One item's value on side @s: false when unmeasured or divided by nothing. */
static bool item_value(const struct why_side *s, const struct why_item *it, double *ret)
{
	if (!s->have[it->num] || (it->den != V_CALLS && !s->have[it->den]))
		return false;
	if (!(s->v[it->den] > 0))
		return false;
	*ret = s->v[it->num] / s->v[it->den] * it->scale;
	return true;
}

static void fmt_val(char *buf, size_t len, double v)
{
	if (fabs(v) >= 100 || v == 0)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

double rpt_why_change_pct(double a, double b)
{
	return a != 0 ? (b - a) / fabs(a) * 100 : b != 0 ? INFINITY : 0;
}

struct why_row {
	char name[64];
	const char *unit;
	double a, b, change; /* change: percent, INFINITY from zero */
	bool lead;
};

static int row_moved_cmp(const void *x, const void *y)
{
	const struct why_row *a = x, *b = y;
	double ca = fabs(a->change), cb = fabs(b->change);

	return (ca < cb) - (ca > cb);
}

static void text_append(char *buf, size_t len, size_t *at, const struct why_row *r)
{
	char va[32], vb[32];
	int w;

	if (*at >= len)
		return;
	fmt_val(va, sizeof(va), r->a);
	fmt_val(vb, sizeof(vb), r->b);
	w = snprintf(buf + *at, len - *at, "%s%s %s -> %s%s%s", buf[*at - 1] == ':' ? " " : ", ",
		     r->name, va, vb, *r->unit ? " " : "", r->unit);
	*at += w > 0 ? (size_t)w : 0;
}

/* @files: the workload counts files, so a quantity without @op is per file (else per call). */
static bool side_files(const struct mdl_run_ref *runs, const size_t *idx, size_t n, const char *op)
{
	return !op && n &&
	       json_number_value(json_object_get(mdl_run_summary(runs[idx[0]].run), "files")) > 0;
}

/* Side @s's value of every item, named per @per, into @ret (RPT_WHY_ITEMS of them). */
static void side_values(const struct why_side *s, const char *per, struct rpt_why_value *ret)
{
	for (size_t i = 0; i < RPT_WHY_ITEMS; i++) {
		snprintf(ret[i].name, sizeof(ret[i].name), why_items[i].name, per);
		ret[i].unit = why_items[i].unit;
		ret[i].v = 0;
		ret[i].have = item_value(s, &why_items[i], &ret[i].v);
	}
}

const char *rpt_why_side(const struct mdl_run_ref *runs, const size_t *idx, size_t n,
			 const char *op, struct rpt_why_value *ret)
{
	bool files = side_files(runs, idx, n, op);
	const char *per = op ? op : files ? "file" : "call";
	struct why_side s;

	side_sum(&s, runs, idx, n, op, files);
	side_values(&s, per, ret);
	return per;
}

json_t *rpt_why_build(const struct mdl_run_ref *runs, const size_t *ia, size_t na, const size_t *ib,
		      size_t nb, const char *op, const char *metric, double change_pct)
{
	struct rpt_why_value va[RPT_WHY_ITEMS], vb[RPT_WHY_ITEMS];
	struct why_row rows[RPT_WHY_ITEMS];
	size_t nrows = 0, at, shown = 0;
	/* both sides divide by the same unit: the baseline's runs decide it, else the candidate's */
	bool files = na ? side_files(runs, ia, na, op) : side_files(runs, ib, nb, op);
	const char *per = op ? op : files ? "file" : "call";
	struct why_side sa, sb;
	char text[1024];
	json_t *o, *items;

	side_sum(&sa, runs, ia, na, op, files);
	side_sum(&sb, runs, ib, nb, op, files);
	side_values(&sa, per, va);
	side_values(&sb, per, vb);
	for (size_t i = 0; i < RPT_WHY_ITEMS; i++) {
		struct why_row *r = &rows[nrows];

		if (!va[i].have || !vb[i].have)
			continue;
		_Static_assert(sizeof(r->name) == sizeof(va[i].name), "a row holds a value's name");
		memcpy(r->name, va[i].name, sizeof(r->name));
		r->unit = va[i].unit;
		r->a = va[i].v;
		r->b = vb[i].v;
		r->change = rpt_why_change_pct(r->a, r->b);
		r->lead = i < WHY_LEADS;
		nrows++;
	}
	if (!nrows)
		return NULL;
	o = json_object();
	items = json_array();
	if (!o || !items) {
		json_decref(o);
		json_decref(items);
		return NULL;
	}
	for (size_t i = 0; i < nrows; i++)
		json_array_append_new(
			items, json_pack("{s:s,s:s,s:f,s:f,s:o}", "name", rows[i].name, "unit",
					 rows[i].unit, "baseline", rows[i].a, "candidate",
					 rows[i].b, "change_pct",
					 isfinite(rows[i].change) ? json_real(rows[i].change) :
								    json_null()));
	at = isfinite(change_pct) ?
		     (size_t)snprintf(text, sizeof(text), "%s %+.1f %%:", metric, change_pct) :
		     (size_t)snprintf(text, sizeof(text), "%s from 0:", metric);
	if (at >= sizeof(text))
		at = sizeof(text) - 1;
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].lead) {
			text_append(text, sizeof(text), &at, &rows[i]);
			shown++;
		}
	qsort(rows, nrows, sizeof(rows[0]), row_moved_cmp);
	for (size_t i = 0; i < nrows && shown < WHY_TEXT_MAX; i++) {
		if (rows[i].lead || !(fabs(rows[i].change) >= WHY_MOVED_PCT))
			continue;
		text_append(text, sizeof(text), &at, &rows[i]);
		shown++;
	}
	if (!shown)
		snprintf(text + at, sizeof(text) - at,
			 " no kernel-side quantity moved %.0f %% or more", WHY_MOVED_PCT);
	json_object_set_new(o, "per", json_string(per));
	json_object_set_new(o, "items", items);
	json_object_set_new(o, "text", json_string(text));
	return o;
}

json_t *rpt_why_sources(const struct mdl_run_ref *runs, const size_t *idx, size_t n)
{
	json_t *ok = json_object();
	bool firstrun = true;

	for (size_t i = 0; ok && i < n; i++) {
		const json_t *run = runs[idx[i]].run, *s;
		json_t *srcs = json_object_get(json_object_get(run, "probes"), "sources");
		const char *k;
		void *tmp;

		if (!mdl_run_complete(run))
			continue;
		/* a source counts as loaded when it loaded on every run of the side */
		json_object_foreach((json_t *)srcs, k, s) if (firstrun && source_get(run, k))
			json_object_set_new(ok, k, json_true());
		json_object_foreach_safe(ok, tmp, k, s) if (!source_get(run, k))
			json_object_del(ok, k);
		firstrun = false;
	}
	return ok;
}

size_t rpt_why_sources_diff(const json_t *a, const json_t *b, const char *na, const char *nb,
			    char *buf, size_t len)
{
	size_t n = 0, at = 0;
	const char *k;
	const json_t *v;

	if (len)
		buf[0] = 0;
	for (int pass = 0; pass < 2; pass++) {
		const json_t *x = pass ? b : a, *y = pass ? a : b;

		json_object_foreach((json_t *)x, k, v)
		{
			int w;

			if (json_object_get(y, k))
				continue;
			w = at < len ? snprintf(buf + at, len - at,
						"%ssource %s loaded on the %s only", n ? "; " : "",
						k, pass ? nb : na) :
				       0;
			at += w > 0 ? (size_t)w : 0;
			n++;
		}
	}
	return n;
}
