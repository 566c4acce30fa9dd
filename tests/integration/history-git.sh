#!/bin/bash
# history changes --git TREE (issue 38 item 2): builds of one tree whose releases say only
# -gHASH (CONFIG_LOCALVERSION_AUTO) are ordered by the tree's rev-list, not by their
# release strings (whose order is the hashes'); the 4 % files/s step made at the 6th of 10
# commits is found there. A kernel whose commit the tree has not is left out and said so;
# a TREE that is no git tree and a revision it lacks are usage errors (2) before any work.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
[ -n "$S" ] && [ -d "$S" ] || t_die "no scratch directory"
command -v git >/dev/null || t_skip "git is not installed"
command -v jq >/dev/null || t_skip "jq is not installed"

# fixed dates: the same hashes on every run, so the order by hash below is known
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
g() { git -C "$S/tree" -c user.name=t -c user.email=t@t "$@"; }
git init -q -b main "$S/tree" || t_die "git init"
commits=()
for i in $(seq 0 9); do
	g commit -q --allow-empty -m "commit $i" || t_die "git commit"
	commits+=("$(g rev-parse HEAD)")
done
# the order of the releases (by hash) is not the tree's: otherwise the test proves nothing
by_hash=$(printf '%s\n' "${commits[@]}" | cut -c1-12 | sort | paste -sd' ')
in_tree=$(printf '%s\n' "${commits[@]}" | cut -c1-12 | paste -sd' ')
[ "$by_hash" != "$in_tree" ] || t_die "the hashes happen to sort in commit order; run again"

FX=$SRCDIR/tests/fixtures/results/probes-ext4.json
mkdir "$S/r"
mk() { # INDEX BOOT HASH12 FILES/S
	jq --arg rel "6.13.0-rc1-g$3" --arg ver "#1 SMP PREEMPT_DYNAMIC" --argjson f "$4" --arg b "$2" \
		'.host.kernel = $rel | .host.kernel_version = $ver | .runs[0].summary.files_per_sec = $f | .created = ("2026-01-0" + $b + "T00:00:00Z")' \
		"$FX" >"$S/r/k$1-b$2.json" || t_die "jq"
}
for i in $(seq 0 9); do
	for boot in 1 2; do
		mk "$i" "$boot" "$(cut -c1-12 <<<"${commits[i]}")" \
			"$(awk -v i="$i" -v b="$boot" 'BEGIN { print 223.5 * (i >= 5 ? 0.96 : 1) * (1 + (b == 1 ? 0.001 : -0.001) * (i % 3 - 1)) }')"
	done
done
# a build of a commit the tree does not have
mk 99 1 0123456789ab 223.5
mk 99 2 0123456789ab 223.6
"$FSBENCH" history add --db "$S/h.db" --quiet "$S"/r/*.json >/dev/null 2>"$S/err" || t_die "history add: $(cat "$S/err")"

"$FSBENCH" history changes --db "$S/h.db" --metric files_per_sec --git "$S/tree" >"$S/out" 2>"$S/err"
rc=$?
cat "$S/out"
t_expect_eq "--git: exit (a regression)" 1 "$rc"
b4=$(cut -c1-12 <<<"${commits[4]}") a5=$(cut -c1-12 <<<"${commits[5]}")
grep -q "6.13.0-rc1-g$b4 $b4 -> 6.13.0-rc1-g$a5 $a5: -4.0" "$S/out" &&
	t_ok "the step between the 5th and 6th commits of the tree" || t_fail "the step: $(cat "$S/out")"
t_expect_eq "--git: one change point" 1 "$(grep -c '^REGRESSION\|^change' "$S/out")"
grep -q "1 kernel without a commit in $S/tree's history of HEAD: left out" "$S/err" &&
	t_ok "$(cat "$S/err")" || t_fail "the kernel outside the tree: $(cat "$S/err")"
# --git-rev: the history of the 8th commit holds the step too, and leaves out the last two
"$FSBENCH" history changes --db "$S/h.db" --metric files_per_sec --git "$S/tree" --git-rev "${commits[7]}" >"$S/out" 2>"$S/err"
t_expect_eq "--git-rev: exit" 1 "$?"
grep -q "3 kernels without a commit" "$S/err" && t_ok "--git-rev: $(cat "$S/err")" || t_fail "--git-rev: $(cat "$S/err")"
# by version alone, the same store's order is the hashes': not the step at its place
"$FSBENCH" history changes --db "$S/h.db" --metric files_per_sec >"$S/out" 2>&1
grep -q "g$b4 $b4 -> 6.13.0-rc1-g$a5 $a5" "$S/out" && t_fail "found without --git: the test proves nothing" ||
	t_ok "without --git the releases' order does not place the step"

# one add of many files (decoded by several threads at once): a file that is not a result
# and one that is not there are refused by name, exit 2, and every other file is added, in
# the order given
echo '{"schema": "something-else/1"}' >"$S/other.json"
ls "$S"/r/k[0-4]-b1.json >"$S/some"
mapfile -t SOME <"$S/some"
"$FSBENCH" history add --db "$S/h2.db" "${SOME[0]}" "$S/other.json" "${SOME[@]:1}" "$S/none.json" >"$S/out" 2>"$S/err"
t_expect_eq "an add with two bad files: exit" 2 "$?"
t_expect_eq "every good file added, in order" "$(printf '%s\n' "${SOME[@]}")" "$(grep -o '^[^:]*: 1 run' "$S/out" | cut -d: -f1)"
grep -q "$S/other.json: not an fsbench result" "$S/err" && grep -q "$S/none.json: No such file" "$S/err" &&
	t_ok "both bad files named: $(tr '\n' ' ' <"$S/err")" || t_fail "the bad files: $(cat "$S/err")"
tail -1 "$S/out" | grep -q "^added 5 files (5 runs, .*), 0 already there, 2 refused" && t_ok "$(tail -1 "$S/out")" ||
	t_fail "the total: $(tail -1 "$S/out")"

# usage errors before any work: no store is made
"$FSBENCH" history changes --db "$S/none.db" --git "$S/r" >/dev/null 2>"$S/err"
t_expect_eq "--git on no git tree: exit" 2 "$?"
grep -q "no such commit there" "$S/err" && t_ok "$(head -1 "$S/err")" || t_fail "no git tree: $(cat "$S/err")"
"$FSBENCH" history changes --db "$S/none.db" --git "$S/tree" --git-rev nosuchbranch >/dev/null 2>"$S/err"
t_expect_eq "--git-rev a revision the tree lacks: exit" 2 "$?"
"$FSBENCH" history changes --db "$S/none.db" --git "$S/tree" --git-rev=--all >/dev/null 2>"$S/err"
t_expect_eq "--git-rev an option: exit" 2 "$?"
[ ! -e "$S/none.db" ] && t_ok "no store made by a usage error" || t_fail "a store was made"
t_done
