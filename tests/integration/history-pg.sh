#!/bin/bash
# Issue 38: the history in a PostgreSQL of the test's own (initdb into a temporary directory,
# a unix socket directory of its own, a port chosen now), stopped by its PID even when the
# test fails. Two writers add the same files at once: each file is there once. Then list
# puts the kernels in dpkg's order and changes finds the 4 % files/s step at its kernel (exit
# 1); the same in SQLite; a server that is gone is a system failure (128), never "bad"; a
# server killed in the middle of an add (a directory of 600 results) leaves whole files only,
# and the same add again adds just the rest.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] ||
	t_skip "PostgreSQL's initdb and pg_ctl are not installed (package postgresql)"
command -v jq >/dev/null || t_skip "jq is not installed"
# the server refuses to run as root: it runs as postgres (or as us, when we are not root)
PGUSER_RUN=$(id -un)
if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || t_skip "running as root and there is no postgres user"
	PGUSER_RUN=postgres
fi
as_pg() { (cd / && if [ "$PGUSER_RUN" = "$(id -un)" ]; then "$@"; else runuser -u "$PGUSER_RUN" -- "$@"; fi); }

# the server's directory: outside T_SCRATCH (0700 root), removed by our own trap after the stop
PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-pg.XXXXXX")
PGPID=
pg_stop() {
	if [ -n "$PGPID" ] && kill -0 "$PGPID" 2>/dev/null; then
		kill -INT "$PGPID" 2>/dev/null # fast shutdown
		for _ in $(seq 100); do kill -0 "$PGPID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$PGPID" 2>/dev/null
	fi
	PGPID=
}
trap 'pg_stop; rm -rf "$PGDIR"; t_cleanup' EXIT
chown "$PGUSER_RUN" "$PGDIR"
mkdir "$PGDIR/sock" && chown "$PGUSER_RUN" "$PGDIR/sock"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg "$PGBIN/initdb" -D "$PGDIR/data" --auth=trust --username=fsbench --locale=C.UTF-8 -E UTF8 \
	>"$S/initdb.log" 2>&1 || { cat "$S/initdb.log"; t_die "initdb"; }
# a role that must give its password (the others: trust), for a refused credential
{ echo "local all secure scram-sha-256"; cat "$PGDIR/data/pg_hba.conf"; } >"$PGDIR/hba" &&
	cat "$PGDIR/hba" >"$PGDIR/data/pg_hba.conf" || t_die "pg_hba.conf"
as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 \
	-o "-p $PORT -k $PGDIR/sock -c listen_addresses=''" start >"$S/pgctl.log" 2>&1 ||
	{ cat "$S/pgctl.log" "$PGDIR/server.log"; t_die "pg_ctl start"; }
PGPID=$(head -1 "$PGDIR/data/postmaster.pid")
t_ok "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on $PGDIR/sock port $PORT, PID $PGPID"
as_pg "$PGBIN/createdb" -h "$PGDIR/sock" -p "$PORT" -U fsbench hist || t_die "createdb"
URI="postgresql:///hist?host=$PGDIR/sock&port=$PORT&user=fsbench"

# 8 Debian kernels of 2 boots each, from the fixture: release, package (uname -v) and
# files/s edited; from the 6th kernel on files/s is 4 % lower (a regression)
FX=$SRCDIR/tests/fixtures/results/probes-ext4.json
mkdir "$S/r"
pkgs=(6.1.140-1 6.1.147-1 6.1.153-1 6.1.158-1 6.1.164-1 6.1.170-1 6.12.100-1~deb12u1 6.12.117-1~deb12u1)
rels=(6.1.0-47 6.1.0-49 6.1.0-51 6.1.0-53 6.1.0-55 6.1.0-57 6.12.100+deb12 6.12.117+deb12)
for i in "${!pkgs[@]}"; do
	for boot in 1 2; do
		f=$(awk -v i="$i" -v b="$boot" 'BEGIN { print 223.5 * (i >= 5 ? 0.96 : 1) * (1 + (b == 1 ? 0.001 : -0.001) * (i % 3 - 1)) }')
		jq --arg rel "${rels[i]}-amd64" --arg ver "#1 SMP PREEMPT_DYNAMIC Debian ${pkgs[i]} (2026-01-01)" \
			--argjson f "$f" --arg b "$boot" \
			'.host.kernel = $rel | .host.kernel_version = $ver | .runs[0].summary.files_per_sec = $f | .created = ("2026-01-0" + $b + "T00:00:00Z")' \
			"$FX" >"$S/r/k$i-b$boot.json" || t_die "jq"
	done
done
# shuffled, as a night's results arrive
ls "$S"/r/*.json | sort -R >"$S/files"
mapfile -t FILES <"$S/files"

two_writers() {
	local db=$1 name=$2
	"$FSBENCH" history add --db "$db" --quiet "${FILES[@]}" >"$S/add1.out" 2>"$S/add1.err" &
	local p1=$!
	"$FSBENCH" history add --db "$db" --quiet "${FILES[@]}" >"$S/add2.out" 2>"$S/add2.err" &
	local p2=$!
	wait $p1; local rc1=$?
	wait $p2; local rc2=$?
	if [ $rc1 = 0 ] && [ $rc2 = 0 ]; then
		t_ok "$name: two writers at once: $(cat "$S/add1.out") / $(cat "$S/add2.out")"
	else
		t_fail "$name: two writers: exit $rc1, $rc2: $(cat "$S/add1.err" "$S/add2.err")"
	fi
	"$FSBENCH" history add --db "$db" "${FILES[0]}" >"$S/add3.out" 2>&1
	grep -q "in the store already" "$S/add3.out" && t_ok "$name: a third add: $(head -1 "$S/add3.out")" ||
		t_fail "$name: a third add: $(cat "$S/add3.out")"
	"$FSBENCH" history list --db "$db" >"$S/list.out" 2>&1 || t_fail "$name: list: $(cat "$S/list.out")"
	grep -q ": 16 files, 16 runs (0 incomplete)" "$S/list.out" &&
		t_ok "$name: $(head -1 "$S/list.out")" || t_fail "$name: list: $(cat "$S/list.out")"
	order=$(awk 'NR > 2 { print $2 }' "$S/list.out" | tr '\n' ' ')
	t_expect_eq "$name: kernels in order" "$(printf '%s-amd64 ' "${rels[@]}")" "$order"
	"$FSBENCH" history changes --db "$db" --metric files_per_sec >"$S/changes.out" 2>&1
	local rc=$?
	cat "$S/changes.out"
	t_expect_eq "$name: changes' exit status (a regression)" 1 "$rc"
	grep -q "6.1.0-55-amd64 (6.1.164-1) -> 6.1.0-57-amd64 (6.1.170-1): -4.0" "$S/changes.out" &&
		t_ok "$name: the step is found between 6.1.0-55 and 6.1.0-57" ||
		t_fail "$name: the step is not where it was made"
	"$FSBENCH" history changes --db "$db" --json >"$S/changes.json" 2>/dev/null
	t_expect_eq "$name: --json's first change" "files_per_sec true 6.1.0-55-amd64 6.1.0-57-amd64" \
		"$(jq -r '.changes[0] | "\(.metric) \(.regression) \(.before.release) \(.after.release)"' "$S/changes.json")"
	"$FSBENCH" history report --db "$db" -o "$S/page.html" 2>/dev/null
	rc=$?
	t_expect_eq "$name: report's exit status" 1 "$rc"
	grep -q "<svg" "$S/page.html" && ! grep -qE "(src|href)=\"(https?:)?//" "$S/page.html" &&
		t_ok "$name: the page has its plot inline, no external asset" ||
		t_fail "$name: the page"
	# the change links the pair page: fsbench report of the cell's files on the two kernels
	t_expect_eq "$name: the change's pair page linked" 'href="page-pair-1.html"' \
		"$(grep -o 'href="[^"]*"' "$S/page.html" | head -1)"
	if [ -s "$S/page-pair-1.html" ] && grep -q "6.1.0-55-amd64" "$S/page-pair-1.html" &&
		grep -q "6.1.0-57-amd64" "$S/page-pair-1.html" && grep -q "files_per_sec" "$S/page-pair-1.html"; then
		t_ok "$name: the pair page compares 6.1.0-55 with 6.1.0-57"
	else
		t_fail "$name: the pair page: $(ls -l "$S"/page-pair-* 2>&1)"
	fi
	rm -f "$S"/page-pair-*.html
	# a result file moved since it was added: no link, and the page says why
	mv "$S/r/k5-b1.json" "$S/moved.json"
	"$FSBENCH" history report --db "$db" -o "$S/page.html" --metric files_per_sec 2>"$S/page.err"
	mv "$S/moved.json" "$S/r/k5-b1.json"
	grep -q "no pair page: $S/r/k5-b1.json: No such file or directory" "$S/page.html" &&
		grep -q "no pair page" "$S/page.err" && [ ! -e "$S/page-pair-1.html" ] &&
		t_ok "$name: a moved result: $(cat "$S/page.err")" || t_fail "$name: a moved result: $(cat "$S/page.err")"
	# in a browser 800 px wide: nothing wider, no script error, the link there
	CHROME=$(command -v chromium || command -v chromium-browser || true)
	if [ "$name" = sqlite ] && [ -n "$CHROME" ]; then
		"$FSBENCH" history report --db "$db" -o "$S/page.html" 2>/dev/null
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d "$S/chrome.XXXXXX")" \
			--window-size=800,1400 --virtual-time-budget=5000 --dump-dom "file://$S/page.html" >"$S/page.dom" 2>"$S/chrome.err" ||
			t_fail "chromium: $(tail -3 "$S/chrome.err")"
		body=$(grep -o '<body[^>]*>' "$S/page.dom")
		case $body in
		*data-js-errors*) t_fail "the history page in Chromium: script errors: $body" ;;
		*'data-overflow="no"'*) t_ok "the history page in Chromium at 800 px: nothing wider, no script error" ;;
		*) t_fail "the history page in Chromium: wider than 800 px: $body" ;;
		esac
		grep -q '<a class="pair" href="page-pair-1.html">' "$S/page.dom" && t_ok "the pair link in the browser's DOM" ||
			t_fail "no pair link in the browser's DOM"
		rm -f "$S"/page-pair-*.html
	fi
	"$FSBENCH" history report --db "$db" -o "$S/page.html" --pairs 0 2>/dev/null
	! grep -q "pair" "$S/page.html" && [ ! -e "$S/page-pair-1.html" ] && t_ok "$name: --pairs 0 makes none" ||
		t_fail "$name: --pairs 0"
	# One writer: a re-indented copy of a file the store has (other bytes, the same content:
	# refused by the store's unique key, which ends its statements sent together, the new
	# statements' preparation among them), then a new file on the same connection: added
	# whole, its run and its values.
	jq -c . "${FILES[0]}" >"$S/copy.json"
	jq '.created = "2026-02-01T00:00:00Z"' "${FILES[0]}" >"$S/new.json"
	"$FSBENCH" history add --db "$db" "$S/copy.json" "$S/new.json" >"$S/add4.out" 2>&1
	"$FSBENCH" history list --db "$db" >"$S/list4.out" 2>&1
	local v16 v17
	v16=$(head -1 "$S/list.out" | grep -o '[0-9]* values' | awk '{print $1}')
	v17=$(head -1 "$S/list4.out" | grep -o '[0-9]* values' | awk '{print $1}')
	if grep -q "copy.json: in the store already" "$S/add4.out" && grep -q "new.json: 1 run, " "$S/add4.out" &&
		grep -q ": 17 files, 17 runs (0 incomplete)" "$S/list4.out" && [ -n "$v16" ] &&
		[ "$v17" = $((v16 + v16 / 16)) ]; then
		t_ok "$name: a copy refused by content, then a new file added whole ($v16 -> $v17 values): $(tr '\n' ' ' <"$S/add4.out")"
	else
		t_fail "$name: copy then new file: $(cat "$S/add4.out") / $v16 -> $(head -1 "$S/list4.out")"
	fi
}

two_writers "$URI" postgresql
two_writers "$S/history.db" sqlite

# a store of schema 1 (each value row naming its series by key) migrated in place on open
as_pg "$PGBIN/createdb" -h "$PGDIR/sock" -p "$PORT" -U fsbench v1 || t_die "createdb v1"
as_pg "$PGBIN/psql" -h "$PGDIR/sock" -p "$PORT" -U fsbench -d v1 -q -v ON_ERROR_STOP=1 >"$S/v1.out" 2>&1 <<-'SQL' || t_die "v1 store: $(cat "$S/v1.out")"
	CREATE TABLE schema_version (version INTEGER NOT NULL);
	INSERT INTO schema_version VALUES (1);
	CREATE TABLE files (id BIGSERIAL PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, path TEXT NOT NULL, added TEXT NOT NULL, created TEXT NOT NULL, runs INTEGER NOT NULL);
	CREATE TABLE kernels (id BIGSERIAL PRIMARY KEY, release TEXT NOT NULL, package TEXT NOT NULL, git_commit TEXT NOT NULL, sort_key TEXT NOT NULL, UNIQUE (release, package, git_commit));
	CREATE TABLE runs (id BIGSERIAL PRIMARY KEY, file_id BIGINT NOT NULL REFERENCES files (id), idx INTEGER NOT NULL, kernel_id BIGINT NOT NULL REFERENCES kernels (id), host TEXT NOT NULL, cpu TEXT NOT NULL, disk TEXT NOT NULL, fs TEXT NOT NULL, mount_options TEXT NOT NULL, workload TEXT NOT NULL, threads INTEGER NOT NULL, params TEXT NOT NULL, fsbench_version TEXT NOT NULL, date TEXT NOT NULL, sample_key TEXT NOT NULL, complete INTEGER NOT NULL, UNIQUE (file_id, idx));
	CREATE TABLE run_values (run_id BIGINT NOT NULL REFERENCES runs (id), metric TEXT NOT NULL, series TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, metric));
	CREATE INDEX run_values_series ON run_values (series);
	INSERT INTO files (sha256, path, added, created, runs) VALUES ('aa', 'a.json', 'now', 'then', 2);
	INSERT INTO kernels (release, package, git_commit, sort_key) VALUES ('6.1.0-47-amd64', '6.1.140-1', '', '01');
	INSERT INTO runs (file_id, idx, kernel_id, host, cpu, disk, fs, mount_options, workload, threads, params, fsbench_version, date, sample_key, complete) VALUES (1, 0, 1, 'h', 'c', 'd', 'ext4', '', 'smallfile', 1, '{}', '0.1', 'then', 'cellA', 1), (1, 1, 1, 'h', 'c', 'd', 'xfs', '', 'smallfile', 1, '{}', '0.1', 'then', 'cellB', 1);
	INSERT INTO run_values VALUES (1, 'files_per_sec', 'cellA|files_per_sec', 812.5), (1, 'fsync.p50', 'cellA|fsync.p50', 2048), (2, 'files_per_sec', 'cellB|files_per_sec', 4096);
SQL
V1="postgresql:///v1?host=$PGDIR/sock&port=$PORT&user=fsbench"
"$FSBENCH" history list --db "$V1" >"$S/v1.list" 2>&1 || t_fail "schema 1 store: $(cat "$S/v1.list")"
grep -q "(postgresql, schema 2): 1 files, 2 runs (0 incomplete), 3 series, 3 values" "$S/v1.list" &&
	t_ok "schema 1 migrated: $(head -1 "$S/v1.list")" || t_fail "schema 1 migrated: $(cat "$S/v1.list")"
t_expect_eq "schema 1 migrated: every value under its series" "cellA|files_per_sec 812.5 cellA|fsync.p50 2048 cellB|files_per_sec 4096" \
	"$(as_pg "$PGBIN/psql" -h "$PGDIR/sock" -p "$PORT" -U fsbench -d v1 -tA -F ' ' -c "SELECT s.key, v.value FROM run_values v JOIN series s ON s.id = v.series_id WHERE s.sample_key LIKE 'cell%' ORDER BY s.key" 2>&1 | paste -sd' ')"
"$FSBENCH" history add --db "$V1" "${FILES[0]}" >/dev/null 2>"$S/err" && t_ok "schema 1 migrated: a file added to it" ||
	t_fail "adding to a migrated store: $(cat "$S/err")"

# refused credentials: 128, the server's reason, and the password never printed
as_pg "$PGBIN/psql" -h "$PGDIR/sock" -p "$PORT" -U fsbench -d hist -qc "CREATE ROLE secure LOGIN PASSWORD 'right-one'" ||
	t_die "create role"
# the right password of a role that may not read the store: the server's refusal, 128
"$FSBENCH" history list --db "postgresql://secure:right-one@/hist?host=$PGDIR/sock&port=$PORT" >/dev/null 2>"$S/err"
rc=$?
t_expect_eq "a role without privileges: exit" 128 "$rc"
grep -q 'permission denied for table schema_version' "$S/err" && t_ok "$(cat "$S/err")" ||
	t_fail "a role without privileges: $(cat "$S/err")"
as_pg "$PGBIN/psql" -h "$PGDIR/sock" -p "$PORT" -U fsbench -d hist -qc "GRANT fsbench TO secure" || t_die "grant"
"$FSBENCH" history list --db "postgresql://secure:wrong-one@/hist?host=$PGDIR/sock&port=$PORT" >/dev/null 2>"$S/err"
rc=$?
t_expect_eq "refused credentials: exit" 128 "$rc"
grep -q 'opening the store postgresql://secure@/hist.*password authentication failed for user "secure"' "$S/err" &&
	! grep -q "wrong-one" "$S/err" && t_ok "$(cat "$S/err")" || t_fail "refused credentials: $(cat "$S/err")"
"$FSBENCH" history list --db "postgresql://secure:right-one@/hist?host=$PGDIR/sock&port=$PORT" >/dev/null 2>"$S/err" &&
	t_ok "the right password opens the store" || t_fail "the right password: $(cat "$S/err")"

# a database that is not there, and a server that is gone: 128, a line that says so
"$FSBENCH" history list --db "postgresql:///nodb?host=$PGDIR/sock&port=$PORT&user=fsbench" >/dev/null 2>"$S/err"
rc=$?
t_expect_eq "no such database: exit" 128 "$rc"
grep -q 'opening the store postgresql:///nodb.*does not exist' "$S/err" && t_ok "$(cat "$S/err")" || t_fail "$(cat "$S/err")"

# the server dies in the middle of an add (an immediate shutdown: every backend killed, no
# checkpoint, as a crash): the add says which file it was adding and exits 128; after the
# restart every file in the store has all of its runs and values and none is half there;
# the same add again adds just the rest
as_pg "$PGBIN/createdb" -h "$PGDIR/sock" -p "$PORT" -U fsbench mid || t_die "createdb mid"
MID="postgresql:///mid?host=$PGDIR/sock&port=$PORT&user=fsbench"
mkdir "$S/many"
python3 - "$FX" "$S/many" <<-'PY' || t_die "making 600 results"
	import json, sys
	src = json.load(open(sys.argv[1]))
	for i in range(600):
	    src["host"]["kernel"] = "6.1.0-%d-amd64" % (i // 20)
	    src["host"]["kernel_version"] = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.%d-1 (2026-01-01)" % (100 + i // 20)
	    src["runs"][0]["summary"]["files_per_sec"] = 200 + i * 0.01
	    json.dump(src, open("%s/m%03d.json" % (sys.argv[2], i), "w"))
	PY
psql_mid() { as_pg "$PGBIN/psql" -h "$PGDIR/sock" -p "$PORT" -U fsbench -d mid -tA -c "$1" 2>/dev/null; }
"$FSBENCH" history add --db "$MID" --quiet "$S/many" >"$S/mid.out" 2>"$S/mid.err" &
addpid=$!
T_PIDS+=("$addpid")
stored=0
for _ in $(seq 400); do
	stored=$(psql_mid "SELECT count(*) FROM files" || echo 0)
	[ "${stored:-0}" -ge 20 ] && break
	kill -0 "$addpid" 2>/dev/null || break
	sleep 0.05
done
if [ "${stored:-0}" -ge 20 ] && [ "$stored" -lt 600 ] && kill -0 "$addpid" 2>/dev/null; then
	as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >"$S/pgctl.log" 2>&1 || t_fail "pg_ctl stop -m immediate"
	wait "$addpid"
	rc=$?
	t_expect_eq "the server killed in the middle of an add (after $stored files): exit" 128 "$rc"
	grep -Eq "adding $S/many/m[0-9]{3}\.json|$S/many/m[0-9]{3}\.json.*(server|connection)" "$S/mid.err" &&
		t_ok "the add names the file and the reason: $(head -2 "$S/mid.err" | paste -sd' ')" ||
		t_fail "the add's error: $(cat "$S/mid.err")"
	as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 \
		-o "-p $PORT -k $PGDIR/sock -c listen_addresses=''" start >"$S/pgctl.log" 2>&1 ||
		{ cat "$S/pgctl.log" "$PGDIR/server.log"; t_die "pg_ctl start again"; }
	PGPID=$(head -1 "$PGDIR/data/postmaster.pid")
	after=$(psql_mid "SELECT count(*) FROM files")
	# whole files only: each stored file has its run and that run its values; no run or
	# value without its file
	half=$(psql_mid "SELECT (SELECT count(*) FROM files f WHERE f.runs <> (SELECT count(*) FROM runs r WHERE r.file_id = f.id))
		+ (SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM run_values v WHERE v.run_id = r.id))
		+ (SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = r.file_id))")
	[ -n "$after" ] && [ "$after" -ge "$stored" ] && [ "$after" -lt 600 ] && [ "$half" = 0 ] &&
		t_ok "after the crash: $after whole files of 600, nothing half-added" ||
		t_fail "after the crash: $after files, $half half-added rows"
	"$FSBENCH" history add --db "$MID" "$S/many" >"$S/mid2.out" 2>"$S/mid2.err"
	rc=$?
	t_expect_eq "the same add again: exit" 0 "$rc"
	t_expect_eq "the same add again: files and runs in the store" "600 600" \
		"$(psql_mid "SELECT (SELECT count(*) FROM files) || ' ' || (SELECT count(*) FROM runs)")"
	grep -q "in the store already" "$S/mid2.out" &&
		t_ok "the same add again: $(tail -1 "$S/mid2.out")" || t_fail "the same add again: $(cat "$S/mid2.out")"
else
	kill "$addpid" 2>/dev/null
	wait "$addpid" 2>/dev/null
	t_fail "could not catch the add in the middle: $stored files stored; $(cat "$S/mid.err")"
fi

pg_stop
"$FSBENCH" history add --db "$URI" "${FILES[0]}" >/dev/null 2>"$S/err"
rc=$?
t_expect_eq "server gone: exit" 128 "$rc"
t_ok "$(cat "$S/err")"
t_done
