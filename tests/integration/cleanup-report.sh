#!/bin/bash
# Issue 11 item 9: cleanup that fails is reported (how many files were left, and where),
# and -F says filesystem_full when it stopped because the filesystem is full.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json

# -F on a 4 MiB tmpfs: the run ends full, and says so
t_tmpfs 4
mkdir "$T_MNT/d"
timeout 60 "$FSBENCH" smallfile -d "$T_MNT/d" -F -s 64k -n 8 --quiet --json "$T_SCRATCH/full.json" >/dev/null 2>"$T_SCRATCH/full.err"
t_expect_eq "-F: exit" 0 $?
t_expect_eq "-F: filesystem_full" true "$(t_json "$T_SCRATCH/full.json" '.runs[0].summary.filesystem_full')"
use=$(df --output=pcent "$T_MNT" | tail -1 | tr -dc 0-9)
[ "$use" -ge 90 ] && t_ok "-F: the filesystem is $use % full" || t_fail "-F: only $use % full"

# every unlink fails (EROFS, as after an emergency read-only remount): the error counts them
t_eiofs --fail-unlink 1
d=$T_MNT/d
mkdir "$d"
timeout 60 "$FSBENCH" smallfile -d "$d" -t 1 -n 20 -s 4k -S 0 --quiet --json "$T_SCRATCH/left.json" >/dev/null 2>"$T_SCRATCH/left.err"
t_expect_eq "unlink fails: exit" 1 $?
e=$(t_json "$T_SCRATCH/left.json" '.runs[0].summary.error')
case $e in
"removing files: 20 of 20 left in $d (the first, "*": Read-only file system)") t_ok "error: $e" ;;
*) t_fail "error is '$e'" ;;
esac
t_expect_eq "files_left" 20 "$(t_json "$T_SCRATCH/left.json" '.runs[0].summary.files_left')"
grep -q "20 of 20 left in $d" "$T_SCRATCH/left.err" && t_ok "stderr says it" || t_fail "stderr: $(cat "$T_SCRATCH/left.err")"
t_expect_eq "the files are really there" 20 "$(find "$d" -type f | wc -l)"
"$VALIDATE" "$SCHEMA" "$T_SCRATCH/left.json" && t_ok "result valid" || t_fail "result does not match the schema"
t_done
