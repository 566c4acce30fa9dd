/* A kernel that a lab serves over http(s), fetched into the work directory (--baseline-url). */
#ifndef FSB_KGATE_FETCH_H
#define FSB_KGATE_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The most bytes fetched for a kernel: a distribution's linux-image .deb is 60-120 MiB
 * with its modules, a bzImage 10-15 MiB; a URL serving more is not a kernel and would fill
 * the work directory's disk.
 */
#define KG_FETCH_MAX (UINT64_C(1) << 30)
/* The longest --*-url taken. */
#define KG_FETCH_URL_MAX 1024
/* A SHA-256 in hex, with its NUL. */
#define KG_SHA256_HEX 65

/*
 * Where fetched bytes go: a file, at most @max bytes, hashed (SHA-256) as they are written.
 * kg_fetch_sink_init: 0 or -ENOMEM. kg_fetch_sink_write: all of @p written, 0; -EFBIG when
 * it would pass @max (nothing written), -errno of write() otherwise; after a failure every
 * call fails the same. kg_fetch_sink_finish: the hash in hex into @ret_hex, 0 or -EIO.
 * kg_fetch_sink_free releases the hash (not @fd, the caller's); safe after a failed init.
 */
struct kg_fetch_sink {
	int fd;
	uint64_t len, max;
	void *md; /* EVP_MD_CTX */
	int error; /* the first failure, sticky */
};
int kg_fetch_sink_init(struct kg_fetch_sink *s, int fd, uint64_t max);
int kg_fetch_sink_write(struct kg_fetch_sink *s, const void *p, size_t n);
int kg_fetch_sink_finish(struct kg_fetch_sink *s, char ret_hex[KG_SHA256_HEX]);
void kg_fetch_sink_free(struct kg_fetch_sink *s);

/*
 * The file name a fetch of @url gets: its path's last component (no query or fragment),
 * each byte outside [A-Za-z0-9._+~-] made '_', "kernel" when empty or a dot name; a .deb's
 * stays one, which kernel resolution goes by.
 */
void kg_fetch_name(const char *url, char *out, size_t len);

/* What a fetch left. */
struct kg_fetched {
	char name[200]; /* beneath the directory: fetched-LABEL-RANDOM/NAME (kg_fetch_name) */
	char sha256[KG_SHA256_HEX];
	uint64_t bytes;
};

/*
 * Fetches @url (http or https, redirects too; base_url_http_check'ed) once into a new file
 * (O_EXCL, O_NOFOLLOW, 0600) named kg_fetch_name in a new private directory for @label
 * ("baseline") beneath the directory held as @dirfd, at most @max bytes: 0 with @ret filled, or -errno with
 * @err one line naming the URL and why (its HTTP status, curl's words, the bound), and the
 * partial file and its directory removed.
 */
int kg_fetch(int dirfd, const char *url, const char *label, uint64_t max, struct kg_fetched *ret,
	     char *err, size_t errlen);

#endif
