/* A LAVA server's REST API (v0.2) over libcurl: submit, wait, results, log tail, cancel. */
#include "fsbench/lava/client.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/errf.h"
#include "base/fileio.h"
#include "base/signal.h"

#define TOKEN_FILE_MAX 4096
#define URL_MAX 1024
/* a job's status or a submission's answer is a few KiB; results and logs are the big ones */
#define SMALL_MAX (1 << 20)
#define BIG_MAX (64 << 20)
/* what of a refused request's body goes into a message */
#define BODY_EXCERPT 200
#define POLL_FIRST_MS 1000
#define POLL_MAX_MS 15000

struct lava_client {
	CURL *curl;
	struct curl_slist *headers;
	char url[URL_MAX]; /* without its trailing '/' */
	char auth[TOKEN_FILE_MAX + 32];
};

/* A response: its bytes, NUL-terminated, at most cap. */
struct body {
	char *buf;
	size_t len, cap;
	bool over;
};

/* @src into @dst with control and non-ASCII bytes as \xNN (and '\\' doubled): safe to print. */
static void esc(char *dst, size_t len, const char *src, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		unsigned char ch = (unsigned char)src[i];

		if (ch == '\\') {
			dst[o++] = '\\';
			dst[o++] = '\\';
		} else if (ch < 0x20 || ch >= 0x7f)
			o += (size_t)snprintf(dst + o, len - o, "\\x%02x", ch);
		else
			dst[o++] = (char)ch;
	}
	if (len)
		dst[o < len ? o : len - 1] = 0;
}

static size_t on_data(char *p, size_t size, size_t n, void *opaque)
{
	struct body *b = opaque;
	size_t add = size * n;
	char *nb;

	if (add > b->cap - b->len) {
		b->over = true;
		return 0; /* curl stops with CURLE_WRITE_ERROR */
	}
	nb = realloc(b->buf, b->len + add + 1);
	if (!nb)
		return 0;
	b->buf = nb;
	memcpy(b->buf + b->len, p, add);
	b->len += add;
	b->buf[b->len] = 0;
	return add;
}

/*
 * One request to @path (below the base URL): GET, or POST of @post (JSON). The body in *@b
 * (capped); 0 only for a 2xx answer, else -errno with a message naming the URL and why.
 */
static int request(struct lava_client *c, const char *path, const char *post, struct body *b,
		   char *err, size_t errlen)
{
	char url[URL_MAX + 128], excerpt[BODY_EXCERPT * 4 + 1];
	long code = 0;
	CURLcode cr;

	b->buf = NULL;
	b->len = 0;
	b->over = false;
	if (base_path(url, sizeof(url), "%s%s", c->url, path))
		return errf(err, errlen, -ENAMETOOLONG, "%s%s: URL too long", c->url, path);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, b);
	if (post) {
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, post);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(post));
	} else
		curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	cr = curl_easy_perform(c->curl);
	if (cr == CURLE_WRITE_ERROR && b->over)
		return errf(err, errlen, -EFBIG, "%s: the answer is larger than %zu bytes", url,
			    b->cap);
	if (cr != CURLE_OK)
		return errf(err, errlen,
			    cr == CURLE_OPERATION_TIMEDOUT			 ? -ETIMEDOUT :
			    cr == CURLE_OUT_OF_MEMORY || cr == CURLE_WRITE_ERROR ? -ENOMEM :
										   -ECONNREFUSED,
			    "%s: %s", url, curl_easy_strerror(cr));
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300)
		return 0;
	esc(excerpt, sizeof(excerpt), b->buf ? b->buf : "",
	    b->len < BODY_EXCERPT ? b->len : BODY_EXCERPT);
	return errf(err, errlen,
		    code == 401 || code == 403 ? -EACCES :
		    code == 404		       ? -ENOENT :
		    code == 400		       ? -EINVAL :
		    code >= 500		       ? -EAGAIN : /* a server restarting: try again */
						 -EPROTO,
		    "%s: HTTP %ld%s%s", url, code, excerpt[0] ? ": " : "", excerpt);
}

/* The token: one line of [A-Za-z0-9._-], from a file only root or the caller can have written. */
static int read_token(const char *path, char *tok, size_t len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	ssize_t n;
	char buf[TOKEN_FILE_MAX + 1];

	if (fd < 0)
		return errf(err, errlen, -errno, "token file %s: %s", path,
			    errno == ELOOP ? "a symlink (not followed)" : strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return errf(err, errlen, -EINVAL, "token file %s: not a regular file", path);
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		close(fd);
		return errf(err, errlen, -EPERM,
			    "token file %s: owned by uid %u, neither root nor you", path,
			    (unsigned)st.st_uid);
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		close(fd);
		return errf(err, errlen, -EPERM,
			    "token file %s: writable by its group or others (mode %04o)", path,
			    (unsigned)(st.st_mode & 07777));
	}
	n = base_read_fd(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return errf(err, errlen, (int)n, "token file %s: %s", path, strerror((int)-n));
	if (n > TOKEN_FILE_MAX)
		return errf(err, errlen, -EFBIG, "token file %s: larger than %d bytes", path,
			    TOKEN_FILE_MAX);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = 0;
	if (!n || (size_t)n >= len ||
	    strspn(buf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    (size_t)n)
		return errf(err, errlen, -EINVAL,
			    "token file %s: not one token of letters, digits and ._-", path);
	memcpy(tok, buf, (size_t)n + 1);
	return 0;
}

int lava_client_open(const char *url, const char *token_file, struct lava_client **ret, char *err,
		     size_t errlen)
{
	struct lava_client *c;
	char tok[TOKEN_FILE_MAX + 1];
	size_t n = url ? strlen(url) : 0;
	int r;

	*ret = NULL;
	if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) || n >= URL_MAX)
		return errf(err, errlen, -EINVAL, "LAVA URL '%s': not an http:// or https:// URL",
			    url ? url : "");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)url[i] <= ' ' || (unsigned char)url[i] >= 0x7f)
			return errf(err, errlen, -EINVAL,
				    "LAVA URL: a space or control character at byte %zu", i);
	if ((r = read_token(token_file, tok, sizeof(tok), err, errlen)))
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	memcpy(c->url, url, n + 1);
	while (n > 0 && c->url[n - 1] == '/')
		c->url[--n] = 0;
	snprintf(c->auth, sizeof(c->auth), "Authorization: Token %s", tok);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	c->curl = curl_easy_init();
	c->headers = curl_slist_append(NULL, c->auth);
	if (c->headers)
		c->headers = curl_slist_append(c->headers, "Content-Type: application/json");
	if (!c->curl || !c->headers) {
		lava_client_close(c);
		return errf(err, errlen, -ENOMEM, "libcurl: %s", strerror(ENOMEM));
	}
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 120L);
	/* no redirects: the token goes to the server named, nowhere else */
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "fsbench/" FSB_VERSION);
	*ret = c;
	return 0;
}

void lava_client_close(struct lava_client *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	explicit_bzero(c->auth, sizeof(c->auth));
	free(c);
}

const char *lava_client_url(const struct lava_client *c)
{
	return c->url;
}

/* A JSON answer, parsed; a message naming @path when it is not an object. */
static int get_json(struct lava_client *c, const char *path, const char *post, json_t **ret,
		    char *err, size_t errlen)
{
	struct body b = { .cap = SMALL_MAX };
	json_error_t je;
	int r = request(c, path, post, &b, err, errlen);

	*ret = NULL;
	if (!r) {
		*ret = json_loadb(b.buf ? b.buf : "", b.len, JSON_REJECT_DUPLICATES, &je);
		if (!json_is_object(*ret)) {
			json_decref(*ret);
			*ret = NULL;
			r = errf(err, errlen, -EPROTO, "%s%s: not a JSON object (%s)", c->url, path,
				 je.text);
		}
	}
	free(b.buf);
	return r;
}

int lava_job_submit(struct lava_client *c, const char *yaml, long *ret_id, char *err, size_t errlen)
{
	json_t *req = json_pack("{s:s}", "definition", yaml), *ans = NULL, *ids;
	char *post = req ? json_dumps(req, JSON_COMPACT) : NULL;
	int r;

	json_decref(req);
	if (!post)
		return errf(err, errlen, -EINVAL, "the job is not UTF-8 text");
	r = get_json(c, "/api/v0.2/jobs/", post, &ans, err, errlen);
	free(post);
	if (r)
		return r;
	ids = json_object_get(ans, "job_ids");
	/* a multinode job has several ids: fsbench's jobs are one device each */
	if (json_array_size(ids) != 1 || !json_is_integer(json_array_get(ids, 0)) ||
	    json_integer_value(json_array_get(ids, 0)) <= 0)
		r = errf(err, errlen, -EPROTO, "%s/api/v0.2/jobs/: no single job id in the answer",
			 c->url);
	else
		*ret_id = (long)json_integer_value(json_array_get(ids, 0));
	json_decref(ans);
	return r;
}

static void copy_field(char *dst, size_t len, const json_t *doc, const char *key)
{
	const char *s = json_string_value(json_object_get(doc, key));

	esc(dst, len, s ? s : "", s ? strlen(s) : 0);
}

int lava_job_status(struct lava_client *c, long id, struct lava_job_status *st, char *err,
		    size_t errlen)
{
	char path[64];
	json_t *doc;
	int r;

	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/", id);
	if ((r = get_json(c, path, NULL, &doc, err, errlen)))
		return r;
	copy_field(st->state, sizeof(st->state), doc, "state");
	copy_field(st->health, sizeof(st->health), doc, "health");
	copy_field(st->failure_comment, sizeof(st->failure_comment), doc, "failure_comment");
	copy_field(st->device, sizeof(st->device), doc, "actual_device");
	json_decref(doc);
	if (!st->state[0])
		return errf(err, errlen, -EPROTO, "%s%s: no state in the answer", c->url, path);
	return 0;
}

int lava_devices_idle(struct lava_client *c, const char *device_type, int *ret_n, char *err,
		      size_t errlen)
{
	char path[256];
	const json_t *d;
	json_t *doc;
	size_t i;
	int r, n = 0;

	*ret_n = 0;
	/* the type reaches the URL: a name as LAVA allows one, nothing to escape */
	if (!device_type[0] || strlen(device_type) > 64 ||
	    strspn(device_type,
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
		    strlen(device_type))
		return errf(err, errlen, -EINVAL, "device type '%s': not a LAVA name", device_type);
	snprintf(path, sizeof(path), "/api/v0.2/devices/?device_type=%s&limit=1000", device_type);
	if ((r = get_json(c, path, NULL, &doc, err, errlen)))
		return r;
	json_array_foreach(json_object_get(doc, "results"), i, d)
	{
		const char *t = json_string_value(json_object_get(d, "device_type"));
		const char *st = json_string_value(json_object_get(d, "state"));
		const char *h = json_string_value(json_object_get(d, "health"));

		n += t && st && h && !strcmp(t, device_type) && !strcmp(st, "Idle") &&
		     (!strcmp(h, "Good") || !strcmp(h, "Unknown"));
	}
	json_decref(doc);
	*ret_n = n;
	return 0;
}

/* A name LAVA gives a device or a worker, safe in a URL's path: [A-Za-z0-9._-], 1 to 100. */
static bool lava_name(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 100 && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/*
 * The worker that runs device @device and its state ("Online", "Offline"), as LAVA sees
 * it: GET /api/v0.2/devices/DEVICE/ (worker_host), then /api/v0.2/workers/WORKER/.
 */
static int worker_state(struct lava_client *c, const char *device, char *worker, size_t wlen,
			char *state, size_t slen, char *err, size_t errlen)
{
	char path[256];
	json_t *doc;
	int r;

	worker[0] = state[0] = 0;
	if (!lava_name(device))
		return errf(err, errlen, -EPROTO, "device '%s': not a LAVA name", device);
	snprintf(path, sizeof(path), "/api/v0.2/devices/%s/", device);
	if ((r = get_json(c, path, NULL, &doc, err, errlen)))
		return r;
	copy_field(worker, wlen, doc, "worker_host");
	json_decref(doc);
	if (!lava_name(worker))
		return errf(err, errlen, -EPROTO, "device %s: no worker named", device);
	snprintf(path, sizeof(path), "/api/v0.2/workers/%s/", worker);
	if ((r = get_json(c, path, NULL, &doc, err, errlen)))
		return r;
	copy_field(state, slen, doc, "state");
	json_decref(doc);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int lava_job_wait(struct lava_client *c, long id, unsigned timeout_s, struct lava_job_status *st,
		  char *err, size_t errlen)
{
	double end = now_s() + timeout_s, offline_since = 0;
	long delay_ms = POLL_FIRST_MS;
	int r;

	memset(st, 0, sizeof(*st));
	for (;;) {
		/* a signal (base/signal.h's handlers, the gate's) ends the wait, not the job */
		if (base_signal_received)
			return errf(err, errlen, -EINTR,
				    "job %ld (%s/scheduler/job/%ld): interrupted by signal %d", id,
				    c->url, id, (int)base_signal_received);
		r = lava_job_status(c, id, st, err, errlen);
		if (!r && !strcmp(st->state, "Finished"))
			return 0;
		/* a job that does not exist or a refused token will not get better */
		if (r == -ENOENT || r == -EACCES || r == -EPROTO)
			return r;
		/* a running job's worker gone (killed, its host down) is lost, not slow */
		if (!r && !strcmp(st->state, "Running") && st->device[0]) {
			char worker[128], wstate[32], e2[256];

			if (!worker_state(c, st->device, worker, sizeof(worker), wstate,
					  sizeof(wstate), e2, sizeof(e2)) &&
			    !strcmp(wstate, "Offline")) {
				if (!offline_since)
					offline_since = now_s();
				if (now_s() - offline_since >= LAVA_WORKER_LOST_S)
					return errf(err, errlen, -EHOSTDOWN,
						    "job %ld (%s/scheduler/job/%ld): worker %s "
						    "(device %s) offline for %d s: lost",
						    id, c->url, id, worker, st->device,
						    (int)(now_s() - offline_since));
			} else {
				offline_since = 0;
			}
		}
		if (timeout_s && now_s() + (double)delay_ms / 1000 > end) {
			char last[512];

			snprintf(last, sizeof(last), "%s", r ? err : st->state);
			return errf(
				err, errlen, -ETIMEDOUT,
				"job %ld (%s/scheduler/job/%ld): not finished after %u s (%s%s)",
				id, c->url, id, timeout_s, r ? "last error: " : "state ", last);
		}
		struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		delay_ms = delay_ms * 3 / 2 > POLL_MAX_MS ? POLL_MAX_MS : delay_ms * 3 / 2;
	}
}

int lava_job_results(struct lava_client *c, long id, char **ret, size_t *ret_len, char *err,
		     size_t errlen)
{
	struct body b = { .cap = BIG_MAX };
	char path[64];
	int r;

	*ret = NULL;
	snprintf(path, sizeof(path), "/results/%ld/yaml", id);
	if ((r = request(c, path, NULL, &b, err, errlen))) {
		free(b.buf);
		return r;
	}
	if (!b.buf || memchr(b.buf, 0, b.len)) {
		free(b.buf);
		return errf(err, errlen, -EPROTO, "%s%s: %s", c->url, path,
			    b.buf ? "a NUL byte in the results" : "no results");
	}
	*ret = b.buf;
	*ret_len = b.len;
	return 0;
}

static json_t *log_entry(const char *line, const char *lvl, const char **msg);

/*
 * One log line, "- {"dt": ..., "lvl": ..., "msg": ...}" (YAML in JSON's syntax): "LEVEL: MSG",
 * escaped, appended to @out. A line that is not that is kept whole, escaped.
 */
static void log_line(const char *p, size_t n, char *out, size_t outlen)
{
	json_t *j = n > 2 && !strncmp(p, "- ", 2) ? json_loadb(p + 2, n - 2, 0, NULL) : NULL;
	const json_t *msg = json_object_get(j, "msg");
	const char *lvl = json_string_value(json_object_get(j, "lvl"));
	char *ms = msg && !json_is_string(msg) ? json_dumps(msg, JSON_COMPACT) : NULL;
	const char *text = json_is_string(msg) ? json_string_value(msg) : ms;
	size_t o = strlen(out);

	if (o + 4 >= outlen)
		goto done;
	if (o)
		out[o++] = '\n';
	if (text && lvl) {
		o += (size_t)snprintf(out + o, outlen - o, "  %.16s: ", lvl);
		if (o < outlen)
			esc(out + o, outlen - o, text, strlen(text));
	} else
		esc(out + o, outlen - o, p, n);
done:
	free(ms);
	json_decref(j);
}

int lava_job_log_tail(struct lava_client *c, long id, unsigned lines, char **ret, char *fault,
		      size_t faultlen, char *err, size_t errlen)
{
	struct body b = { .cap = BIG_MAX };
	size_t outlen = (size_t)lines * 1024 + 1;
	const char *start;
	char path[64], *out;
	unsigned k = 0;
	int r;

	*ret = NULL;
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/logs/", id);
	if ((r = request(c, path, NULL, &b, err, errlen))) {
		free(b.buf);
		return r;
	}
	out = calloc(1, outlen);
	if (!out) {
		free(b.buf);
		return errf(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	}
	if (fault)
		lava_log_kernel_fault(b.buf, b.len, fault, faultlen);
	/* back from the end to the start of the last @lines lines */
	start = b.buf ? b.buf + b.len : NULL;
	while (start && start > b.buf && k < lines) {
		start--;
		if (*start == '\n' && start + 1 < b.buf + b.len && ++k >= lines) {
			start++;
			break;
		}
	}
	while (start && *start) {
		const char *nl = strchr(start, '\n');
		size_t n = nl ? (size_t)(nl - start) : strlen(start);

		if (n)
			log_line(start, n, out, outlen);
		start += n + (nl ? 1 : 0);
	}
	free(b.buf);
	*ret = out;
	return 0;
}

/* A log line's message when it is a string of level @lvl (NULL: any), as a new JSON. */
static json_t *log_entry(const char *line, const char *lvl, const char **msg)
{
	json_t *j;

	*msg = NULL;
	/* a line an entry: "- {dt: ..., lvl: ..., msg: ...}" in YAML's flow style, JSON */
	if (strncmp(line, "- {", 3) || !(j = json_loads(line + 2, 0, NULL)))
		return NULL;
	const char *l = json_string_value(json_object_get(j, "lvl"));

	if (!lvl || (l && !strcmp(l, lvl)))
		*msg = json_string_value(json_object_get(j, "msg"));
	return j;
}

void lava_log_kernel_fault(const char *log, size_t len, char *out, size_t outlen)
{
	/* what the kernel prints first when it fails: an oops's BUG: or Oops:, or the panic */
	static const char *const words[] = { "BUG: ", "Oops: ", "Kernel panic" };
	const char *end = log ? log + len : NULL;

	if (outlen)
		out[0] = 0;
	for (const char *line = log, *nl; line && line < end && outlen; line = nl ? nl + 1 : NULL) {
		const char *msg, *at = NULL;
		char buf[4096];
		size_t n;
		json_t *j;

		nl = memchr(line, '\n', (size_t)(end - line));
		n = nl ? (size_t)(nl - line) : (size_t)(end - line);
		if (n >= sizeof(buf) || !memmem(line, n, "\"target\"", 8))
			continue;
		memcpy(buf, line, n);
		buf[n] = 0;
		if (!(j = log_entry(buf, "target", &msg)))
			continue;
		for (size_t w = 0; msg && !at && w < sizeof(words) / sizeof(words[0]); w++)
			at = strstr(msg, words[w]);
		if (at)
			esc(out, outlen, at, strlen(at));
		json_decref(j);
		if (at)
			return;
	}
}

/* The base64 text @b64 (@n bytes) decoded into @f->result, or @f->result_why says why not. */
static void log_result(struct lava_log_facts *f, const char *b64, size_t n)
{
	size_t pad = 0;
	int got;

	if (!n || n % 4 || n / 4 * 3 > LAVA_LOG_RESULT_MAX) {
		snprintf(f->result_why, sizeof(f->result_why), "%zu base64 bytes: %s", n,
			 n / 4 * 3 > LAVA_LOG_RESULT_MAX ? "over 32 MiB" : "not whole quads");
		return;
	}
	if (!(f->result = malloc(n / 4 * 3 + 1))) {
		snprintf(f->result_why, sizeof(f->result_why), "%s", strerror(ENOMEM));
		return;
	}
	got = EVP_DecodeBlock((unsigned char *)f->result, (const unsigned char *)b64, (int)n);
	pad = (b64[n - 1] == '=') + (b64[n - 2] == '=');
	if (got < 0 || (size_t)got < pad) {
		free(f->result);
		f->result = NULL;
		snprintf(f->result_why, sizeof(f->result_why), "not base64");
		return;
	}
	f->result_len = (size_t)got - pad;
}

int lava_job_log_facts(struct lava_client *c, long id, struct lava_log_facts *f, char *err,
		       size_t errlen)
{
	struct body b = { .cap = BIG_MAX };
	char path[64];
	int r;

	*f = (struct lava_log_facts){ 0 };
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/logs/", id);
	if (!(r = request(c, path, NULL, &b, err, errlen)) &&
	    (r = lava_log_facts_parse(b.buf, b.len, f)))
		errf(err, errlen, r, "job %ld's log: %s", id, strerror(-r));
	free(b.buf);
	return r;
}

int lava_log_facts_parse(char *log, size_t len, struct lava_log_facts *f)
{
	static const char key[] = "Boot command: ";
	char *b64 = NULL;
	size_t n64 = 0;
	int r = 0, in = 0; /* 1 between the result's markers, 2 after them */

	*f = (struct lava_log_facts){ 0 };
	if (log && !(b64 = malloc(len + 1)))
		r = -ENOMEM;
	for (char *line = log, *nl; !r && line && *line; line = nl ? nl + 1 : NULL) {
		const char *msg;
		json_t *j;

		if ((nl = strchr(line, '\n')))
			*nl = 0;
		if (!f->boot_command && strstr(line, key) && (j = log_entry(line, "info", &msg))) {
			if (msg && !strncmp(msg, key, sizeof(key) - 1))
				f->boot_command = strdup(msg + sizeof(key) - 1);
			json_decref(j);
			continue;
		}
		if (in == 2 || !strstr(line, "\"target\"") ||
		    !(j = log_entry(line, "target", &msg)))
			continue;
		if (msg && !strcmp(msg, "FSBENCH-RESULT-BEGIN"))
			in = 1;
		else if (msg && !strcmp(msg, "FSBENCH-RESULT-END"))
			in = 2;
		/* the shell's trace of each command (+ ...) is no part of it */
		else if (in == 1 && msg && strncmp(msg, "+ ", 2))
			for (const char *p = msg; *p; p++)
				if (isalnum((unsigned char)*p) || *p == '+' || *p == '/' ||
				    *p == '=')
					b64[n64++] = *p;
		json_decref(j);
	}
	if (!r && in == 2)
		log_result(f, b64, n64);
	free(b64);
	return r;
}

void lava_log_facts_free(struct lava_log_facts *f)
{
	free(f->boot_command);
	free(f->result);
	f->boot_command = f->result = NULL;
}

int lava_job_cancel(struct lava_client *c, long id, char *err, size_t errlen)
{
	struct body b = { .cap = SMALL_MAX };
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/cancel/", id);
	r = request(c, path, NULL, &b, err, errlen);
	free(b.buf);
	return r;
}

int lava_save(const char *path, const char *buf, size_t len)
{
	char *tmp = NULL;
	FILE *f = base_out_open(path, &tmp);

	if (!f)
		return -errno;
	return base_out_commit(f, tmp, path, fwrite(buf, 1, len, f) != len ? -EIO : 0);
}

int lava_boot(struct lava_client *c, const char *job_yaml, unsigned timeout_s, long *ret_id,
	      char **ret_results, size_t *ret_len, char *err, size_t errlen)
{
	struct lava_job_status st;
	char *tail = NULL, e2[256];
	long id = 0;
	int r;

	*ret_results = NULL;
	*ret_id = 0;
	if ((r = lava_job_submit(c, job_yaml, &id, err, errlen)))
		return r;
	*ret_id = id;
	r = lava_job_wait(c, id, timeout_s, &st, err, errlen);
	if (r == -ETIMEDOUT || r == -EINTR || r == -EHOSTDOWN) /* the message says why */
		lava_job_cancel(c, id, e2, sizeof(e2));
	if (r)
		return r;
	if (strcmp(st.health, "Complete")) {
		char fault[512] = "";

		if (lava_job_log_tail(c, id, 20, &tail, fault, sizeof(fault), e2, sizeof(e2)))
			tail = NULL;
		r = errf(err, errlen, !strcmp(st.health, "Canceled") ? -ECANCELED : -EIO,
			 "job %ld (%s/scheduler/job/%ld) finished %s%s%s%s%s; the log's last "
			 "lines:\n%s",
			 id, c->url, id, st.health[0] ? st.health : "without a health",
			 st.failure_comment[0] ? ": " : "", st.failure_comment,
			 fault[0] ? "; the guest's kernel failed: " : "", fault, tail ? tail : e2);
		free(tail);
		return r;
	}
	return lava_job_results(c, id, ret_results, ret_len, err, errlen);
}

/* a job's YAML is a few KiB; LAVA itself refuses far smaller definitions than this */
#define JOB_FILE_MAX (1 << 20)

char *lava_job_read(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf;
	ssize_t n;

	bool bad_stat = fd >= 0 && fstat(fd, &st);
	int e = errno;

	if (fd < 0 || bad_stat || !S_ISREG(st.st_mode) || st.st_size > JOB_FILE_MAX) {
		/* errno from open or fstat; st only read once fstat filled it */
		snprintf(err, errlen, "%s: %s", path,
			 fd < 0 || bad_stat   ? strerror(e) :
			 !S_ISREG(st.st_mode) ? "not a regular file" :
						"larger than 1 MiB");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? base_read_fd(fd, buf, (size_t)st.st_size) : -ENOMEM;
	close(fd);
	if (n < 0 || memchr(buf, 0, (size_t)n)) {
		snprintf(err, errlen, "%s: %s", path, n < 0 ? strerror((int)-n) : "a NUL byte");
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

int lava_job_collect(struct lava_client *c, long id, const char *name, unsigned timeout_s,
		     unsigned tail_lines, const char *out, bool in_dir, lava_report_fn *report,
		     void *data)
{
	struct lava_job_status js;
	char err[8192], e2[512], path[PATH_MAX], *res = NULL, *tail = NULL;
	size_t len = 0;
	int e = lava_job_wait(c, id, timeout_s, &js, err, sizeof(err));

	if (e == -ETIMEDOUT || e == -EHOSTDOWN) {
		if (lava_job_cancel(c, id, e2, sizeof(e2)))
			report(data, "canceling: %s", e2);
		report(data, "cannot judge: %s (canceled)", err);
		return -ECANCELED;
	}
	if (e) {
		report(data, "job %ld: %s", id, err);
		return e == -ECANCELED ? -EIO : e;
	}
	if (strcmp(js.health, "Complete")) {
		char fault[512] = "";

		if (lava_job_log_tail(c, id, tail_lines, &tail, fault, sizeof(fault), err,
				      sizeof(err)))
			tail = NULL;
		report(data,
		       "cannot judge: job %ld (%s, %s/scheduler/job/%ld) finished %s%s%s%s%s; the "
		       "log's last lines:\n%s",
		       id, name, c->url, id, js.health[0] ? js.health : "without a health",
		       js.failure_comment[0] ? ": " : "", js.failure_comment,
		       fault[0] ? "; the guest's kernel failed: " : "", fault, tail ? tail : err);
		free(tail);
		return -ECANCELED;
	}
	report(data, "job %ld: Complete", id);
	if (!out)
		return 0;
	if (in_dir)
		e = base_path(path, sizeof(path), "%s/job-%ld.yaml", out, id);
	else
		e = base_path(path, sizeof(path), "%s", out);
	if (!e && (e = lava_job_results(c, id, &res, &len, err, sizeof(err)))) {
		report(data, "job %ld's results: %s", id, err);
		return e == -ECANCELED ? -EIO : e;
	}
	if (!e)
		e = lava_save(path, res, len);
	free(res);
	if (e)
		report(data, "writing %s: %s", path, strerror(-e));
	else
		report(data, "job %ld's results: %s", id, path);
	return e == -ECANCELED ? -EIO : e;
}
