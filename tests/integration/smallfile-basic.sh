#!/bin/bash
# smallfile on a plain directory: flag semantics, per-op counts for every -S, loops,
# runtime bound, signals, error paths, fs_mark-compatible stdout, schema validation.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
d=$T_SCRATCH/work
mkdir -p "$d"

count_files() { find "$1" -type f | wc -l; }

# --- kept-file count and subdirectory spread: -n 30 -N 10 -D 4 -t 2 -k
"$FSBENCH" smallfile -d "$d" -s 1k -n 30 -N 10 -D 4 -t 2 -k -S 0 --json "$T_SCRATCH/spread.json" >/dev/null ||
	t_fail "spread run failed"
t_expect_eq "kept files" 60 "$(count_files "$d")"
t_expect_eq "subdirectories" "00 01 02" "$(cd "$d" && ls | tr '\n' ' ' | sed 's/ $//')"
# round robin: each thread fills 00, 01, 02 with 10 files each
t_expect_eq "files in 00" 20 "$(count_files "$d/00")"
t_expect_eq "files in 02" 20 "$(count_files "$d/02")"
t_expect_eq "file size" 1024 "$(stat -c %s "$(find "$d" -type f | head -1)")"
"$VALIDATE" "$SCHEMA" "$T_SCRATCH/spread.json" || t_fail "spread.json does not validate"
rm -rf "${d:?}"/*

# --- exact per-operation counts for every sync method (-n 20 -t 2 -s 40k -w 16k: 3 writes a file)
for S in 0 1 2 3 4 5 6; do
	j=$T_SCRATCH/s$S.json
	"$FSBENCH" smallfile -d "$d" -s 40k -w 16k -n 20 -t 2 -S "$S" --json "$j" >/dev/null || t_fail "-S $S run failed"
	"$VALIDATE" "$SCHEMA" "$j" || t_fail "-S $S json does not validate"
	c() { jq -r ".runs[0].ops.$1.count // 0" "$j"; }
	files=40
	case $S in
	0) fs=0 sy=0 op=0 ;;
	1) fs=40 sy=0 op=0 ;;
	2) fs=2 sy=2 op=2 ;;
	3 | 5) fs=40 sy=0 op=40 ;;
	4 | 6) fs=40 sy=2 op=40 ;;
	esac
	t_expect_eq "-S $S create" $files "$(c create)"
	t_expect_eq "-S $S write" 120 "$(c write)"
	t_expect_eq "-S $S fsync" $fs "$(c fsync)"
	t_expect_eq "-S $S sync" $sy "$(c sync)"
	t_expect_eq "-S $S reopen" $op "$(c open)"
	t_expect_eq "-S $S close" $((files + op)) "$(c close)"
	t_expect_eq "-S $S unlink" $files "$(c unlink)"
	t_expect_eq "-S $S files left" 0 "$(count_files "$d")"
done

# --fdatasync replaces every fsync
"$FSBENCH" smallfile -d "$d" -s 4k -n 10 -S 3 --fdatasync --json "$T_SCRATCH/fd.json" >/dev/null
t_expect_eq "fdatasync count" 10 "$(jq -r '.runs[0].ops.fdatasync.count' "$T_SCRATCH/fd.json")"
t_expect_eq "no fsync with --fdatasync" null "$(jq -r '.runs[0].ops.fsync' "$T_SCRATCH/fd.json")"
# the flushes' percentiles are exact (every latency kept), the other ops' from the histogram
t_expect_eq "fsync percentiles exact" "true null" \
	"$(jq -r '.runs[0].ops | "\(.fsync.exact) \(.write.exact)"' "$T_SCRATCH/s1.json")"
t_expect_eq "fdatasync percentiles exact" true "$(jq -r '.runs[0].ops.fdatasync.exact' "$T_SCRATCH/fd.json")"
t_expect_eq "exact percentiles in order, within min and max" true \
	"$(jq -r '.runs[0].ops.fsync | [.min_ns, .p50_ns, .p90_ns, .p99_ns, .p99_9_ns, .p99_99_ns, .max_ns] | . == sort' "$T_SCRATCH/s1.json")"

# --- -L 3: three table rows, files kept as fs_mark does, cumulative Count column
out=$("$FSBENCH" smallfile -d "$d" -s 1k -n 10 -t 2 -L 3 --json "$T_SCRATCH/loops.json")
rows=$(echo "$out" | awk '/^FSUse%/ {t=1; next} t && NF == 5 {print $2}' | tr '\n' ' ')
t_expect_eq "Count column over 3 loops" "20 40 60 " "$rows"
t_expect_eq "files kept after -L 3" 60 "$(count_files "$d")"
t_expect_eq "loops in JSON" 3 "$(jq -r '.runs[0].loops | length' "$T_SCRATCH/loops.json")"
t_expect_eq "summary files" 60 "$(jq -r '.runs[0].summary.files' "$T_SCRATCH/loops.json")"
rm -rf "${d:?}"/*

# --- stdout as LKP and mmtests parse it: nothing after the table, nothing on stderr
"$FSBENCH" smallfile -d "$d" -s 1k -n 50 >"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
t_expect_eq "stderr on a pipe" "" "$(cat "$T_SCRATCH/err")"
t_expect_eq "last line is the row" 5 "$(tail -1 "$T_SCRATCH/out" | awk '{print NF}')"
t_expect_eq "row Count" 50 "$(tail -1 "$T_SCRATCH/out" | awk '{print $2}')"
"$FSBENCH" smallfile -d "$d" -s 1k -n 50 --quiet >"$T_SCRATCH/out" 2>&1
t_expect_eq "--quiet output" "" "$(cat "$T_SCRATCH/out")"
"$FSBENCH" smallfile -d "$d" -s 1k -n 50 -v | grep -q '^fsync ' || t_fail "-v prints no fsync row"

# --- live progress on a terminal (script gives the run a pty), never on a pipe
if command -v script >/dev/null; then
	script -qec "$FSBENCH smallfile -d $d -s 1k -n 200000 -S 0 --runtime 2 >/dev/null" /dev/null >"$T_SCRATCH/tty" 2>&1
	grep -q "files/s" "$T_SCRATCH/tty" || t_fail "no progress line on a terminal"
	grep -q "ETA" "$T_SCRATCH/tty" || t_fail "no ETA on a terminal"
	rm -rf "${d:?}"/*
fi

# --- fsbench removes only what it created
mkdir -p "$d/00"
echo mine >"$d/00/user-file"
echo mine >"$d/user-file"
"$FSBENCH" smallfile -d "$d" -s 1k -n 20 -D 2 -N 5 >/dev/null || t_fail "run with user files failed"
t_expect_eq "user files kept" 2 "$(count_files "$d")"
[ -d "$d/00" ] || t_fail "pre-existing subdirectory 00 was removed"
[ -d "$d/01" ] && t_fail "subdirectory 01 that fsbench made was left behind"
rm -rf "${d:?}"/*

# --- no -d: a fresh temporary directory, removed afterwards
mkdir -p "$T_SCRATCH/tmp"
TMPDIR=$T_SCRATCH/tmp "$FSBENCH" smallfile -s 1k -n 20 -k >/dev/null || t_fail "default-directory run failed"
t_expect_eq "temporary directory removed" "" "$(ls "$T_SCRATCH/tmp")"

# --- --runtime stops early, complete, post-loop fsync of what was created
"$FSBENCH" smallfile -d "$d" -s 1k -n 100000000 -S 5 --runtime 1 --json "$T_SCRATCH/rt.json" >/dev/null ||
	t_fail "runtime run failed"
t_expect_eq "runtime: complete" true "$(jq -r '.runs[0].summary.complete' "$T_SCRATCH/rt.json")"
t_expect_eq "runtime: stopped_by_runtime" true "$(jq -r '.runs[0].summary.stopped_by_runtime' "$T_SCRATCH/rt.json")"
t_expect_eq "runtime: post-loop fsyncs = files" "$(jq -r '.runs[0].summary.files' "$T_SCRATCH/rt.json")" \
	"$(jq -r '.runs[0].ops.fsync.count' "$T_SCRATCH/rt.json")"
el=$(jq -r '.runs[0].summary.elapsed_ns' "$T_SCRATCH/rt.json")
# a bound, not a speed: the post-loop fsyncs of what 1 s created take seconds on a loaded
# machine, while a run that ignored --runtime would still be creating 10^8 files
[ "$el" -lt 60000000000 ] || t_fail "runtime 1 s ran ${el} ns"
t_expect_eq "runtime: files removed" 0 "$(count_files "$d")"

# --- signals: partial result marked incomplete, files removed, 128+signal
for sig in INT TERM; do
	rm -f "$T_SCRATCH/sig.json"
	"$FSBENCH" smallfile -d "$d" -s 1k -n 100000000 -t 2 --json "$T_SCRATCH/sig.json" >/dev/null 2>"$T_SCRATCH/err" &
	pid=$!
	sleep 1
	kill -$sig $pid
	wait $pid
	rc=$?
	want=$([ $sig = INT ] && echo 130 || echo 143)
	t_expect_eq "SIG$sig exit status" "$want" "$rc"
	t_expect_eq "SIG$sig complete" false "$(jq -r '.runs[0].summary.complete' "$T_SCRATCH/sig.json")"
	jq -r '.runs[0].summary.error' "$T_SCRATCH/sig.json" | grep -q "signal" || t_fail "SIG$sig: error does not name the signal"
	t_expect_eq "SIG$sig top-level complete" false "$(jq -r '.complete' "$T_SCRATCH/sig.json")"
	"$VALIDATE" "$SCHEMA" "$T_SCRATCH/sig.json" || t_fail "SIG$sig json does not validate"
	t_expect_eq "SIG$sig files removed" 0 "$(count_files "$d")"
	grep -q "interrupted by signal" "$T_SCRATCH/err" || t_fail "SIG$sig: no message on stderr"
done

# --- bad flags: exit 2, one line naming the flag (checked per case), nothing created
# each case is "ARGS|what the line must say"
bad_flags=(
	"-S 7|-S: 7 is out of range"
	"-t 0|-t: 0 is out of range"
	"-s 4q|-s: '4q' is not a size"
	"-Z|-Z: unknown option"
	"-D 1|-D: 1 is not allowed"
	"-N 5|-N: needs -D"
	"-t 3 -d $d|-t: 3 threads are not a multiple of the 2 directories"
	"-r 50|-r: 50 random characters"
	"-n|-n: a value is required"
	"--runtime 5parsecs|--runtime: '5parsecs' is not a duration"
	"extra|unexpected argument 'extra'"
)
for c in "${bad_flags[@]}"; do
	args=${c%%|*}
	want=${c#*|}
	# shellcheck disable=SC2086
	"$FSBENCH" smallfile -d "$d" $args >"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
	rc=$?
	t_expect_eq "'$args' exit status" 2 "$rc"
	t_expect_eq "'$args' one line on stderr" 1 "$(wc -l <"$T_SCRATCH/err")"
	grep -qF -- "fsbench smallfile: $want" "$T_SCRATCH/err" ||
		t_fail "'$args': the error does not say '$want': $(cat "$T_SCRATCH/err")"
	t_expect_eq "'$args' created nothing" "" "$(ls -A "$d")"
done

# --- a missing -d is made (fsmark-mkdir.sh); a missing parent: one line naming the path and the reason
"$FSBENCH" smallfile -d "$T_SCRATCH/nonexistent/d" -n 1 2>"$T_SCRATCH/err" >/dev/null
t_expect_eq "missing -d parent exit status" 1 "$?"
grep -q "$T_SCRATCH/nonexistent/d: No such file or directory" "$T_SCRATCH/err" || t_fail "missing -d message: $(cat "$T_SCRATCH/err")"

t_done
