#!/bin/bash
# issue 33 item 7: App Overhead is fs_mark 3.3's: per thread, the loop's time (first create
# to the end of the post-loop sync phase) less the time in the timed calls (create, write,
# fsync, sync, close, -S 3..6's re-open), unlink not among them, summed over the threads;
# one figure per loop, and the table prints what the JSON holds. Checked from the result's
# own numbers: nothing about speed is asserted.
. "$(dirname "$0")/lib.sh"
. "$T_TESTS/fsmark-lib.sh"
S=$T_SCRATCH

# the table's App Overhead column (5th field of LKP's rows), one line per loop
rows() { awk 'p && NF != 5 {exit} p {print $5} /^FSUse/ {p = 1}' "$1"; }

# one loop, two threads on two -d, subdirectories, -S 5's re-open and fsync after the loop
"$FSBENCH" smallfile -d "$S/a" -d "$S/b" -t 2 -D 4 -N 8 -n 64 -s 4096 -S 5 \
	--json "$S/one.json" >"$S/one.out"
t_expect_eq "one loop: exit" 0 "$?"
want=$(jq '.runs[0] | ([.per_thread[].last_loop_ns] | add) -
	([.ops | del(.unlink) | .[].sum_ns] | add)' "$S/one.json")
t_expect_eq "one loop: threads' loop time less the timed calls (all but unlink)" "$want" \
	"$(t_json "$S/one.json" '.runs[0].loops[0].app_overhead_ns')"
t_expect_eq "one loop: summary" "$want" "$(t_json "$S/one.json" '.runs[0].summary.app_overhead_ns')"
[ "$(t_json "$S/one.json" '.runs[0].ops | has("open") and has("fsync") and has("unlink")')" = true ] ||
	t_fail "one loop: -S 5 should have timed re-opens, fsyncs and unlinks"
t_expect_eq "one loop: the table's App Overhead is the JSON's in microseconds" \
	"$((want / 1000))" "$(rows "$S/one.out")"

# three loops (kept, as -L implies -k): a row per loop, each that loop's own figure
"$FSBENCH" smallfile -d "$S/c" -t 1 -n 50 -s 100 -S 0 -L 3 --json "$S/three.json" >"$S/three.out"
t_expect_eq "three loops: exit" 0 "$?"
t_expect_eq "three loops: rows are each loop's figure in microseconds" \
	"$(jq -r '.runs[0].loops[].app_overhead_ns / 1000 | floor' "$S/three.json")" "$(rows "$S/three.out")"
t_expect_eq "three loops: summary is the loops' sum" \
	"$(jq '[.runs[0].loops[].app_overhead_ns] | add' "$S/three.json")" \
	"$(t_json "$S/three.json" '.runs[0].summary.app_overhead_ns')"
# the host-load read (/proc/thread-self/schedstat) of every worker comes before the gate
# opens, so before any thread's first create: never inside the loop's wall time
if command -v strace >/dev/null; then
	strace -f -o "$S/trace" -e trace=openat "$FSBENCH" smallfile -d "$S/e" -t 4 -n 20 -s 0 \
		-S 0 --quiet || t_fail "under strace: the run failed"
	awk '/O_CREAT/ && !c {c = NR} /schedstat/ {n++; if (!c || NR < c) before++}
		END {printf "schedstat reads: %d, before the first create: %d\n", n, before
		     exit !(n == 8 && before == 4)}' "$S/trace" ||
		t_fail "a worker read its schedstat after the start gate opened (see above)"
else
	echo "note: no strace: the schedstat order is not checked"
fi
t_done
