#!/bin/bash
# fsbench compare --gate end to end: real runs, a doctored 30 % regression (exit 1), a -50 %
# that cannot be proven (cannot judge, 125; never 'unchanged' or a pass), unusable input (exit 2).
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
SCHEMA=$SRCDIR/report/schema/fsbench-compare-1.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json

for side in a b; do
	for r in 1 2 3; do
		"$FSBENCH" smallfile -s 4k -n 200 -t 1 --quiet --json "$S/$side$r.json" >/dev/null ||
			t_die "fsbench smallfile run $side$r failed"
	done
done

# two real samples: noise may or may not look like a change, but the input is usable (on a
# shared machine the sides' load may differ enough that a would-be regression cannot be judged)
"$FSBENCH" compare --gate --json "$S/real.json" "$S"/a?.json --candidate "$S"/b?.json >"$S/real.txt" 2>"$S/real.err"
rc=$?
# (125): a would-be regression on unequal load, or a headline change beyond the threshold
# that 3 runs a side on this VM cannot prove (each said as such)
{ [ $rc = 0 ] || [ $rc = 1 ] || { [ $rc = 125 ] && grep -Eq "gate: cannot judge: (a gated metric would have regressed|[0-9]+ headline change)" "$S/real.err"; }; } &&
	t_ok "real runs gated with exit $rc" || t_fail "real runs: exit $rc: $(cat "$S/real.err")"
grep -q '^files_per_sec (files/s, higher is better)' "$S/real.txt" && t_ok "text table has files/s" ||
	t_fail "no files/s table in: $(head -5 "$S/real.txt")"
"$VALIDATE" "$SCHEMA" "$S/real.json" && t_ok "compare JSON valid against its schema" || t_fail "compare JSON invalid"
t_expect_eq "compare schema key" "fsbench-compare/1" "$(t_json "$S/real.json" .schema)"
t_expect_eq "samples (dir differs, still one sample)" 1 "$(t_json "$S/real.json" '.samples | length')"

# Doctored pair from one real run: the VM's run-to-run noise (CoV up to 50 % here) would
# make any real 30 % drop unprovable with 3 runs, so the spread is fixed at +-1 % and the
# candidate is the same files scaled down by 30 %.
i=0
for j in 0.99 1.00 1.01; do
	i=$((i + 1))
	jq ".runs[0].summary.files_per_sec *= $j" "$S/a1.json" >"$S/base$i.json"
	jq ".runs[0].summary.files_per_sec *= 0.7" "$S/base$i.json" >"$S/slow$i.json"
done
"$FSBENCH" compare --gate --format markdown --json "$S/doc.json" "$S"/base?.json --candidate "$S"/slow?.json >"$S/doc.md" 2>"$S/doc.err"
t_expect_eq "doctored -30 % candidate: exit" 1 $?
t_expect_eq "files_per_sec verdict" regression \
	"$(t_json "$S/doc.json" '.samples[0].metrics[] | select(.name == "files_per_sec") | .comparisons[0].verdict')"
t_expect_eq "regressed" true "$(t_json "$S/doc.json" .regressed)"
grep -q '\*\*regression\*\*' "$S/doc.md" && t_ok "markdown marks the regression" || t_fail "markdown: $(head -8 "$S/doc.md")"
grep -q 'gate: 1 regression' "$S/doc.err" && t_ok "stderr says why the gate failed" || t_fail "stderr: $(cat "$S/doc.err")"
"$VALIDATE" "$SCHEMA" "$S/doc.json" && t_ok "doctored compare JSON valid" || t_fail "doctored compare JSON invalid"

# The halving of issue 41 (spread +-12 %, files/s -50 %, p about 0.008) is proven now: the
# seeds' metrics (files/s, fsync p50 and p99, write amplification here) are a family of
# their own, corrected apart from the 17 others, so its q is 0.03 and the gate fails.
i=0
for j in 0.88 1.00 1.12; do
	i=$((i + 1))
	jq ".runs[0].summary.files_per_sec *= $j" "$S/a1.json" >"$S/wide12-$i.json"
	jq ".runs[0].summary.files_per_sec *= 0.5" "$S/wide12-$i.json" >"$S/half12-$i.json"
done
"$FSBENCH" compare --gate --json "$S/half12.json" "$S"/wide12-?.json --candidate "$S"/half12-?.json >/dev/null 2>&1
t_expect_eq "-50 % within +-12 %: exit (regressed)" 1 $?
t_expect_eq "-50 % within +-12 %: the seeds' family and the others'" "regression 4 17" \
	"$(t_json "$S/half12.json" '"\(.samples[0].metrics[] | select(.name == "files_per_sec") | .comparisons[0].verdict) \(.settings.family) \(.settings.family_other)"')"

# A change that cannot be proven: spread +-25 %, files/s -55 %, p about 0.045, q 0.18 over
# the seeds' 4 metrics. Never "unchanged", never a pass: the gate cannot judge (125) and
# says q, the family and the runs that would decide it; the page is not green and lists it
# on its first screen; --allow-unproven passes with a warning.
i=0
for j in 0.75 1.00 1.25; do
	i=$((i + 1))
	jq ".runs[0].summary.files_per_sec *= $j" "$S/a1.json" >"$S/wide$i.json"
	jq ".runs[0].summary.files_per_sec *= 0.45" "$S/wide$i.json" >"$S/half$i.json"
done
"$FSBENCH" compare --gate --json "$S/half.json" "$S"/wide?.json --candidate "$S"/half?.json >"$S/half.txt" 2>"$S/half.err"
t_expect_eq "unproven -55 %: exit (cannot judge)" 125 $?
t_expect_eq "unproven -55 %: verdict" not_proven \
	"$(t_json "$S/half.json" '.samples[0].metrics[] | select(.name == "files_per_sec") | .comparisons[0].verdict')"
grep -q "unchanged" <(grep -E '^ *smallfile' "$S/half.txt" | grep -- '-55.0%') &&
	t_fail "text calls -55 % unchanged: $(grep -- '-55.0%' "$S/half.txt")" || t_ok "text does not call -55 % unchanged"
grep -Eq "gate: cannot judge: sample 'smallfile t=1': files_per_sec -55.0% is beyond the 5% threshold but not proven: p [0-9.e-]+, q [0-9.e-]+ over [0-9]+ metrics, spread [0-9.]+%; about [0-9]+ runs a side" "$S/half.err" &&
	t_ok "stderr names the change, p, q, the family and the runs needed" || t_fail "stderr: $(cat "$S/half.err")"
"$VALIDATE" "$SCHEMA" "$S/half.json" && t_ok "unproven compare JSON valid" || t_fail "unproven compare JSON invalid"
"$FSBENCH" compare --gate --allow-unproven "$S"/wide?.json --candidate "$S"/half?.json >/dev/null 2>"$S/half2.err"
t_expect_eq "unproven -55 %, --allow-unproven: exit" 0 $?
grep -q "^fsbench compare: warning: sample 'smallfile t=1': files_per_sec -55.0% is beyond" "$S/half2.err" &&
	t_ok "--allow-unproven still warns" || t_fail "stderr: $(cat "$S/half2.err")"
"$FSBENCH" report --no-plots -o "$S/half.html" "$S"/wide?.json --candidate "$S"/half?.json 2>/dev/null ||
	t_fail "report of the unproven pair failed"
grep -q 'class="verdict improvement"' "$S/half.html" && t_fail "the page is green over an unproven -55 %" ||
	t_ok "the page is not green"
grep -Eq '<h1 id="verdict" class="verdict noisy">Cannot judge: no proven regression, but 1 headline change of up to -55.0 % could not be told from noise' "$S/half.html" &&
	t_ok "the page's headline says what could not be proven" || t_fail "page: $(grep -m1 'id="verdict"' "$S/half.html")"
grep -q 'says of these inputs: exit 125' "$S/half.html" && t_ok "the page states compare --gate's exit 125" ||
	t_fail "page: $(grep -o 'says of these inputs: exit [0-9]*' "$S/half.html")"
# the page takes compare's judge: --allow-unproven (and --threshold, --gate-file) as compare does
"$FSBENCH" report --no-plots --allow-unproven -o "$S/half2.html" "$S"/wide?.json --candidate "$S"/half?.json 2>/dev/null ||
	t_fail "report --allow-unproven failed"
grep -Eq '<h1 id="verdict" class="verdict noisy">No proven regression; 1 change of up to -55.0 % could not be told from noise' "$S/half2.html" &&
	t_ok "report --allow-unproven: not green, and says what could not be told" ||
	t_fail "page: $(grep -m1 'id="verdict"' "$S/half2.html")"
grep -q 'says of these inputs: exit 0' "$S/half2.html" && t_ok "report --allow-unproven: the page states exit 0, as compare" ||
	t_fail "page: $(grep -o 'says of these inputs: exit [0-9]*' "$S/half2.html")"
"$FSBENCH" report --no-plots --threshold 60 -o "$S/half3.html" "$S"/wide?.json --candidate "$S"/half?.json 2>/dev/null
grep -q 'class="verdict improvement">Good' "$S/half3.html" && t_ok "report --threshold 60: within it, the page judges as compare would" ||
	t_fail "page: $(grep -m1 'id="verdict"' "$S/half3.html")"

# a kernel gate's own document renders as the gate judged it (its comparison), and one that
# stopped before judging is refused saying so
jq '{schema: "fsbench-kernel-gate/1", verdict: "regressed", compare: .}' "$S/doc.json" >"$S/kgate.json"
"$FSBENCH" report --no-plots -o "$S/kgate.html" "$S/kgate.json" 2>"$S/kg.err" || t_fail "report of kernel-gate.json: $(cat "$S/kg.err")"
grep -q 'class="verdict regression">Regressed: 1 gated metric got worse' "$S/kgate.html" &&
	t_ok "report of a kernel gate's document: its regression" || t_fail "page: $(grep -m1 'id="verdict"' "$S/kgate.html")"
echo '{"schema": "fsbench-kernel-gate/1", "verdict": "cannot judge"}' >"$S/kgate-none.json"
"$FSBENCH" report --no-plots -o "$S/kgate-none.html" "$S/kgate-none.json" 2>"$S/kg.err"
t_expect_eq "report of a gate that judged nothing: exit" 2 $?
grep -q "a kernel gate's document without a comparison" "$S/kg.err" && t_ok "and says why" || t_fail "stderr: $(cat "$S/kg.err")"

# the same files against themselves pass; a gate file can take files/s out of the gate
"$FSBENCH" compare --gate "$S"/base?.json --candidate "$S"/base?.json >/dev/null 2>&1
t_expect_eq "A/A on identical files: exit" 0 $?
echo '{"metrics": {"files_per_sec": {"gate": false}}}' >"$S/gate.json"
"$FSBENCH" compare --gate-file "$S/gate.json" "$S"/base?.json --candidate "$S"/slow?.json >/dev/null 2>&1
t_expect_eq "regression outside the gate file's gate: exit" 0 $?
echo '{"metrics": {"files_per_sec": {"treshold_pct": 3}}}' >"$S/badgate.json"
"$FSBENCH" compare --gate-file "$S/badgate.json" "$S"/base?.json --candidate "$S"/slow?.json >/dev/null 2>"$S/err"
t_expect_eq "misspelt gate file key: exit" 2 $?
grep -q "badgate.json.*treshold_pct" "$S/err" && t_ok "gate file error names file and key" || t_fail "$(cat "$S/err")"

# One run a side: a plain gate cannot judge, warns and passes; --strict cannot judge (exit 125)
# and says which sample has too few runs and how many it needs.
"$FSBENCH" compare --gate "$S/a1.json" --candidate "$S/b1.json" >/dev/null 2>"$S/err"
t_expect_eq "one run a side, --gate: exit" 0 $?
grep -q "metric(s) had fewer than 3 samples a side and were not judged (--strict" "$S/err" &&
	t_ok "plain gate warns about the unjudged metrics" || t_fail "stderr: $(cat "$S/err")"
"$FSBENCH" compare --strict --json "$S/strict.json" "$S/a1.json" --candidate "$S/b1.json" >/dev/null 2>"$S/err"
t_expect_eq "one run a side, --strict: exit" 125 $?
grep -q "gate --strict: sample 'smallfile t=1': complete runs baseline 1, candidate 1; 3 a side are needed" "$S/err" &&
	t_ok "--strict names the sample, its runs and the 3 needed" || t_fail "stderr: $(cat "$S/err")"
"$VALIDATE" "$SCHEMA" "$S/strict.json" && t_ok "strict compare JSON valid" || t_fail "strict compare JSON invalid"
t_expect_eq "settings.strict" true "$(t_json "$S/strict.json" .settings.strict)"
# every gated metric: the host-wide dirty and writeback maxima are compared but not gated
t_expect_eq "unjudged = every gated metric" "$(t_json "$S/strict.json" '[.samples[].metrics[] | select(.comparisons[0].gate)] | length')" \
	"$(t_json "$S/strict.json" .unjudged)"
echo '{"strict": true}' >"$S/strictgate.json"
"$FSBENCH" compare --gate-file "$S/strictgate.json" "$S/a1.json" --candidate "$S/b1.json" >/dev/null 2>&1
t_expect_eq "gate file strict, one run a side: exit" 125 $?
# three a side are enough: the doctored regression is still exit 1 under --strict
"$FSBENCH" compare --strict "$S"/base?.json --candidate "$S"/slow?.json >/dev/null 2>&1
t_expect_eq "--strict, doctored regression: exit" 1 $?

# The same regression on a host that others took 40 points more of on the candidate's side:
# not a regression, cannot judge (exit 2), also without --strict, saying by how much.
hl() { jq ".runs[0].host_load |= (del(.self_wait_pct) | .others_pct = $2 | .steal_pct = 0)" "$1"; }
for i in 1 2 3; do
	hl "$S/base$i.json" 5 >"$S/hb$i.json"
	hl "$S/slow$i.json" 45 >"$S/hs$i.json"
done
"$FSBENCH" compare --gate --json "$S/hl.json" "$S"/hb?.json --candidate "$S"/hs?.json >/dev/null 2>"$S/err"
t_expect_eq "regression on unequal load: exit" 125 $?
grep -q "host load differs: others used 5 % of the CPU time on side 'baseline', 45 % on side 'candidate'" "$S/err" &&
	t_ok "stderr says how much the load differed" || t_fail "stderr: $(cat "$S/err")"
grep -q "gate: cannot judge: a gated metric would have regressed" "$S/err" &&
	t_ok "stderr says the gate cannot judge" || t_fail "stderr: $(cat "$S/err")"
t_expect_eq "unequal load: verdict, and what it would have been" "insufficient regression" \
	"$(t_json "$S/hl.json" '.samples[0].metrics[] | select(.name == "files_per_sec") | .comparisons[0] | "\(.verdict) \(.conditions.verdict_if_judged)"')"
"$VALIDATE" "$SCHEMA" "$S/hl.json" && t_ok "unequal-load compare JSON valid" || t_fail "unequal-load compare JSON invalid"
# the saved comparison read back (as report, export and kernel-gate read it): its conditions
# still make the gate cannot judge, and the report's heading says why
"$FSBENCH" report --no-plots -o "$S/hl.html" "$S/hl.json" 2>"$S/err" || t_fail "report of hl.json: $(cat "$S/err")"
grep -q '<h1 id="verdict" class="verdict noisy">Cannot judge: host load differs: others used 5 % of the CPU time' "$S/hl.html" &&
	t_ok "the saved comparison's report cannot judge, saying why" ||
	t_fail "report heading: $(grep '<h1 id="verdict"' "$S/hl.html")"
t_expect_eq "the unequal-load comparison is out of the corrected family (no q)" "null" \
	"$(t_json "$S/hl.json" '.samples[0].metrics[] | select(.name == "files_per_sec") | .comparisons[0].q')"
# busy alike on both sides: judged, with a warning, unless --max-host-load refuses it
for i in 1 2 3; do
	hl "$S/base$i.json" 70 >"$S/hb$i.json"
	hl "$S/slow$i.json" 72 >"$S/hs$i.json"
done
"$FSBENCH" compare --gate "$S"/hb?.json --candidate "$S"/hs?.json >/dev/null 2>"$S/err"
t_expect_eq "regression on a host busy alike: exit" 1 $?
grep -q "judged on a busy host" "$S/err" && t_ok "a busy host is warned about" || t_fail "stderr: $(cat "$S/err")"
"$FSBENCH" compare --gate --max-host-load 50 "$S"/hb?.json --candidate "$S"/hs?.json >/dev/null 2>"$S/err"
t_expect_eq "--max-host-load 50 on a host busy at 72 %: exit" 125 $?
grep -q "host busy on side 'candidate': others used 72 %" "$S/err" &&
	t_ok "--max-host-load names the busy side" || t_fail "stderr: $(cat "$S/err")"

# noisy (spread +-40 %, means within 2 %): warned without --strict, cannot judge (125) with it unless --allow-noisy
i=0
for j in "0.6 0.62" "1.0 1.01" "1.4 1.42"; do
	i=$((i + 1))
	read -r fa fb <<<"$j"
	jq ".runs[0].summary.files_per_sec *= $fa" "$S/a1.json" >"$S/na$i.json"
	jq ".runs[0].summary.files_per_sec *= $fb" "$S/a1.json" >"$S/nb$i.json"
done
"$FSBENCH" compare --gate "$S"/na?.json --candidate "$S"/nb?.json >/dev/null 2>"$S/err"
t_expect_eq "noisy, --gate: exit" 0 $?
grep -q "1 metric(s) were noisy" "$S/err" && t_ok "plain gate warns about the noisy metric" || t_fail "stderr: $(cat "$S/err")"
"$FSBENCH" compare --strict "$S"/na?.json --candidate "$S"/nb?.json >/dev/null 2>"$S/err"
t_expect_eq "noisy, --strict: exit" 125 $?
grep -q "sample 'smallfile t=1': noisy, .*files_per_sec (CoV baseline 40.0%, candidate" "$S/err" &&
	t_ok "--strict names the noisy metric and its CoV" || t_fail "stderr: $(cat "$S/err")"
"$FSBENCH" compare --strict --allow-noisy "$S"/na?.json --candidate "$S"/nb?.json >/dev/null 2>"$S/err"
t_expect_eq "noisy, --strict --allow-noisy: exit" 0 $?
"$FSBENCH" compare --allow-noisy "$S"/na?.json --candidate "$S"/nb?.json >/dev/null 2>"$S/err"
t_expect_eq "--allow-noisy without --strict: exit" 2 $?
grep -q "allow-noisy only relaxes a strict gate" "$S/err" && t_ok "--allow-noisy alone is refused, saying why" ||
	t_fail "stderr: $(cat "$S/err")"

# unusable input: a usage error (2) and the file named; runs that cannot be put side by side: cannot judge (125)
printf '{"schema": "fsbench-result/1", "runs": [' >"$S/broken.json"
"$FSBENCH" compare --gate "$S"/a?.json --candidate "$S/broken.json" >/dev/null 2>"$S/err"
t_expect_eq "bad JSON: exit" 2 $?
grep -q "broken.json" "$S/err" && t_ok "bad JSON error names the file" || t_fail "error: $(cat "$S/err")"
echo '{"schema": "something-else/3", "runs": []}' >"$S/other.json"
"$FSBENCH" compare --gate "$S"/a?.json --candidate "$S/other.json" >/dev/null 2>"$S/err"
t_expect_eq "schema mismatch: exit" 2 $?
grep -q "other.json: schema is 'something-else/3'" "$S/err" && t_ok "schema mismatch said plainly" || t_fail "$(cat "$S/err")"
"$FSBENCH" smallfile -s 4k -n 100 -t 1 --quiet --json "$S/other-n.json" >/dev/null || t_die "run failed"
"$FSBENCH" compare --gate "$S"/a?.json --candidate "$S/other-n.json" >/dev/null 2>"$S/err"
t_expect_eq "unmatched runs: exit" 125 $?
grep -q "has no match on side 'candidate'.*files=200 vs 100" "$S/err" && t_ok "unmatched runs: file and reason" ||
	t_fail "$(cat "$S/err")"
# the command line goes through the option table: options anywhere among the files, the
# side flags apply to the files after them, and bad flags are usage errors (exit 2)
"$FSBENCH" compare --format json "$S"/a?.json >/dev/null 2>&1
t_expect_eq "one side only: exit" 2 $?
"$FSBENCH" compare "$S/a1.json" "$S/a2.json" --format json --candidate "$S/b1.json" --alpha 0.1 "$S/b2.json" \
	>"$S/args.json" 2>"$S/err" || t_fail "options among the files: $(cat "$S/err")"
t_expect_eq "files on each side, options anywhere" "2 2 0.1" \
	"$(jq -r '"\(.sides[0].files | length) \(.sides[1].files | length) \(.settings.alpha)"' "$S/args.json")"
"$FSBENCH" compare --bogus "$S/a1.json" "$S/b1.json" >/dev/null 2>"$S/err"
t_expect_eq "unknown option: exit" 2 $?
grep -q -- '--bogus: unknown option' "$S/err" && t_ok "unknown option named" || t_fail "$(cat "$S/err")"
"$FSBENCH" compare --test nope "$S/a1.json" "$S/b1.json" >/dev/null 2>"$S/err"
t_expect_eq "bad --test: exit" 2 $?
"$FSBENCH" compare --threshold -1 "$S/a1.json" "$S/b1.json" >/dev/null 2>"$S/err"
t_expect_eq "--threshold out of range: exit" 2 $?
"$FSBENCH" compare --help | grep -q -- '--allow-unmatched' && t_ok "--help lists the table's options" ||
	t_fail "--help lacks --allow-unmatched"
t_done
