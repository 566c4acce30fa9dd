#!/bin/bash
# JUnit XML for CI test views (compare --junit, export --format junit), read back by a real
# consumer: python3-junitparser (what CI tooling merges and reads JUnit with) and xmllint.
# A doctored -30 % files/s is one failure; an unproven -50 % is skipped with its reason,
# never a pass; a plain export passes every case and carries the values.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
PY=/usr/bin/python3
$PY -c 'import junitparser' 2>/dev/null || t_skip "python3-junitparser is not installed"
command -v xmllint >/dev/null || t_skip "xmllint (libxml2-utils) is not installed"

"$FSBENCH" smallfile -s 4k -n 200 -t 1 --quiet --json "$S/a.json" >/dev/null || t_die "smallfile run failed"
i=0
for j in 0.99 1.00 1.01; do
	i=$((i + 1))
	jq ".runs[0].summary.files_per_sec *= $j" "$S/a.json" >"$S/base$i.json"
	jq ".runs[0].summary.files_per_sec *= 0.7" "$S/base$i.json" >"$S/slow$i.json"
done
i=0
# -55 % within +-25 %: beyond the threshold, not proven among the seeds' metrics (q 0.18)
for j in 0.75 1.00 1.25; do
	i=$((i + 1))
	jq ".runs[0].summary.files_per_sec *= $j" "$S/a.json" >"$S/wide$i.json"
	jq ".runs[0].summary.files_per_sec *= 0.45" "$S/wide$i.json" >"$S/half$i.json"
done

# read FILE: "tests failures skipped" over every suite, then each non-passing case
read_junit() {
	$PY - "$1" <<'PY'
import sys
from junitparser import JUnitXml, Failure, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
t = f = s = 0
cases = []
for suite in xml:
    t += suite.tests; f += suite.failures; s += suite.skipped
    for case in suite:
        for r in case.result:
            kind = "failure" if isinstance(r, Failure) else "skipped" if isinstance(r, Skipped) else "other"
            cases.append(f"{kind} {case.name}: {r.message}")
print(t, f, s)
for c in cases:
    print(c)
PY
}

"$FSBENCH" compare --gate --junit "$S/reg.xml" "$S"/base?.json --candidate "$S"/slow?.json >/dev/null 2>&1
t_expect_eq "compare --gate --junit on a -30 % regression: exit" 1 $?
xmllint --noout "$S/reg.xml" && t_ok "well-formed XML" || t_fail "xmllint refused $S/reg.xml"
out=$(read_junit "$S/reg.xml") || t_fail "junitparser could not read it"
case $(head -1 <<<"$out") in
"0 "*) t_fail "no test cases: $out" ;;
*" 1 "*) t_ok "junitparser: tests failures skipped = $(head -1 <<<"$out")" ;;
*) t_fail "junitparser: $out" ;;
esac
grep -q "^failure files_per_sec: files_per_sec -30.00 % (higher is better)" <<<"$out" &&
	t_ok "the regression is the one failure, with its change" || t_fail "failures: $out"

"$FSBENCH" compare --gate --junit "$S/half.xml" "$S"/wide?.json --candidate "$S"/half?.json >/dev/null 2>&1
t_expect_eq "unproven -55 %: exit" 125 $?
out=$(read_junit "$S/half.xml")
grep -q "^skipped files_per_sec: beyond the threshold but not proven: the gate cannot judge it" <<<"$out" &&
	t_ok "the unproven -55 % is skipped with its reason, not passed" || t_fail "cases: $out"
grep -q "^failure" <<<"$out" && t_fail "a failure where nothing was proven: $out" || t_ok "no failure claimed"

# a plain export: nothing to fail, every case passes and carries its value
"$FSBENCH" export --format junit -o "$S/plain.xml" "$S/a.json" || t_fail "export --format junit failed"
out=$(read_junit "$S/plain.xml")
case $(head -1 <<<"$out") in
*" 0 0") t_ok "plain export: $(head -1 <<<"$out") (tests failures skipped)" ;;
*) t_fail "plain export: $out" ;;
esac
grep -q '<property name="mean" value=' "$S/plain.xml" && t_ok "values in properties" || t_fail "no values"

# the output's place is checked before any work
"$FSBENCH" compare --gate --junit "$S/no/such/dir/x.xml" "$S"/base?.json --candidate "$S"/slow?.json >/dev/null 2>"$S/err"
t_expect_eq "--junit into a missing directory: exit" 2 $?
t_done
