/* The history's PostgreSQL backend (libpq): a lab's store, written by many machines at once. */
#include "fsbench/history/db.h"

#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The server's message on one line (libpq's end with a newline and may hold several). */
static int pg_fail(PGconn *c, const PGresult *res, int e, const char *what, char *err,
		   size_t errlen)
{
	const char *m = res ? PQresultErrorMessage(res) : "";
	size_t n;

	if (!m || !*m)
		m = c ? PQerrorMessage(c) : "";
	snprintf(err, errlen, "%s: %s", what, m && *m ? m : "failed");
	n = strlen(err);
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = 0;
	for (char *p = err; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return e;
}

/* An -errno for a failed statement: a lost connection is the system's, the rest -EIO. */
static int pg_errno(PGconn *c, const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (PQstatus(c) != CONNECTION_OK)
		return -ECONNRESET;
	if (state && !strncmp(state, "53", 2)) /* insufficient resources: disk full, memory */
		return -ENOSPC;
	if (state && !strncmp(state, "28", 2)) /* invalid authorization */
		return -EACCES;
	return -EIO;
}

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg; /* NOTICEs ("relation already exists, skipping") are not errors */
}

static int pg_open(const char *target, void **ret_conn, char *err, size_t errlen)
{
	PGconn *c = PQconnectdb(target);

	if (!c) {
		snprintf(err, errlen, "connecting: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		const char *m = PQerrorMessage(c);
		int e = strstr(m, "password") || strstr(m, "authentication") ? -EACCES :
			strstr(m, "invalid") && strstr(m, "URI")	     ? -EINVAL :
									       -ECONNREFUSED;

		pg_fail(c, NULL, e, "connecting", err, errlen);
		PQfinish(c);
		return e;
	}
	PQsetNoticeProcessor(c, quiet, NULL);
	*ret_conn = c;
	return 0;
}

static PGresult *pg_run(PGconn *c, const char *sql, const struct hist_row *params)
{
	if (!params)
		return PQexec(c, sql);
	return PQexecParams(c, sql, params->n, NULL, params->v, NULL, NULL, 0);
}

static int pg_exec(void *conn, const char *sql, const struct hist_row *params, char *err,
		   size_t errlen)
{
	PGresult *res = pg_run(conn, sql, params);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	int r;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		r = pg_fail(conn, res, pg_errno(conn, res), "writing the store", err, errlen);
	else
		r = atoi(PQcmdTuples(res));
	PQclear(res);
	return r;
}

/*
 * Rows as the server sends them, one at a time (libpq's single-row mode): a query over
 * every value of a lab's store is millions of rows, which PQexecParams would hold in
 * the client's memory at once (310 MiB at 10 000 runs).
 */
static int pg_query(void *conn, const char *sql, const struct hist_row *params, hist_row_fn fn,
		    void *arg, char *err, size_t errlen)
{
	PGconn *c = conn;
	const char *cols[64];
	PGresult *res;
	int r = 0;

	if (!PQsendQueryParams(c, sql, params ? params->n : 0, NULL, params ? params->v : NULL,
			       NULL, NULL, 0) ||
	    !PQsetSingleRowMode(c))
		return pg_fail(c, NULL, pg_errno(c, NULL), "reading the store", err, errlen);
	/* every result is read, also after a failure or a stop, so the next query can run */
	while ((res = PQgetResult(c))) {
		ExecStatusType st = PQresultStatus(res);

		if (!r && st == PGRES_SINGLE_TUPLE && fn) {
			struct hist_row row = { cols, PQnfields(res) > 64 ? 64 : PQnfields(res) };

			for (int j = 0; j < row.n; j++)
				cols[j] = PQgetisnull(res, 0, j) ? NULL : PQgetvalue(res, 0, j);
			r = fn(arg, &row);
		} else if (!r && st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK) {
			r = pg_fail(c, res, pg_errno(c, res), "reading the store", err, errlen);
		}
		PQclear(res);
	}
	return r;
}

static int pg_begin(void *conn, char *err, size_t errlen)
{
	int r = pg_exec(conn, "BEGIN", NULL, err, errlen);

	return r < 0 ? r : 0;
}

static int pg_commit(void *conn, char *err, size_t errlen)
{
	int r = pg_exec(conn, "COMMIT", NULL, err, errlen);

	return r < 0 ? r : 0;
}

static void pg_rollback(void *conn)
{
	if (PQtransactionStatus(conn) != PQTRANS_IDLE)
		PQclear(PQexec(conn, "ROLLBACK"));
}

static void pg_close(void *conn)
{
	PQfinish(conn);
}

const struct hist_backend hist_postgresql = {
	.name = "postgresql",
	.id_type = "BIGSERIAL PRIMARY KEY",
	.open = pg_open,
	.begin = pg_begin,
	.exec = pg_exec,
	.query = pg_query,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.close = pg_close,
};
