/* A result file decoded once for the history: content hash, kernel identity, runs and values. */
#include "fsbench/history/ident.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/json_arena.h"
#include "model/op.h"
#include "model/result_file.h"
#include "model/run.h"
#include "model/runs.h"
#include "model/schema.h"
#include "report/metric.h"

void hist_now_utc(char *out, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, len, "unknown");
}

/* The string at "a/b/c" in @o, or "". */
static const char *str_at(const json_t *o, const char *path)
{
	char key[64];

	while (o && *path) {
		size_t n = strcspn(path, "/");

		if (n >= sizeof(key))
			return "";
		memcpy(key, path, n);
		key[n] = 0;
		o = json_object_get(o, key);
		path += n + (path[n] == '/');
	}
	return json_is_string(o) ? json_string_value(o) : "";
}

/* @s with bytes outside printable ASCII replaced: what a result says is untrusted text. */
static void copy_clean(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; s[i] && i + 1 < len; i++)
		dst[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	dst[i] = 0;
}

/* The version of a Debian package file's name, NAME_VERSION_ARCH.deb (an epoch's ':' is %3a). */
void hist_deb_version(const char *spec, char *out, size_t len)
{
	const char *base = strrchr(spec, '/'), *u1, *u2;
	size_t n = strlen(spec);

	base = base ? base + 1 : spec;
	if (n < 4 || strcmp(spec + n - 4, ".deb"))
		return;
	u1 = strchr(base, '_');
	u2 = u1 ? strchr(u1 + 1, '_') : NULL;
	if (!u2 || (size_t)(u2 - u1 - 1) >= len)
		return;
	snprintf(out, len, "%.*s", (int)(u2 - u1 - 1), u1 + 1);
	for (char *p; (p = strstr(out, "%3a"));)
		memmove(p + 1, p + 3, strlen(p + 3) + 1), *p = ':';
}

/* Debian's uname -v: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2025-11-09)". */
static void uname_version(const char *v, char *out, size_t len)
{
	const char *d = strstr(v, " Debian ");
	size_t n;

	if (!d)
		return;
	d += strlen(" Debian ");
	n = strcspn(d, " ");
	if (n && n < len)
		snprintf(out, len, "%.*s", (int)n, d);
}

/* A release built from git with CONFIG_LOCALVERSION_AUTO: "6.13.0-rc1-00042-gabcdef123456". */
static void release_commit(const char *rel, char *out, size_t len)
{
	const char *g = strstr(rel, "-g");

	while (g) {
		size_t n = strspn(g + 2, "0123456789abcdef");

		if (n >= 7 && n < len && (!g[2 + n] || g[2 + n] == '-' || g[2 + n] == '+')) {
			snprintf(out, len, "%.*s", (int)n, g + 2);
			return;
		}
		g = strstr(g + 2, "-g");
	}
}

void hist_kernel_key(struct hist_kernel *k)
{
	bool pkg = k->package[0];

	k->sort_key[0] = pkg ? 'p' : 'r';
	if (hist_version_key(pkg ? k->package : k->release, !pkg, k->sort_key + 1,
			     sizeof(k->sort_key) - 1) < 0)
		k->sort_key[1] = 0;
}

void hist_kernel_of(const json_t *doc, struct hist_kernel *ret)
{
	const json_t *vmk = json_object_get(json_object_get(doc, "vm"), "kernel");
	char buf[256] = "";

	/* a LAVA import names its kernel as `lava import --kernel` was told it */
	if (!vmk)
		vmk = json_object_get(json_object_get(doc, "imported"), "kernel");

	memset(ret, 0, sizeof(*ret));
	copy_clean(ret->release, sizeof(ret->release),
		   str_at(vmk, "release")[0] ? str_at(vmk, "release") : str_at(doc, "host/kernel"));
	if (str_at(vmk, "package")[0])
		snprintf(buf, sizeof(buf), "%s", str_at(vmk, "package"));
	if (!buf[0])
		hist_deb_version(str_at(vmk, "spec"), buf, sizeof(buf));
	if (!buf[0])
		uname_version(str_at(doc, "host/kernel_version"), buf, sizeof(buf));
	copy_clean(ret->package, sizeof(ret->package), buf);
	buf[0] = 0;
	if (str_at(vmk, "commit")[0])
		snprintf(buf, sizeof(buf), "%s", str_at(vmk, "commit"));
	else
		release_commit(ret->release, buf, sizeof(buf));
	copy_clean(ret->commit, sizeof(ret->commit), buf);
	hist_kernel_key(ret);
}

static int sha256_hex(const char *data, size_t n, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -EIO;
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* Appends one value; the series' key made from the run's sample key. */
static int value_add(struct hist_run *r, const char *metric, double v)
{
	struct hist_value *nv = realloc(r->values, (r->nvalues + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	r->values = nv;
	nv = &r->values[r->nvalues];
	snprintf(nv->metric, sizeof(nv->metric), "%s", metric);
	nv->value = v;
	nv->series = mdl_metric_key(r->sample_key, metric);
	if (!nv->series)
		return -ENOMEM;
	r->nvalues++;
	return 0;
}

/*
 * The values a series keeps of @run: every run-level metric of the catalog that applies,
 * and the median and p99 of every timed operation (the gate's percentiles; p99.9 of a few
 * thousand calls is a handful of samples, too noisy for a stream of single boots).
 */
static int run_values(const json_t *run, struct hist_run *r)
{
	double v;
	int e;

	for (size_t i = 0; i < rpt_n_run_metrics; i++)
		if (rpt_metric_applies(run, &rpt_run_metrics[i], NULL) &&
		    rpt_metric_value(run, &rpt_run_metrics[i], NULL, &v) &&
		    (e = value_add(r, rpt_run_metrics[i].name, v)))
			return e;
	for (int rank = 0; mdl_op_name_at(rank); rank++) {
		const char *op = mdl_op_name_at(rank);

		for (size_t i = 0; i < rpt_n_latency_metrics; i++) {
			const struct rpt_metric_def *d = &rpt_latency_metrics[i];
			char name[64];

			if (strcmp(d->name, "p50") && strcmp(d->name, "p99"))
				continue;
			if (!rpt_metric_applies(run, d, op) || !rpt_metric_value(run, d, op, &v))
				continue;
			snprintf(name, sizeof(name), "%s.%s", op, d->name);
			if ((e = value_add(r, name, v)))
				return e;
		}
	}
	return 0;
}

static int run_read(const json_t *doc, const json_t *run, size_t i, struct hist_run *r)
{
	const json_t *target = json_object_get(run, "target"), *params, *v;
	const char *fs = str_at(run, "coords/fs");

	r->index = i;
	r->sample_key = mdl_run_sample_key(run, NULL);
	params = json_object_get(run, "params");
	r->params = params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) :
			     strdup("{}");
	if (!r->sample_key || !r->params)
		return -ENOMEM;
	copy_clean(r->host, sizeof(r->host), str_at(doc, "host/hostname"));
	copy_clean(r->cpu, sizeof(r->cpu), str_at(doc, "host/cpu_model"));
	copy_clean(r->disk, sizeof(r->disk),
		   str_at(target, "model")[0] ? str_at(target, "model") : str_at(target, "disk"));
	copy_clean(r->fs, sizeof(r->fs), fs[0] ? fs : str_at(target, "fstype"));
	copy_clean(r->mount_options, sizeof(r->mount_options), str_at(target, "mount_options"));
	copy_clean(r->workload, sizeof(r->workload), str_at(run, MDL_KEY_WORKLOAD));
	copy_clean(r->version, sizeof(r->version), str_at(doc, "tool/version"));
	copy_clean(r->date, sizeof(r->date), str_at(doc, "created"));
	r->threads = json_integer_value(json_object_get(run, MDL_KEY_THREADS));
	v = json_object_get(json_object_get(run, MDL_KEY_COORDS), "repetition");
	r->repetition = json_is_integer(v) && json_integer_value(v) >= 0 &&
					json_integer_value(v) < 1000000 ?
				(int)json_integer_value(v) :
				0;
	r->complete = json_is_true(json_object_get(mdl_run_summary(run), MDL_KEY_COMPLETE));
	return run_values(run, r);
}

int hist_raw_sha256(const char *buf, size_t len, char out[65])
{
	return sha256_hex(buf, len, out);
}

/*
 * The content's digest: the document fed to SHA-256 as a tagged binary walk, object keys in
 * byte order, numbers as their 8 bytes, through a buffer. The same content in any layout
 * (indented, keys in another order) gives the same hash; a layout-independent text dump
 * (json_dumps with sorted keys) cost as much as the parse, most of it formatting numbers.
 */
#define CANON_BUF 65536

struct canon {
	EVP_MD_CTX *md;
	unsigned char buf[CANON_BUF];
	size_t n;
	bool failed;
};

static void canon_put(struct canon *c, const void *p, size_t n)
{
	if (c->n + n > CANON_BUF) {
		c->failed |= !EVP_DigestUpdate(c->md, c->buf, c->n);
		c->n = 0;
	}
	if (n > CANON_BUF) {
		c->failed |= !EVP_DigestUpdate(c->md, p, n);
		return;
	}
	memcpy(c->buf + c->n, p, n);
	c->n += n;
}

/* A tag and its number, little-endian, written in place: the walk's commonest put. */
static void canon_tag(struct canon *c, char tag, uint64_t n)
{
	unsigned char *b;

	if (c->n + 9 > CANON_BUF) {
		c->failed |= !EVP_DigestUpdate(c->md, c->buf, c->n);
		c->n = 0;
	}
	b = c->buf + c->n;
	b[0] = (unsigned char)tag;
	for (int i = 0; i < 8; i++)
		b[1 + i] = (unsigned char)(n >> (8 * i));
	c->n += 9;
}

struct canon_key {
	const char *k;
	size_t len;
	json_t *v;
};

static int key_cmp(const void *a, const void *b)
{
	const struct canon_key *x = a, *y = b;
	int r = memcmp(x->k, y->k, x->len < y->len ? x->len : y->len);

	return r ? r : (x->len > y->len) - (x->len < y->len);
}

static int canon_walk(struct canon *c, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		size_t n = json_object_size(v), i = 0;
		struct canon_key *keys = calloc(n ? n : 1, sizeof(*keys));
		void *it;

		if (!keys)
			return -ENOMEM;
		for (it = json_object_iter(v); it && i < n; it = json_object_iter_next(v, it), i++)
			keys[i] = (struct canon_key){ json_object_iter_key(it),
						      json_object_iter_key_len(it),
						      json_object_iter_value(it) };
		qsort(keys, i, sizeof(*keys), key_cmp);
		canon_tag(c, 'o', i);
		for (size_t j = 0; j < i; j++) {
			canon_tag(c, 'k', keys[j].len);
			canon_put(c, keys[j].k, keys[j].len);
			if (canon_walk(c, keys[j].v)) {
				free(keys);
				return -ENOMEM;
			}
		}
		free(keys);
		return 0;
	}
	case JSON_ARRAY:
		canon_tag(c, 'a', json_array_size(v));
		for (size_t i = 0; i < json_array_size(v); i++)
			if (canon_walk(c, json_array_get(v, i)))
				return -ENOMEM;
		return 0;
	case JSON_STRING:
		canon_tag(c, 's', json_string_length(v));
		canon_put(c, json_string_value(v), json_string_length(v));
		return 0;
	case JSON_INTEGER:
		canon_tag(c, 'i', (uint64_t)json_integer_value(v));
		return 0;
	case JSON_REAL: {
		double d = json_real_value(v);
		uint64_t bits;

		memcpy(&bits, &d, sizeof(bits));
		canon_tag(c, 'r', bits);
		return 0;
	}
	case JSON_TRUE:
		canon_tag(c, 't', 0);
		return 0;
	case JSON_FALSE:
		canon_tag(c, 'f', 0);
		return 0;
	default:
		canon_tag(c, 'n', 0);
		return 0;
	}
}

int hist_canon_sha256(json_t *doc, char out[65])
{
	static const char form[] = "fsbench-canonical/1";
	struct canon *c = malloc(sizeof(*c));
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int r = -EIO;

	if (!c)
		return -ENOMEM;
	c->n = 0;
	c->failed = false;
	if (!(c->md = EVP_MD_CTX_new())) {
		free(c);
		return -ENOMEM;
	}
	if (!EVP_DigestInit_ex(c->md, EVP_sha256(), NULL))
		goto out;
	canon_put(c, form, sizeof(form));
	if ((r = canon_walk(c, doc)))
		goto out;
	r = -EIO;
	if (c->n)
		c->failed |= !EVP_DigestUpdate(c->md, c->buf, c->n);
	if (c->failed || !EVP_DigestFinal_ex(c->md, md, &mdlen) || mdlen != 32)
		goto out;
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	r = 0;
out:
	EVP_MD_CTX_free(c->md);
	free(c);
	return r;
}

/* The hash of schema 2's first stores: the SHA-256 of json_dumps(COMPACT | SORT_KEYS). */
static int dump_sha256(json_t *doc, char out[65])
{
	char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	int r;

	if (!text)
		return -ENOMEM;
	r = sha256_hex(text, strlen(text), out);
	free(text);
	return r;
}

int hist_file_parse(const char *path, const char *buf, size_t len, unsigned flags,
		    struct hist_file **ret, char *err, size_t errlen)
{
	struct hist_file *f = calloc(1, sizeof(*f));
	const char *schema;
	json_t *doc = NULL;
	json_error_t je;
	int e = -ENOMEM;

	if (!f)
		goto nomem;
	/* the tree dies in this function, on this thread: its nodes can be the arena's */
	doc = mdl_json_loadb_arena(buf, len, 0, &je);
	if (!doc) {
		mdl_json_arena_end();
		snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
		free(f);
		return -EPROTO;
	}
	e = hist_canon_sha256(doc, f->sha256);
	if (!e && (flags & HIST_PARSE_DUMP_HASH))
		e = dump_sha256(doc, f->dump_sha256);
	if (e == -ENOMEM)
		goto nomem;
	if (e) {
		snprintf(err, errlen, "%s: hashing its content failed", path);
		goto fail;
	}
	schema = json_string_value(json_object_get(doc, MDL_KEY_SCHEMA));
	if (mdl_result_upgrade(doc)) {
		snprintf(err, errlen,
			 "%s: not an fsbench result (schema is '%s', expected '%s' or '%s')", path,
			 schema ? schema : "(none)", MDL_RESULT_SCHEMA, MDL_RESULT_SCHEMA_V1);
		e = -EPROTO;
		goto fail;
	}
	if ((e = mdl_runs_check(doc, path, err, errlen)))
		goto fail;
	snprintf(f->path, sizeof(f->path), "%s", path);
	copy_clean(f->created, sizeof(f->created), str_at(doc, "created"));
	hist_kernel_of(doc, &f->kernel);
	if (!f->kernel.release[0]) {
		snprintf(err, errlen, "%s: says nothing of its kernel (no host.kernel)", path);
		e = -EPROTO;
		goto fail;
	}
	f->nruns = json_array_size(json_object_get(doc, MDL_KEY_RUNS));
	f->runs = calloc(f->nruns, sizeof(*f->runs));
	if (!f->runs)
		goto nomem;
	for (size_t i = 0; i < f->nruns; i++)
		if ((e = run_read(doc, json_array_get(json_object_get(doc, MDL_KEY_RUNS), i), i,
				  &f->runs[i])))
			goto nomem;
	json_decref(doc);
	mdl_json_arena_end();
	*ret = f;
	return 0;
nomem:
	e = -ENOMEM;
	snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
fail:
	json_decref(doc);
	mdl_json_arena_end();
	hist_file_free(f);
	return e;
}

int hist_file_read(const char *path, struct hist_file **ret, char *err, size_t errlen)
{
	size_t len;
	char *buf;
	int e = mdl_file_bytes(path, &buf, &len, err, errlen);

	if (e)
		return e;
	e = hist_file_parse(path, buf, len, 0, ret, err, errlen);
	free(buf);
	return e;
}

void hist_file_free(struct hist_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nruns; i++) {
		for (size_t j = 0; j < f->runs[i].nvalues; j++)
			free(f->runs[i].values[j].series);
		free(f->runs[i].values);
		free(f->runs[i].sample_key);
		free(f->runs[i].params);
	}
	free(f->runs);
	free(f);
}
