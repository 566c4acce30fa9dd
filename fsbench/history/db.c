/*
 * The history's store: opening either backend, the schema and its version, and adding a
 * result file in one transaction. The SQL is written once, for both backends: types both
 * know (TEXT, INTEGER, BIGINT, DOUBLE PRECISION), $N parameters, INSERT ... ON CONFLICT
 * DO NOTHING against the unique keys of kernels and series, and a file's row refused by
 * its unique hash (the rest of the file with it), so that two writers adding the same
 * file or kernel at once add it once.
 */
#include "fsbench/history/db.h"
#include "fsbench/history/ident.h"
#include "base/errf.h"
#include "model/result_file.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Version 1. runs.sample_key is the cell (model/run.h's sample key); run_values.series the
 * series (the sample key and the metric, made in one place: mdl_metric_key). Unknown
 * identity is '' rather than NULL, so that the unique keys hold (NULLs never conflict).
 */
static const char *const schema_v1[] = {
	"CREATE TABLE files (id %s, sha256 TEXT NOT NULL UNIQUE, path TEXT NOT NULL, "
	"added TEXT NOT NULL, created TEXT NOT NULL, runs INTEGER NOT NULL)",
	"CREATE TABLE kernels (id %s, release TEXT NOT NULL, package TEXT NOT NULL, "
	"git_commit TEXT NOT NULL, sort_key TEXT NOT NULL, UNIQUE (release, package, git_commit))",
	"CREATE TABLE runs (id %s, file_id BIGINT NOT NULL REFERENCES files (id), "
	"idx INTEGER NOT NULL, kernel_id BIGINT NOT NULL REFERENCES kernels (id), "
	"host TEXT NOT NULL, cpu TEXT NOT NULL, disk TEXT NOT NULL, fs TEXT NOT NULL, "
	"mount_options TEXT NOT NULL, workload TEXT NOT NULL, threads INTEGER NOT NULL, "
	"params TEXT NOT NULL, fsbench_version TEXT NOT NULL, date TEXT NOT NULL, "
	"sample_key TEXT NOT NULL, complete INTEGER NOT NULL, UNIQUE (file_id, idx))",
	"CREATE TABLE run_values (run_id BIGINT NOT NULL REFERENCES runs (id), "
	"metric TEXT NOT NULL, series TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, "
	"PRIMARY KEY (run_id, metric))",
	"CREATE INDEX run_values_series ON run_values (series)",
	"CREATE INDEX runs_kernel ON runs (kernel_id)",
	NULL,
};

/*
 * Version 2. A series is a row of its own (its key: the sample key and metric made by
 * mdl_metric_key, once; its cell's sample key) and a value names it by number. Version 1
 * wrote the key, about 400 bytes, in every value row and in an index by series, 273 MiB
 * of a 291 MiB store of 10 000 runs, and each file's values landed on as many pages of
 * that index as it had series: adding was that I/O. Values are now kept in the order
 * they are added (by run), and a series is gathered by reading them all. A version 1
 * store is migrated in place, in one transaction.
 */
static const char *const schema_v2[] = {
	"CREATE TABLE series (id %s, key TEXT NOT NULL UNIQUE, metric TEXT NOT NULL, "
	"sample_key TEXT NOT NULL)",
	"INSERT INTO series (key, metric, sample_key) SELECT v.series, min(v.metric), "
	"min(r.sample_key) FROM run_values v JOIN runs r ON r.id = v.run_id GROUP BY v.series "
	"ORDER BY v.series",
	"CREATE TABLE run_values_v2 (run_id BIGINT NOT NULL REFERENCES runs (id), "
	"series_id BIGINT NOT NULL REFERENCES series (id), value DOUBLE PRECISION NOT NULL, "
	"PRIMARY KEY (run_id, series_id))",
	"INSERT INTO run_values_v2 (run_id, series_id, value) SELECT v.run_id, s.id, v.value "
	"FROM run_values v JOIN series s ON s.key = v.series ORDER BY v.run_id, s.id",
	"DROP TABLE run_values",
	"ALTER TABLE run_values_v2 RENAME TO run_values",
	/* the bytes' own hash: a file added before is known without parsing it again */
	"ALTER TABLE files ADD COLUMN raw_sha256 TEXT NOT NULL DEFAULT ''",
	"CREATE INDEX files_raw ON files (raw_sha256)",
	/* the run's repetition in its suite: the spread between boots pairs like with like */
	"ALTER TABLE runs ADD COLUMN repetition INTEGER NOT NULL DEFAULT 0",
	NULL,
};

/* Every version's statements, in order: migrating from N runs migrations[N..]. */
static const char *const *const migrations[] = { schema_v1, schema_v2 };
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == HIST_SCHEMA_VERSION,
	       "one migration per schema version");

/*
 * Whether the version table exists: each backend's catalogue, as a query that returns a
 * row when it does (PostgreSQL's pg_tables, which lists tables a role may not read, where
 * information_schema shows a role without privileges an empty store to create). PostgreSQL serialises first-time creation by many writers with an
 * advisory lock held to the transaction's end; SQLite's BEGIN IMMEDIATE already has.
 */
static const char *has_version_sql(const struct hist_backend *be)
{
	return be == &hist_sqlite ?
		       "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'" :
		       "SELECT count(*) FROM pg_catalog.pg_tables "
		       "WHERE schemaname = current_schema() AND tablename = 'schema_version'";
}

/* The first column of the row, into a char[65] (a SHA-256 in hex). */
static int first_text(void *arg, const struct hist_row *row)
{
	snprintf(arg, 65, "%s", row->n > 0 && row->v[0] ? row->v[0] : "");
	return 0;
}

static int first_int(void *arg, const struct hist_row *row)
{
	*(long long *)arg = row->n > 0 && row->v[0] ? atoll(row->v[0]) : -1;
	return 0;
}

int hist_db_exec(struct hist_db *db, const char *sql, const struct hist_row *params, char *err,
		 size_t errlen)
{
	return db->be->exec(db->conn, sql, params, err, errlen);
}

int hist_db_query(struct hist_db *db, const char *sql, const struct hist_row *params,
		  hist_row_fn fn, void *arg, char *err, size_t errlen)
{
	return db->be->query(db->conn, sql, params, fn, arg, err, errlen);
}

/* The statements of version @v applied (in the caller's transaction). */
static int migrate(struct hist_db *db, int v, char *err, size_t errlen)
{
	for (int i = 0; migrations[v][i]; i++) {
		char sql[1024];
		int r;

		snprintf(sql, sizeof(sql), migrations[v][i], db->be->id_type);
		r = hist_db_exec(db, sql, NULL, err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Creates the schema in an empty store, or checks and migrates an older one. */
static int schema_ready(struct hist_db *db, char *err, size_t errlen)
{
	long long has = -1, version = -1;
	char msg[512];
	int r;

	r = db->be->begin(db->conn, err, errlen);
	if (!r && db->be == &hist_postgresql)
		r = hist_db_query(db, "SELECT pg_advisory_xact_lock(3838)", NULL, NULL, NULL, err,
				  errlen);
	if (!r)
		r = hist_db_query(db, has_version_sql(db->be), NULL, first_int, &has, err, errlen);
	if (r)
		goto fail;
	if (has > 0) {
		r = hist_db_query(db, "SELECT max(version) FROM schema_version", NULL, first_int,
				  &version, err, errlen);
		if (r)
			goto fail;
		if (version < 1) {
			snprintf(err, errlen, "%s: its schema_version table holds no version",
				 db->where);
			r = -EBADMSG;
			goto fail;
		}
		if (version > HIST_SCHEMA_VERSION) {
			snprintf(
				err, errlen,
				"%s: written by a newer fsbench (schema version %lld; this fsbench "
				"reads up to %d): not changed",
				db->where, version, HIST_SCHEMA_VERSION);
			r = -EPROTONOSUPPORT;
			goto fail;
		}
	} else {
		long long other = 0;

		/* a SQLite file with tables of its own is someone else's database */
		if (db->be == &hist_sqlite)
			r = hist_db_query(db, "SELECT count(*) FROM sqlite_master", NULL, first_int,
					  &other, err, errlen);
		if (!r && other > 0) {
			snprintf(
				err, errlen,
				"%s: a database, but not a history store (no schema_version table)",
				db->where);
			r = -EBADMSG;
		}
		if (!r)
			r = hist_db_exec(db,
					 "CREATE TABLE schema_version (version INTEGER NOT NULL)",
					 NULL, err, errlen);
		if (r < 0)
			goto fail;
		version = 0;
	}
	for (int v = (int)version; v < HIST_SCHEMA_VERSION; v++) {
		char vs[16];
		const char *p[] = { vs };

		snprintf(vs, sizeof(vs), "%d", v + 1);
		r = migrate(db, v, err, errlen);
		if (r >= 0)
			r = hist_db_exec(db, "INSERT INTO schema_version (version) VALUES ($1)",
					 &(struct hist_row){ p, 1 }, err, errlen);
		if (r < 0)
			goto fail;
	}
	r = db->be->commit(db->conn, err, errlen);
	if (!r)
		return 0;
fail:
	db->be->rollback(db->conn);
	if (r != -EPROTONOSUPPORT && r != -EBADMSG) {
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s: %s", db->where, msg);
	}
	return r < 0 ? r : -EIO;
}

int hist_db_default_path(char *out, size_t len)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(out, len, "%s/fsbench/history.db", xdg);
	else if (geteuid() == 0)
		n = snprintf(out, len, "/var/lib/fsbench/history.db");
	else
		n = snprintf(out, len, "%s/.local/share/fsbench/history.db",
			     home && home[0] ? home : ".");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The directories above @path, made (0755) where missing, as `mkdir -p` would. */
static int mkdirs_above(const char *path)
{
	char buf[4096];

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (char *p = buf + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* @uri without its password ("postgresql://u:SECRET@h/db" -> "postgresql://u@h/db"). */
static void uri_shown(const char *uri, char *out, size_t len)
{
	const char *scheme = strstr(uri, "://"), *at = scheme ? strchr(scheme + 3, '@') : NULL;
	const char *colon = scheme ? strchr(scheme + 3, ':') : NULL;

	if (at && colon && colon < at)
		snprintf(out, len, "%.*s%s", (int)(colon - uri), uri, at);
	else
		snprintf(out, len, "%s", uri);
}

static void hist_db_free(struct hist_db *db)
{
	json_decref(db->ids);
	json_decref(db->ids_pending);
	free(db);
}

int hist_db_open(const char *target, struct hist_db **ret, char *err, size_t errlen)
{
	struct hist_db *db = calloc(1, sizeof(*db));
	char path[4096], msg[1024];
	int r;

	if (!db) {
		snprintf(err, errlen, "opening the store: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (target &&
	    (!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11))) {
		db->be = &hist_postgresql;
		uri_shown(target, db->where, sizeof(db->where));
	} else {
		db->be = &hist_sqlite;
		if (!target && hist_db_default_path(path, sizeof(path))) {
			snprintf(err, errlen, "the default store's path: %s",
				 strerror(ENAMETOOLONG));
			hist_db_free(db);
			return -ENAMETOOLONG;
		}
		target = target ? target : path;
		snprintf(db->where, sizeof(db->where), "%.500s", target);
		if ((r = mkdirs_above(target))) {
			snprintf(err, errlen, "%s: creating its directory: %s", target,
				 strerror(-r));
			hist_db_free(db);
			return r;
		}
	}
	db->ids = json_object();
	db->ids_pending = json_object();
	if (!db->ids || !db->ids_pending) {
		snprintf(err, errlen, "opening the store: %s", strerror(ENOMEM));
		hist_db_free(db);
		return -ENOMEM;
	}
	r = db->be->open(target, &db->conn, msg, sizeof(msg));
	if (r) {
		snprintf(err, errlen, "%s: %s", db->where, msg);
		hist_db_free(db);
		return r;
	}
	r = schema_ready(db, err, errlen);
	if (!r) {
		char sha[65] = "";

		r = hist_db_query(db, "SELECT sha256 FROM files WHERE raw_sha256 = '' LIMIT 1",
				  NULL, first_text, sha, msg, sizeof(msg));
		if (r)
			snprintf(err, errlen, "%s: reading the store: %s", db->where, msg);
		db->dump_rows = sha[0] != 0;
	}
	if (r) {
		hist_db_close(db);
		return r;
	}
	*ret = db;
	return 0;
}

struct hist_db *hist_db_close(struct hist_db *db)
{
	if (db) {
		db->be->close(db->conn);
		hist_db_free(db);
	}
	return NULL;
}

/* The id the one row of a query holds, or -1. */
static int query_id(struct hist_db *db, const char *sql, const struct hist_row *p, long long *ret,
		    char *err, size_t errlen)
{
	*ret = -1;
	int r = hist_db_query(db, sql, p, first_int, ret, err, errlen);

	if (!r && *ret < 0) {
		snprintf(err, errlen, "a row just written is not there");
		r = -EIO;
	}
	return r;
}

#define ROW(...)                                      \
	(&(struct hist_row){                          \
		(const char *const[]){ __VA_ARGS__ }, \
		(int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)) })

/*
 * A file's rows as statements sent together (hist_backend.exec_many): none waits for
 * another's answer, so a run names its file, and a value its run, by the id the
 * transaction made last (hist_backend.last_id), and a run its kernel by the id looked up
 * before (kernel_id), not by an id read back. The parameters are the file's own strings
 * and numbers printed here.
 */
struct batch {
	struct hist_stmt *s;
	size_t n, cap;
	char **own; /* what the batch frees: printed numbers, parameter arrays, SQL */
	size_t nown, capown;
};

static void *batch_keep(struct batch *b, void *p)
{
	if (p && b->nown == b->capown) {
		size_t cap = b->capown ? 2 * b->capown : 256;
		char **own = realloc(b->own, cap * sizeof(*own));

		if (!own) {
			free(p);
			return NULL;
		}
		b->own = own;
		b->capown = cap;
	}
	if (p)
		b->own[b->nown++] = p;
	return p;
}

static const char *batch_num(struct batch *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *batch_num(struct batch *b, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : batch_keep(b, p);
}

/* Adds @sql with the @n parameters @v (copied; NULL among them: out of memory). */
static int batch_add(struct batch *b, const char *sql, const char *const *v, int n)
{
	const char **copy = sql ? batch_keep(b, malloc((size_t)n * sizeof(*copy) + 1)) : NULL;

	if (!copy)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (!(copy[i] = v[i]))
			return -ENOMEM;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		struct hist_stmt *s = realloc(b->s, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap = cap;
	}
	b->s[b->n++] = (struct hist_stmt){ sql, { copy, n } };
	return 0;
}

#define BATCH(b, sql, ...)                                      \
	batch_add(b, sql, (const char *const[]){ __VA_ARGS__ }, \
		  (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)))

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->nown; i++)
		free(b->own[i]);
	free(b->own);
	free(b->s);
}

/*
 * The id of a series' or kernel's row (@key, this connection's name for it): from the
 * connection's cache, else @insert (ON CONFLICT DO NOTHING: another writer may have it)
 * and @select. Ids learnt in a transaction stay pending until it commits (a rollback
 * takes back the rows they name).
 */
static int cached_id(struct hist_db *db, const char *key, const char *insert,
		     const struct hist_row *ins, const char *select, const struct hist_row *sel,
		     long long *ret, char *err, size_t errlen)
{
	json_t *known = json_object_get(db->ids, key);
	int r;

	if (!known)
		known = json_object_get(db->ids_pending, key);
	if (known) {
		*ret = json_integer_value(known);
		return 0;
	}
	r = hist_db_exec(db, insert, ins, err, errlen);
	if (r >= 0)
		r = query_id(db, select, sel, ret, err, errlen);
	if (r < 0)
		return r;
	if (json_object_set_new(db->ids_pending, key, json_integer(*ret))) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

static int series_id(struct hist_db *db, const struct hist_value *v, const char *sample_key,
		     long long *ret, char *err, size_t errlen)
{
	char *key;
	int r;

	if (asprintf(&key, "s\x1f%s", v->series) < 0) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r = cached_id(db, key,
		      "INSERT INTO series (key, metric, sample_key) VALUES ($1, $2, $3) "
		      "ON CONFLICT DO NOTHING",
		      ROW(v->series, v->metric, sample_key), "SELECT id FROM series WHERE key = $1",
		      ROW(v->series), ret, err, errlen);
	free(key);
	return r;
}

static int kernel_id(struct hist_db *db, const struct hist_kernel *k, long long *ret, char *err,
		     size_t errlen)
{
	char *key;
	int r;

	if (asprintf(&key, "k\x1f%s\x1f%s\x1f%s", k->release, k->package, k->commit) < 0) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r = cached_id(
		db, key,
		"INSERT INTO kernels (release, package, git_commit, sort_key) "
		"VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
		ROW(k->release, k->package, k->commit, k->sort_key),
		"SELECT id FROM kernels WHERE release = $1 AND package = $2 AND git_commit = $3",
		ROW(k->release, k->package, k->commit), ret, err, errlen);
	free(key);
	return r;
}

/* rows of one INSERT of values: 2 parameters a row, far below both backends' limits */
#define VALUES_PER_INSERT 256

/* SQL of @n values of the run added last, with the table's name in last_id's place */
static char *values_sql(struct hist_db *db, size_t n)
{
	char *sql = NULL, run[128];
	size_t len = 0;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	snprintf(run, sizeof(run), db->be->last_id, "runs");
	fputs("INSERT INTO run_values (run_id, series_id, value) VALUES ", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s(%s, $%zu, $%zu)", i ? ", " : "", run, 1 + 2 * i, 2 + 2 * i);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

/* @n values of the run added just before (of the cell @sample_key), in one statement. */
static int add_values(struct hist_db *db, struct batch *b, const char *sample_key,
		      const struct hist_value *v, size_t n, char *err, size_t errlen)
{
	const char *p[2 * VALUES_PER_INSERT];
	const char *sql = batch_keep(b, values_sql(db, n));
	int r = sql ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !r; i++) {
		long long id = -1;

		r = series_id(db, &v[i], sample_key, &id, err, errlen);
		p[2 * i] = batch_num(b, "%lld", id);
		p[1 + 2 * i] = batch_num(b, "%.17g", v[i].value);
	}
	if (!r && batch_add(b, sql, p, (int)(2 * n)))
		r = -ENOMEM;
	if (r == -ENOMEM)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	return r;
}

/* One run of the file added just before, and its values. */
static int add_run(struct hist_db *db, struct batch *b, const struct hist_run *run, const char *kid,
		   struct hist_add_res *res, char *err, size_t errlen)
{
	char sql[1024], file[128];
	int r;

	snprintf(file, sizeof(file), db->be->last_id, "files");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO runs (file_id, idx, kernel_id, host, cpu, disk, fs, mount_options, "
		 "workload, threads, params, fsbench_version, date, sample_key, complete, "
		 "repetition) VALUES (%s, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
		 "$13, $14, $15)",
		 file);
	r = BATCH(b, batch_keep(b, strdup(sql)), batch_num(b, "%zu", run->index), kid, run->host,
		  run->cpu, run->disk, run->fs, run->mount_options, run->workload,
		  batch_num(b, "%lld", run->threads), run->params, run->version, run->date,
		  run->sample_key, run->complete ? "1" : "0", batch_num(b, "%d", run->repetition));
	if (r) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return r;
	}
	res->runs++;
	res->incomplete += !run->complete;
	for (size_t i = 0; i < run->nvalues && !r; i += VALUES_PER_INSERT) {
		size_t n = run->nvalues - i < VALUES_PER_INSERT ? run->nvalues - i :
								  VALUES_PER_INSERT;

		r = add_values(db, b, run->sample_key, run->values + i, n, err, errlen);
		res->values += r ? 0 : (int)n;
	}
	return r;
}

/* What add_doc() returns when the store has the file by its content: roll back. */
#define ADD_PRESENT 1

/*
 * The statements of file @f's rows, appended to @b: its file row first, which a file the
 * store has by content refuses (-EEXIST at that statement), then its runs and values.
 * The kernel's row is looked up (or made) now, in the open transaction.
 */
static int doc_stmts(struct hist_db *db, struct batch *b, const struct hist_file *f,
		     const char *raw, struct hist_add_res *res, char *err, size_t errlen)
{
	char added[32];
	const char *kid;
	long long kernel = -1;
	int r = kernel_id(db, &f->kernel, &kernel, err, errlen);

	if (r)
		return r;
	hist_now_utc(added, sizeof(added));
	kid = batch_num(b, "%lld", kernel);
	/* no ON CONFLICT: a file the store has refuses the rest (its first statement) */
	r = BATCH(b,
		  "INSERT INTO files (sha256, path, added, created, runs, raw_sha256) "
		  "VALUES ($1, $2, $3, $4, $5, $6)",
		  f->sha256, f->path, batch_keep(b, strdup(added)), f->created,
		  batch_num(b, "%zu", f->nruns), raw);
	if (r || !kid) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; !r && i < f->nruns; i++)
		r = add_run(db, b, &f->runs[i], kid, res, err, errlen);
	return r;
}

/* A file of schema 1's store is known by the hash of its dump: then by its bytes too. */
static int known_v1(struct hist_db *db, const struct hist_file *f, const char *raw,
		    struct hist_add_res *res, char *err, size_t errlen)
{
	long long id = -1;
	char fid[24];
	int r = hist_db_query(db, "SELECT id FROM files WHERE sha256 = $1 AND raw_sha256 = ''",
			      ROW(f->dump_sha256), first_int, &id, err, errlen);

	if (r || id < 0)
		return r;
	snprintf(fid, sizeof(fid), "%lld", id);
	snprintf(res->sha256, sizeof(res->sha256), "%s", f->dump_sha256);
	res->present = true;
	r = hist_db_exec(db, "UPDATE files SET raw_sha256 = $1 WHERE id = $2", ROW(raw, fid), err,
			 errlen);
	return r < 0 ? r : 0;
}

/*
 * The file's rows, in the caller's transaction: 0, ADD_PRESENT when the store has the
 * file (an earlier add, or a writer that just committed; res->present), or -errno.
 * *@committed when the rows went with the transaction's commit.
 */
static int add_doc(struct hist_db *db, const struct hist_file *f, const char *raw,
		   struct hist_add_res *res, bool *committed, char *err, size_t errlen)
{
	struct batch b = { 0 };
	size_t failed = 0;
	int r;

	if (f->dump_sha256[0] && ((r = known_v1(db, f, raw, res, err, errlen)) || res->present))
		return r; /* the row changed, or a failure */
	r = doc_stmts(db, &b, f, raw, res, err, errlen);
	if (!r) {
		r = db->be->exec_many(db->conn, b.s, b.n, true, &failed, err, errlen);
		*committed = !r;
	}
	batch_free(&b);
	if (r == -EEXIST && failed == 0) {
		res->runs = res->values = res->incomplete = 0;
		res->present = true;
		return ADD_PRESENT;
	}
	return r;
}

/* One file on its way into the store: read, known or decoded, then added. */
struct pending {
	const char *path;
	char raw[65];
	char *buf;
	size_t len;
	unsigned flags; /* hist_file_parse()'s */
	struct hist_file *f;
	struct hist_add_res res;
	int error; /* of reading or decoding, with @err */
	char err[1024];
};

/* Reads @p's file and hashes its bytes; a failure is @p's own (p->error). */
static void pending_load(struct hist_db *db, struct pending *p)
{
	p->flags = db->dump_rows ? HIST_PARSE_DUMP_HASH : 0;
	p->error = mdl_file_bytes(p->path, &p->buf, &p->len, p->err, sizeof(p->err));
	if (!p->error && hist_raw_sha256(p->buf, p->len, p->raw)) {
		snprintf(p->err, sizeof(p->err), "%s: hashing its content failed", p->path);
		p->error = -EIO;
	}
}

/* The files of a window the store has by these very bytes, asked in one query. */
#define KNOWN_MAX 64
/* a decoder's share of a window (hist_add_files) */
#define WINDOW_PER_DECODER 4
_Static_assert(HIST_ADD_THREADS_MAX *WINDOW_PER_DECODER <= KNOWN_MAX, "a window in one query");

struct known {
	struct pending *p;
	size_t n;
};

static int known_row(void *arg, const struct hist_row *row)
{
	struct known *k = arg;

	if (row->n < 2 || !row->v[0] || !row->v[1])
		return 0;
	for (size_t i = 0; i < k->n; i++)
		if (!k->p[i].error && !k->p[i].res.present && !strcmp(k->p[i].raw, row->v[0])) {
			snprintf(k->p[i].res.sha256, sizeof(k->p[i].res.sha256), "%s", row->v[1]);
			k->p[i].res.present = true;
		}
	return 0;
}

/*
 * Asks the store which of @n loaded files it has by these very bytes (a night's add of a
 * whole directory: nothing to decode), one query for them all: a round trip a file was
 * a tenth of PostgreSQL's add. In the caller's thread: it uses the connection.
 */
static int pending_known(struct hist_db *db, struct pending *p, size_t n, char *err, size_t errlen)
{
	const char *v[KNOWN_MAX];
	struct known k = { p, n };
	char msg[1024], *sql = NULL;
	size_t len = 0, m = 0;
	FILE *f;
	int r;

	if (n > KNOWN_MAX) /* windows are smaller */
		return errf(err, errlen, -EINVAL,
			    "adding %s to %s: %zu files asked at once, %d at most", p[0].path,
			    db->where, n, KNOWN_MAX);
	for (size_t i = 0; i < n; i++)
		if (!p[i].error)
			v[m++] = p[i].raw;
	if (!m)
		return 0;
	if (!(f = open_memstream(&sql, &len)))
		return errf(err, errlen, -ENOMEM, "adding %s to %s: %s", p[0].path, db->where,
			    strerror(ENOMEM));
	fputs("SELECT raw_sha256, sha256 FROM files WHERE raw_sha256 IN (", f);
	for (size_t i = 0; i < m; i++)
		fprintf(f, "%s$%zu", i ? ", " : "", i + 1);
	fputs(")", f);
	if (fclose(f)) {
		free(sql);
		return errf(err, errlen, -ENOMEM, "adding %s to %s: %s", p[0].path, db->where,
			    strerror(ENOMEM));
	}
	r = hist_db_query(db, sql, &(struct hist_row){ v, (int)m }, known_row, &k, msg,
			  sizeof(msg));
	free(sql);
	if (r)
		snprintf(err, errlen, "adding %s to %s: %s", p[0].path, db->where, msg);
	return r;
}

/* Reads @p's file and asks the store whether it has these very bytes. */
static int pending_read(struct hist_db *db, struct pending *p, char *err, size_t errlen)
{
	pending_load(db, p);
	return pending_known(db, p, 1, err, errlen);
}

/* Decodes @p's bytes (any thread: no connection, nothing shared). */
static void pending_decode(struct pending *p)
{
	if (!p->error && !p->res.present)
		p->error = hist_file_parse(p->path, p->buf, p->len, p->flags, &p->f, p->err,
					   sizeof(p->err));
	free(p->buf);
	p->buf = NULL;
}

/* @p's rows in one transaction (the caller's thread). */
static int pending_add(struct hist_db *db, struct pending *p, char *err, size_t errlen)
{
	bool committed = false;
	char msg[1024];
	int r;

	snprintf(p->res.sha256, sizeof(p->res.sha256), "%s", p->f->sha256);
	r = db->be->begin(db->conn, msg, sizeof(msg));
	if (!r)
		r = add_doc(db, p->f, p->raw, &p->res, &committed, msg, sizeof(msg));
	if (r == ADD_PRESENT) {
		db->be->rollback(db->conn);
		json_object_clear(db->ids_pending);
		return 0;
	}
	if (!r && !committed)
		r = db->be->commit(db->conn, msg, sizeof(msg));
	if (!r)
		r = json_object_update(db->ids, db->ids_pending) ? -ENOMEM : 0;
	json_object_clear(db->ids_pending);
	if (r) {
		db->be->rollback(db->conn);
		snprintf(err, errlen, "adding %s to %s: %s", p->path, db->where, msg);
		p->res.runs = p->res.values = p->res.incomplete = 0;
		p->res.present = false;
	}
	return r;
}

/* What group_add() returns when its files must go one by one: one the store has by content. */
#define GROUP_ONE_BY_ONE 2
/* runs of a group at most (two statements a run in its round trip); a larger file is alone */
#define GROUP_RUNS 1000

/*
 * Files @g[0..@n) (decoded, not known by their bytes) in one transaction and one round
 * trip, each file's rows whole as in a transaction of its own, and one commit for them all:
 * the commit waits for the store's disk, 4.5 ms a file on this VM under load, most of an
 * add of small files to PostgreSQL (10 000 runs: 16.4 s, 12.1 s without that wait). A
 * killed writer leaves the group's files all out, never a part of one. 0 when committed;
 * GROUP_ONE_BY_ONE, rolled back, when the store has one of them by content (another
 * writer's, or a copy beside it), so that each goes alone and that one is "there already";
 * else -errno with @err naming the file, none of the group added.
 */
static int group_add(struct hist_db *db, struct pending *const *g, size_t n, char *err,
		     size_t errlen)
{
	struct batch b = { 0 };
	size_t *start = calloc(n, sizeof(*start)), failed = 0, at = 0;
	bool sent = false;
	char msg[1024];
	int r = start ? db->be->begin(db->conn, msg, sizeof(msg)) : -ENOMEM;

	if (!start)
		snprintf(msg, sizeof(msg), "%s", strerror(ENOMEM));
	for (size_t i = 0; !r && i < n; i++) {
		at = i;
		start[i] = b.n;
		snprintf(g[i]->res.sha256, sizeof(g[i]->res.sha256), "%s", g[i]->f->sha256);
		r = doc_stmts(db, &b, g[i]->f, g[i]->raw, &g[i]->res, msg, sizeof(msg));
	}
	if (!r) {
		sent = true;
		r = db->be->exec_many(db->conn, b.s, b.n, true, &failed, msg, sizeof(msg));
		for (at = 0; r && at + 1 < n && start[at + 1] <= failed; at++)
			;
	}
	batch_free(&b);
	if (!r && json_object_update(db->ids, db->ids_pending)) {
		snprintf(msg, sizeof(msg), "%s", strerror(ENOMEM));
		r = -ENOMEM;
	}
	json_object_clear(db->ids_pending);
	if (!r) {
		free(start);
		return 0;
	}
	db->be->rollback(db->conn);
	for (size_t i = 0; i < n; i++)
		g[i]->res.runs = g[i]->res.values = g[i]->res.incomplete = 0;
	if (sent && r == -EEXIST && failed == start[at]) {
		free(start);
		return GROUP_ONE_BY_ONE;
	}
	if (n > 1)
		snprintf(err, errlen,
			 "adding %s to %s: %s (none of the %zu files of its transaction added)",
			 g[at]->path, db->where, msg, n);
	else
		snprintf(err, errlen, "adding %s to %s: %s", g[at]->path, db->where, msg);
	free(start);
	return r;
}

/* @g's files, as a group or one by one: 0, or -errno with @err (nothing after it added). */
static int add_group(struct hist_db *db, struct pending *const *g, size_t n, char *err,
		     size_t errlen)
{
	/* a store with rows of schema 1 looks for each file by its dump's hash first */
	int r = n > 1 && !db->dump_rows ? group_add(db, g, n, err, errlen) : GROUP_ONE_BY_ONE;

	if (r != GROUP_ONE_BY_ONE)
		return r;
	r = 0;
	for (size_t i = 0; !r && i < n; i++)
		r = pending_add(db, g[i], err, errlen);
	return r;
}

static void pending_free(struct pending *p)
{
	free(p->buf);
	hist_file_free(p->f);
	p->buf = NULL;
	p->f = NULL;
}

int hist_add_file(struct hist_db *db, const char *path, struct hist_add_res *ret, char *err,
		  size_t errlen)
{
	struct pending p = { .path = path };
	int r = pending_read(db, &p, err, errlen);

	if (!r)
		pending_decode(&p);
	if (!r && p.error) {
		snprintf(err, errlen, "%s", p.err);
		r = p.error;
	} else if (!r && !p.res.present) {
		r = pending_add(db, &p, err, errlen);
	}
	*ret = p.res;
	pending_free(&p);
	return r;
}

/* The decoders of one window: the next file to take, and the threads taking them. */
struct decoders {
	struct pending *p;
	size_t n, next;
	pthread_mutex_t lock;
	pthread_t tid[HIST_ADD_THREADS_MAX];
	int started;
};

static void *decoder(void *arg)
{
	struct decoders *d = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&d->lock);
		i = d->next++;
		pthread_mutex_unlock(&d->lock);
		if (i >= d->n)
			return NULL;
		pending_decode(&d->p[i]);
	}
}

/* @d's files decoded by @threads threads; what none could start is decoded by the caller. */
static void decoders_start(struct decoders *d, int threads)
{
	pthread_mutex_init(&d->lock, NULL);
	d->started = 0;
	for (int t = 0; t < threads && (size_t)t < d->n; t++)
		if (!pthread_create(&d->tid[d->started], NULL, decoder, d))
			d->started++;
	if (!d->started)
		decoder(d);
}

static void decoders_join(struct decoders *d)
{
	for (int t = 0; t < d->started; t++)
		pthread_join(d->tid[t], NULL);
	pthread_mutex_destroy(&d->lock);
}

/* Reads window @d's files and asks the store for their bytes, in order (this thread's). */
static int window_read(struct hist_db *db, struct decoders *d, const char *const *paths, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < d->n; i++) {
		d->p[i].path = paths[i];
		pending_load(db, &d->p[i]);
	}
	return pending_known(db, d->p, d->n, err, errlen);
}

int hist_add_files(struct hist_db *db, const char *const *paths, size_t n, int threads,
		   hist_added_fn fn, void *arg, char *err, size_t errlen)
{
	struct pending *all = calloc(n ? n : 1, sizeof(*all));
	struct decoders win[2];
	size_t window;
	int r = 0;

	if (!all) {
		snprintf(err, errlen, "adding files: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	threads = threads < 1 ? 1 : threads > HIST_ADD_THREADS_MAX ? HIST_ADD_THREADS_MAX : threads;
	/*
	 * Windows of a few files a decoder: the bytes held are bounded, whatever @n. While
	 * window k is decoded, this thread reads window k+1; while k+1 is decoded, it adds k,
	 * in order, its files in groups of one transaction each (group_add).
	 */
	window = (size_t)threads * WINDOW_PER_DECODER;
	if (n) {
		win[0] = (struct decoders){ .p = all, .n = n < window ? n : window };
		r = window_read(db, &win[0], paths, err, errlen);
		if (!r)
			decoders_start(&win[0], threads);
	}
	for (size_t lo = 0, k = 0; !r && lo < n; lo += window, k ^= 1) {
		struct decoders *d = &win[k], *next = &win[k ^ 1];
		size_t nlo = lo + window;
		int rn = 0;

		if (nlo < n) {
			*next = (struct decoders){ .p = all + nlo,
						   .n = n - nlo < window ? n - nlo : window };
			rn = window_read(db, next, paths + nlo, err, errlen);
		}
		decoders_join(d);
		if (rn) {
			r = rn;
			break;
		}
		if (nlo < n)
			decoders_start(next, threads);
		for (size_t i = 0, j; !r && i < d->n; i = j) {
			struct pending *g[KNOWN_MAX];
			size_t ng = 0, runs = 0;

			/*
			 * A group: the decoded files from i on, up to GROUP_RUNS runs or a file
			 * refused (whose report may stop the add: nothing after it is added).
			 */
			for (j = i; j < d->n && !d->p[j].error; j++) {
				if (d->p[j].res.present)
					continue;
				if (ng && runs + d->p[j].f->nruns > GROUP_RUNS)
					break;
				g[ng++] = &d->p[j];
				runs += d->p[j].f->nruns;
			}
			j += j < d->n && d->p[j].error;
			if (ng)
				r = add_group(db, g, ng, err, errlen);
			for (; !r && i < j; i++) {
				struct pending *p = &d->p[i];
				int e = p->error;

				if (fn &&
				    (r = fn(arg, lo + i, p->path, &p->res, e, e ? p->err : NULL)))
					snprintf(err, errlen, "%s", e ? p->err : "stopped");
				pending_free(p);
			}
		}
		if (r && nlo < n)
			decoders_join(next);
	}
	for (size_t i = 0; i < n; i++)
		pending_free(&all[i]);
	free(all);
	return r;
}
