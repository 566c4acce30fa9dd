/* A kernel served over http(s), fetched once into the work directory with its SHA-256 (fetch.h). */
#include "fsbench/kgate/fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/dirfd.h"
#include "base/errf.h"
#include "base/fileio.h"
#include "base/signal.h"

/* a server that accepts the connection and then sends nothing for this long is given up */
#define FETCH_CONNECT_S 30L
#define FETCH_STALL_S 60L
#define FETCH_REDIRS 5L

int kg_fetch_sink_init(struct kg_fetch_sink *s, int fd, uint64_t max)
{
	*s = (struct kg_fetch_sink){ .fd = fd, .max = max };
	s->md = EVP_MD_CTX_new();
	if (!s->md || !EVP_DigestInit_ex(s->md, EVP_sha256(), NULL))
		return -ENOMEM;
	return 0;
}

int kg_fetch_sink_write(struct kg_fetch_sink *s, const void *p, size_t n)
{
	const char *b = p;

	if (s->error)
		return s->error;
	if (n > s->max - s->len)
		return s->error = -EFBIG;
	if (!EVP_DigestUpdate(s->md, p, n))
		return s->error = -EIO;
	for (size_t done = 0; done < n;) {
		ssize_t w = write(s->fd, b + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return s->error = w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	s->len += n;
	return 0;
}

int kg_fetch_sink_finish(struct kg_fetch_sink *s, char ret_hex[KG_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (s->error)
		return s->error;
	if (!EVP_DigestFinal_ex(s->md, md, &mdlen) || mdlen != 32)
		return -EIO;
	for (unsigned int i = 0; i < mdlen; i++)
		snprintf(ret_hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

void kg_fetch_sink_free(struct kg_fetch_sink *s)
{
	EVP_MD_CTX_free(s->md);
	s->md = NULL;
}

void kg_fetch_name(const char *url, char *out, size_t len)
{
	const char *path = strstr(url, "://") ? strstr(url, "://") + 3 : url;
	size_t end = strcspn(path, "?#"), start = end, o = 0;

	while (start > 0 && path[start - 1] != '/')
		start--;
	if (start == 0) /* the host alone */
		start = end;
	for (size_t i = start; i < end && o + 1 < len; i++) {
		char c = path[i];

		out[o++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					   (c >= '0' && c <= '9') || strchr("._+~-", c) ?
				   c :
				   '_';
	}
	out[o < len ? o : 0] = 0;
	if (!out[0] || out[0] == '.')
		base_strcpy(out, len, "kernel");
}

static size_t on_data(char *p, size_t size, size_t n, void *opaque)
{
	/* anything short of size * n makes curl stop with CURLE_WRITE_ERROR */
	return kg_fetch_sink_write(opaque, p, size * n) ? 0 : size * n;
}

/* A signal (base/signal.h's handlers) ends a fetch as it ends a boot. */
static int on_progress(void *opaque, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)opaque, (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return base_signal_received != 0;
}

/*
 * A new private directory fetched-LABEL-RANDOM beneath @dirfd (held in *@ret_dfd) and in it
 * a new file named for the URL, so that a .deb's cached extraction, named for the file and
 * its bytes, is found again by the next fetch of it: the file's descriptor, or -errno with
 * @err.
 */
static int fetch_create(int dirfd, const char *url, const char *label, struct kg_fetched *f,
			int *ret_dfd, char *err, size_t errlen)
{
	char prefix[64], dname[96], base[96], why[512];
	int dfd, fd;

	kg_fetch_name(url, base, sizeof(base));
	snprintf(prefix, sizeof(prefix), "fetched-%s-", label);
	dfd = base_dir_make_temp(dirfd, prefix, dname, sizeof(dname), why, sizeof(why));
	if (dfd < 0)
		return errf(err, errlen, dfd, "fetching %s: a directory in the work directory: %s",
			    url, why);
	snprintf(f->name, sizeof(f->name), "%s/%s", dname, base);
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fd = errf(err, errlen, -errno, "fetching %s: creating %s: %s", url, f->name,
			  strerror(errno));
		unlinkat(dirfd, dname, AT_REMOVEDIR);
		close(dfd);
		return fd;
	}
	*ret_dfd = dfd;
	return fd;
}

/* Why curl gave up on @url, one line into @err: the HTTP status, the bound, or curl's words. */
static int fetch_error(CURL *c, CURLcode cr, const struct kg_fetch_sink *s, const char *url,
		       const char *cerr, char *err, size_t errlen)
{
	long code = 0;

	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (cr == CURLE_HTTP_RETURNED_ERROR)
		return errf(err, errlen,
			    code == 404 ? -ENOENT :
			    code == 403 ? -EACCES :
					  -EPROTO,
			    "fetching %s: HTTP %ld", url, code);
	if (cr == CURLE_FILESIZE_EXCEEDED || s->error == -EFBIG)
		return errf(
			err, errlen, -EFBIG,
			"fetching %s: larger than %llu MiB, the most fsbench takes for a kernel",
			url, (unsigned long long)(s->max >> 20));
	if (s->error)
		return errf(err, errlen, s->error, "fetching %s: writing it: %s", url,
			    strerror(-s->error));
	if (cr == CURLE_ABORTED_BY_CALLBACK)
		return errf(err, errlen, -EINTR, "fetching %s: interrupted by signal %d", url,
			    (int)base_signal_received);
	return errf(err, errlen, cr == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -ECONNREFUSED,
		    "fetching %s: %s", url, cerr[0] ? cerr : curl_easy_strerror(cr));
}

int kg_fetch(int dirfd, const char *url, const char *label, uint64_t max, struct kg_fetched *ret,
	     char *err, size_t errlen)
{
	char cerr[CURL_ERROR_SIZE] = "";
	struct kg_fetch_sink s;
	CURL *c = NULL;
	CURLcode cr;
	int fd, dfd = -1, r;

	fd = fetch_create(dirfd, url, label, ret, &dfd, err, errlen);
	if (fd < 0)
		return fd;
	r = kg_fetch_sink_init(&s, fd, max);
	if (r || curl_global_init(CURL_GLOBAL_DEFAULT) || !(c = curl_easy_init())) {
		r = errf(err, errlen, -ENOMEM, "fetching %s: %s", url, strerror(ENOMEM));
		goto out;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, FETCH_REDIRS);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, FETCH_CONNECT_S);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, FETCH_STALL_S);
	/* refused before a byte when the server says its length; the sink bounds the rest */
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "fsbench/" FSB_VERSION);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	cr = curl_easy_perform(c);
	if (cr != CURLE_OK)
		r = fetch_error(c, cr, &s, url, cerr, err, errlen);
	else if ((r = kg_fetch_sink_finish(&s, ret->sha256)))
		errf(err, errlen, r, "fetching %s: its SHA-256: %s", url, strerror(-r));
	else if (fsync(fd))
		r = errf(err, errlen, -errno, "fetching %s: writing %s: %s", url, ret->name,
			 strerror(errno));
	ret->bytes = s.len;
out:
	curl_easy_cleanup(c);
	kg_fetch_sink_free(&s);
	if (close(fd) && !r)
		r = errf(err, errlen, -errno, "fetching %s: writing %s: %s", url, ret->name,
			 strerror(errno));
	if (r) { /* the file, then its directory: the name up to its '/' */
		char *slash = strchr(ret->name, '/');

		unlinkat(dfd, slash + 1, 0);
		*slash = 0;
		unlinkat(dirfd, ret->name, AT_REMOVEDIR);
	}
	close(dfd);
	return r;
}
