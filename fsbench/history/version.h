/* Kernel order: Debian package versions in dpkg's order, upstream releases, as a sortable key. */
#ifndef FSB_HIST_VERSION_H
#define FSB_HIST_VERSION_H

#include <stddef.h>

/*
 * dpkg's version order (deb-version(7), dpkg's verrevcmp): [EPOCH:]UPSTREAM[-REVISION], the
 * epoch compared as a number, then the upstream version and the revision each as runs of
 * non-digits (letters before other characters, '~' before everything, even the end) and
 * runs of digits (as numbers). <0, 0 or >0 as @a sorts before, with or after @b.
 */
int hist_version_cmp(const char *a, const char *b);

/*
 * An upstream kernel release ("6.1.0-47-amd64", "6.12.100+deb12-amd64", "6.13-rc2") in
 * release order: dpkg's order with every "-rc" read as "~rc", so that 6.13-rc2 comes before
 * 6.13.
 */
int hist_release_cmp(const char *a, const char *b);

/*
 * Writes to @out (NUL-terminated, at most @len bytes with the NUL) a key whose byte order
 * (strcmp) is hist_version_cmp()'s order of @version, or hist_release_cmp()'s when
 * @release. The key is lowercase hex, so that it sorts alike under any SQL collation that
 * orders digits before letters. Returns its length, or -ENAMETOOLONG when @len is too small
 * (HIST_KEY_MAX always suffices for a version of up to 255 bytes).
 */
int hist_version_key(const char *version, int release, char *out, size_t len);
#define HIST_KEY_MAX 2048

#endif
