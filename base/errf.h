/* One-line errors into a caller's buffer: shared by fsbench/, probes/ and report/. */
#ifndef BASE_ERRF_H
#define BASE_ERRF_H

#include <stddef.h>

/* Formats @fmt into @err (truncating; nothing when @err is NULL) and returns @r, so callers can `return errf(...)`. */
int errf(char *err, size_t errlen, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
