/* One-line errors into a caller's buffer. */
#include "base/errf.h"

#include <stdarg.h>
#include <stdio.h>

int errf(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return r;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return r;
}
