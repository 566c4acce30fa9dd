/* Bytes from an untrusted source (a guest, a kernel image) made safe for a terminal or a log. */
#ifndef BASE_ESCAPE_H
#define BASE_ESCAPE_H

#include <stddef.h>

/*
 * Copies @n bytes of @in to @out (@outlen with its NUL) with every control character
 * (below 0x20, tab included), DEL, the C1 controls (U+0080..U+009F) and every byte that is
 * not part of valid UTF-8 written as \xNN, so what a guest or kernel image controls can
 * neither move the cursor, retitle the terminal nor forge a line. Valid printable UTF-8
 * stays. Cut at a whole character or escape when @out is full. Returns @out.
 */
char *base_escape(char *out, size_t outlen, const char *in, size_t n);

/* base_escape() of the NUL-terminated @in. */
char *base_escape_str(char *out, size_t outlen, const char *in);

#endif
