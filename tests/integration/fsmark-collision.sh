#!/bin/bash
# issue 10 item 7: files are created with O_EXCL; a name that exists is an error naming the
# file, the file is left as it was, and the cleanup removes only what the run created.
. "$(dirname "$0")/lib.sh"
d=$T_SCRATCH/d
mkdir "$d"

# the issue's command: the first name of -r 0 -p 16 is 0000000000000000
echo data >"$d/0000000000000000"
"$FSBENCH" smallfile -d "$d" -n 5 -r 0 -p 16 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "collision: exit" 1 "$?"
t_expect_eq "collision: one line" 1 "$(wc -l <"$T_SCRATCH/err")"
grep -q "creating $d/0000000000000000: File exists" "$T_SCRATCH/err" || t_fail "message: $(cat "$T_SCRATCH/err")"
t_expect_eq "user's file intact" data "$(cat "$d/0000000000000000")"
t_expect_eq "nothing else left" 0000000000000000 "$(ls "$d")"

# with -k it was zeroed before
"$FSBENCH" smallfile -d "$d" -n 5 -r 0 -p 16 -k >/dev/null 2>&1
t_expect_eq "-k collision: exit" 1 "$?"
t_expect_eq "-k: user's file intact" data "$(cat "$d/0000000000000000")"
rm -f "$d"/*

# a collision mid-run: the files made before it are removed, the user's one stays
echo mine >"$d/0000000000000003"
"$FSBENCH" smallfile -d "$d" -n 6 -r 0 -p 16 -t 1 --json "$T_SCRATCH/r.json" >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "mid-run collision: exit" 1 "$?"
t_expect_eq "mid-run: only the user's file left" 0000000000000003 "$(ls "$d")"
t_expect_eq "mid-run: user's file intact" mine "$(cat "$d/0000000000000003")"
t_expect_eq "mid-run: JSON incomplete" false "$(t_json "$T_SCRATCH/r.json" '.runs[0].summary.complete')"
jq -r '.runs[0].summary.error' "$T_SCRATCH/r.json" | grep -q "0000000000000003: File exists" ||
	t_fail "JSON error does not name the file"

# ...also under -D: the subdirectory and its name in the message
mkdir -p "$d/sub/00"
echo mine >"$d/sub/00/0000000000000001"
"$FSBENCH" smallfile -d "$d/sub" -D 4 -N 10 -n 5 -r 0 -p 16 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "-D collision: exit" 1 "$?"
grep -q "creating $d/sub/00/0000000000000001: File exists" "$T_SCRATCH/err" || t_fail "message: $(cat "$T_SCRATCH/err")"
t_expect_eq "-D: only the user's file left" "$d/sub/00/0000000000000001" "$(find "$d/sub" -type f)"

# two runs with -k in one directory: the second's names are its own (random part)
rm -rf "${d:?}"/*
"$FSBENCH" smallfile -d "$d" -n 50 -s 0 -k >/dev/null && "$FSBENCH" smallfile -d "$d" -n 50 -s 0 -k >/dev/null
t_expect_eq "two -k runs: both complete, 100 files" 100 "$(ls "$d" | wc -l)"
t_done
