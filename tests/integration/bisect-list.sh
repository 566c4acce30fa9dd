#!/bin/bash
# fsbench bisect across a list of kernels, with canned gate verdicts (bisect-fake-gate.sh) in
# place of kernel-gate: the first, the last and a middle kernel bad, no change at all, a
# kernel that does not boot, two changes in one range, --good already bad, --metric, a gate
# that fails for the system's reason, and usage errors that do nothing.
. "$(dirname "$0")/lib.sh"
W=$T_SCRATCH
GATE=$SRCDIR/tests/integration/bisect-fake-gate.sh
mkdir "$W/k"
# k1..k10: sort -V order puts k10 last, which plain sorting would not
for i in $(seq 1 10); do echo "kernel $i" >"$W/k/k$i"; done
export BISECT_CANNED=$W/canned BISECT_SKIP=$W/skip BISECT_STOP=$W/stop
: >"$W/skip"
: >"$W/stop"
n=0

# canned LEVEL-OF-k1 ... LEVEL-OF-k10: each kernel's level
canned() {
	local i=1
	: >"$BISECT_CANNED"
	for l in "$@"; do echo "k$i $l" >>"$BISECT_CANNED"; i=$((i + 1)); done
}

# bisect WANT-STATUS WANT-LAST-LINE-REGEX [ARGS...]: runs it with --good k1 --bad k10
# unless ARGS say otherwise; the output stays in $W/out and $W/err
bisect() {
	local want=$1 re=$2 rc
	shift 2
	n=$((n + 1))
	"$FSBENCH" bisect --gate-cmd "$GATE" --workdir "$W/run$n" "$@" >"$W/out" 2>"$W/err"
	rc=$?
	if [ "$rc" != "$want" ] || ! tail -1 "$W/out" | grep -Eq -- "$re"; then
		t_fail "bisect $*: exit $rc (want $want), last line '$(tail -1 "$W/out")' (want /$re/)"
		sed 's/^/    /' "$W/out" "$W/err" | tail -20
	else
		t_ok "bisect $*: exit $rc: $(tail -1 "$W/out")"
	fi
}

canned 0 0 0 0 1 1 1 1 1 1
bisect 0 '^first bad: k5 \(files/s@ext4 smallfile t1 -4\.10%\)$' --good k1 --bad k10 "$W/k"
grep -q '^step 1: k10: bad (files/s@ext4 smallfile t1 -4.10%, floor 1.50%)' "$W/out" &&
	t_ok "each step says its metric, change and floor" || t_fail "no step line: $(head -3 "$W/out")"
[ "$(jq -r '.answer' "$W/run$n/bisect.json")" = "$(tail -1 "$W/out")" ] &&
	[ "$(jq '.steps | length' "$W/run$n/bisect.json")" = "$(grep -c '^step ' "$W/out")" ] &&
	[ "$(jq -r '.steps[0] | "\(.verdict) \(.exit) \(.metric) \(.change_pct) \(.floor_pct)"' "$W/run$n/bisect.json")" = "bad 1 files/s -4.1 1.5" ] &&
	t_ok "bisect.json holds every step and the answer" || t_fail "bisect.json: $(cat "$W/run$n/bisect.json")"
sed 's/^/    /' "$W/out"

canned 0 1 1 1 1 1 1 1 1 1
bisect 0 '^first bad: k2 ' --good k1 --bad k10 "$W/k"
canned 0 0 0 0 0 0 0 0 0 1
bisect 0 '^first bad: k10 ' --good k1 --bad k10 "$W/k"/k*

canned 0 0 0 0 0 0 0 0 0 0
bisect 125 '^cannot judge: --bad is not bad against --good$' --good k1 --bad k10 "$W/k"

# --good that is already bad: the bad end is no worse than it
canned 0 0 1 1 1 1 1 1 1 1
bisect 125 '^cannot judge: --bad is not bad against --good$' --good k5 --bad k10 "$W/k"

# two changes in one range: the first
canned 0 0 0 1 1 1 1 2 2 2
bisect 0 '^first bad: k4 ' --good k1 --bad k10 "$W/k"

# a kernel that does not boot is skipped and its neighbours gated
canned 0 0 0 0 0 0 1 1 1 1
echo k5 >"$W/skip"
bisect 0 '^first bad: k7 ' --good k1 --bad k10 "$W/k"
grep -q '^step [0-9]*: k5: skip (exit 125): cannot judge it' "$W/out" && t_ok "the skip is said: $(grep ': k5: ' "$W/out")" ||
	t_fail "no skip line for k5"
# ... and when it may be the first bad one, the answer is "cannot judge" and names it
canned 0 0 0 0 0 1 1 1 1 1
bisect 125 '^cannot judge: the first bad one is k6 or one before it that was skipped \(k5\), after the last good k4$' \
	--good k1 --bad k10 "$W/k"
: >"$W/skip"

# --metric: a step that regressed on another metric only is good
canned 0 0 0 0 0 1:MB/s 1 2 2 2
sed -i 's/:/ /' "$BISECT_CANNED"
sed -i 's/^k7 1$/k7 1 MB\/s/' "$BISECT_CANNED"
bisect 0 '^first bad: k6 \(MB/s' --good k1 --bad k10 "$W/k"
bisect 0 '^first bad: k8 \(files/s' --good k1 --bad k10 --metric files/s "$W/k"
bisect 0 '^first bad: k8 \(files/s' --good k1 --bad k10 --metric 'files/s@ext4 smallfile t1' "$W/k"
# a --metric that no gate knows (a typo) stops at once, as a usage error, rather than skip all
bisect 2 'k10$' --good k1 --bad k10 --metric 'files/s@xfs' "$W/k"
grep -q 'metric files/s@xfs is not in' "$W/err" && t_ok "said: $(grep -m1 'is not in' "$W/err")" ||
	t_fail "the unknown metric was not said: $(cat "$W/err")"

# a gate that failed for the system's reason stops the bisection; no kernel is called bad
canned 0 0 0 0 0 1 1 1 1 1
echo k5 >"$W/stop"
bisect 128 '^step 1: k10: bad' --good k1 --bad k10 "$W/k"
grep -q 'exited 128: stopping' "$W/err" && ! grep -q '^first bad' "$W/out" &&
	t_ok "stopped: $(grep -m1 exited "$W/err")" || t_fail "the stop was not said: $(cat "$W/err")"
: >"$W/stop"

# --resume: a bisection stopped by SIGINT (while a slow gate ran) continues from its
# bisect.json: the steps it recorded are not gated again (the gate counts its runs), and it
# ends with the answer and the steps of a run never stopped
canned 0 0 0 0 0 0 1 1 1 1
echo k5 >"$W/skip"
bisect 0 '^first bad: k7 ' --good k1 --bad k10 "$W/k"
whole=$(jq -r '[.steps[].kernel | split("/")[-1]] | join(" ")' "$W/run$n/bisect.json")
n=$((n + 1))
run=$W/run$n
: >"$W/count"
BISECT_COUNT=$W/count BISECT_SLEEP=1 "$FSBENCH" bisect --gate-cmd "$GATE" --workdir "$run" \
	--good k1 --bad k10 "$W/k" >"$W/out" 2>"$W/err" &
pid=$!
for _ in $(seq 200); do
	[ "$(jq '.steps | length' "$run/bisect.json" 2>/dev/null || echo 0)" -ge 2 ] && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
before=$(jq '.steps | length' "$run/bisect.json")
ran=$(wc -l <"$W/count")
[ "$rc" = 130 ] && [ "$(jq -r .answer "$run/bisect.json")" = "stopped by signal 2" ] &&
	[ "$before" -ge 2 ] && [ "$before" -lt 5 ] && [ "$ran" -le $((before + 1)) ] &&
	t_ok "SIGINT: exit 130 after $before recorded steps ($ran gates started)" ||
	t_fail "SIGINT: exit $rc, $before steps, $ran gates, answer $(jq -r .answer "$run/bisect.json")"
cp "$run/bisect.json" "$W/stopped.json"
# what no longer matches is refused (exit 2), bisect.json left as it was
for args in "--good k2" "--bad k9" "--metric files/s" "--workdir $W/other" \
	"$(echo "$W"/k/k{1,2,3,4,6,7,8,9,10})"; do
	# shellcheck disable=SC2086
	"$FSBENCH" bisect --gate-cmd "$GATE" --resume "$run" $args >"$W/out" 2>"$W/err"
	rc=$?
	if [ "$rc" = 2 ] && cmp -s "$run/bisect.json" "$W/stopped.json" && [ "$(wc -l <"$W/count")" = "$ran" ]; then
		t_ok "--resume with ${args#"$W"/k/}: exit 2: $(head -1 "$W/err")"
	else
		t_fail "--resume with $args: exit $rc, $(head -1 "$W/err")"
	fi
done
"$FSBENCH" bisect --gate-cmd "$GATE" --resume "$W/k" >"$W/out" 2>"$W/err"
[ $? = 2 ] && t_ok "--resume of a directory without bisect.json: exit 2: $(cat "$W/err")" ||
	t_fail "--resume of a directory without bisect.json: $(cat "$W/err")"
# the same command with --resume in place of --workdir
: >"$W/count"
BISECT_COUNT=$W/count "$FSBENCH" bisect --gate-cmd "$GATE" --resume "$run" --good k1 --bad k10 "$W/k" \
	>"$W/out" 2>"$W/err"
rc=$?
sed 's/^/    /' "$W/out"
gated=$(jq -r --argjson b "$before" '[.steps[$b:][].kernel | split("/")[-1]] | join(" ")' "$run/bisect.json")
if [ "$rc" = 0 ] && tail -1 "$W/out" | grep -q '^first bad: k7 (files/s' &&
	[ "$(jq -r '[.steps[].kernel | split("/")[-1]] | join(" ")' "$run/bisect.json")" = "$whole" ] &&
	[ "$(tr '\n' ' ' <"$W/count")" = "$gated " ] &&
	[ "$(grep -c 'recorded, not gated again$' "$W/out")" = "$before" ] &&
	[ "$(jq -r .answer "$run/bisect.json")" = "$(tail -1 "$W/out")" ] && [ "$(jq .resumed "$run/bisect.json")" = 1 ]; then
	t_ok "--resume: exit 0, the steps of a whole run ($whole), only $gated gated again"
else
	t_fail "--resume: exit $rc, steps $(jq -r '[.steps[].kernel | split("/")[-1]] | join(" ")' "$run/bisect.json") (want $whole), gated $(tr '\n' ' ' <"$W/count") (want $gated)"
	sed 's/^/    /' "$W/err"
fi
ls -d "$run"/step-*.stopped-1 >/dev/null 2>&1 && t_ok "the step that was running is moved aside: $(cd "$run" && ls -d step-*.stopped-1)" ||
	t_fail "no step-N.stopped-1 in $run: $(ls "$run")"
# a finished bisection, resumed with nothing else said (all from bisect.json): the answer again
: >"$W/count"
BISECT_COUNT=$W/count "$FSBENCH" bisect --gate-cmd "$GATE" --resume "$run" >"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 0 ] && tail -1 "$W/out" | grep -q '^first bad: k7 ' && [ ! -s "$W/count" ] &&
	t_ok "--resume of a finished one: exit 0, no gate: $(tail -1 "$W/out")" ||
	t_fail "--resume of a finished one: exit $rc, $(wc -l <"$W/count") gates, $(tail -1 "$W/out") $(cat "$W/err")"
: >"$W/skip"

# a --workdir that holds anything is refused, and left as it was
mkdir "$W/full" && echo mine >"$W/full/file"
"$FSBENCH" bisect --gate-cmd "$GATE" --workdir "$W/full" --good k1 --bad k10 "$W/k" >"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 2 ] && [ "$(ls "$W/full")" = file ] && t_ok "a full --workdir: exit 2: $(cat "$W/err")" ||
	t_fail "a full --workdir: exit $rc, $(ls "$W/full")"

# usage errors: exit 2, nothing done (no work directory made)
for args in "--good k99 --bad k10 $W/k" "--good k10 --bad k1 $W/k" "--bad k10 $W/k" \
	"--good k1 --bad k10 $W/nothing" "--good k1 --bad k10 --metric @x $W/k"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$FSBENCH" bisect --gate-cmd "$GATE" --workdir "$W/run$n" $args >"$W/out" 2>"$W/err"
	rc=$?
	if [ "$rc" = 2 ] && [ ! -e "$W/run$n" ] && [ -s "$W/err" ]; then
		t_ok "usage, exit 2, nothing made: $(head -1 "$W/err")"
	else
		t_fail "$args: exit $rc, $(ls "$W/run$n" 2>&1 | head -1)"
	fi
done
t_done
