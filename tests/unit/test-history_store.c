/* Unit tests of fsbench/history/db: the SQLite store: add twice adds once, refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsbench/history/db.h"
#include "fsbench/history/ident.h"
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

static long long count_in(const char *db_file, const char *table);

static long long count(const char *table)
{
	return count_in(db_path, table);
}

static long long count_in(const char *db_file, const char *table)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char sql[512];
	long long n;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	assert_int_equal(sqlite3_open(db_file, &db), SQLITE_OK);
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

/* The fixture as a new file of another content (@created), indented @indent. */
static void fixture_as(const char *path, const char *created, int indent)
{
	json_t *doc = json_load_file(fixture, 0, NULL);

	assert_non_null(doc);
	if (created)
		assert_int_equal(json_object_set_new(doc, "created", json_string(created)), 0);
	assert_int_equal(json_dump_file(doc, path, JSON_INDENT(indent)), 0);
	json_decref(doc);
}

/*
 * A file is known by its bytes (added again: not parsed) and by its content (a re-indented
 * copy: parsed, the same canonical hash): both are there already, with the same hash.
 */
static void known_by_bytes_and_content(void **state)
{
	struct hist_add_res res, again, copy;
	struct hist_db *db;
	char err[1024], path[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/reindented.json", dir);
	fixture_as(path, NULL, 7);
	assert_int_equal(hist_db_open(db_path, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, fixture, &again, err, sizeof(err)), 0);
	assert_true(again.present);
	assert_string_equal(again.sha256, res.sha256);
	assert_int_equal(hist_add_file(db, path, &copy, err, sizeof(err)), 0);
	assert_true(copy.present);
	assert_string_equal(copy.sha256, res.sha256);
	hist_db_close(db);
	assert_int_equal(count("files"), 1);
	assert_int_equal(count("files WHERE length(raw_sha256) = 64"), 1);
}

struct added {
	char sha256[4][65];
	bool present[4];
};

static int record_added(void *arg, size_t i, const char *path, const struct hist_add_res *res,
			int error, const char *err)
{
	struct added *a = arg;

	(void)path;
	(void)err;
	assert_int_equal(error, 0);
	assert_true(i < 4);
	snprintf(a->sha256[i], sizeof(a->sha256[i]), "%s", res->sha256);
	a->present[i] = res->present;
	return 0;
}

/*
 * Files added together are asked for by their bytes in one query: a file whose bytes the
 * store has is not decoded. Told apart from a file known by its content: the store's row
 * is given another content hash, which only the bytes can lead to.
 */
static void window_known_by_bytes(void **state)
{
	static const char fake[] = "0123456789abcdef0123456789abcdef"
				   "0123456789abcdef0123456789abcdef";
	const char *paths[4];
	struct hist_add_res res;
	struct hist_db *db;
	struct added a = { 0 };
	char err[1024], path[160], store[160], sql[256];
	sqlite3 *s;

	(void)state;
	snprintf(store, sizeof(store), "%s/window.db", dir);
	snprintf(path, sizeof(path), "%s/window-copy.json", dir);
	fixture_as(path, NULL, 3);
	assert_int_equal(hist_db_open(store, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	hist_db_close(db);
	assert_int_equal(sqlite3_open(store, &s), SQLITE_OK);
	snprintf(sql, sizeof(sql), "UPDATE files SET sha256 = '%s'", fake);
	assert_int_equal(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	paths[0] = fixture;
	paths[1] = path;
	paths[2] = fixture;
	assert_int_equal(hist_db_open(store, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_files(db, paths, 3, 2, record_added, &a, err, sizeof(err)), 0);
	hist_db_close(db);
	/* the fixture's bytes: present under the row's hash, never decoded to its own */
	assert_true(a.present[0]);
	assert_string_equal(a.sha256[0], fake);
	assert_true(a.present[2]);
	assert_string_equal(a.sha256[2], fake);
	/* the copy has other bytes: decoded, its content hash is not the row's, so added */
	assert_false(a.present[1]);
	assert_string_equal(a.sha256[1], res.sha256);
	assert_int_equal(count_in(store, "files"), 2);
}

/*
 * Files added together go in one transaction; one the store has by content (a copy of
 * another layout) sends the group one by one: the new files added, the copy there
 * already, and two copies of one new content in one group added once.
 */
static void group_with_a_file_known_by_content(void **state)
{
	const char *paths[4];
	char p[4][160], store[160], err[1024];
	struct hist_add_res res;
	struct hist_db *db;
	struct added a = { 0 };

	(void)state;
	snprintf(store, sizeof(store), "%s/group.db", dir);
	for (int i = 0; i < 4; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/group-%d.json", dir, i);
		paths[i] = p[i];
	}
	fixture_as(p[0], "2031-01-01T00:00:00Z", 0);
	fixture_as(p[1], NULL, 5); /* the fixture's content in other bytes */
	fixture_as(p[2], "2032-01-01T00:00:00Z", 0);
	fixture_as(p[3], "2032-01-01T00:00:00Z", 2); /* p[2]'s content in other bytes */
	assert_int_equal(hist_db_open(store, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_int_equal(hist_add_files(db, paths, 4, 2, record_added, &a, err, sizeof(err)), 0);
	hist_db_close(db);
	assert_false(a.present[0]);
	assert_true(a.present[1]);
	assert_string_equal(a.sha256[1], res.sha256);
	assert_false(a.present[2]);
	assert_true(a.present[3]);
	assert_string_equal(a.sha256[3], a.sha256[2]);
	assert_int_equal(count_in(store, "files"), 3);
	assert_int_equal(count_in(store, "runs"), 3 * count_in(store, "runs WHERE file_id = 1"));
}

/* New files added together: one transaction, every file whole, reported in order. */
static void group_of_new_files(void **state)
{
	const char *paths[4];
	char p[4][160], store[160], err[1024], created[32];
	struct hist_db *db;
	struct added a = { 0 };

	(void)state;
	snprintf(store, sizeof(store), "%s/group-new.db", dir);
	for (int i = 0; i < 4; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/group-new-%d.json", dir, i);
		snprintf(created, sizeof(created), "204%d-01-01T00:00:00Z", i);
		fixture_as(p[i], created, 0);
		paths[i] = p[i];
	}
	assert_int_equal(hist_db_open(store, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_files(db, paths, 4, 2, record_added, &a, err, sizeof(err)), 0);
	hist_db_close(db);
	for (int i = 0; i < 4; i++) {
		char sql[160];

		assert_false(a.present[i]);
		snprintf(sql, sizeof(sql),
			 "files WHERE sha256 = '%s' AND created = '204%d-01-01T00:00:00Z'",
			 a.sha256[i], i);
		assert_int_equal(count_in(store, sql), 1);
	}
	assert_int_equal(count_in(store, "files f WHERE f.runs <> (SELECT count(*) FROM runs r "
					 "WHERE r.file_id = f.id)"),
			 0);
}

/* A run's repetition in its suite is kept (the spread between boots pairs like with like). */
static void repetition_kept(void **state)
{
	struct hist_add_res res;
	struct hist_db *db;
	char err[1024], path[160], store[160];
	json_t *doc;

	(void)state;
	snprintf(path, sizeof(path), "%s/rep2.json", dir);
	snprintf(store, sizeof(store), "%s/rep.db", dir); /* a store of its own */
	doc = json_load_file(fixture, 0, NULL);
	assert_non_null(doc);
	assert_int_equal(json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0),
					     "coords", json_pack("{s:i}", "repetition", 2)),
			 0);
	assert_int_equal(json_dump_file(doc, path, 0), 0);
	json_decref(doc);
	assert_int_equal(hist_db_open(store, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, path, &res, err, sizeof(err)), 0);
	assert_int_equal(res.runs, 1);
	hist_db_close(db);
	assert_int_equal(count_in(store, "runs WHERE repetition = 2"), 1);
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
	assert_int_equal(count("schema_version"), HIST_SCHEMA_VERSION + 1);
}

/* The one value of the series @key of @metric in a migrated store is @value. */
static void value_is(sqlite3 *s, const char *metric, const char *key, double value)
{
	sqlite3_stmt *st;

	assert_int_equal(
		sqlite3_prepare_v2(s,
				   "SELECT s.key, v.value FROM run_values v JOIN series s "
				   "ON s.id = v.series_id WHERE s.metric = ?1 AND s.key = ?2",
				   -1, &st, NULL),
		SQLITE_OK);
	sqlite3_bind_text(st, 1, metric, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), key);
	assert_true(sqlite3_column_double(st, 1) == value);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* The tables of a schema 1 store, as the first fsbench of the history made them. */
#define V1_SCHEMA                                                                         \
	"CREATE TABLE schema_version (version INTEGER NOT NULL);"                         \
	"INSERT INTO schema_version VALUES (1);"                                          \
	"CREATE TABLE files (id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, "       \
	"path TEXT NOT NULL, added TEXT NOT NULL, created TEXT NOT NULL, runs INTEGER "   \
	"NOT NULL);"                                                                      \
	"CREATE TABLE kernels (id INTEGER PRIMARY KEY, release TEXT NOT NULL, package "   \
	"TEXT NOT NULL, git_commit TEXT NOT NULL, sort_key TEXT NOT NULL, UNIQUE "        \
	"(release, package, git_commit));"                                                \
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, file_id BIGINT NOT NULL REFERENCES "  \
	"files (id), idx INTEGER NOT NULL, kernel_id BIGINT NOT NULL REFERENCES kernels " \
	"(id), host TEXT NOT NULL, cpu TEXT NOT NULL, disk TEXT NOT NULL, fs TEXT NOT "   \
	"NULL, mount_options TEXT NOT NULL, workload TEXT NOT NULL, threads INTEGER NOT " \
	"NULL, params TEXT NOT NULL, fsbench_version TEXT NOT NULL, date TEXT NOT NULL, " \
	"sample_key TEXT NOT NULL, complete INTEGER NOT NULL, UNIQUE (file_id, idx));"    \
	"CREATE TABLE run_values (run_id BIGINT NOT NULL REFERENCES runs (id), metric "   \
	"TEXT NOT NULL, series TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, PRIMARY "  \
	"KEY (run_id, metric));"                                                          \
	"CREATE INDEX run_values_series ON run_values (series);"

/*
 * A version 1 store (a series key in every value row), as the first history wrote it, is
 * migrated on open: every value kept, named by its series row, the series' sample key
 * the run's; and a file can be added to it afterwards.
 */
static void v1_store_migrated(void **state)
{
	static const char v1[] = V1_SCHEMA
		"INSERT INTO files VALUES (1, 'aa', 'a.json', 'now', 'then', 2);"
		"INSERT INTO kernels VALUES (1, '6.1.0-47-amd64', '6.1.140-1', '', '01');"
		"INSERT INTO runs VALUES (1, 1, 0, 1, 'h', 'c', 'd', 'ext4', '', 'smallfile', 1, "
		"'{}', '0.1', 'then', 'cellA', 1);"
		"INSERT INTO runs VALUES (2, 1, 1, 1, 'h', 'c', 'd', 'xfs', '', 'smallfile', 1, "
		"'{}', '0.1', 'then', 'cellB', 1);"
		"INSERT INTO run_values VALUES (1, 'files_per_sec', 'cellA|files_per_sec', 812.5);"
		"INSERT INTO run_values VALUES (1, 'fsync.p50', 'cellA|fsync.p50', 2048);"
		"INSERT INTO run_values VALUES (2, 'write.p99', 'cellB|write.p99', 4096);";
	struct hist_add_res res;
	struct hist_summary sum;
	struct hist_db *db;
	char err[1024], path[160];
	sqlite3 *s;

	(void)state;
	snprintf(path, sizeof(path), "%s/v1.db", dir);
	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, v1, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	assert_int_equal(hist_db_open(path, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_summary_load(db, &sum, err, sizeof(err)), 0);
	assert_int_equal(sum.series, 3);
	assert_int_equal(sum.values, 3);
	assert_int_equal(sum.runs, 2);
	assert_int_equal(count_in(path, "runs WHERE repetition = 0"), 2);
	hist_summary_free(&sum);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_int_equal(res.runs, 1);
	hist_db_close(db);
	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	value_is(s, "write.p99", "cellB|write.p99", 4096);
	{
		sqlite3_stmt *st;

		assert_int_equal(
			sqlite3_prepare_v2(s,
					   "SELECT max(version), (SELECT sample_key FROM "
					   "series WHERE key = 'cellA|fsync.p50'), (SELECT "
					   "count(*) FROM run_values v JOIN series s ON s.id = "
					   "v.series_id WHERE s.key = 'cellA|files_per_sec') "
					   "FROM schema_version",
					   -1, &st, NULL),
			SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), HIST_SCHEMA_VERSION);
		assert_string_equal((const char *)sqlite3_column_text(st, 1), "cellA");
		assert_int_equal(sqlite3_column_int(st, 2), 1);
		sqlite3_finalize(st);
	}
	sqlite3_close(s);
}

/* The content hash: the same for any layout and key order; 1, 1.0 and "1" differ. */
static void canonical_hash(void **state)
{
	static const char *const same[] = {
		"{\"a\":[1,2.5,\"x\"],\"b\":{\"c\":null,\"d\":true}}",
		"{ \"b\": {\"d\": true, \"c\": null},\n  \"a\": [1, 2.50, \"x\"] }"
	};
	static const char *const other[] = {
		"{\"a\":[1.0,2.5,\"x\"],\"b\":{\"c\":null,\"d\":true}}",
		"{\"a\":[\"1\",2.5,\"x\"],\"b\":{\"c\":null,\"d\":true}}",
		"{\"a\":[1,2.5,\"x\"],\"b\":{\"c\":null,\"d\":false}}",
		"{\"a\":[1,2.5,\"x\"],\"b\":{\"c\":null},\"d\":true}",
		"{\"a\":[1,2.5,\"x\"],\"b\":{\"c\":null,\"dd\":true}}"
	};
	char first[65], h[65];
	json_t *doc;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		assert_non_null(doc = json_loads(same[i], 0, NULL));
		assert_int_equal(hist_canon_sha256(doc, i ? h : first), 0);
		json_decref(doc);
	}
	assert_string_equal(first, h);
	assert_int_equal(strlen(first), 64);
	for (size_t i = 0; i < sizeof(other) / sizeof(*other); i++) {
		assert_non_null(doc = json_loads(other[i], 0, NULL));
		assert_int_equal(hist_canon_sha256(doc, h), 0);
		json_decref(doc);
		assert_string_not_equal(first, h);
	}
}

/*
 * A store of schema 1 knows its files by the SHA-256 of their sorted compact dump and not by
 * their bytes: the same file added again is there already (not a second copy), and from
 * then on known by its bytes.
 */
static void v1_file_known_by_its_old_hash(void **state)
{
	static const char v1[] = V1_SCHEMA;
	struct hist_add_res res;
	struct hist_db *db;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char err[1024], path[160], sql[256], hex[65];
	json_t *doc;
	char *text;
	sqlite3 *s;

	(void)state;
	assert_non_null(doc = json_load_file(fixture, 0, NULL));
	assert_non_null(text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS));
	json_decref(doc);
	assert_true(EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL));
	free(text);
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	snprintf(path, sizeof(path), "%s/v1-known.db", dir);
	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, v1, NULL, NULL, NULL), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO files VALUES (1, '%s', 'then.json', 'now', 'then', 0)", hex);
	assert_int_equal(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	assert_int_equal(hist_db_open(path, &db, err, sizeof(err)), 0);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_true(res.present);
	assert_string_equal(res.sha256, hex);
	hist_db_close(db);
	assert_int_equal(count_in(path, "files"), 1);
	assert_int_equal(count_in(path, "files WHERE length(raw_sha256) = 64"), 1);
	/* by its bytes now, without the older hash: no row of schema 1 is left unknown */
	assert_int_equal(hist_db_open(path, &db, err, sizeof(err)), 0);
	assert_false(db->dump_rows);
	assert_int_equal(hist_add_file(db, fixture, &res, err, sizeof(err)), 0);
	assert_true(res.present);
	hist_db_close(db);
	assert_int_equal(count_in(path, "files"), 1);
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
		cmocka_unit_test(known_by_bytes_and_content),
		cmocka_unit_test(window_known_by_bytes),
		cmocka_unit_test(group_with_a_file_known_by_content),
		cmocka_unit_test(group_of_new_files),
		cmocka_unit_test(not_a_result),
		cmocka_unit_test(newer_schema_refused),
		cmocka_unit_test(damaged_refused),
		cmocka_unit_test(v1_store_migrated),
		cmocka_unit_test(repetition_kept),
		cmocka_unit_test(canonical_hash),
		cmocka_unit_test(v1_file_known_by_its_old_hash),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
