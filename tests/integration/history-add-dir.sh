#!/bin/bash
# history add DIR (issue 38 item 1): a directory operand is walked for its *.json results,
# nested ones included, in version order of their paths; a symbolic link (to a result or to
# a directory) is not followed, other files are left alone; a tree deeper than 16 levels
# and a directory without a result are usage errors (2) found before the store is made.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
[ -n "$S" ] && [ -d "$S" ] || t_die "no scratch directory"
command -v jq >/dev/null || t_skip "jq is not installed"
FX=$SRCDIR/tests/fixtures/results/probes-ext4.json
mk() { # PATH FILES/S: the fixture with its files/s edited, so that each file's bytes differ
	mkdir -p "$(dirname "$1")" && jq --argjson f "$2" '.runs[0].summary.files_per_sec = $f' "$FX" >"$1" ||
		t_die "jq $1"
}
mk "$S/night/boot-10.json" 110
mk "$S/night/boot-9.json" 109
mk "$S/night/k/boot-1/result.json" 101
mk "$S/outside/o.json" 99
mkdir -p "$S/night/k/linked"
ln -s "$S/outside/o.json" "$S/night/o-link.json"
ln -s "$S/outside" "$S/night/k/linked/dir"
echo "not a result" >"$S/night/notes.txt"

"$FSBENCH" history add --db "$S/h.db" "$S/night" >"$S/add.out" 2>"$S/add.err"
rc=$?
cat "$S/add.out" "$S/add.err"
t_expect_eq "a directory: exit" 0 "$rc"
# version order: boot-9 before boot-10, the nested result after; the links and notes.txt not
t_expect_eq "the files added, in order" "$S/night/boot-9.json $S/night/boot-10.json $S/night/k/boot-1/result.json" \
	"$(grep -o '^[^:]*\.json' "$S/add.out" | paste -sd' ')"
grep -q "^added 3 files (3 runs," "$S/add.out" && t_ok "$(tail -1 "$S/add.out")" || t_fail "the total: $(tail -1 "$S/add.out")"
"$FSBENCH" history add --db "$S/h.db" "$S/night" "$S/outside/o.json" >"$S/add2.out" 2>&1
t_expect_eq "the directory again and a file: exit" 0 "$?"
grep -q "^added 1 file (1 runs, .*3 already there" "$S/add2.out" && t_ok "$(tail -1 "$S/add2.out")" ||
	t_fail "again: $(cat "$S/add2.out")"

# 17 levels below the operand: refused before any store is made
d=$S/deep
for i in $(seq 17); do d=$d/d$i; done
mk "$d/r.json" 100
"$FSBENCH" history add --db "$S/deep.db" "$S/deep" >"$S/deep.out" 2>&1
t_expect_eq "a tree 17 levels deep: exit" 2 "$?"
grep -q "more than 16 levels down" "$S/deep.out" && [ ! -e "$S/deep.db" ] &&
	t_ok "$(cat "$S/deep.out")" || t_fail "deep: $(cat "$S/deep.out"); $(ls "$S")"
mkdir "$S/empty"
"$FSBENCH" history add --db "$S/empty.db" "$S/empty" >"$S/empty.out" 2>&1
t_expect_eq "a directory without a result: exit" 2 "$?"
grep -q "no \*.json file in $S/empty" "$S/empty.out" && [ ! -e "$S/empty.db" ] &&
	t_ok "$(cat "$S/empty.out")" || t_fail "empty: $(cat "$S/empty.out")"

# two writers making one new store at once, ten times: turning it to WAL found the other's
# lock and failed "database is locked" in 26 of 40 tries before the open waited for it
bad=0
for i in $(seq 1 10); do
	"$FSBENCH" history add --db "$S/race$i.db" --quiet "$FX" >/dev/null 2>"$S/race-a.err" &
	p1=$!
	"$FSBENCH" history add --db "$S/race$i.db" --quiet "$FX" >/dev/null 2>"$S/race-b.err" &
	p2=$!
	wait $p1 || { bad=$((bad + 1)); cat "$S/race-a.err"; }
	wait $p2 || { bad=$((bad + 1)); cat "$S/race-b.err"; }
done
t_expect_eq "two writers making one store, ten times: failures" 0 "$bad"
t_done
