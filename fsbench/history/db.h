/*
 * The history's store: one schema, written once in SQL, over two backends (SQLite on one
 * machine, a lab's PostgreSQL shared by many writers) behind one small table of operations.
 * Below the CLI: nothing here prints; every error is a -errno with a message in @err.
 */
#ifndef FSB_HIST_DB_H
#define FSB_HIST_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The schema this fsbench writes and reads; db.c holds each version's migration. */
#define HIST_SCHEMA_VERSION 2

/*
 * What a store's refusal means, as -errno: the CLI turns each into one exit status.
 *   -EINVAL           a --db that names no store (a bad URI)
 *   -EPROTONOSUPPORT  the store was written by a newer fsbench (its schema version is higher)
 *   -EBADMSG          the file or database is not a history store, or is damaged
 *   anything else     the system: the file cannot be opened, the server is down or went
 *                     away, the disk is full, credentials were refused
 */

/* One statement's parameters and results: text, or NULL for SQL NULL. */
struct hist_row {
	const char *const *v;
	int n;
};

/* One statement of several sent together (hist_backend.exec_many). */
struct hist_stmt {
	const char *sql;
	struct hist_row params;
};

/* Called once per result row; a non-zero return stops the query and is returned by it. */
typedef int (*hist_row_fn)(void *arg, const struct hist_row *row);

/*
 * A backend. SQL is written with $1, $2... placeholders (PostgreSQL's; the SQLite backend
 * reads them as ?1, ?2...), every parameter and column as text.
 */
struct hist_backend {
	const char *name; /* "sqlite", "postgresql" */
	/* the column type of a table's generated key */
	const char *id_type;
	/*
	 * SQL for the key of the row this connection's transaction added last to the table
	 * %s: a statement sent with others (exec_many) names the file and run it belongs
	 * to by it, as it cannot wait for an id read back.
	 */
	const char *last_id;
	int (*open)(const char *target, void **ret_conn, char *err, size_t errlen);
	/*
	 * A write transaction: SQLite takes its write lock at once (BEGIN IMMEDIATE);
	 * PostgreSQL sends BEGIN with the transaction's first statement.
	 */
	int (*begin)(void *conn, char *err, size_t errlen);
	/* rows changed (>= 0), or -errno */
	int (*exec)(void *conn, const char *sql, const struct hist_row *params, char *err,
		    size_t errlen);
	int (*query)(void *conn, const char *sql, const struct hist_row *params, hist_row_fn fn,
		     void *arg, char *err, size_t errlen);
	/*
	 * @n statements that return no rows, in order, in the open transaction, stopping at
	 * the first that fails, then the transaction's commit when @commit and all went
	 * well: 0, or its -errno with @err and its index in *@failed (@n: the commit). A
	 * unique key's refusal is -EEXIST. PostgreSQL sends them all, with the BEGIN that
	 * begin() left to the first statement and the COMMIT, before it reads an answer
	 * (libpq's pipeline mode): one round trip, not @n + 2.
	 */
	int (*exec_many)(void *conn, const struct hist_stmt *s, size_t n, bool commit,
			 size_t *failed, char *err, size_t errlen);
	int (*commit)(void *conn, char *err, size_t errlen);
	void (*rollback)(void *conn);
	void (*close)(void *conn);
};

extern const struct hist_backend hist_sqlite;
extern const struct hist_backend hist_postgresql;

struct hist_db {
	const struct hist_backend *be;
	void *conn;
	char where[512]; /* the file or the URI without its password, for messages */
	/* series and kernels (id_key()) -> id: known (committed), and learnt in the open
	 * transaction */
	struct json_t *ids, *ids_pending;
	/* rows of schema 1 (no raw_sha256), known by the older dump hash: added files get it too */
	bool dump_rows;
};

/*
 * The store @target names: a libpq URI (postgresql://, postgres://), else a SQLite file,
 * created with its directory when missing; NULL: hist_db_default_path(). The schema is
 * created in an empty store and checked in any other. 0 with *@ret set, or -errno (above).
 */
int hist_db_open(const char *target, struct hist_db **ret, char *err, size_t errlen);

/* Closes @db; NULL is fine. Returns NULL. */
struct hist_db *hist_db_close(struct hist_db *db);

/*
 * The default SQLite store: $XDG_DATA_HOME/fsbench/history.db, else
 * ~/.local/share/fsbench/history.db, or /var/lib/fsbench/history.db for root. 0 or
 * -ENAMETOOLONG.
 */
int hist_db_default_path(char *out, size_t len);

/* What adding one file did. */
struct hist_add_res {
	char sha256[65];
	bool present; /* the store had this file already (by content): nothing was added */
	int runs; /* runs added */
	int values; /* metric values added */
	int incomplete; /* of them, runs the file marks incomplete (kept, never in a series) */
};

/*
 * Adds every run of the result file at @path, in one transaction: the file (by its
 * content's SHA-256; a file already in the store adds nothing), its kernel, and each run
 * with its values. The seam `kernel-run --history` and `history run` call. 0, -EPROTO with
 * @err naming the file when it is not an fsbench result (nothing added), or a store's
 * -errno (above; rolled back).
 */
int hist_add_file(struct hist_db *db, const char *path, struct hist_add_res *ret, char *err,
		  size_t errlen);

/* Called per file by hist_add_files(), in order: @error 0 (added or present, @res) or the
 * file's own -EPROTO/-errno with @err; a non-zero return stops the add and is returned. */
typedef int (*hist_added_fn)(void *arg, size_t i, const char *path, const struct hist_add_res *res,
			     int error, const char *err);

#define HIST_ADD_THREADS_MAX 16

/*
 * hist_add_file() of each of @paths, in order, their decoding (the JSON, the canonical
 * hash: most of an add's time) by @threads at once. A file that cannot be read or is not
 * a result is @fn's to say, and the others are added; 0, @fn's non-zero return, or a
 * store's -errno with @err (what was added before it stays: one transaction a file).
 */
int hist_add_files(struct hist_db *db, const char *const *paths, size_t n, int threads,
		   hist_added_fn fn, void *arg, char *err, size_t errlen);

/* Runs @sql with @params (NULL: none) through @db's backend. */
int hist_db_exec(struct hist_db *db, const char *sql, const struct hist_row *params, char *err,
		 size_t errlen);
int hist_db_query(struct hist_db *db, const char *sql, const struct hist_row *params,
		  hist_row_fn fn, void *arg, char *err, size_t errlen);

#endif
