#!/bin/bash
# fsbench bisect --git across commits of a small tree made here: each commit's "build" writes
# a fake kernel whose content says how slow it is, and the canned gate reads it. The first bad
# commit is found; a commit whose build fails is skipped; a build that hangs is killed by
# --build-timeout; the tree is back on its branch with no bisect in progress afterwards, and a
# tree that is not git or has a bisect in progress is refused (exit 2) and left as found.
. "$(dirname "$0")/lib.sh"
W=$T_SCRATCH
command -v git >/dev/null || t_skip "git is not installed"
T=$W/tree
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
export GIT_CONFIG_NOSYSTEM=1 HOME=$W
git init -q -b main "$T"
# level: how slow the kernel is; broken: the build fails; hang: the build never ends
commit() { # LEVEL [broken|hang] MESSAGE
	echo "$1" >"$T/level"
	echo "$3" >"$T/msg"
	rm -f "$T/broken" "$T/hang"
	[ "$2" = broken ] && touch "$T/broken"
	[ "$2" = hang ] && touch "$T/hang"
	git -C "$T" add -A && git -C "$T" commit -qm "$3"
	git -C "$T" rev-parse HEAD
}
c1=$(commit 0 - "c1 base")
c2=$(commit 0 - "c2")
c3=$(commit 0 - "c3")
c4=$(commit 0 broken "c4 does not build")
c5=$(commit 0 - "c5")
c6=$(commit 1 - "c6 slower")
c7=$(commit 1 hang "c7 build hangs")
c8=$(commit 2 - "c8 slower still")
BUILD='git rev-parse HEAD >>"${BUILDS:-/dev/null}"; test -e broken && { echo broken >&2; exit 1; }; test -e hang && sleep 600; echo "level $(cat level)" >"$FSBENCH_BISECT_OUT/bzImage"'
# the gate: a candidate of a higher level than the baseline is bad
cat >"$W/gate.sh" <<'EOT'
#!/bin/sh
echo "$2" >>"${GATES:-/dev/null}"
sleep "${GATE_SLEEP:-0}"
lb=$(awk '{print $2}' "$1") lc=$(awk '{print $2}' "$2")
[ "$lc" -gt "$lb" ] || exit 0
printf '{"compare": {"samples": [{"label": "ext4", "metrics": [{"name": "files/s", "comparisons": [{"verdict": "regression", "gate": true, "change_pct": -4.2, "floor_pct": 1.1}]}]}]}}' >"$3/kernel-gate.json"
exit 1
EOT
chmod +x "$W/gate.sh"

"$FSBENCH" bisect --git "$T" --good "$c1" --bad main --build "$BUILD" --build-timeout 2s \
	--gate-cmd "$W/gate.sh" --workdir run >"$W/out" 2>"$W/err" # relative: builds run in $T
rc=$?
sed 's/^/    /' "$W/out"
[ "$rc" = 0 ] && grep -q "^first bad: $c6 (files/s@ext4 -4.20%)$" "$W/out" &&
	t_ok "the first bad commit: $(tail -1 "$W/out")" || t_fail "exit $rc: $(tail -3 "$W/out") $(cat "$W/err")"
[ "$(git -C "$T" symbolic-ref --short HEAD)" = main ] && ! git -C "$T" bisect log >/dev/null 2>&1 &&
	[ -z "$(git -C "$T" status --porcelain)" ] &&
	t_ok "the tree is back on main, no bisect in progress, clean" || t_fail "the tree was not put back"
[ "$(jq -r '.steps[0].build_status' "$W/run/bisect.json")" = 0 ] && [ -s "$(jq -r '.steps[0].build_log' "$W/run/bisect.json")" ] || [ -e "$(jq -r '.steps[0].build_log' "$W/run/bisect.json")" ] &&
	t_ok "bisect.json keeps each build's status and log" || t_fail "bisect.json: $(head -c 600 "$W/run/bisect.json")"

# git asks for the middle, c4, whose build fails
grep -q "^step [0-9]*: $c4: skip: the build failed$" "$W/out" &&
	t_ok "a failed build is skipped: $(grep "$c4" "$W/out")" || t_fail "no skip for the failed build of $c4"
# between c6 and c8 only c7 is left, and its build hangs: killed, skipped, cannot judge
start=$(date +%s)
"$FSBENCH" bisect --git "$T" --good "$c6" --bad "$c8" --build "$BUILD" --build-timeout 2s \
	--gate-cmd "$W/gate.sh" --workdir "$W/run2" >"$W/out" 2>"$W/err"
rc=$?
sed 's/^/    /' "$W/out"
[ "$rc" = 125 ] && grep -q "^step [0-9]*: $c7: skip: the build timed out$" "$W/out" &&
	grep -q "^cannot judge: only skipped commits are left: .*${c7:0:12}" "$W/out" &&
	[ $(($(date +%s) - start)) -lt 60 ] && ! pgrep -f "sleep 600" >/dev/null &&
	t_ok "a hung build is killed and skipped: $(tail -1 "$W/out")" || { t_fail "hung build: exit $rc"; cat "$W/err"; }
[ "$(git -C "$T" symbolic-ref --short HEAD)" = main ] && ! git -C "$T" bisect log >/dev/null 2>&1 &&
	t_ok "put back after cannot judge too" || t_fail "the tree was not put back after cannot judge"

# SIGINT during a build: the build's process group is killed, the tree is put back, 130
"$FSBENCH" bisect --git "$T" --good "$c6" --bad "$c8" --build "$BUILD" --build-timeout 1h \
	--gate-cmd "$W/gate.sh" --workdir "$W/run-int" >"$W/out" 2>"$W/err" &
pid=$!
for _ in $(seq 100); do [ -e "$W/run-int/step-3/build.log" ] && break; sleep 0.1; done
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] && [ "$(git -C "$T" symbolic-ref --short HEAD)" = main ] &&
	! git -C "$T" bisect log >/dev/null 2>&1 && ! pgrep -f "sleep 600" >/dev/null &&
	[ "$(jq -r .answer "$W/run-int/bisect.json")" = "stopped by signal 2" ] &&
	t_ok "SIGINT: exit 130, the build killed, the tree back on main" ||
	{ t_fail "SIGINT: exit $rc, HEAD $(git -C "$T" rev-parse --abbrev-ref HEAD)"; cat "$W/out" "$W/err"; }

# --resume: stopped by SIGINT while a slow gate runs, then resumed: git bisect is given the
# recorded marks, so no commit is built or gated again, and the answer is the same
GATE_SLEEP=1 "$FSBENCH" bisect --git "$T" --good "$c1" --bad main --build "$BUILD" --build-timeout 2s \
	--gate-cmd "$W/gate.sh" --workdir "$W/run-res" >"$W/out" 2>"$W/err" &
pid=$!
for _ in $(seq 300); do
	[ "$(jq '.steps | length' "$W/run-res/bisect.json" 2>/dev/null || echo 0)" -ge 3 ] && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
before=$(jq '.steps | length' "$W/run-res/bisect.json")
[ "$rc" = 130 ] && [ "$before" -ge 3 ] && ! git -C "$T" bisect log >/dev/null 2>&1 &&
	t_ok "SIGINT after $before steps: exit 130, the tree reset" || t_fail "SIGINT for --resume: exit $rc, $before steps"
"$FSBENCH" bisect --resume "$W/run-res" --good "$c2" --build "$BUILD" --gate-cmd "$W/gate.sh" >"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 2 ] && ! git -C "$T" bisect log >/dev/null 2>&1 && t_ok "--resume with another --good: exit 2: $(cat "$W/err")" ||
	t_fail "--resume with another --good: exit $rc"
: >"$W/builds"
: >"$W/gates"
BUILDS=$W/builds GATES=$W/gates "$FSBENCH" bisect --resume "$W/run-res" --build "$BUILD" --build-timeout 2s \
	--gate-cmd "$W/gate.sh" >"$W/out" 2>"$W/err"
rc=$?
sed 's/^/    /' "$W/out"
rest=$(jq -r --argjson b "$before" '[.steps[$b:][].commit] | join(" ")' "$W/run-res/bisect.json")
if [ "$rc" = 0 ] && grep -q "^first bad: $c6 (files/s@ext4 -4.20%)$" "$W/out" &&
	[ "$(grep -c 'recorded, not gated again$' "$W/out")" = "$before" ] &&
	[ "$(tr '\n' ' ' <"$W/builds")" = "$rest " ] &&
	[ "$(wc -l <"$W/gates")" -le "$(echo "$rest" | wc -w)" ] &&
	[ "$(git -C "$T" symbolic-ref --short HEAD)" = main ] && ! git -C "$T" bisect log >/dev/null 2>&1; then
	t_ok "--resume: $(tail -1 "$W/out"); only $(wc -l <"$W/builds") commit(s) built again, the tree back on main"
else
	t_fail "--resume: exit $rc, built '$(tr '\n' ' ' <"$W/builds")' (want '$rest ')"
	sed 's/^/    /' "$W/err"
fi

# refusals: not a git tree; a bisect in progress (left as it is)
mkdir "$W/plain"
"$FSBENCH" bisect --git "$W/plain" --good a --bad b --build true --gate-cmd "$W/gate.sh" \
	--workdir "$W/run4" >"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 2 ] && [ ! -e "$W/run4" ] && t_ok "not a git tree: exit 2: $(cat "$W/err")" || t_fail "not a git tree: exit $rc"
"$FSBENCH" bisect --git "$T" --good nosuch --bad main --build true --gate-cmd "$W/gate.sh" \
	--workdir "$W/run6" >"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 2 ] && [ ! -e "$W/run6" ] && t_ok "not a commit: exit 2: $(cat "$W/err")" || t_fail "not a commit: exit $rc"
git -C "$T" bisect start -q main "$c1" >/dev/null 2>&1 || git -C "$T" bisect start main "$c1" >/dev/null
before=$(git -C "$T" bisect log | md5sum)
"$FSBENCH" bisect --git "$T" --good "$c1" --bad main --build "$BUILD" --gate-cmd "$W/gate.sh" \
	--workdir "$W/run5" >"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 2 ] && [ "$(git -C "$T" bisect log | md5sum)" = "$before" ] &&
	t_ok "a bisect in progress: exit 2, left as found: $(cat "$W/err")" || t_fail "bisect in progress: exit $rc"
git -C "$T" bisect reset -q >/dev/null 2>&1
t_done
