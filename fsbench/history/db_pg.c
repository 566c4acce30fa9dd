/* The history's PostgreSQL backend (libpq): a lab's store, written by many machines at once. */
#include "fsbench/history/db.h"

#include <errno.h>
#include <libpq-fe.h>
#include <stdbool.h>
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
	if (state && !strcmp(state, "23505")) /* unique_violation */
		return -EEXIST;
	return -EIO;
}

/*
 * A connection and the statements prepared on it: a file's add sends the same few
 * statements for each of its runs, and the server parses and plans each text once, not
 * once a run (9.7 s of the server's CPU for 10 000 runs otherwise).
 */
#define PG_PREPARED 32
struct pg_conn {
	PGconn *c;
	char *sql[PG_PREPARED]; /* statement "sN" is sql[N] */
	int n;
	/*
	 * begin() was asked and BEGIN not sent yet: it goes with the transaction's first
	 * statement, in the same round trip when that is a pipeline (a file's add: its
	 * BEGIN, rows and COMMIT in one, where each was a round trip of its own).
	 */
	bool begin_pending;
};

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
	*ret_conn = calloc(1, sizeof(struct pg_conn));
	if (!*ret_conn) {
		PQfinish(c);
		snprintf(err, errlen, "connecting: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	((struct pg_conn *)*ret_conn)->c = c;
	return 0;
}

static PGresult *pg_run(PGconn *c, const char *sql, const struct hist_row *params)
{
	if (!params)
		return PQexec(c, sql);
	return PQexecParams(c, sql, params->n, NULL, params->v, NULL, NULL, 0);
}

/* The BEGIN begin() left for the transaction's first statement, when that is not a pipeline. */
static int pg_begun(struct pg_conn *pc, char *err, size_t errlen)
{
	PGresult *res;
	int r = 0;

	if (!pc->begin_pending)
		return 0;
	pc->begin_pending = false;
	res = PQexec(pc->c, "BEGIN");
	if (!res || PQresultStatus(res) != PGRES_COMMAND_OK)
		r = pg_fail(pc->c, res, pg_errno(pc->c, res), "writing the store", err, errlen);
	PQclear(res);
	return r;
}

static int pg_exec(void *conn, const char *sql, const struct hist_row *params, char *err,
		   size_t errlen)
{
	PGconn *c = ((struct pg_conn *)conn)->c;
	int r = pg_begun(conn, err, errlen);
	PGresult *res = r ? NULL : pg_run(c, sql, params);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (r)
		return r;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		r = pg_fail(c, res, pg_errno(c, res), "writing the store", err, errlen);
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
	PGconn *c = ((struct pg_conn *)conn)->c;
	const char *cols[64];
	PGresult *res;
	int r = pg_begun(conn, err, errlen);

	if (r)
		return r;
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

/*
 * Sends @s as a prepared statement: a text seen before runs as its statement, a new one
 * is prepared first, in the same pipeline. Statements outlive transactions and live as
 * long as the connection. The answers this queues, each with -1 for a prepare's and the
 * slot it fills, are appended to @ans; 0 when libpq could not send.
 */
struct pg_answer {
	/* the slot a prepare fills, or PG_ANS_STMT (a statement's), or PG_ANS_TX (BEGIN, COMMIT) */
	int prepared;
};
#define PG_ANS_STMT (-1)
#define PG_ANS_TX (-2)

/* BEGIN or COMMIT in the pipeline: not one of the caller's statements. */
static int pg_send_tx(PGconn *c, const char *sql, struct pg_answer *ans, size_t *nans)
{
	ans[(*nans)++].prepared = PG_ANS_TX;
	return PQsendQueryParams(c, sql, 0, NULL, NULL, NULL, NULL, 0);
}

static int pg_send(struct pg_conn *pc, const struct hist_stmt *s, struct pg_answer *ans,
		   size_t *nans)
{
	char name[16];
	int i = 0, free_slot = -1;

	for (; i < pc->n && (!pc->sql[i] || strcmp(pc->sql[i], s->sql)); i++)
		if (!pc->sql[i] && free_slot < 0)
			free_slot = i;
	if (i == pc->n) {
		i = free_slot >= 0 ? free_slot : pc->n;
		if (i == PG_PREPARED) { /* texts beyond the table's size run unprepared */
			ans[(*nans)++].prepared = PG_ANS_STMT;
			return PQsendQueryParams(pc->c, s->sql, s->params.n, NULL, s->params.v,
						 NULL, NULL, 0);
		}
		snprintf(name, sizeof(name), "s%d", i);
		if (!(pc->sql[i] = strdup(s->sql)))
			return 0;
		if (i == pc->n)
			pc->n++;
		ans[(*nans)++].prepared = i;
		if (!PQsendPrepare(pc->c, name, s->sql, s->params.n, NULL))
			return 0;
	}
	snprintf(name, sizeof(name), "s%d", i);
	ans[(*nans)++].prepared = PG_ANS_STMT;
	return PQsendQueryPrepared(pc->c, name, s->params.n, s->params.v, NULL, NULL, 0);
}

/*
 * Every statement sent before any answer is read (libpq's pipeline mode), then one sync:
 * a file's rows in one round trip rather than one a statement. A file of many runs is
 * one pipeline too: libpq takes the server's answers into its buffer while it waits to
 * send (a file of 6000 runs, 12 000 statements, went in whole, in 28.5 s).
 * After a failure the server skips the rest up to the sync (PGRES_PIPELINE_ABORTED) and
 * the transaction is left failed, for the caller's rollback; a prepare it skipped is
 * forgotten, to be made again.
 */
static int pg_exec_many(void *conn, const struct hist_stmt *s, size_t n, bool commit,
			size_t *failed, char *err, size_t errlen)
{
	struct pg_conn *pc = conn;
	PGconn *c = pc->c;
	struct pg_answer *ans = malloc((2 * n + 3) * sizeof(*ans));
	bool begin = pc->begin_pending;
	size_t sent = 0, nans = 0, a = 0, stmt = 0;
	PGresult *res;
	int r = 0;

	if (!ans) {
		snprintf(err, errlen, "writing the store: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (!PQenterPipelineMode(c)) {
		free(ans);
		return pg_fail(c, NULL, pg_errno(c, NULL), "writing the store", err, errlen);
	}
	pc->begin_pending = false;
	if (!begin || pg_send_tx(c, "BEGIN", ans, &nans))
		while (sent < n && pg_send(pc, &s[sent], ans, &nans))
			sent++;
	if (sent == n && commit && !pg_send_tx(c, "COMMIT", ans, &nans))
		sent = n + 1; /* the commit could not be sent */
	if (sent != n) {
		*failed = sent > n ? n : sent;
		r = pg_fail(c, NULL, pg_errno(c, NULL), "writing the store", err, errlen);
	}
	if (!PQpipelineSync(c) && !r) {
		*failed = sent;
		r = pg_fail(c, NULL, pg_errno(c, NULL), "writing the store", err, errlen);
	}
	/* every answer is read, also after a failure, so that the connection can go on */
	for (;;) {
		ExecStatusType st;
		int slot = a < nans ? ans[a].prepared : -1;

		res = PQgetResult(c);
		if (!res) { /* the end of answer a; past them all, a lost server's */
			if (a < nans && ans[a].prepared == PG_ANS_STMT)
				stmt++;
			if (a++ > nans)
				break;
			continue;
		}
		st = PQresultStatus(res);
		if (st == PGRES_PIPELINE_SYNC) {
			PQclear(res);
			break;
		}
		if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && slot >= 0) {
			free(pc->sql[slot]); /* never made: made again by the next use */
			pc->sql[slot] = NULL;
		}
		if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK &&
		    st != PGRES_PIPELINE_ABORTED && !r) {
			*failed = stmt;
			r = pg_fail(c, res, pg_errno(c, res), "writing the store", err, errlen);
		}
		PQclear(res);
	}
	/* a prepare never answered (the server went away) is not there either */
	for (; a < nans; a++)
		if (ans[a].prepared >= 0) {
			free(pc->sql[ans[a].prepared]);
			pc->sql[ans[a].prepared] = NULL;
		}
	free(ans);
	if (!PQexitPipelineMode(c) && !r)
		r = pg_fail(c, NULL, pg_errno(c, NULL), "writing the store", err, errlen);
	return r;
}

static int pg_begin(void *conn, char *err, size_t errlen)
{
	struct pg_conn *pc = conn;

	(void)err;
	(void)errlen;
	pc->begin_pending = true;
	return 0;
}

static int pg_commit(void *conn, char *err, size_t errlen)
{
	struct pg_conn *pc = conn;
	int r;

	if (pc->begin_pending) { /* nothing was sent: nothing to commit */
		pc->begin_pending = false;
		return 0;
	}
	r = pg_exec(conn, "COMMIT", NULL, err, errlen);
	return r < 0 ? r : 0;
}

static void pg_rollback(void *conn)
{
	struct pg_conn *pc = conn;

	pc->begin_pending = false;
	if (PQtransactionStatus(pc->c) != PQTRANS_IDLE)
		PQclear(PQexec(pc->c, "ROLLBACK"));
}

static void pg_close(void *conn)
{
	struct pg_conn *pc = conn;

	PQfinish(pc->c);
	for (int i = 0; i < pc->n; i++)
		free(pc->sql[i]);
	free(pc);
}

const struct hist_backend hist_postgresql = {
	.name = "postgresql",
	.id_type = "BIGSERIAL PRIMARY KEY",
	/*
	 * The session's own last value of the table's sequence (no other writer's), named as
	 * BIGSERIAL names it: pg_get_serial_sequence() would read the catalogue for every row
	 * (13 % of the server's CPU in an add).
	 */
	.last_id = "currval('%s_id_seq')",
	.open = pg_open,
	.begin = pg_begin,
	.exec = pg_exec,
	.query = pg_query,
	.exec_many = pg_exec_many,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.close = pg_close,
};
