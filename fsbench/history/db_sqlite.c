/* The history's SQLite backend: one file, nothing to start; writers take turns on its lock. */
#include "fsbench/history/db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* how long a writer waits for another's transaction before it gives up (SQLITE_BUSY) */
#define SQLITE_BUSY_MS 60000

/*
 * A connection and its prepared statements, kept by their SQL text: adding a file runs
 * the same few statements hundreds of times, and preparing each again was a third of the
 * CPU an add spent.
 */
#define SQ_CACHE 32
struct sq_conn {
	sqlite3 *db;
	struct {
		char *sql;
		sqlite3_stmt *st;
		bool busy; /* a query's rows are being read from it (a callback may query) */
	} cache[SQ_CACHE];
	unsigned next; /* the slot the next new statement takes (round robin) */
};

/* An -errno for a SQLite result code: a damaged or foreign file is -EBADMSG. */
static int sq_errno(int rc)
{
	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		return -EEXIST;
	switch (rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EBADMSG;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	default:
		return -EIO;
	}
}

static int sq_fail(sqlite3 *db, int rc, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	return sq_errno(rc);
}

static int sq_open(const char *target, void **ret_conn, char *err, size_t errlen)
{
	struct sq_conn *c;
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(target, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);

	if (rc != SQLITE_OK) {
		int e = sq_fail(db, rc, "SQLite", err, errlen);

		sqlite3_close(db);
		return e;
	}
	sqlite3_busy_timeout(db, SQLITE_BUSY_MS);
	sqlite3_extended_result_codes(db, 1);
	/*
	 * WAL: readers do not wait for a writer. synchronous = NORMAL: a commit is not synced
	 * (the WAL is, at each checkpoint), so a power cut may lose the last files added, never
	 * half a file; adding them again is what an add does anyway (by content hash). It is
	 * 15 ms a file less on this disk (docs/history.md).
	 */
	/* cache_size: 32 MiB of pages (SQLite's default is 2), the series index's working set */
	/*
	 * Turning a new store to WAL takes its lock, and SQLite answers "database is locked"
	 * at once, without the busy handler, while another writer is making the same store
	 * (history-pg's two writers on one new file, now and then): asked again, as the
	 * handler would, for as long.
	 */
	for (int waited = 0;; waited += 10) {
		rc = sqlite3_exec(db,
				  "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; "
				  "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768;",
				  NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || waited >= SQLITE_BUSY_MS)
			break;
		sqlite3_sleep(10);
	}
	if (rc != SQLITE_OK) {
		int e = sq_fail(db, rc, "SQLite", err, errlen);

		sqlite3_close(db);
		return e;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		sqlite3_close(db);
		snprintf(err, errlen, "SQLite: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	c->db = db;
	*ret_conn = c;
	return 0;
}

/*
 * A statement done with: reset, so that it holds no lock or bound text, and back in the
 * cache; one that is not kept there, finalized.
 */
static void sq_done(struct sq_conn *c, sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	for (int i = 0; i < SQ_CACHE; i++)
		if (c->cache[i].st == st) {
			c->cache[i].busy = false;
			return;
		}
	sqlite3_finalize(st);
}

/*
 * @sql (PostgreSQL's $N placeholders read as SQLite's ?N) prepared, or taken from the
 * cache, with @params bound; sq_done() gives it back. A statement in use (a query whose
 * callback runs the same SQL) is not taken twice: the second is prepared for once.
 */
static int sq_prepare(struct sq_conn *c, const char *sql, const struct hist_row *params,
		      sqlite3_stmt **ret, char *err, size_t errlen)
{
	int rc, slot = -1;
	char *s;

	*ret = NULL;
	for (int i = 0; i < SQ_CACHE && !*ret; i++)
		if (c->cache[i].sql && !c->cache[i].busy && !strcmp(c->cache[i].sql, sql))
			*ret = c->cache[slot = i].st;
	if (!*ret) {
		if (!(s = strdup(sql))) {
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		for (char *p = s; (p = strchr(p, '$')); p++)
			*p = '?';
		rc = sqlite3_prepare_v3(c->db, s, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);
		if (rc != SQLITE_OK) {
			free(s);
			return sq_fail(c->db, rc, "preparing a statement", err, errlen);
		}
		strcpy(s, sql);
		/* the next slot not in use; when all are, the statement is not kept */
		for (int i = 0; i < SQ_CACHE && slot < 0; i++) {
			unsigned k = c->next++ % SQ_CACHE;

			if (!c->cache[k].busy)
				slot = (int)k;
		}
		if (slot >= 0) {
			free(c->cache[slot].sql);
			sqlite3_finalize(c->cache[slot].st);
			c->cache[slot].sql = s;
			c->cache[slot].st = *ret;
		} else {
			free(s);
		}
	}
	if (slot >= 0)
		c->cache[slot].busy = true;
	for (int i = 0; params && i < params->n; i++) {
		rc = params->v[i] ?
			     sqlite3_bind_text(*ret, i + 1, params->v[i], -1, SQLITE_STATIC) :
			     sqlite3_bind_null(*ret, i + 1);
		if (rc != SQLITE_OK) {
			rc = sq_fail(c->db, rc, "binding a parameter", err, errlen);
			sq_done(c, *ret);
			return rc;
		}
	}
	return 0;
}

static int sq_query(void *conn, const char *sql, const struct hist_row *params, hist_row_fn fn,
		    void *arg, char *err, size_t errlen)
{
	struct sq_conn *c = conn;
	sqlite3_stmt *st;
	const char *cols[64];
	int rc, r = sq_prepare(c, sql, params, &st, err, errlen);

	if (r)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hist_row row = { cols, sqlite3_column_count(st) };

		if (row.n > 64)
			row.n = 64;
		for (int i = 0; i < row.n; i++)
			cols[i] = (const char *)sqlite3_column_text(st, i);
		if (fn && (r = fn(arg, &row)))
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = sq_fail(c->db, rc, "reading the store", err, errlen);
	sq_done(c, st);
	return r;
}

static int sq_exec(void *conn, const char *sql, const struct hist_row *params, char *err,
		   size_t errlen)
{
	struct sq_conn *c = conn;
	sqlite3_stmt *st;
	int rc, r;

	/* without parameters: a script of several statements (the schema) */
	if (!params) {
		rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			return sq_fail(c->db, rc, "writing the store", err, errlen);
		return sqlite3_changes(c->db);
	}
	r = sq_prepare(c, sql, params, &st, err, errlen);
	if (r)
		return r;
	rc = sqlite3_step(st);
	while (rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	r = rc == SQLITE_DONE ? sqlite3_changes(c->db) :
				sq_fail(c->db, rc, "writing the store", err, errlen);
	sq_done(c, st);
	return r;
}

/* One at a time: the statements are kept prepared, and nothing is a round trip. */
static int sq_commit(void *conn, char *err, size_t errlen)
{
	int r = sq_exec(conn, "COMMIT", NULL, err, errlen);

	return r < 0 ? r : 0;
}

static int sq_exec_many(void *conn, const struct hist_stmt *s, size_t n, bool commit,
			size_t *failed, char *err, size_t errlen)
{
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		r = sq_exec(conn, s[i].sql, &s[i].params, err, errlen);
		if (r < 0) {
			*failed = i;
			return r;
		}
	}
	if (commit && (r = sq_commit(conn, err, errlen)))
		*failed = n;
	return r;
}

static int sq_begin(void *conn, char *err, size_t errlen)
{
	int r = sq_exec(conn, "BEGIN IMMEDIATE", NULL, err, errlen);

	return r < 0 ? r : 0;
}

static void sq_rollback(void *conn)
{
	struct sq_conn *c = conn;

	if (!sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

static void sq_close(void *conn)
{
	struct sq_conn *c = conn;

	for (unsigned i = 0; i < SQ_CACHE; i++) {
		sqlite3_finalize(c->cache[i].st);
		free(c->cache[i].sql);
	}
	sqlite3_close(c->db);
	free(c);
}

const struct hist_backend hist_sqlite = {
	.name = "sqlite",
	.id_type = "INTEGER PRIMARY KEY",
	/* a writer holds the store's lock (BEGIN IMMEDIATE), and a new rowid is the largest */
	.last_id = "(SELECT max(id) FROM %s)",
	.open = sq_open,
	.begin = sq_begin,
	.exec = sq_exec,
	.query = sq_query,
	.exec_many = sq_exec_many,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.close = sq_close,
};
