/* The why lines as a reader gets them, in the text output and the HTML report alike. */
#include "report/why_text.h"
#include "report/html_table.h"
#include "model/schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A quantity that moved less than this says nothing about the change (why.c's threshold). */
#define MOVED_PCT 5.0

/* Appends to a line, cut at its end. */
struct line {
	char *buf;
	size_t len, at;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (l->at >= l->len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(l->buf + l->at, l->len - l->at, fmt, ap);
	va_end(ap);
	l->at = w < 0 ? l->at : l->at + (size_t)w < l->len ? l->at + (size_t)w : l->len - 1;
}

/* A unit as @style spells it: "µs" on the page, "us" in text; KiB (1024 bytes) in both. */
static const char *unit_name(enum rpt_why_style style, const char *unit)
{
	if (style == RPT_WHY_TEXT && unit && !strcmp(unit, "us"))
		return "us";
	return rpt_html_unit(unit);
}

/* "0.5 ms", "210 µs" ("210 us" in text): the page's formatting in @style's spelling. */
static void fmt_value(enum rpt_why_style style, char *buf, size_t len, double v, const char *unit)
{
	char *mu;

	rpt_html_fmt_value(buf, len, v, NAN, unit);
	if (style == RPT_WHY_TEXT && (mu = strstr(buf, "µs"))) {
		/* "µ" is two bytes in UTF-8, "u" one */
		mu[0] = 'u';
		memmove(mu + 1, mu + 2, strlen(mu + 2) + 1);
	}
}

static bool per_commits(const struct rpt_cmp_metric *m, const char *per)
{
	if (!strcmp(per, "fsync") || !strcmp(per, "fdatasync") || !strcmp(per, "sync"))
		return true;
	return !strcmp(per, "file") && !strcmp(m->name, "files_per_sec");
}

/* An unproven change worth explaining: the threshold or more, and past the runs' spread. */
static bool large(const struct rpt_cmp_judged *j)
{
	double c = fabs(j->change_pct);

	if (!j->stats)
		return false;
	if (!isfinite(c))
		return true;
	return c >= j->rule.threshold_pct && (!isfinite(j->spread_pct) || c > j->spread_pct);
}

const char *rpt_why_per(const struct rpt_cmp_metric *m, const struct rpt_cmp_judged *j)
{
	const char *per = json_string_value(json_object_get(j->why, "per"));

	if (!per || !per_commits(m, per))
		return NULL;
	if (j->verdict == RPT_REGRESSION || j->verdict == RPT_IMPROVEMENT)
		return per;
	return j->verdict != RPT_UNCHANGED && large(j) ? per : NULL;
}

/* The why item named @fmt with "%s" as @per ("commits per fsync"), or NULL. */
static const json_t *why_item(const json_t *why, const char *fmt, const char *per)
{
	const json_t *it;
	char name[96];
	size_t i;

	snprintf(name, sizeof(name), fmt, per);
	json_array_foreach(json_object_get(why, "items"), i, it)
	{
		if (!strcmp(mdl_str_or(json_string_value(json_object_get(it, "name")), ""), name))
			return it;
	}
	return NULL;
}

static double item_side(const json_t *it, const char *side)
{
	const json_t *v = json_object_get(it, side);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Device time per call on side @side in µs: requests x write d2c + flushes x flush d2c. */
static double device_us(const json_t *why, const char *per, const char *side)
{
	double req = item_side(why_item(why, "requests per %s", per), side),
	       wd2c = item_side(why_item(why, "write d2c", per), side),
	       fl = item_side(why_item(why, "flushes per %s", per), side),
	       fd2c = item_side(why_item(why, "flush d2c", per), side);
	double t = 0;

	if (isfinite(req) && isfinite(wd2c))
		t += req * wd2c;
	if (isfinite(fl) && isfinite(fd2c))
		t += fl * fd2c;
	return isfinite(wd2c) || isfinite(fd2c) ? t : NAN;
}

/*
 * The change of the metric as time per call in µs (NAN when it is not a time): a latency's
 * mean, or per-file time of a files/s figure (threads / files per second).
 */
static double metric_delta_us(const struct rpt_cmp_sample *s, const struct rpt_cmp_metric *m,
			      const struct rpt_cmp_judged *j)
{
	double a = m->sides[0].st.mean, b = m->sides[j->side].st.mean;
	double t = json_is_integer(s->threads) ? (double)json_integer_value(s->threads) : 1;

	if (!m->sides[0].n || !m->sides[j->side].n)
		return NAN;
	if (m->unit && !strcmp(m->unit, "us"))
		return b - a;
	if (m->unit && !strcmp(m->unit, "files/s") && a > 0 && b > 0)
		return t * 1e6 / b - t * 1e6 / a;
	return NAN;
}

/* One why item "name a -> b unit", in @style's units. */
static void item_text(struct line *l, enum rpt_why_style style, const json_t *it)
{
	const char *name = mdl_str_or(json_string_value(json_object_get(it, "name")), "?"),
		   *unit = mdl_str_or(json_string_value(json_object_get(it, "unit")), "");
	bool us = !strcmp(unit, "us");
	size_t n = strlen(unit);
	char a[48], b[48];

	/* a name that leads with its unit ("KB written per fsync") takes the one spelling */
	if (n && !strncmp(name, unit, n) && name[n] == ' ') {
		put(l, "%s", unit_name(style, unit));
		name += n;
	}
	fmt_value(style, a, sizeof(a), item_side(it, "baseline"), us ? unit : "");
	fmt_value(style, b, sizeof(b), item_side(it, "candidate"), us ? unit : "");
	put(l, "%s %s %s %s", name, a, style == RPT_WHY_HTML ? "→" : "->", b);
	if (n && !us)
		put(l, " %s", unit_name(style, unit));
}

/* The items that moved 5 % or more (of a cell, the same on every metric of its call). */
static void items_text(struct line *l, enum rpt_why_style style, const json_t *why, const char *per)
{
	const json_t *it;
	size_t i, shown = 0;

	json_array_foreach(json_object_get(why, "items"), i, it)
	{
		const json_t *ch = json_object_get(it, "change_pct");

		if (json_is_number(ch) && fabs(json_number_value(ch)) < MOVED_PCT)
			continue;
		put(l, "%s", shown++ ? "; " : "");
		item_text(l, style, it);
	}
	if (!shown)
		put(l, "no kernel-side quantity per %s moved %.0f %% or more", per, MOVED_PCT);
	put(l, ".");
}

/*
 * " Device time per fsync +0.5 ms explains 14 % of the +3.7 ms change.": the share of the
 * metric's change (as time per call) that the device's time per call accounts for.
 */
static void share_text(struct line *l, enum rpt_why_style style, const struct rpt_cmp_sample *s,
		       const struct rpt_cmp_metric *m, const struct rpt_cmp_judged *j,
		       const char *per)
{
	double da = device_us(j->why, per, "baseline"), db = device_us(j->why, per, "candidate");
	double dm = metric_delta_us(s, m, j), share;
	bool time = m->unit && !strcmp(m->unit, "us");
	char x[48], y[48];

	if (!isfinite(da) || !isfinite(db) || !isfinite(dm) || dm == 0)
		return;
	share = (db - da) / dm * 100;
	fmt_value(style, x, sizeof(x), db - da, "us");
	fmt_value(style, y, sizeof(y), dm, "us");
	put(l, " Device time per %s %s%s", per, db >= da ? "+" : "", x);
	if (share < 0)
		put(l, " moved against");
	else if (share > 100)
		put(l, " is more than");
	else
		put(l, " explains %.0f %% of", share);
	put(l, " the %s%s change", dm >= 0 ? "+" : "", y);
	if (!time)
		put(l, " in time per %s", per);
	put(l, ".");
}

bool rpt_why_line(struct rpt_why_lines *w, const struct rpt_cmp_sample *s,
		  const struct rpt_cmp_metric *m, const struct rpt_cmp_judged *j, size_t row,
		  char *buf, size_t len)
{
	const char *per = len ? rpt_why_per(m, j) : NULL;
	struct line l = { buf, len, 0 };

	if (len)
		buf[0] = 0;
	if (!per)
		return false;
	for (size_t r = 0; r < w->nsaid; r++) {
		const struct rpt_why_said *d = &w->said[r];

		if (d->sample != s || d->side != j->side || strcmp(d->per, per))
			continue;
		if (w->style == RPT_WHY_HTML)
			put(&l, "Kernel side as in row %zu.", d->row);
		else
			put(&l, "Kernel side as for %s.", d->metric);
		share_text(&l, w->style, s, m, j, per);
		return true;
	}
	if (w->nsaid == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct rpt_why_said *v = realloc(w->said, cap * sizeof(*v));

		if (!v)
			return false;
		w->said = v;
		w->cap = cap;
	}
	w->said[w->nsaid++] = (struct rpt_why_said){ s, j->side, per, m->name, row };
	put(&l, "Kernel side per %s: ", per);
	items_text(&l, w->style, j->why, per);
	share_text(&l, w->style, s, m, j, per);
	return true;
}

void rpt_why_lines_free(struct rpt_why_lines *w)
{
	free(w->said);
	*w = (struct rpt_why_lines){ w->style, NULL, 0, 0 };
}
