/* The attribution table: each slow call of a run next to what the kernel did meanwhile. */
#include "report/attrib.h"
#include "model/schema.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static double ms(const json_t *o, const char *key)
{
	return (double)json_integer_value(json_object_get(o, key)) / 1e6;
}

static json_int_t num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/*
 * Sums and differences of a result's times: the file is anyone's, and a start or duration
 * near the 64-bit limit saturates there instead of overflowing (undefined behaviour).
 */
static json_int_t sat_add(json_int_t a, json_int_t b)
{
	json_int_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? LLONG_MAX : LLONG_MIN;
	return r;
}

static json_int_t sat_sub(json_int_t a, json_int_t b)
{
	json_int_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? LLONG_MAX : LLONG_MIN;
	return r;
}

/* When commit @c ended, relative to the call's start like its start_ns. */
static json_int_t end_ns(const json_t *c)
{
	return sat_add(num(c, "start_ns"), num(c, "duration_ns"));
}

static const char *es(json_int_t n)
{
	return n == 1 ? "" : "es";
}

struct buf {
	char *p;
	size_t len, used;
};

static void vadd(struct buf *b, const char *fmt, va_list ap)
{
	int n;

	if (b->used >= b->len)
		return;
	n = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
	if (n > 0)
		b->used += (size_t)n < b->len - b->used ? (size_t)n : b->len - b->used - 1;
}

static void add(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(b, fmt, ap);
	va_end(ap);
}

/* One part of the explanation: " = " before the first, " + " between the others. */
static void part(struct buf *b, int *nparts, const char *fmt, ...)
{
	va_list ap;

	add(b, *nparts ? " + " : " = ");
	(*nparts)++;
	va_start(ap, fmt);
	vadd(b, fmt, ap);
	va_end(ap);
}

void rpt_attrib_sentence(const json_t *call, const char *device, char *buf, size_t len)
{
	const json_t *k = json_object_get(call, "kernel"), *reqs = json_object_get(k, "requests");
	const json_t *commits = json_object_get(k, "commits"), *c0 = json_array_get(commits, 0);
	const json_t *xfs = json_object_get(k, "xfs"), *btrfs = json_object_get(k, "btrfs");
	const json_t *wb = json_object_get(k, "writeback");
	const json_t *fl = json_object_get(reqs, "flush"), *wr = json_object_get(reqs, "write");
	const json_t *rd = json_object_get(reqs, "read");
	struct buf b = { buf, len, 0 };
	json_int_t ncommits = num(k, "commits_total"), in_commits = 0, in_commits_ns = 0;
	const char *dev = device && *device ? device : "the device";
	int nparts = 0;
	size_t i;
	const json_t *c;

	buf[0] = 0;
	add(&b, "%s %.2f ms", str_or_empty(json_string_value(json_object_get(call, "op"))),
	    ms(call, "duration_ns"));
	/* the commit it waited for ends last inside the call; the others overlapped it */
	json_array_foreach(commits, i, c)
	{
		json_int_t e = end_ns(c);

		if (e <= num(call, "duration_ns") && e >= end_ns(c0))
			c0 = c;
	}
	if (ncommits >= 1) {
		/* none ended inside the call: it ran during a commit, not waiting for one */
		bool during = end_ns(c0) > num(call, "duration_ns");

		part(&b, &nparts, "%sjbd2 commit %.2f ms", during ? "during a " : "",
		     ms(c0, "duration_ns"));
		if (json_object_get(c0, "logging_ns"))
			add(&b, " (locked %.2f, flushing %.2f, logging %.2f", ms(c0, "locked_ns"),
			    ms(c0, "flushing_ns"), ms(c0, "logging_ns"));
		else
			add(&b, " (");
		add(&b, "%s%lld flush%s %.2f ms on %s, %lld handles)",
		    json_object_get(c0, "logging_ns") ? "; " : "", (long long)num(c0, "flushes"),
		    es(num(c0, "flushes")), ms(c0, "flush_ns"), dev, (long long)num(c0, "handles"));
		if (json_object_get(c0, "start_ns") && num(c0, "start_ns") < 0)
			add(&b, ", begun %.2f ms before the call", -ms(c0, "start_ns"));
	}
	if (ncommits > 1) {
		/* one transaction commits at a time: before its own, the call waited on others */
		json_int_t busy = 0, end = num(c0, "start_ns"), n = 0;

		json_array_foreach(commits, i, c)
		{
			json_int_t lo = num(c, "start_ns"), hi = end_ns(c);

			lo = lo < 0 ? 0 : lo;
			hi = hi > end ? end : hi;
			if (c != c0 && hi > lo) {
				busy = sat_add(busy, hi - lo); /* 0 <= lo < hi */
				n++;
			}
		}
		if (n)
			part(&b, &nparts, "%lld earlier commit%s %.2f ms", (long long)n,
			     n == 1 ? "" : "s", (double)busy / 1e6);
	}
	if (c0) {
		in_commits = num(c0, "flushes");
		in_commits_ns = num(c0, "flush_ns");
	}
	if (num(xfs, "log_forces") || num(xfs, "iclog_writes"))
		part(&b, &nparts, "xfs %lld log forces, %lld iclog writes %.2f ms",
		     (long long)num(xfs, "log_forces"), (long long)num(xfs, "iclog_writes"),
		     ms(xfs, "iclog_ns"));
	if (num(xfs, "cil_waits"))
		add(&b, ", %lld CIL waits", (long long)num(xfs, "cil_waits"));
	if (num(btrfs, "commits"))
		part(&b, &nparts, "btrfs %lld transaction commit%s",
		     (long long)num(btrfs, "commits"), num(btrfs, "commits") == 1 ? "" : "s");
	if (num(btrfs, "ordered_extents"))
		part(&b, &nparts, "%lld ordered extent%s completed",
		     (long long)num(btrfs, "ordered_extents"),
		     num(btrfs, "ordered_extents") == 1 ? "" : "s");
	/* flushes the commits above do not already account for */
	if (num(fl, "count") > in_commits)
		part(&b, &nparts, "%lld flush%s %.2f ms on %s",
		     (long long)sat_sub(num(fl, "count"), in_commits),
		     es(sat_sub(num(fl, "count"), in_commits)),
		     num(fl, "ns") > in_commits_ns ?
			     (double)sat_sub(num(fl, "ns"), in_commits_ns) / 1e6 :
			     0,
		     dev);
	if (num(wr, "count"))
		part(&b, &nparts, "%lld write%s (%lld KiB) %.2f ms", (long long)num(wr, "count"),
		     num(wr, "count") == 1 ? "" : "s", (long long)(num(wr, "bytes") / 1024),
		     ms(wr, "ns"));
	if (num(rd, "count"))
		part(&b, &nparts, "%lld read%s (%lld KiB) %.2f ms", (long long)num(rd, "count"),
		     num(rd, "count") == 1 ? "" : "s", (long long)(num(rd, "bytes") / 1024),
		     ms(rd, "ns"));
	if (num(wb, "throttle_pauses"))
		part(&b, &nparts, "throttled %lld times %.2f ms",
		     (long long)num(wb, "throttle_pauses"), ms(wb, "throttle_ns"));
	if (!nparts)
		add(&b, ": nothing on %s (CPU, locks or the page cache)", dev);
	if (!json_is_true(json_object_get(k, "complete")))
		add(&b, " [events of this window were dropped]");
}

/* The slow calls of @op (NULL: every op), slowest first, at most @max. */
static size_t select_calls(const json_t *run, const char *op, size_t max, const json_t **ret)
{
	const json_t *calls = json_object_get(json_object_get(run, "probes"), "slow_calls"), *c;
	size_t i, n = 0;

	json_array_foreach(calls, i, c)
	{
		const char *o = json_string_value(json_object_get(c, "op"));

		if (n < RPT_ATTRIB_MAX && (!op || (o && !strcmp(o, op))))
			ret[n++] = c;
	}
	/* per op the file keeps them slowest first; across ops, sort (insertion: n is small) */
	for (size_t a = 1; a < n; a++)
		for (size_t b = a;
		     b > 0 && num(ret[b], "duration_ns") > num(ret[b - 1], "duration_ns"); b--) {
			const json_t *t = ret[b];

			ret[b] = ret[b - 1];
			ret[b - 1] = t;
		}
	return n < max ? n : max;
}

int rpt_attrib_print(FILE *out, const json_t *run, const char *op, size_t max, bool markdown)
{
	const json_t *probes = json_object_get(run, "probes"), *calls[RPT_ATTRIB_MAX];
	const char *dev = json_string_value(json_object_get(probes, "device"));
	size_t n;

	if (!probes)
		return -ENOENT;
	if (max > RPT_ATTRIB_MAX)
		max = RPT_ATTRIB_MAX;
	n = select_calls(run, op, max, calls);
	if (markdown)
		fprintf(out,
			"| op | thread | at (s) | ms | what the kernel did on %s meanwhile |\n"
			"|---|---|---:|---:|---|\n",
			str_or_empty(dev));
	else
		fprintf(out, "%-9s %6s %9s %9s  %s\n", "op", "thread", "at (s)", "ms",
			"= what the kernel did meanwhile");
	for (size_t i = 0; i < n; i++) {
		char s[1024], th[16];
		const json_t *t = json_object_get(calls[i], "thread");
		const char *eq;

		rpt_attrib_sentence(calls[i], dev, s, sizeof(s));
		if (json_is_integer(t))
			snprintf(th, sizeof(th), "%lld", (long long)json_integer_value(t));
		else
			snprintf(th, sizeof(th), "%s", str_or_empty(json_string_value(t)));
		/* the table's columns already say op and time: the sentence from its "=" */
		eq = strstr(s, " = ");
		eq = eq ? eq + (markdown ? 3 : 1) : strstr(s, ": ") ? strstr(s, ": ") + 2 : s;
		if (markdown)
			fprintf(out, "| %s | %s | %.3f | %.2f | %s |\n",
				str_or_empty(json_string_value(json_object_get(calls[i], "op"))),
				th, (double)num(calls[i], "start_ns") / 1e9,
				ms(calls[i], "duration_ns"), eq);
		else
			fprintf(out, "%-9s %6s %9.3f %9.2f  %s\n",
				str_or_empty(json_string_value(json_object_get(calls[i], "op"))),
				th, (double)num(calls[i], "start_ns") / 1e9,
				ms(calls[i], "duration_ns"), eq);
	}
	return (int)n;
}

int rpt_attrib_html(FILE *out, const json_t *run, size_t max, void (*esc)(FILE *out, const char *s))
{
	const json_t *probes = json_object_get(run, "probes"), *calls[RPT_ATTRIB_MAX];
	const char *dev = json_string_value(json_object_get(probes, "device"));
	size_t n;

	if (!probes)
		return 0;
	if (max > RPT_ATTRIB_MAX)
		max = RPT_ATTRIB_MAX;
	n = select_calls(run, NULL, max, calls);
	if (!n)
		return 0;
	fprintf(out, "<table class=\"attrib\"><tr><th>op</th><th>thread</th><th>at (s)</th>"
		     "<th>ms</th><th>what the kernel did on the device meanwhile</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		char s[1024];
		const json_t *t = json_object_get(calls[i], "thread");
		const char *eq;

		rpt_attrib_sentence(calls[i], dev, s, sizeof(s));
		eq = strstr(s, " = ");
		eq = eq ? eq + 3 : strstr(s, ": ") ? strstr(s, ": ") + 2 : s;
		fprintf(out, "<tr><td>");
		esc(out, str_or_empty(json_string_value(json_object_get(calls[i], "op"))));
		if (json_is_integer(t))
			fprintf(out, "</td><td class=\"num\">%lld",
				(long long)json_integer_value(t));
		else {
			fprintf(out, "</td><td>");
			esc(out, str_or_empty(json_string_value(t)));
		}
		fprintf(out, "</td><td class=\"num\">%.3f</td><td class=\"num\">%.2f</td><td>",
			(double)num(calls[i], "start_ns") / 1e9, ms(calls[i], "duration_ns"));
		esc(out, eq);
		fprintf(out, "</td></tr>\n");
	}
	fprintf(out, "</table>\n");
	return (int)n;
}

void rpt_attrib_print_doc(FILE *out, const char *path, const json_t *doc, const char *op,
			  size_t max, bool markdown, int *shown)
{
	json_t *run;
	size_t r;

	json_array_foreach(json_object_get(doc, MDL_KEY_RUNS), r, run)
	{
		const json_t *t = json_object_get(run, "target");
		const char *fs = json_string_value(json_object_get(t, "fstype"));
		const char *dev = json_string_value(json_object_get(t, "device"));

		if (!json_object_get(run, "probes"))
			continue;
		/* a result is anyone's file: a missing name is "?", never "(null)" */
		fprintf(out, "%s%s run %zu: %s, %s on %s\n", *shown ? "\n" : "", path, r,
			mdl_json_str(run, MDL_KEY_WORKLOAD, "?"), mdl_str_or(fs, "?"),
			mdl_str_or(dev, "?"));
		if (markdown)
			fprintf(out, "\n");
		rpt_attrib_print(out, run, op, max, markdown);
		(*shown)++;
	}
}
