/* One escaping for every byte a guest or a kernel image controls (escape.h). */
#include "base/escape.h"

#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at @p (at most @n bytes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF, and the C1 controls (CSI is U+009B) */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

char *base_escape(char *out, size_t outlen, const char *in, size_t n)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0;

	if (!outlen)
		return out;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(p + i, n - i);

		if (len && (p[i] >= 0x20 && p[i] != 0x7f)) {
			if (o + len >= outlen)
				break;
			memcpy(out + o, p + i, len);
			o += len;
			i += len;
			continue;
		}
		if (o + 4 >= outlen)
			break;
		snprintf(out + o, 5, "\\x%02x", p[i]);
		o += 4;
		i++;
	}
	out[o] = 0;
	return out;
}

char *base_escape_str(char *out, size_t outlen, const char *in)
{
	return base_escape(out, outlen, in, strlen(in));
}
