#!/bin/bash
# EIO mid-run (from eiofs, a FUSE filesystem that fails on command): every thread stops, the
# partial result says why and where, the run's files go unless -k, exit status 1.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
EIO="Input/output error"

count_files() { find "$1" -type f | wc -l; }

# run NAME fsbench-args...: runs fsbench with a hang guard; sets RC, OUT (json), ERR (stderr)
run() {
	local name=$1
	shift
	OUT=$T_SCRATCH/$name.json
	ERR=$T_SCRATCH/$name.err
	timeout 30 "$FSBENCH" "$@" --quiet --json "$OUT" >/dev/null 2>"$ERR"
	RC=$?
	[ "$RC" = 124 ] && t_die "$name: fsbench hung (killed after 30 s)"
}

# expect_eio NAME PATH_PREFIX: what every failed run must show, with its error at PATH_PREFIX*
expect_eio() {
	local name=$1 prefix=$2 e
	t_expect_eq "$name: exit status" 1 "$RC"
	"$VALIDATE" "$SCHEMA" "$OUT" || t_fail "$name: result does not match the schema"
	t_expect_eq "$name: complete" false "$(t_json "$OUT" '.complete')"
	t_expect_eq "$name: run complete" false "$(t_json "$OUT" '.runs[0].summary.complete')"
	e=$(t_json "$OUT" '.runs[0].summary.error')
	case $e in
	*"$prefix"*": $EIO") t_ok "$name: summary.error: $e" ;;
	*) t_fail "$name: summary.error is '$e', expected '$prefix...: $EIO'" ;;
	esac
	t_expect_eq "$name: stderr lines" 1 "$(wc -l <"$ERR")"
	case $(cat "$ERR") in
	*"$e; the partial result is marked incomplete") t_ok "$name: stderr says the same" ;;
	*) t_fail "$name: stderr is '$(cat "$ERR")'" ;;
	esac
}

# --- smallfile -S 1: the 6th fsync fails; 2 threads, 4 subdirectories
t_eiofs --fail-fsync-after 5
d=$T_MNT/work
mkdir "$d"
run sf-fsync smallfile -d "$d" -t 2 -n 50 -s 4k -S 1 -D 4 -N 5
expect_eio sf-fsync "fsync of $d/0"
# each finished file had one good fsync, and only 5 were good
t_expect_eq "sf-fsync: files done" 5 "$(t_json "$OUT" '.runs[0].summary.files')"
t_expect_eq "sf-fsync: fsync count" 5 "$(t_json "$OUT" '.runs[0].ops.fsync.count')"
t_expect_eq "sf-fsync: the other thread stopped too" true \
	"$(t_json "$OUT" '[.runs[0].per_thread[].files] | add < 10')"
t_expect_eq "sf-fsync: files and subdirectories left" "" "$(ls -A "$d")"

# the same with --fdatasync and -k: the files are kept, the error names fdatasync
t_eiofs --fail-fsync-after 5
d=$T_MNT/work
mkdir "$d"
run sf-keep smallfile -d "$d" -t 2 -n 50 -s 4k -S 1 --fdatasync -k
expect_eio sf-keep "fdatasync of $d/"
kept=$(count_files "$d")
# the 5 done and, per thread, at most the one whose fdatasync failed
[ "$kept" -ge 5 ] && [ "$kept" -le 7 ] && t_ok "sf-keep: $kept files kept" ||
	t_fail "sf-keep: $kept files kept, expected 5 to 7"

# --- smallfile: a write fails mid-file (64k files in 16k writes; the limit falls mid-write)
limit=$((10 * 65536 + 8192))
t_eiofs --fail-after-bytes $limit
d=$T_MNT/work
mkdir "$d"
run sf-write smallfile -d "$d" -t 2 -n 50 -s 64k -w 16k -S 0
expect_eio sf-write "writing $d/"
# the partial result counts exactly what the filesystem took: the write that crossed failed
t_expect_eq "sf-write: bytes counted" true \
	"$(t_json "$OUT" ".runs[0].summary.bytes > $limit - 16384 and .runs[0].summary.bytes <= $limit")"
t_expect_eq "sf-write: write count" true \
	"$(t_json "$OUT" '.runs[0].ops.write.count * 16384 == .runs[0].summary.bytes')"
t_expect_eq "sf-write: files done" true "$(t_json "$OUT" '.runs[0].summary.files <= 10')"
t_expect_eq "sf-write: files left" "" "$(ls -A "$d")"

# a write larger than one FUSE request fails after part of it went through: the short write
# must be reported with its real reason (EIO), not guessed as ENOSPC
t_eiofs --fail-after-bytes $((3 * 1048576))
run sf-short smallfile -d "$T_MNT" -n 4 -s 8M -w 8M -S 0
expect_eio sf-short "writing $T_MNT/"
t_expect_eq "sf-short: files left" "" "$(ls -A "$T_MNT")"

# --- stream: writes fail in buffered and writebehind mode; 2 writers, 256k chunks
limit=$((3 * 1048576 + 100000))
for mode in buffered writebehind; do
	t_eiofs --fail-after-bytes $limit
	run st-$mode stream -d "$T_MNT" -t 2 --size 8M --chunk 256k --mode $mode
	expect_eio st-$mode "writing $T_MNT/fsbench-stream."
	t_expect_eq "st-$mode: bytes counted" true \
		"$(t_json "$OUT" ".runs[0].summary.bytes > $limit - 262144 and .runs[0].summary.bytes <= $limit")"
	t_expect_eq "st-$mode: files left" "" "$(ls -A "$T_MNT")"
done

# a chunk larger than one FUSE request: the short write's reason is EIO, at its offset
t_eiofs --fail-after-bytes $((5 * 1048576))
run st-short stream -d "$T_MNT" --size 16M --chunk 4M --mode writebehind
expect_eio st-short "writing $T_MNT/fsbench-stream."
t_expect_eq "st-short: offset of the failure" true \
	"$(t_json "$OUT" '.runs[0].summary.error | test("at offset (4194304|5242880): ")')"
t_expect_eq "st-short: files left" "" "$(ls -A "$T_MNT")"

# -k keeps the streams' files
t_eiofs --fail-after-bytes $limit
run st-keep stream -d "$T_MNT" -t 2 --size 8M --chunk 256k -k
expect_eio st-keep "writing $T_MNT/fsbench-stream."
t_expect_eq "st-keep: files kept" 2 "$(ls "$T_MNT" | grep -c '^fsbench-stream\.')"

# --runtime ends the writes; the mode's final fdatasync then fails: still a failed run
t_eiofs --fail-fsync-after 0
run st-final stream -d "$T_MNT" --size 0 --runtime 300ms --chunk 64k --mode fdatasync
expect_eio st-final "fdatasync of $T_MNT/fsbench-stream."
t_expect_eq "st-final: files left" "" "$(ls -A "$T_MNT")"

# --- the victim: workers do no fsync (-S 0), the victim's 4th fdatasync fails. An EIO on
# the target fails the run as a worker's would: the run stops early, the victim's error is
# the run's error and the victim's own, its 3 good operations are kept, its file removed.
t_eiofs --fail-fsync-after 3
run victim smallfile -d "$T_MNT" -t 2 -n 1000000 -s 4k -S 0 --runtime 5s --victim fsync \
	--victim-rate 20
expect_eio victim "victim: fdatasync of $T_MNT/fsbench-victim."
t_expect_eq "victim: victim.error is the run's" "$(t_json "$OUT" '.runs[0].summary.error')" \
	"$(t_json "$OUT" '.runs[0].victim.error')"
t_expect_eq "victim: victim.count" 3 "$(t_json "$OUT" '.runs[0].victim.count')"
t_expect_eq "victim: ops.victim.count" 3 "$(t_json "$OUT" '.runs[0].ops.victim.count')"
t_expect_eq "victim: stopped long before --runtime" true \
	"$(t_json "$OUT" '.runs[0].summary.elapsed_ns < 4000000000 and .runs[0].summary.stopped_by_runtime == false')"
t_expect_eq "victim: workers did files" true "$(t_json "$OUT" '.runs[0].summary.files > 0')"
t_expect_eq "victim: files left" "" "$(ls -A "$T_MNT")"

t_done
