/* Kernel order: dpkg's version comparison, upstream release order, and a key that sorts alike. */
#include "fsbench/history/version.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* dpkg's lib/dpkg/version.c order(): '~' first, the end (or a digit) next, letters, the rest. */
static int order(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	return c ? c + 256 : 0;
}

/* dpkg's verrevcmp() over [@a, @ae) and [@b, @be). */
static int verrevcmp(const char *a, const char *ae, const char *b, const char *be)
{
#define AT(p, e) ((p) < (e) ? (unsigned char)*(p) : 0)
	while (AT(a, ae) || AT(b, be)) {
		int first_diff = 0;

		while ((AT(a, ae) && !isdigit(AT(a, ae))) || (AT(b, be) && !isdigit(AT(b, be)))) {
			int ac = order(AT(a, ae)), bc = order(AT(b, be));

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (AT(a, ae) == '0')
			a++;
		while (AT(b, be) == '0')
			b++;
		while (isdigit(AT(a, ae)) && isdigit(AT(b, be))) {
			if (!first_diff)
				first_diff = AT(a, ae) - AT(b, be);
			a++;
			b++;
		}
		if (isdigit(AT(a, ae)))
			return 1;
		if (isdigit(AT(b, be)))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
#undef AT
}

/* A version split as dpkg's parseversion() splits it: the epoch, upstream, revision. */
struct parts {
	const char *epoch, *epoch_end, *up, *up_end, *rev, *rev_end;
};

static struct parts split(const char *v)
{
	const char *colon = strchr(v, ':'), *end = v + strlen(v), *dash;
	struct parts p = { v, v, v, end, end, end };

	if (colon) {
		p.epoch_end = colon;
		p.up = colon + 1;
	}
	dash = strrchr(p.up, '-');
	if (dash) {
		p.up_end = dash;
		p.rev = dash + 1;
	}
	return p;
}

int hist_version_cmp(const char *a, const char *b)
{
	struct parts pa = split(a), pb = split(b);
	int r;

	/* the epoch is a number: compared as one digit run, as the rest compares numbers */
	r = verrevcmp(pa.epoch, pa.epoch_end, pb.epoch, pb.epoch_end);
	if (!r)
		r = verrevcmp(pa.up, pa.up_end, pb.up, pb.up_end);
	if (!r)
		r = verrevcmp(pa.rev, pa.rev_end, pb.rev, pb.rev_end);
	return r;
}

/* @s with every "-rc" turned into "~rc", in a new string; NULL without memory. */
static char *release_form(const char *s)
{
	char *r = strdup(s);

	for (char *p = r; p && (p = strstr(p, "-rc")); p += 3)
		*p = '~';
	return r;
}

int hist_release_cmp(const char *a, const char *b)
{
	char *x = release_form(a), *y = release_form(b);
	int r = x && y ? verrevcmp(x, x + strlen(x), y, y + strlen(y)) : strcmp(a, b);

	free(x);
	free(y);
	return r;
}

/*
 * The key's bytes, before hex: order() as a byte ('~' 1, the end of a non-digit run 2,
 * letters their ASCII, anything else 0x80 + its ASCII), and each digit run as its length
 * without leading zeros (one byte) then its digits, so that a longer number sorts after.
 * Every run is closed, and a final 2 stands for the end of the string, which dpkg reads as
 * an empty non-digit run; the epoch goes first as a digit run, the revision last.
 */
struct keybuf {
	unsigned char b[HIST_KEY_MAX / 2];
	size_t n;
	int full;
};

static void put(struct keybuf *k, unsigned char c)
{
	if (k->n < sizeof(k->b))
		k->b[k->n++] = c;
	else
		k->full = 1;
}

static void put_digits(struct keybuf *k, const char **s, const char *e)
{
	const char *d;

	while (*s < e && **s == '0')
		(*s)++;
	for (d = *s; d < e && isdigit((unsigned char)*d); d++)
		;
	if (d - *s > 255)
		k->full = 1;
	put(k, (unsigned char)(d - *s));
	for (; *s < d; (*s)++)
		put(k, (unsigned char)**s);
}

static void put_runs(struct keybuf *k, const char *s, const char *e)
{
	do {
		for (; s < e && !isdigit((unsigned char)*s); s++) {
			unsigned char c = (unsigned char)*s;

			put(k, c == '~' ? 1 : isalpha(c) ? c : c < 0x80 ? 0x80 + c : 0xff);
		}
		put(k, 2);
		put_digits(k, &s, e);
	} while (s < e);
	put(k, 2);
}

int hist_version_key(const char *version, int release, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	struct keybuf *k = calloc(1, sizeof(*k));
	char *form = NULL;
	int r = -ENOMEM;

	if (!k)
		return -ENOMEM;
	if (release) {
		form = release_form(version);
		if (!form)
			goto out;
		put_runs(k, form, form + strlen(form));
	} else {
		struct parts p = split(version);

		put_digits(k, &p.epoch, p.epoch_end);
		put_runs(k, p.up, p.up_end);
		put_runs(k, p.rev, p.rev_end);
	}
	r = -ENAMETOOLONG;
	if (k->full || 2 * k->n + 1 > len)
		goto out;
	for (size_t i = 0; i < k->n; i++) {
		out[2 * i] = hex[k->b[i] >> 4];
		out[2 * i + 1] = hex[k->b[i] & 15];
	}
	out[2 * k->n] = 0;
	r = (int)(2 * k->n);
out:
	free(form);
	free(k);
	return r;
}
