#!/bin/bash
# fsbench export: every format from a real result and from a comparison, checked by schema or line grammar.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
VALIDATE=$SRCDIR/tests/tools/validate-json
FIX=$SRCDIR/tests/fixtures

for r in 1 2 3; do
	"$FSBENCH" smallfile -s 4k -n 100 -t 1 --quiet --json "$S/r$r.json" >/dev/null || t_die "run $r failed"
done
# a comparison with a certain regression: one real run at +-1 % spread against half of it
i=0
for j in 0.99 1.00 1.01; do
	i=$((i + 1))
	jq ".runs[0].summary.files_per_sec *= $j" "$S/r1.json" >"$S/b$i.json"
	jq ".runs[0].summary.files_per_sec *= 0.5" "$S/b$i.json" >"$S/h$i.json"
done
"$FSBENCH" compare --json "$S/cmp.json" "$S"/b?.json --candidate "$S"/h?.json >/dev/null || t_die "compare failed"

for input in result compare; do
	if [ $input = result ]; then in=("$S"/r?.json); else in=("$S/cmp.json"); fi

	"$FSBENCH" export --format kcidb --build-id fsbench:test-build -o "$S/k.json" "${in[@]}" || t_fail "$input: kcidb export"
	"$VALIDATE" "$FIX/kcidb-v5.3.schema.json" "$S/k.json" && t_ok "$input: kcidb valid against KCIDB v5.3" || t_fail "$input: kcidb invalid"
	t_expect_eq "$input: kcidb statuses" DONE "$(jq -r '[.tests[].status] | unique | join(",")' "$S/k.json")"
	t_expect_eq "$input: kcidb files/s has a number and unit" "files/s" \
		"$(jq -r '[.tests[] | select(.path | endswith("files_per_sec") or contains("files_per_sec.")) | .number.unit][0]' "$S/k.json")"

	"$FSBENCH" export --format openmetrics "${in[@]}" >"$S/om.txt" || t_fail "$input: openmetrics export"
	t_expect_eq "$input: openmetrics ends with # EOF" "# EOF" "$(tail -n 1 "$S/om.txt")"
	bad=$(grep -vcE '^(# (TYPE|HELP) [a-zA-Z_:][a-zA-Z0-9_:]* .+|[a-zA-Z_:][a-zA-Z0-9_:]*\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\} [-+0-9.eE]+|# EOF)$' "$S/om.txt")
	t_expect_eq "$input: openmetrics lines that do not parse" 0 "$bad"
	grep -q '^fsbench_files_per_second{.*} [0-9]' "$S/om.txt" && t_ok "$input: openmetrics files/s" || t_fail "$input: no files/s gauge"

	"$FSBENCH" export --format influx "${in[@]}" >"$S/influx.txt" || t_fail "$input: influx export"
	bad=$(grep -vcE '^fsbench(,[^ =,]+=([^ ,\\]|\\.)+)+ mean=[-0-9.e+]+,median=[^ ]+,n=[0-9]+i(,[a-z_]+=[^ ]+)* [0-9]+$' "$S/influx.txt")
	t_expect_eq "$input: influx lines that do not parse" 0 "$bad"

	"$FSBENCH" export --format bencher "${in[@]}" >"$S/bmf.json" || t_fail "$input: bencher export"
	"$VALIDATE" "$FIX/bencher-bmf.schema.json" "$S/bmf.json" && t_ok "$input: bencher BMF valid" || t_fail "$input: BMF invalid"
	t_expect_eq "$input: BMF bounds bracket the value" true \
		"$(jq '[.[][] | .lower_value <= .value and .value <= .upper_value] | all' "$S/bmf.json")"

	"$FSBENCH" export --format github-benchmark --metrics 'files_per_sec' "${in[@]}" >"$S/gh.json" || t_fail "$input: github export"
	"$VALIDATE" "$FIX/github-benchmark.schema.json" "$S/gh.json" && t_ok "$input: github-benchmark valid" || t_fail "$input: invalid"
	t_expect_eq "$input: --metrics keeps only files/s" files/s "$(jq -r '[.[].unit] | unique | join(",")' "$S/gh.json")"

	"$FSBENCH" export --format lava -o "$S/lava.txt" "${in[@]}" || t_fail "$input: lava export"
	bad=$(grep -vcE '^[A-Za-z0-9_-]+ (pass|fail) [-0-9.e+]+ [^ ]+$' "$S/lava.txt")
	t_expect_eq "$input: lava lines that do not parse" 0 "$bad"
done
# the halved candidate fails in LAVA and shows as a regression in OpenMetrics
grep -q '^smallfile_t_1_files_per_sec_candidate fail ' "$S/lava.txt" && t_ok "lava: regression is fail" || t_fail "$(head -3 "$S/lava.txt")"
grep -q '^fsbench_regression{.*side="candidate",metric="files_per_sec"} 1$' "$S/om.txt" && t_ok "openmetrics: regression gauge" ||
	t_fail "no regression gauge"
"$FSBENCH" export --format nonsense "$S/cmp.json" >/dev/null 2>&1
t_expect_eq "unknown format: exit" 2 $?
# options after the files too, and the output file by its long name
"$FSBENCH" export "$S/cmp.json" --output "$S/late.txt" --format lava || t_fail "export with options after the file"
cmp -s "$S/late.txt" <("$FSBENCH" export --format lava "$S/cmp.json") && t_ok "export: options after the file" ||
	t_fail "export --output after the file differs from stdout"
"$FSBENCH" export --format lava --bogus "$S/cmp.json" >/dev/null 2>&1
t_expect_eq "export unknown option: exit" 2 $?
t_done
