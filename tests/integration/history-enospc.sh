#!/bin/bash
# A SQLite store on a full disk (a 2 MiB tmpfs of the test's own): history add stops with
# exit 128, naming the file it was adding and SQLite's "disk is full", never 1 ("bad" to
# git bisect run); the store it leaves is sound (integrity_check) and holds whole files only;
# on a larger disk the same add adds just the rest.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
t_need_root
command -v sqlite3 >/dev/null || t_skip "sqlite3 is not installed"
FX=$SRCDIR/tests/fixtures/results/probes-ext4.json
mkdir "$S/r"
/usr/bin/python3 - "$FX" "$S/r" <<-'PY' || t_die "making 300 results"
	import json, sys
	src = json.load(open(sys.argv[1]))
	for i in range(300):
	    src["host"]["kernel"] = "6.1.0-%d-amd64" % (i // 10)
	    src["runs"][0]["summary"]["files_per_sec"] = 200 + i * 0.01
	    json.dump(src, open("%s/m%03d.json" % (sys.argv[2], i), "w"))
	PY
t_tmpfs 2
"$FSBENCH" history add --db "$T_MNT/h.db" -q "$S/r" >"$S/out" 2>"$S/err"
rc=$?
cat "$S/out" "$S/err"
t_expect_eq "history add on a full disk: exit" 128 "$rc"
grep -Eq "adding $S/r/m[0-9]{3}\.json to $T_MNT/h.db: .*(disk is full|No space left)" "$S/err" &&
	t_ok "the file and the reason named" || t_fail "the error: $(cat "$S/err")"
t_expect_eq "the store left: integrity_check" "ok" "$(sqlite3 "$T_MNT/h.db" 'PRAGMA integrity_check' 2>&1)"
n=$(sqlite3 "$T_MNT/h.db" "SELECT count(*) FROM files" 2>&1)
half=$(sqlite3 "$T_MNT/h.db" "SELECT count(*) FROM files f WHERE f.runs <> (SELECT count(*) FROM runs r WHERE r.file_id = f.id)" 2>&1)
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ] && [ "$n" -lt 300 ] && [ "$half" = 0 ] &&
	t_ok "after the full disk: $n whole files of 300, none half-added" || t_fail "after the full disk: $n files, $half half-added"
# the same store moved to a larger disk: the rest is added, nothing twice
cp "$T_MNT"/h.db* "$S/" && umount "$T_MNT" && T_MOUNTS=()
"$FSBENCH" history add --db "$S/h.db" -q "$S/r" >"$S/out2" 2>&1
t_expect_eq "the same add on a larger disk: exit" 0 "$?"
grep -q "^added $((300 - n)) files .* $n already there" "$S/out2" && t_ok "$(cat "$S/out2")" || t_fail "again: $(cat "$S/out2")"
t_done
