#!/bin/bash
# issue 10 item 4: a loop that failed prints no table row (fs_mark prints none), so LKP and
# mmtests record nothing for it; the JSON keeps the partial loop, marked incomplete.
. "$(dirname "$0")/lib.sh"
. "$T_TESTS/fsmark-lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
t_need_root
mnt=$(mktemp -d "$T_SCRATCH/tmpfs.XXXXXX")
mount -t tmpfs -o size=64m,nr_inodes=500 fsbench-test "$mnt" || t_skip "cannot mount tmpfs"
T_MOUNTS+=("$mnt")

# the issue's command: 1000 files per loop cannot fit in 500 inodes, so loop 1 fails
"$FSBENCH" smallfile -d "$mnt/X" -s 0 -n 1000 -L 2 -S0 -D 10 --json "$T_SCRATCH/r.json" \
	>"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
t_expect_eq "exit status" 1 "$?"
grep -q "No space left on device" "$T_SCRATCH/err" || t_fail "no ENOSPC on stderr: $(cat "$T_SCRATCH/err")"
grep -q '^FSUse%' "$T_SCRATCH/out" || t_fail "no table header"
t_expect_eq "LKP rule: rows" "" "$(lkp_parse <"$T_SCRATCH/out")"
t_expect_eq "mmtests rule (stdout+stderr): rows" "" \
	"$(cat "$T_SCRATCH/out" "$T_SCRATCH/err" | mmtests_parse | awk '$1 + 0 > 0')"
t_expect_eq "JSON: loops kept" 1 "$(t_json "$T_SCRATCH/r.json" '.runs[0].loops | length')"
t_expect_eq "JSON: loop marked incomplete" false "$(t_json "$T_SCRATCH/r.json" '.runs[0].loops[0].complete')"
t_expect_eq "JSON: run incomplete" false "$(t_json "$T_SCRATCH/r.json" '.runs[0].summary.complete')"
files=$(t_json "$T_SCRATCH/r.json" '.runs[0].loops[0].files')
[ "$files" -gt 0 ] && [ "$files" -lt 1000 ] || t_fail "partial loop files: $files"
"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$T_SCRATCH/r.json" || t_fail "result does not validate"
rm -rf "${mnt:?}"/*

# the loops before the failing one keep their rows: 3 x 150 fit in 500 inodes, the fourth does not
"$FSBENCH" smallfile -d "$mnt/Y" -s 0 -n 150 -L 5 -S0 >"$T_SCRATCH/out" 2>/dev/null
t_expect_eq "-L 5 on 500 inodes: exit" 1 "$?"
t_expect_eq "rows of the loops that completed" "150 300 450" \
	"$(awk '/^FSUse/ {p = 1; next} p && NF == 5 {print $2}' "$T_SCRATCH/out" | tr '\n' ' ' | sed 's/ $//')"
t_done
