/* The history's SQLite backend: one file, nothing to start; writers take turns on its lock. */
#include "fsbench/history/db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* how long a writer waits for another's transaction before it gives up (SQLITE_BUSY) */
#define SQLITE_BUSY_MS 60000

/* An -errno for a SQLite result code: a damaged or foreign file is -EBADMSG. */
static int sq_errno(int rc)
{
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
	rc = sqlite3_exec(db,
			  "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; "
			  "PRAGMA synchronous = NORMAL;",
			  NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int e = sq_fail(db, rc, "SQLite", err, errlen);

		sqlite3_close(db);
		return e;
	}
	*ret_conn = db;
	return 0;
}

/* @sql with PostgreSQL's $N placeholders read as SQLite's ?N. */
static int sq_prepare(sqlite3 *db, const char *sql, const struct hist_row *params,
		      sqlite3_stmt **ret, char *err, size_t errlen)
{
	char *s = strdup(sql);
	int rc;

	if (!s) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (char *p = s; (p = strchr(p, '$')); p++)
		*p = '?';
	rc = sqlite3_prepare_v2(db, s, -1, ret, NULL);
	free(s);
	if (rc != SQLITE_OK)
		return sq_fail(db, rc, "preparing a statement", err, errlen);
	for (int i = 0; params && i < params->n; i++) {
		rc = params->v[i] ?
			     sqlite3_bind_text(*ret, i + 1, params->v[i], -1, SQLITE_STATIC) :
			     sqlite3_bind_null(*ret, i + 1);
		if (rc != SQLITE_OK) {
			sqlite3_finalize(*ret);
			return sq_fail(db, rc, "binding a parameter", err, errlen);
		}
	}
	return 0;
}

static int sq_query(void *conn, const char *sql, const struct hist_row *params, hist_row_fn fn,
		    void *arg, char *err, size_t errlen)
{
	sqlite3 *db = conn;
	sqlite3_stmt *st;
	const char *cols[64];
	int rc, r = sq_prepare(db, sql, params, &st, err, errlen);

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
		r = sq_fail(db, rc, "reading the store", err, errlen);
	sqlite3_finalize(st);
	return r;
}

static int sq_exec(void *conn, const char *sql, const struct hist_row *params, char *err,
		   size_t errlen)
{
	sqlite3 *db = conn;
	sqlite3_stmt *st;
	int rc, r;

	/* without parameters: a script of several statements (the schema) */
	if (!params) {
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			return sq_fail(db, rc, "writing the store", err, errlen);
		return sqlite3_changes(db);
	}
	r = sq_prepare(db, sql, params, &st, err, errlen);
	if (r)
		return r;
	rc = sqlite3_step(st);
	while (rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	r = rc == SQLITE_DONE ? sqlite3_changes(db) :
				sq_fail(db, rc, "writing the store", err, errlen);
	sqlite3_finalize(st);
	return r;
}

static int sq_begin(void *conn, char *err, size_t errlen)
{
	int r = sq_exec(conn, "BEGIN IMMEDIATE", NULL, err, errlen);

	return r < 0 ? r : 0;
}

static int sq_commit(void *conn, char *err, size_t errlen)
{
	int r = sq_exec(conn, "COMMIT", NULL, err, errlen);

	return r < 0 ? r : 0;
}

static void sq_rollback(void *conn)
{
	if (!sqlite3_get_autocommit(conn))
		sqlite3_exec(conn, "ROLLBACK", NULL, NULL, NULL);
}

static void sq_close(void *conn)
{
	sqlite3_close(conn);
}

const struct hist_backend hist_sqlite = {
	.name = "sqlite",
	.id_type = "INTEGER PRIMARY KEY",
	.open = sq_open,
	.begin = sq_begin,
	.exec = sq_exec,
	.query = sq_query,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.close = sq_close,
};
