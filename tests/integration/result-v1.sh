#!/bin/bash
# Version 1 results (written by fsbench before schema 2, kept in tests/fixtures/results) still
# feed compare, report and export, with the same values they held.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
V1=$SRCDIR/tests/fixtures/results/v1-smallfile.json

t_expect_eq "the fixture is version 1" '"fsbench-result/1"' "$(jq .schema "$V1")"
"$FSBENCH" compare --format json --baseline "$V1" --candidate "$V1" >"$S/cmp.json" 2>"$S/err" ||
	t_die "compare of a version 1 result failed: $(cat "$S/err")"
want=$(jq '.runs[0].ops.fsync.percentiles["p99.9"] / 1000' "$V1")
t_expect_eq "compare: fsync.p99.9 of the version 1 file, in us" "$want" \
	"$(jq '.samples[0].metrics[] | select(.name == "fsync.p99.9") | .sides[0].mean' "$S/cmp.json")"
t_expect_eq "compare: files/s of the version 1 file" "$(jq .runs[0].summary.files_per_sec "$V1")" \
	"$(jq '.samples[0].metrics[] | select(.name == "files_per_sec") | .sides[0].mean' "$S/cmp.json")"

"$FSBENCH" export --format influx "$V1" >"$S/influx" 2>"$S/err" || t_die "export of a version 1 result failed: $(cat "$S/err")"
grep -q 'fsync' "$S/influx" && t_ok "export: a version 1 result's fsync latency is exported" ||
	t_fail "export: no fsync in $(head -3 "$S/influx")"

"$FSBENCH" report --no-plots -o "$S/v1.html" "$V1" 2>"$S/err" || t_die "report of a version 1 result failed: $(cat "$S/err")"
grep -q '<td>smallfile</td>' "$S/v1.html" && t_ok "report: a version 1 result has its table" || t_fail "report: no table"

# something that is neither version is refused, naming both
jq '.schema = "fsbench-result/9"' "$V1" >"$S/v9.json"
"$FSBENCH" compare "$S/v9.json" "$V1" 2>"$S/err"
t_expect_eq "an unknown version: exit" 2 $?
grep -q "fsbench-result/2' or 'fsbench-result/1'" "$S/err" && t_ok "the error names both versions read" ||
	t_fail "error: $(cat "$S/err")"
t_done
