/* URLs that fsbench hands on or fetches: one check of their form, shared by every option taking one. */
#ifndef BASE_URL_H
#define BASE_URL_H

#include <stddef.h>

/*
 * Whether @url, the value of option @what ("--lava-files-url"), is an http:// or https://
 * URL with a host, of printable ASCII without spaces, quotes or backslashes (it may go
 * into a job's YAML quoted, or to a fetch as it is), at most @max bytes. 0, or -EINVAL with
 * @err one line naming @what.
 */
int base_url_http_check(const char *url, const char *what, size_t max, char *err, size_t errlen);

#endif
