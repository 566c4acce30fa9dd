#!/bin/bash
# smallfile on a real ext4 made on a loop device: counts and spread, -F until full,
# ENOSPC mid-run (partial result, files removed), a read-only target.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root

count_files() { find "$1" -type f | wc -l; }

t_mkfs_loop ext4 64 -E lazy_itable_init=0,lazy_journal_init=0
mnt=$T_MNT
d=$mnt/work
mkdir "$d"

# --- counts and spread on a real journal: -n 40 -N 10 -D 8 -t 4 -k
"$FSBENCH" smallfile -d "$d" -s 4k -n 40 -N 10 -D 8 -t 4 -k --json "$T_SCRATCH/e.json" >/dev/null || t_fail "ext4 run failed"
t_expect_eq "kept files" 160 "$(count_files "$d")"
for sub in 00 01 02 03; do
	t_expect_eq "files in $sub" 40 "$(count_files "$d/$sub")"
done
[ -d "$d/04" ] && t_fail "empty subdirectory 04 was left behind"
t_expect_eq "fsync count" 160 "$(jq -r '.runs[0].ops.fsync.count' "$T_SCRATCH/e.json")"
"$VALIDATE" "$SCHEMA" "$T_SCRATCH/e.json" || t_fail "ext4 json does not validate"
rm -rf "$d"/*

# --- -F: loops until the next loop cannot fit; a full filesystem is not a failure
"$FSBENCH" smallfile -d "$d" -s 1M -n 8 -F --json "$T_SCRATCH/fill.json" >"$T_SCRATCH/out" || t_fail "-F run failed ($?)"
loops=$(jq -r '.runs[0].summary.loops' "$T_SCRATCH/fill.json")
[ "$loops" -ge 3 ] || t_fail "-F ran only $loops loops on a 64 MiB filesystem"
t_expect_eq "-F complete" true "$(jq -r '.runs[0].summary.complete' "$T_SCRATCH/fill.json")"
use=$(awk '/^FSUse%/ {t=1; next} t && NF == 5 {u=$1} END {print u}' "$T_SCRATCH/out")
[ "$use" -ge 80 ] || t_fail "-F stopped at ${use}% used"
t_expect_eq "-F keeps files" "$(jq -r '.runs[0].summary.files' "$T_SCRATCH/fill.json")" "$(count_files "$d")"
rm -rf "$d"/*

# --- ENOSPC mid-run: non-zero exit, partial result with the error, files removed
"$FSBENCH" smallfile -d "$d" -s 1M -n 200 -t 2 --json "$T_SCRATCH/nospc.json" >/dev/null 2>"$T_SCRATCH/err"
rc=$?
t_expect_eq "ENOSPC exit status" 1 "$rc"
t_expect_eq "ENOSPC complete" false "$(jq -r '.runs[0].summary.complete' "$T_SCRATCH/nospc.json")"
jq -r '.runs[0].summary.error' "$T_SCRATCH/nospc.json" | grep -q "No space left on device" ||
	t_fail "ENOSPC error: $(jq -r '.runs[0].summary.error' "$T_SCRATCH/nospc.json")"
grep -q "$d/.*No space left on device" "$T_SCRATCH/err" || t_fail "ENOSPC message: $(cat "$T_SCRATCH/err")"
"$VALIDATE" "$SCHEMA" "$T_SCRATCH/nospc.json" || t_fail "ENOSPC json does not validate"
t_expect_eq "ENOSPC files removed" 0 "$(count_files "$d")"
files=$(jq -r '.runs[0].summary.files' "$T_SCRATCH/nospc.json")
[ "$files" -gt 0 ] && [ "$files" -lt 400 ] || t_fail "ENOSPC partial file count $files"

# --- ENOSPC with -k keeps what was written
"$FSBENCH" smallfile -d "$d" -s 1M -n 200 -k --json "$T_SCRATCH/nospck.json" >/dev/null 2>&1
t_expect_eq "ENOSPC -k exit" 1 "$?"
[ "$(count_files "$d")" -gt 0 ] || t_fail "ENOSPC -k removed the files"
rm -rf "$d"/*

# --- a read-only filesystem: one line naming the directory and the reason
mount -o remount,ro "$mnt"
"$FSBENCH" smallfile -d "$d" -n 1 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "read-only exit" 1 "$?"
grep -q "$d is not writable: Read-only file system" "$T_SCRATCH/err" || t_fail "read-only message: $(cat "$T_SCRATCH/err")"
mount -o remount,rw "$mnt"

t_done
