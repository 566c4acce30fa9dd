#!/bin/bash
# Issue 41: the page says what `compare --gate` does with the same inputs. Two sides whose
# runs differ only in -s (4096 against 8192 bytes) are refused by compare --gate (exit 125,
# "no match"); the page's verdict says "Cannot judge" with the run without a match and
# "exit 125", never a pass over what matched. With --allow-unmatched neither refuses.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
command -v jq >/dev/null || t_skip "jq is not installed"
FX=$SRCDIR/tests/fixtures/results/probes-ext4.json
for i in 1 2 3; do
	jq ".runs[0].summary.files_per_sec *= (1 + $i / 1000)" "$FX" >"$S/a$i.json" || t_die "jq"
	jq ".runs[0].params.size = 8192 | .runs[0].summary.files_per_sec *= (1 + $i / 1000)" "$FX" >"$S/b$i.json" || t_die "jq"
done
"$FSBENCH" compare --gate "$S"/a?.json --candidate "$S"/b?.json >"$S/cmp.out" 2>&1
t_expect_eq "compare --gate of unmatched runs: exit" 125 "$?"
grep -q "has no match on side 'candidate'" "$S/cmp.out" && t_ok "$(head -1 "$S/cmp.out")" || t_fail "compare: $(cat "$S/cmp.out")"
"$FSBENCH" report --no-plots -o "$S/p.html" --baseline "$S"/a?.json --candidate "$S"/b?.json 2>"$S/err" ||
	t_die "report: $(cat "$S/err")"
h1=$(grep -o '<h1 id="verdict"[^>]*>[^<]*' "$S/p.html")
case $h1 in
*'class="verdict noisy">Cannot judge: 2 runs without a match on another side, which compare --gate refuses (the first: run 0 of '*'smallfile t=1 size=4096'*)
	t_ok "the page's verdict: ${h1#*>}" ;;
*) t_fail "the page's verdict: $h1" ;;
esac
grep -q "<code>fsbench compare --gate</code> says of these inputs: exit 125" "$S/p.html" &&
	t_ok "the page gives compare --gate's exit status, 125" || t_fail "the page's exit status: $(grep -o 'says of these inputs: exit [0-9]*' "$S/p.html")"
! grep -q 'class="verdict improvement"' "$S/p.html" && t_ok "nothing green" || t_fail "a green verdict"
# compare --allow-unmatched drops them; the page follows it (--allow-unmatched there too)
"$FSBENCH" compare --gate --allow-unmatched "$S"/a?.json --candidate "$S"/b?.json >/dev/null 2>&1
rc=$?
"$FSBENCH" report --no-plots --allow-unmatched -o "$S/q.html" --baseline "$S"/a?.json --candidate "$S"/b?.json 2>"$S/err" ||
	t_die "report --allow-unmatched: $(cat "$S/err")"
t_expect_eq "report --allow-unmatched states compare --gate --allow-unmatched's exit" \
	"exit $rc" "$(grep -o 'says of these inputs: exit [0-9]*' "$S/q.html" | grep -o 'exit [0-9]*')"
grep -q "without a match on another side" "$S/q.html" && t_fail "--allow-unmatched: still refused" ||
	t_ok "--allow-unmatched: not refused"
# the page's reasons for what it did not judge are the true ones: 2 runs a side is "fewer
# than 3 runs a side", said per metric count
for i in 1 2; do cp "$S/a$i.json" "$S/c$i.json"; done
"$FSBENCH" report --no-plots -o "$S/r.html" --baseline "$S"/a1.json "$S"/a2.json --candidate "$S"/c?.json 2>"$S/err" ||
	t_die "report of 2 runs a side: $(cat "$S/err")"
n=$(grep -o 'say: [0-9]* metrics\|; [0-9]* metrics* had fewer than 3 runs a side and w[a-z]* not judged' "$S/r.html" | head -1)
[ -n "$n" ] && t_ok "2 runs a side: the page says$n" || t_fail "2 runs a side: $(grep -o 'says of these inputs[^<]*' "$S/r.html")"
grep -q "could not be judged (" "$S/r.html" && t_fail "2 runs a side given another reason" || t_ok "no other reason given"
# latencies of sides that ran different probes (the block probe on one side only) are not
# compared, and no change is computed: the text says "- insufficient", not "from 0"
# (which means a baseline of 0)
for i in 1 2 3; do
	jq '.runs[0].probes.sources.block.status = "skipped: not loaded"' "$S/a$i.json" >"$S/d$i.json" || t_die "jq"
done
"$FSBENCH" compare "$S"/a?.json --candidate "$S"/d?.json >"$S/cmp2.out" 2>&1
row=$(grep -m1 '^smallfile t=1  fsync.p50 ' "$S/cmp2.out")
case $row in
*'- insufficient'*) t_ok "a metric on one side: $row" ;;
*) t_fail "a metric on one side: '$row' in $(head -40 "$S/cmp2.out")" ;;
esac
t_done
