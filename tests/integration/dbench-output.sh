#!/bin/bash
# issue 22 item 1: the output lines that LKP's and mmtests' dbench parsers read, read
# here by their own rules (LKP programs/dbench/parse; mmtests shellpack_src/src/dbench:
# dbench-bench's grep/sed split and parse-results' awk), from `dbench` run as a link to
# fsbench, as those harnesses run it from PATH.
. "$(dirname "$0")/lib.sh"

LOAD=$SRCDIR/tests/fixtures/dbench/every-op.load
mkdir -p "$T_SCRATCH/bin" "$T_SCRATCH/d" "$T_SCRATCH/cwd"
ln -s "$FSBENCH" "$T_SCRATCH/bin/dbench"
PATH=$T_SCRATCH/bin:$PATH
[ "$(command -v dbench)" = "$T_SCRATCH/bin/dbench" ] || t_die "the dbench link is not first in PATH"

# mmtests' command line (dbench-bench), stdout and stderr together as it logs them
LOG=$T_SCRATCH/dbench-2.log
dbench -D "$T_SCRATCH/d" --warmup 1 -t 2 --loadfile "$LOAD" --show-execute-time 2 &>"$LOG"
t_expect_eq "mmtests' command line: exit" 0 "$?"

# LKP: the line starting Throughput, split at '=': fields 2, 4 and 6 of the left part,
# the first field of the right part
read -r tput clients procs maxlat < <(awk -F= '/^Throughput/ {split($1, v, " "); split($2, w, " ");
	print v[2], v[4], v[6], w[1]}' "$LOG")
t_expect_eq "LKP: Throughput lines" 1 "$(grep -c '^Throughput' "$LOG")"
t_expect_eq "LKP: clients" 2 "$clients"
t_expect_eq "LKP: procs" 2 "$procs"
awk -v a="$tput" -v b="$maxlat" 'BEGIN {exit !(a + 0 > 0 && b + 0 >= 0 && a ~ /^[0-9.e+]+$/ && b ~ /^[0-9.]+$/)}' ||
	t_fail "LKP: throughput '$tput' or max_latency '$maxlat' is not a number"

# mmtests: dbench-bench's split of the log, verbatim
D=$T_SCRATCH/mm
mkdir "$D"
grep "completed in" "$LOG" | sort -n -k8 >"$D/benchlog-loadfile-2"
sed -e "/completed in/d" "$LOG" >"$D/remainder"
grep execute "$D/remainder" >"$D/benchlog-tput-2"
grep -A 99 Operation "$D/remainder" |
	sed -e '/-----/d' -e '/^$/d' -e '/Throughput/d' -e '/Operation/d' >"$D/benchlog-op-2"

# parse-results' fields: loadfile $4 (ms per pass) and $8 (ms since start); tput $6 (s)
# and $3 (MB/s); op $1 (name) and $3 (mean latency)
awk 'NF != 9 || $2 != "completed" || $4 !~ /^[0-9]+$/ || $8 !~ /^[0-9]+$/ {bad = 1}
	END {exit bad || NR == 0}' "$D/benchlog-loadfile-2" ||
	t_fail "mmtests loadfile lines: $(head -3 "$D/benchlog-loadfile-2")"
t_expect_eq "mmtests: completed lines per client" "0 1" \
	"$(awk '{print $1}' "$D/benchlog-loadfile-2" | sort -u | tr '\n' ' ' | sed 's/ $//')"
t_expect_eq "mmtests: completed lines = passes" \
	"$(grep -c 'completed in' "$LOG")" "$(wc -l <"$D/benchlog-loadfile-2")"
awk '$5 != "execute" || $6 !~ /^[0-9]+$/ || $3 !~ /^[0-9.]+$/ || $4 != "MB/sec" {bad = 1}
	END {exit bad || NR == 0}' "$D/benchlog-tput-2" ||
	t_fail "mmtests tput lines: $(cat "$D/benchlog-tput-2")"
t_expect_eq "mmtests: op rows" 17 "$(wc -l <"$D/benchlog-op-2")"
awk 'NF != 4 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9.]+$/ {bad = 1} END {exit bad}' "$D/benchlog-op-2" ||
	t_fail "mmtests op rows: $(cat "$D/benchlog-op-2")"
t_expect_eq "mmtests: op names are dbench's" \
	"Close Deltree FIND_FIRST Flush LockX Mkdir NTCreateX QUERY_FILE_INFORMATION QUERY_FS_INFORMATION QUERY_PATH_INFORMATION ReadX Rename Rmdir SET_FILE_INFORMATION Unlink UnlockX WriteX" \
	"$(awk '{print $1}' "$D/benchlog-op-2" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
# the table's counts are the JSON's: a second run with --json and --percentiles, whose
# extra table must not reach mmtests' op rows
dbench -D "$T_SCRATCH/d" --warmup 0 -t 1 -c "$LOAD" --percentiles --json "$T_SCRATCH/r.json" 2 \
	>"$T_SCRATCH/p.out" 2>&1
t_expect_eq "--percentiles run: exit" 0 "$?"
t_expect_eq "--percentiles: mmtests' op rows" 17 \
	"$(grep -A 99 Operation "$T_SCRATCH/p.out" | sed -e '/-----/d' -e '/^$/d' -e '/Throughput/d' -e '/Operation/d' | wc -l)"
t_expect_eq "ReadX: table count = json count" \
	"$(t_json "$T_SCRATCH/r.json" '.runs[0].ops.nb_readx.count')" \
	"$(awk '$1 == "ReadX" && NF == 4 {print $2}' "$T_SCRATCH/p.out")"
t_expect_eq "ReadX: p99 in the json" true \
	"$(t_json "$T_SCRATCH/r.json" '.runs[0].ops.nb_readx.p99_ns > 0')"

# the per-second lines: warmup lines while warming up, then execute lines from 1 s
grep -q '^   2  *[0-9]*  *[0-9.]* MB/sec  warmup   1 sec  latency [0-9.]* ms$' "$LOG" ||
	grep -q '^   2  *[0-9]*  *[0-9.]* MB/sec  execute   1 sec  latency [0-9.]* ms$' "$LOG" ||
	t_fail "no per-second line for the first second: $(head -8 "$LOG")"
grep -q "^Running for 2 seconds with load '$LOAD' and minimum warmup 1 secs$" "$LOG" ||
	t_fail "the Running line: $(grep Running "$LOG")"
t_expect_eq "-D after the runs" "" "$(ls -A "$T_SCRATCH/d")"

# `fsbench dbench` without -D works where dbench does: the current directory
(cd "$T_SCRATCH/cwd" && "$FSBENCH" dbench -c "$LOAD" --run-once --skip-cleanup 1 >/dev/null 2>&1)
t_expect_eq "no -D: the load in ./clients" "./clients/client0/sub/keep.doc" \
	"$(cd "$T_SCRATCH/cwd" && find . -type f)"

# mmtests' own loadfiles, cut from client.txt as dbench-install cuts them, and its two runs:
# the warmup run leaves its files (--skip-cleanup), the timed one starts inside client.txt
# on handles and files that the first one made
CLIENT=/usr/share/dbench/client.txt
if [ -r "$CLIENT" ]; then
	head -n 600 "$CLIENT" >"$T_SCRATCH/client-warmup.txt"
	head -n 4173 "$CLIENT" | tail -n 3573 >"$T_SCRATCH/client-tiny.txt"
	dbench --run-once --skip-cleanup -D "$T_SCRATCH/d" --loadfile "$T_SCRATCH/client-warmup.txt" 2 &>/dev/null
	t_expect_eq "mmtests' warmup run: exit" 0 "$?"
	dbench -D "$T_SCRATCH/d" --warmup 0 -t 2 --loadfile "$T_SCRATCH/client-tiny.txt" \
		--show-execute-time 2 &>"$T_SCRATCH/tiny.log"
	t_expect_eq "mmtests' timed run on client-tiny.txt: exit" 0 "$?"
	grep -q "completed in" "$T_SCRATCH/tiny.log" || t_fail "client-tiny.txt: no pass completed in 2 s"
	t_expect_eq "client-tiny.txt: Throughput lines" 1 "$(grep -c '^Throughput' "$T_SCRATCH/tiny.log")"
	t_expect_eq "-D after mmtests' runs" "" "$(ls -A "$T_SCRATCH/d")"
else
	echo "note: $CLIENT is missing (the dbench package): mmtests' loadfiles not tried"
fi

# --clients-per-process: NPROCS x that many clients, as the Throughput line counts them;
# --per-client-results: each client's lines, bytes and table after the total one
dbench -D "$T_SCRATCH/d" -c "$LOAD" --run-once --warmup 0 --clients-per-process 2 \
	--per-client-results 2 >"$T_SCRATCH/pc.out" 2>&1
t_expect_eq "--clients-per-process 2, 2 procs: exit" 0 "$?"
t_expect_eq "LKP's clients and procs" "4 2" \
	"$(awk -F= '/^Throughput/ {split($1, v, " "); print v[4], v[6]}' "$T_SCRATCH/pc.out")"
t_expect_eq "per-client lines (33 lines, 4 x 64 KiB + 4 KiB + 1000 written, 68 KiB read)" \
	"Client 0 did 33 lines and 336872 bytes|Client 1 did 33 lines and 336872 bytes|Client 2 did 33 lines and 336872 bytes|Client 3 did 33 lines and 336872 bytes" \
	"$(grep '^Client' "$T_SCRATCH/pc.out" | paste -sd'|')"
t_expect_eq "per-client tables: WriteX 6 each, 24 in all" "24 6 6 6 6" \
	"$(awk '$1 == "WriteX" {print $2}' "$T_SCRATCH/pc.out" | paste -sd' ')"

# the loadfile's pacing: a timestamp holds its line back until that far into the pass, and
# Sleep waits; neither is an operation of the table
printf 'QUERY_FS_INFORMATION 1 NT_STATUS_OK\n0.4 QUERY_FS_INFORMATION 1 NT_STATUS_OK\nSleep 300000 NT_STATUS_OK\nQUERY_FS_INFORMATION 1 NT_STATUS_OK\n' \
	>"$T_SCRATCH/paced.load"
"$FSBENCH" dbench -D "$T_SCRATCH/d" -c "$T_SCRATCH/paced.load" --run-once --warmup 0 \
	--json "$T_SCRATCH/paced.json" 1 >/dev/null 2>&1
t_expect_eq "paced load: exit" 0 "$?"
t_expect_eq "paced load: operations" 3 "$(t_json "$T_SCRATCH/paced.json" '.runs[0].ops.nb_query_fs_information.count')"
t_expect_eq "paced load: at least 0.4 s + 0.3 s" true \
	"$(t_json "$T_SCRATCH/paced.json" '.runs[0].summary.elapsed_ns >= 700000000')"

# the install script behind -Ddbench_link=true: our link, never over a packaged dbench
inst=$SRCDIR/fsbench/install-link.sh
p=$T_SCRATCH/prefix
mkdir -p "$p/bin"
: >"$p/bin/fsbench"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin dbench >/dev/null
t_expect_eq "install: dbench link made" fsbench "$(readlink "$p/bin/dbench")"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin dbench >/dev/null
t_expect_eq "install again over our link: exit" 0 "$?"
rm "$p/bin/dbench"
echo packaged >"$p/bin/dbench"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin dbench 2>"$T_SCRATCH/err"
t_expect_eq "install over a packaged dbench: exit" 1 "$?"
t_expect_eq "packaged dbench untouched" packaged "$(cat "$p/bin/dbench")"
grep -q "not replacing $p/bin/dbench: .*-Ddbench_link=false" "$T_SCRATCH/err" ||
	t_fail "install message: $(cat "$T_SCRATCH/err")"
grep -q "option('dbench_link', type : 'boolean', value : false" "$SRCDIR/meson_options.txt" ||
	t_fail "meson option dbench_link (default false) is missing"
t_done
