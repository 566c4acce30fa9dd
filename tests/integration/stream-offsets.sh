#!/bin/bash
# A writebehind stream past 4 GiB hands sync_file_range exact 64-bit offsets (the seed's int overflow).
. "$(dirname "$0")/lib.sh"

t_need_root
command -v strace >/dev/null || t_skip "strace is not installed"
t_tmpfs 6000
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
MIB=1048576
CHUNK=$((64 * MIB))
N=68 # 4352 MiB: the last 4 chunks lie wholly beyond 4 GiB
SIZE=$((N * CHUNK))
out=$T_SCRATCH/r.json
trace=$T_SCRATCH/trace

# LeakSanitizer cannot run under ptrace; the sanitizer build would fail here for that alone
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -o "$trace" -e trace=sync_file_range \
	"$FSBENCH" stream -d "$T_MNT" --size "$SIZE" --chunk 64M --mode writebehind --quiet --json "$out"
t_expect_eq "exit status" 0 $?
"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$out" || t_fail "result does not match the schema"

# strace prints: PID sync_file_range(FD, OFFSET, NBYTES, FLAGS) = 0
awk -F'[(,)]' '/sync_file_range\(/ { gsub(/ /, "", $3); print $3, $5 }' "$trace" >"$T_SCRATCH/calls"
t_expect_eq "sync_file_range calls traced" $((2 * N - 1)) "$(wc -l <"$T_SCRATCH/calls")"
t_expect_eq "failed sync_file_range calls" 0 "$(grep -c 'sync_file_range(.*= -1' "$trace")"
# every chunk's exact offset, issued once with WRITE and (but the last) once with the waits
for i in 31 32 63 64 65 $((N - 1)); do
	off=$((i * CHUNK))
	t_expect_eq "WRITE of chunk $i at $off" 1 "$(grep -c "^$off  *SYNC_FILE_RANGE_WRITE$" "$T_SCRATCH/calls")"
done
for i in 32 64 $((N - 2)); do
	off=$((i * CHUNK))
	t_expect_eq "wait of chunk $i at $off" 1 "$(grep -c "^$off  *SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER$" "$T_SCRATCH/calls")"
done
t_expect_eq "calls with offsets beyond 4 GiB" $((2 * 4 - 1)) "$(awk '$1 >= 4294967296' "$T_SCRATCH/calls" | wc -l)"
t_expect_eq "largest offset" $(((N - 1) * CHUNK)) "$(sort -n "$T_SCRATCH/calls" | tail -1 | cut -d' ' -f1)"
t_expect_eq "negative offsets" 0 "$(awk '$1 < 0' "$T_SCRATCH/calls" | wc -l)"

t_expect_eq "bytes" "$SIZE" "$(t_json "$out" '.runs[0].summary.bytes')"
t_expect_eq "write count" "$N" "$(t_json "$out" '.runs[0].ops.write.count')"
t_expect_eq "sync_file_range count" $((2 * N - 1)) "$(t_json "$out" '.runs[0].ops.sync_file_range.count')"
t_expect_eq "fdatasync count" 1 "$(t_json "$out" '.runs[0].ops.fdatasync.count')"
t_expect_eq "files left in $T_MNT" "" "$(ls -A "$T_MNT")"
t_done
