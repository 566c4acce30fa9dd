/* The form of an http(s) URL an option takes (url.h). */
#include "base/url.h"

#include <errno.h>
#include <string.h>

#include "base/errf.h"

int base_url_http_check(const char *url, const char *what, size_t max, char *err, size_t errlen)
{
	size_t n = strlen(url), scheme = !strncmp(url, "https://", 8) ? 8 :
					 !strncmp(url, "http://", 7)  ? 7 :
									0;

	if (!scheme || n == scheme || url[scheme] == '/')
		return errf(err, errlen, -EINVAL,
			    "%s %.64s: not an http:// or https:// URL with a host", what, url);
	if (n > max)
		return errf(err, errlen, -EINVAL, "%s: longer than %zu bytes", what, max);
	for (const char *p = url; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\' || *p == '\'')
			return errf(
				err, errlen, -EINVAL,
				"%s: a space, quote, backslash or control character at byte %zu",
				what, (size_t)(p - url));
	return 0;
}
