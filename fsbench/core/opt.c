/* The option parser shared by every subcommand and by suite files (see opt.h). */
#include "fsbench/core/opt.h"
#include "base/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define OPT_TABLE_MAX 128

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int opt_parse_int(const char *s, int64_t *ret)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	*ret = v;
	return 0;
}

int opt_parse_double(const char *s, double *ret)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s)
		return -EINVAL;
	*ret = v;
	/* strtod takes "nan", "inf" and overflows to inf: none is a usable threshold */
	if (!isfinite(v) || errno == ERANGE)
		return -ERANGE;
	return 0;
}

/* Multiplies with an overflow check; sizes and durations both use it. */
static int scaled(const char *s, const char *const *suffixes, const uint64_t *mult, int64_t *ret)
{
	char *end;
	unsigned long long v;
	uint64_t m = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end) {
		int i;

		for (i = 0; suffixes[i]; i++)
			if (!strcasecmp(end, suffixes[i]))
				break;
		if (!suffixes[i])
			return -EINVAL;
		m = mult[i];
	}
	if (v > (uint64_t)INT64_MAX / m)
		return -ERANGE;
	*ret = (int64_t)(v * m);
	return 0;
}

int opt_parse_size(const char *s, int64_t *ret)
{
	static const char *const suf[] = { "b", "k",  "kb",  "kib", "m",  "mb",	 "mib",
					   "g", "gb", "gib", "t",   "tb", "tib", NULL };
	static const uint64_t mult[] = { 1,	     1ull << 10, 1ull << 10, 1ull << 10, 1ull << 20,
					 1ull << 20, 1ull << 20, 1ull << 30, 1ull << 30, 1ull << 30,
					 1ull << 40, 1ull << 40, 1ull << 40 };

	return scaled(s, suf, mult, ret);
}

int opt_parse_duration(const char *s, int64_t *ret_ns)
{
	static const char *const suf[] = { "ns", "us", "ms", "s", "m", "min", "h", NULL };
	static const uint64_t mult[] = {
		1, 1000, 1000000, 1000000000ull, 60000000000ull, 60000000000ull, 3600000000000ull
	};
	/* a bare number is seconds, as in fio's runtime= and fs_mark users' habits */
	static const char *const suf_s[] = { NULL };
	int64_t v;
	int r;

	r = scaled(s, suf_s, mult, &v);
	if (r == 0) {
		if (v > INT64_MAX / 1000000000)
			return -ERANGE;
		*ret_ns = v * 1000000000;
		return 0;
	}
	return scaled(s, suf, mult, ret_ns);
}

const struct fsb_opt *opt_find(const struct fsb_opt *tbl, const char *name)
{
	for (; tbl->name; tbl++)
		if (!strcmp(tbl->name, name))
			return tbl;
	return NULL;
}

static const char *flag_name(const struct fsb_opt *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c", o->short_name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/* Bounds as the user would type them: 8M rather than 8388608, 10ms rather than 10000000 ns. */
static void format_value(const struct fsb_opt *o, int64_t v, char *buf, size_t len)
{
	static const char *const size_suf[] = { "T", "G", "M", "k" };
	static const int size_shift[] = { 40, 30, 20, 10 };
	static const char *const dur_suf[] = { "h", "m", "s", "ms", "us" };
	static const int64_t dur_mult[] = { INT64_C(3600000000000), INT64_C(60000000000),
					    1000000000, 1000000, 1000 };

	if (o->type == OPT_SIZE && v > 0)
		for (int i = 0; i < 4; i++)
			if (v % (INT64_C(1) << size_shift[i]) == 0) {
				snprintf(buf, len, "%" PRId64 "%s", v >> size_shift[i],
					 size_suf[i]);
				return;
			}
	if (o->type == OPT_DURATION && v > 0) {
		for (int i = 0; i < 5; i++)
			if (v % dur_mult[i] == 0) {
				snprintf(buf, len, "%" PRId64 "%s", v / dur_mult[i], dur_suf[i]);
				return;
			}
		snprintf(buf, len, "%" PRId64 "ns", v);
		return;
	}
	snprintf(buf, len, "%" PRId64, v);
}

static int set_value(const struct fsb_opt *o, void *cfg, const char *value, char *err,
		     size_t errlen)
{
	char *field = (char *)cfg + o->offset, fl[64];
	int64_t v = 0;
	int r;

	flag_name(o, fl, sizeof(fl));
	switch (o->type) {
	case OPT_BOOL:
		if (!value || !strcmp(value, "1") || !strcasecmp(value, "true") ||
		    !strcasecmp(value, "yes"))
			*(bool *)field = true;
		else if (!strcmp(value, "0") || !strcasecmp(value, "false") ||
			 !strcasecmp(value, "no"))
			*(bool *)field = false;
		else
			return fail(err, errlen, "%s: '%s' is not a boolean (use 0/1, true/false)",
				    fl, value);
		return 0;
	case OPT_INT:
	case OPT_SIZE:
	case OPT_DURATION:
		if (o->type == OPT_INT)
			r = opt_parse_int(value, &v);
		else if (o->type == OPT_SIZE)
			r = opt_parse_size(value, &v);
		else
			r = opt_parse_duration(value, &v);
		if (r == -ERANGE)
			return fail(err, errlen, "%s: '%s' is too large", fl, value);
		if (r)
			return fail(err, errlen, "%s: '%s' is not %s", fl, value ? value : "",
				    o->type == OPT_INT	? "an integer" :
				    o->type == OPT_SIZE ? "a size (like 4096, 4k, 8M, 1G)" :
							  "a duration (like 30, 500ms, 10s, 2m)");
		if (v < o->min || v > o->max) {
			char lo[32], hi[32];

			format_value(o, o->min, lo, sizeof(lo));
			format_value(o, o->max, hi, sizeof(hi));
			return fail(err, errlen, "%s: %s is out of range %s..%s%s%s", fl, value, lo,
				    hi, o->unit && o->type == OPT_INT ? " " : "",
				    o->unit && o->type == OPT_INT ? o->unit : "");
		}
		*(int64_t *)field = v;
		return 0;
	case OPT_DOUBLE: {
		double d = 0;

		r = opt_parse_double(value, &d);
		if (r == -EINVAL)
			return fail(err, errlen, "%s: '%s' is not a number", fl,
				    value ? value : "");
		if (r == -ERANGE && !(o->nonfinite && !isfinite(d)))
			return fail(err, errlen, "%s: '%s' is %s", fl, value,
				    isfinite(d) ? "too large or too small" : "not a finite number");
		if (isfinite(d) && (d < o->dmin || d > o->dmax))
			return fail(err, errlen, "%s: %s is out of range %g..%g%s%s", fl, value,
				    o->dmin, o->dmax, o->unit ? " " : "", o->unit ? o->unit : "");
		*(double *)field = d;
		return 0;
	}
	case OPT_STRING: {
		char *dup = strdup(value ? value : "");

		if (!dup)
			return fail(err, errlen, "%s: %s", fl, strerror(ENOMEM));
		free(*(char **)field);
		*(char **)field = dup;
		return 0;
	}
	case OPT_STRLIST: {
		struct opt_strlist *l = (struct opt_strlist *)field;
		char *dup;

		if (l->n >= OPT_MAX_LIST)
			return fail(err, errlen, "%s: at most %d may be given", fl, OPT_MAX_LIST);
		dup = strdup(value ? value : "");
		if (!dup)
			return fail(err, errlen, "%s: %s", fl, strerror(ENOMEM));
		l->v[l->n++] = dup;
		return 0;
	}
	case OPT_ENUM:
		for (int i = 0; o->choices[i]; i++)
			if (value && !strcmp(value, o->choices[i])) {
				*(int *)field = i;
				return 0;
			}
		{
			char list[256] = "";

			for (int i = 0; o->choices[i]; i++) {
				strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
				strncat(list, o->choices[i], sizeof(list) - strlen(list) - 1);
			}
			return fail(err, errlen, "%s: '%s' is not one of %s", fl,
				    value ? value : "", list);
		}
	}
	return fail(err, errlen, "%s: unknown option type", fl);
}

int opt_set_defaults(const struct fsb_opt *tbl, void *cfg, char *err, size_t errlen)
{
	for (const struct fsb_opt *o = tbl; o->name; o++) {
		if (o->type == OPT_STRLIST || o->type == OPT_STRING)
			continue;
		if (!o->def) {
			if (o->type == OPT_BOOL)
				*(bool *)((char *)cfg + o->offset) = false;
			continue;
		}
		if (set_value(o, cfg, o->def, err, errlen))
			return -EINVAL;
	}
	for (const struct fsb_opt *o = tbl; o->name; o++)
		if (o->type == OPT_STRING && o->def && set_value(o, cfg, o->def, err, errlen))
			return -EINVAL;
	return 0;
}

int opt_set(const struct fsb_opt *tbl, void *cfg, const char *name, const char *value, char *err,
	    size_t errlen)
{
	const struct fsb_opt *o = opt_find(tbl, name);

	if (!o) {
		snprintf(err, errlen, "unknown option '%s'", name);
		return -ENOENT;
	}
	return set_value(o, cfg, value, err, errlen);
}

int opt_parse_argv(const struct fsb_opt *tbl, void *cfg, int argc, char **argv, char *err,
		   size_t errlen)
{
	struct option lo[OPT_TABLE_MAX + 2];
	char so[3 * OPT_TABLE_MAX + 4] = "+:h";
	size_t n = 0, sl = strlen(so);
	int c, idx;

	for (const struct fsb_opt *o = tbl; o->name; o++, n++) {
		if (n >= OPT_TABLE_MAX)
			return fail(err, errlen, "option table too large");
		lo[n] = (struct option){ o->name,
					 o->type == OPT_BOOL ? no_argument : required_argument,
					 NULL, 0x1000 + (int)n };
		if (o->short_name) {
			so[sl++] = (char)o->short_name;
			if (o->type != OPT_BOOL)
				so[sl++] = ':';
		}
	}
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ 0 };
	so[sl] = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, &idx)) != -1) {
		const struct fsb_opt *o = NULL;

		if (c == 'h')
			return -ECANCELED;
		if (c == '?')
			return optopt ? fail(err, errlen, "-%c: unknown option", optopt) :
					fail(err, errlen, "%s: unknown option", argv[optind - 1]);
		/* a long option's optopt is its val (0x1000 + index), not a character */
		if (c == ':' && optopt >= 0x1000 && optopt < 0x1000 + (int)n)
			return fail(err, errlen, "--%s: a value is required",
				    tbl[optopt - 0x1000].name);
		if (c == ':')
			return optopt ? fail(err, errlen, "-%c: a value is required", optopt) :
					fail(err, errlen, "%s: a value is required",
					     argv[optind - 1]);
		if (c >= 0x1000)
			o = &tbl[c - 0x1000];
		else
			for (const struct fsb_opt *p = tbl; p->name; p++)
				if (p->short_name == c)
					o = p;
		if (!o)
			return fail(err, errlen, "-%c: unknown option", c);
		if (set_value(o, cfg, o->type == OPT_BOOL ? NULL : optarg, err, errlen))
			return -EINVAL;
	}
	return optind;
}

void opt_help_text(const struct fsb_opt *o, char *buf, size_t len)
{
	size_t pos = 0;

	if (!len)
		return;
	buf[0] = '\0';
	base_appendf(buf, len, &pos, "%s", o->help);
	if (o->type == OPT_ENUM) {
		base_appendf(buf, len, &pos, " (");
		for (int i = 0; o->choices[i]; i++)
			base_appendf(buf, len, &pos, "%s%s", i ? ", " : "", o->choices[i]);
		base_appendf(buf, len, &pos, ")");
	}
	if (o->type == OPT_INT || o->type == OPT_SIZE || o->type == OPT_DURATION) {
		char lo[32], hi[32];

		format_value(o, o->min, lo, sizeof(lo));
		format_value(o, o->max, hi, sizeof(hi));
		base_appendf(buf, len, &pos, " [%s..%s%s%s]", lo, hi,
			     o->unit && o->type == OPT_INT ? " " : "",
			     o->unit && o->type == OPT_INT ? o->unit : "");
	}
	if (o->type == OPT_DOUBLE)
		base_appendf(buf, len, &pos, " [%g..%g%s%s]", o->dmin, o->dmax, o->unit ? " " : "",
			     o->unit ? o->unit : "");
	if (o->def)
		base_appendf(buf, len, &pos, " (default %s)", o->def);
}

static opt_help_hook_fn *help_hook;
static void *help_hook_data;

void opt_set_help_hook(opt_help_hook_fn *fn, void *data)
{
	help_hook = fn;
	help_hook_data = data;
}

void opt_print_help(const struct fsb_opt *tbl, FILE *out)
{
	if (help_hook) {
		help_hook(tbl, out, help_hook_data);
		return;
	}
	for (const struct fsb_opt *o = tbl; o->name; o++) {
		char left[64], text[1024];

		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s", o->short_name, o->name,
				 o->type == OPT_BOOL ? "" : " VALUE");
		else
			snprintf(left, sizeof(left), "    --%s%s", o->name,
				 o->type == OPT_BOOL ? "" : " VALUE");
		opt_help_text(o, text, sizeof(text));
		/* a name wider than the column: its text starts on the next line, in the column */
		if (strlen(left) > 28)
			fprintf(out, "  %s\n  %-28s %s\n", left, "", text);
		else
			fprintf(out, "  %-28s %s\n", left, text);
	}
}

void opt_free(const struct fsb_opt *tbl, void *cfg)
{
	for (const struct fsb_opt *o = tbl; o->name; o++) {
		char *field = (char *)cfg + o->offset;

		if (o->type == OPT_STRING) {
			free(*(char **)field);
			*(char **)field = NULL;
		} else if (o->type == OPT_STRLIST) {
			struct opt_strlist *l = (struct opt_strlist *)field;

			for (int i = 0; i < l->n; i++)
				free(l->v[i]);
			l->n = 0;
		}
	}
}

bool opt_same_value(const struct fsb_opt *o, const void *a, const void *b)
{
	const char *fa = (const char *)a + o->offset, *fb = (const char *)b + o->offset;

	switch (o->type) {
	case OPT_STRING: {
		const char *sa = *(char *const *)fa, *sb = *(char *const *)fb;
		return sa == sb || (sa && sb && !strcmp(sa, sb));
	}
	case OPT_BOOL:
		return *(const bool *)fa == *(const bool *)fb;
	case OPT_ENUM:
		return *(const int *)fa == *(const int *)fb;
	case OPT_DOUBLE: {
		double da = *(const double *)fa, db = *(const double *)fb;
		return da == db || (isnan(da) && isnan(db));
	}
	default:
		return *(const int64_t *)fa == *(const int64_t *)fb;
	}
}

int opt_next_changed(const struct fsb_opt *tbl, const void *cfg, const void *def,
		     const char *const *names, int from)
{
	for (int i = from; names[i]; i++) {
		const struct fsb_opt *o = opt_find(tbl, names[i]);

		if (o && !opt_same_value(o, cfg, def))
			return i;
	}
	return -1;
}
