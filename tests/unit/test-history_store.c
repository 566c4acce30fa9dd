/* Unit tests of fsbench/history/db: the SQLite store: add twice adds once, refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsbench/history/db.h"
#include "fsbench/history/series.h"

static char dir[64], db_path[128], fixture[512];

static int setup(void **state)
{
	const char *fx = getenv("FSB_FIXTURES");

	(void)state;
	strcpy(dir, "/tmp/fsb-test-history.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/sub/history.db", dir);
	snprintf(fixture, sizeof(fixture), "%s/results/probes-ext4.json",
		 fx ? fx : "tests/fixtures");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static long long count(const char *table)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char sql[64];
	long long n;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* The store is made with its directory; a file added twice is there once. */
static void add_twice_adds_once(void **state)
{
	struct hist_add_res res;
	struct hist_db *db;
	struct hist_summary sum;
	char err[1024];

	(void)state;
	assert_int_equal(hist_db_open(db_path, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_false(res.present);
	assert_int_equal(res.runs, 1);
	assert_true(res.values >= 5); /* files/s, write amplification, dirty, fsync p50/p99... */
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_true(res.present);
	assert_int_equal(res.runs, 0);
	assert_int_equal(hist_summary_load(db, &sum, err, sizeof(err)), 0);
	assert_int_equal(sum.files, 1);
	assert_int_equal(sum.runs, 1);
	assert_int_equal(sum.nkernels, 1);
	assert_string_equal(sum.kernels[0].k.release, "6.18.44-fc-v657");
	hist_summary_free(&sum);
	hist_db_close(db);
	/* and once more from a new connection, as tomorrow's add */
	assert_int_equal(hist_db_open(db_path, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_true(res.present);
	hist_db_close(db);
	assert_int_equal(count("files"), 1);
	assert_int_equal(count("runs"), 1);
}

/* A file that is not a result adds nothing and says why. */
static void not_a_result(void **state)
{
	struct hist_add_res res;
	struct hist_db *db;
	char err[1024], path[160];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/gate.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"schema\": \"fsbench-kernel-gate/1\"}", f);
	fclose(f);
	assert_int_equal(hist_db_open(db_path, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, path, &res, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "not an fsbench result"));
	hist_db_close(db);
	assert_int_equal(count("files"), 1);
}

/* A store of a newer schema is refused, named, and left as it was. */
static void newer_schema_refused(void **state)
{
	struct hist_db *db;
	sqlite3 *s;
	char err[1024];

	(void)state;
	assert_int_equal(sqlite3_open(db_path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, "INSERT INTO schema_version VALUES (99)", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	sqlite3_close(s);
	assert_int_equal(hist_db_open(db_path, &db, err, sizeof(err)), -EPROTONOSUPPORT);
	assert_non_null(strstr(err, "newer fsbench (schema version 99"));
	assert_non_null(strstr(err, db_path));
	assert_int_equal(count("schema_version"), 2);
}

/* A truncated store, and a file that is no database, are refused as such. */
static void damaged_refused(void **state)
{
	struct hist_db *db;
	char err[1024], path[160], buf[2048];
	int in, out;
	ssize_t n;

	(void)state;
	snprintf(path, sizeof(path), "%s/truncated.db", dir);
	in = open(db_path, O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(in >= 0 && out >= 0);
	n = read(in, buf, sizeof(buf)); /* half of the first 4 KiB page */
	assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	assert_int_equal(hist_db_open(path, &db, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "malformed"));
	assert_int_equal(hist_db_open(fixture, &db, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "not a database"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_twice_adds_once),
		cmocka_unit_test(not_a_result),
		cmocka_unit_test(newer_schema_refused),
		cmocka_unit_test(damaged_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
