#!/bin/bash
# fsbench export fed to its real consumers: promtool and prometheus_client's OpenMetrics parser,
# an InfluxDB 1.x server of our own (private port and data directory), KCIDB's v5.3 schema, and
# LAVA's lava-test-case script with the dispatcher's signal handling. ci/setup installs them.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
TOOLS=$SRCDIR/tests/tools
mkdir -p "$S/d"
for t in promtool influxd curl; do
	command -v $t >/dev/null || t_die "$t is not installed (ci/setup installs prometheus, influxdb and curl)"
done

for r in 1 2 3; do
	"$FSBENCH" smallfile -d "$S/d" -s 4k -n 100 -t 1 --quiet --json "$S/r$r.json" >/dev/null || t_die "run $r failed"
	# a host name with every character a format has to escape: blank , = " \ and a newline
	jq '.host.hostname = "lab 1,rack=2 \"b\"\\x\nend\\"' "$S/r$r.json" >"$S/o$r.json"
done
# baseline: one real run at +-1 % spread; candidate: another kernel at half its files/s
t_regressed "$S/r1.json" '.host.kernel = "9.9.9-candidate"'
sets="result odd compare"
inputs() {
	case $1 in
	result) echo "$S"/r?.json ;;
	odd) echo "$S"/o?.json ;;
	compare) echo "$S/cmp.json" ;;
	esac
}
LABELS="fs workload threads mount_options knob_set device_model kernel host"

for set in $sets; do
	# shellcheck disable=SC2046
	"$FSBENCH" export --format openmetrics $(inputs $set) >"$S/$set.om" || t_fail "$set: openmetrics export"
	# promtool check metrics and node_exporter's textfile collector read text format 0.0.4
	# (no stateset): --format prometheus is theirs
	# shellcheck disable=SC2046
	"$FSBENCH" export --format prometheus $(inputs $set) >"$S/$set.prom" || t_fail "$set: prometheus export"
	promtool check metrics <"$S/$set.prom" >"$S/promtool.out" 2>&1 && t_ok "$set: promtool check metrics (prometheus)" ||
		t_fail "$set: promtool: $(head -5 "$S/promtool.out")"
	"$TOOLS/om-check" "$S/$set.om" $LABELS >"$S/om.out" && t_ok "$set: prometheus_client parses it, summaries complete, labels, units and states there" ||
		t_fail "$set: $(grep -v ' [0-9]* [-a-z_]*$' "$S/om.out" | head -5)"
	grep -q '^fsbench_latency_seconds summary [0-9]* seconds$' "$S/om.out" && t_ok "$set: latency parsed as a summary in seconds" || t_fail "$set: $(cat "$S/om.out")"
	t_expect_eq "$set: a # UNIT line per family whose name ends in a unit" \
		"$(grep '^# TYPE ' "$S/$set.om" | grep -cE '_(seconds|bytes|bytes_per_second|files_per_second|ratio) ')" \
		"$(grep -c '^# UNIT ' "$S/$set.om")"

	# shellcheck disable=SC2046
	"$FSBENCH" export --format kcidb $(inputs $set) >"$S/$set.kcidb" || t_fail "$set: kcidb export"
	"$TOOLS/validate-json" "$SRCDIR/tests/fixtures/kcidb-v5.3.schema.json" "$S/$set.kcidb" && t_ok "$set: KCIDB v5.3 schema" ||
		t_fail "$set: kcidb invalid"

	# shellcheck disable=SC2046
	"$FSBENCH" export --format lava $(inputs $set) >"$S/$set.lava" || t_fail "$set: lava export"
	"$TOOLS/lava-check" "$S/$set.lava" >"$S/lava.out" && t_ok "$set: lava-test-case and the dispatcher accept every line" ||
		t_fail "$set: $(grep '^line' "$S/lava.out" | head -3)"
	t_expect_eq "$set: lava cases read back" "$(wc -l <"$S/$set.lava")" "$(wc -l <"$S/lava.out")"
done
grep -q ' fail ' "$S/lava.out" && t_ok "lava: the regression reached the dispatcher as fail" || t_fail "lava: no fail case"
t_expect_eq "openmetrics: the odd host name read back" 'lab 1,rack=2 "b"\x
end\' "$(/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as p
print(next(iter(p(open(sys.argv[1]).read()))).samples[0].labels["host"])' "$S/odd.om")"

# not judged in OpenMetrics: two runs a side are too few to judge; the parsers read a state
# for every compared metric and no 0 that would read as "no regression"
"$FSBENCH" compare --json "$S/cmp22.json" "$S/r1.json" "$S/r2.json" --candidate "$S/r3.json" "$S/o1.json" >/dev/null 2>&1
"$FSBENCH" export --format openmetrics "$S/cmp22.json" >"$S/cmp22.om" || t_fail "openmetrics export of an insufficient comparison"
"$FSBENCH" export --format prometheus "$S/cmp22.json" | promtool check metrics >"$S/promtool.out" 2>&1 &&
	t_ok "insufficient: promtool check metrics (prometheus)" || t_fail "insufficient: promtool: $(head -5 "$S/promtool.out")"
t_expect_eq "insufficient: prometheus_client reads the stateset's state per compared metric, no regression sample" \
	"stateset $(jq '[.samples[].metrics[].comparisons[]] | length' "$S/cmp22.json") 0 0" \
	"$(/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as p
fams = {f.name: f for f in p(open(sys.argv[1]).read())}
v = fams["fsbench_verdict"]
on = [s for s in v.samples if s.labels["fsbench_verdict"] == "insufficient" and s.value == 1]
other = [s for s in v.samples if s.labels["fsbench_verdict"] != "insufficient" and s.value != 0]
r = fams["fsbench_regression"].samples if "fsbench_regression" in fams else []
print(v.type, len(on), len(other), len(r))' "$S/cmp22.om")"
"$TOOLS/om-check" "$S/cmp22.om" $LABELS >"$S/om.out" && t_ok "insufficient: every stateset has each state once, one set" ||
	t_fail "insufficient: $(grep -v ' [0-9]* [-a-z_]*$' "$S/om.out" | head -5)"

# Prometheus backfill needs a timestamp on every sample (--timestamps); the default has none,
# which node_exporter's textfile collector requires
"$FSBENCH" export --format openmetrics --timestamps "$S/r1.json" "$S/r2.json" >"$S/ts.om" || t_fail "openmetrics --timestamps export"
t_expect_eq "--timestamps stamps every sample line" \
	"$(grep -vc '^#' "$S/ts.om")" "$(grep -v '^#' "$S/ts.om" | grep -c '} [^ ]* [0-9][0-9]*$')"
ts=$(grep -v '^#' "$S/ts.om" | head -1 | awk '{print $NF}')
if promtool tsdb create-blocks-from openmetrics "$S/ts.om" "$S/tsdb" >"$S/backfill.out" 2>&1; then
	# the block's MIN TIME (ms) is the runs' start time
	t_expect_eq "promtool backfill: a block at the runs' start" \
		"$(awk '$1 ~ /^[0-9A-Z]{26}$/ {print $2}' "$S/backfill.out" | head -1)" "$((ts * 1000))"
else
	t_fail "promtool backfill: $(tail -3 "$S/backfill.out")"
fi
# Prometheus' own OpenMetrics parser takes the # UNIT lines (it refuses one that is not the
# name's suffix) and the verdict's stateset
"$FSBENCH" export --format openmetrics --timestamps "$S/cmp.json" >"$S/ts-cmp.om" || t_fail "openmetrics --timestamps export of a comparison"
grep -q '^# TYPE fsbench_verdict stateset$' "$S/ts-cmp.om" || t_fail "comparison: fsbench_verdict is no stateset"
promtool tsdb create-blocks-from openmetrics "$S/ts-cmp.om" "$S/tsdb3" >"$S/backfill3.out" 2>&1 &&
	t_ok "promtool backfill of a comparison: units and the stateset accepted" ||
	t_fail "promtool backfill of a comparison: $(tail -3 "$S/backfill3.out")"
if promtool tsdb create-blocks-from openmetrics "$S/compare.om" "$S/tsdb2" >"$S/backfill2.out" 2>&1; then
	t_fail "promtool backfill took an export without timestamps: the default should have none"
else
	grep -q "expected timestamp" "$S/backfill2.out" && t_ok "the default export has no timestamps" ||
		t_fail "backfill of the default export: $(tail -2 "$S/backfill2.out")"
fi

# InfluxDB 1.x: our own server on free ports with its data in the scratch directory
read -r P_RPC P_HTTP < <(t_free_ports 2)
cat >"$S/influxdb.conf" <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$P_RPC"
[meta]
  dir = "$S/influx/meta"
[data]
  dir = "$S/influx/data"
  wal-dir = "$S/influx/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:$P_HTTP"
  log-enabled = false
[continuous_queries]
  enabled = false
EOF
t_daemon "$S/influxd.log" influxd run -config "$S/influxdb.conf"
URL=http://127.0.0.1:$P_HTTP
for _ in $(seq 100); do curl -sf "$URL/ping" && break; sleep 0.1; done
curl -sf "$URL/ping" || t_die "influxd did not start: $(tail -3 "$S/influxd.log")"
q() { curl -s -G "$URL/query" --data-urlencode "db=fsb" --data-urlencode "q=$1"; }
curl -s -XPOST "$URL/query" --data-urlencode "q=CREATE DATABASE fsb" >/dev/null
"$FSBENCH" export --format influx "$S"/r?.json >"$S/result.influx"
"$FSBENCH" export --format influx "$S"/o?.json >"$S/odd.influx"
"$FSBENCH" export --format influx "$S/cmp.json" >"$S/compare.influx"
for set in result result odd compare; do
	code=$(curl -s -o "$S/write.out" -w '%{http_code}' -XPOST "$URL/write?db=fsb" --data-binary @"$S/$set.influx")
	t_expect_eq "influx: /write of $set" 204 "$code"
	[ "$code" = 204 ] || cat "$S/write.out"
done
# the result written twice is stored once
points=$(q 'SELECT count(mean) FROM fsbench' | jq '.results[0].series[0].values[0][1]')
t_expect_eq "influx: points stored (the second write overwrote the first)" \
	"$(cat "$S/result.influx" "$S/odd.influx" "$S/compare.influx" | wc -l)" "$points"
t_expect_eq "influx: time of the pooled files/s point is the latest run's" \
	"$(jq -r '[inputs.created] | max' -n "$S"/r?.json)" \
	"$(q "SELECT mean FROM fsbench WHERE metric='files_per_sec' AND side='result' AND host='$(jq -r .host.hostname "$S/r1.json")'" | jq -r '.results[0].series[0].values[0][0]')"
t_expect_eq "influx: the odd host name as a tag (newline as \\n)" 'lab 1,rack=2 "b"\x\nend/' \
	"$(q "SHOW TAG VALUES FROM fsbench WITH KEY = host" | jq -r '.results[0].series[0].values[][1] | select(startswith("lab"))')"
t_expect_eq "influx: kernels to filter on" "$(jq -r .host.kernel "$S/r1.json") 9.9.9-candidate" \
	"$(q "SHOW TAG VALUES FROM fsbench WITH KEY = kernel" | jq -r '[.results[0].series[0].values[][1]] | sort | join(" ")')"
# one result alone, then within a set: the set's pooled point is its own (latest start, merged
# tag) and the point the result made alone is still there, unchanged
"$FSBENCH" export --format influx --metrics files_per_sec "$S/r1.json" >"$S/a.influx"
"$FSBENCH" export --format influx --metrics files_per_sec "$S/r1.json" "$S/r2.json" >"$S/ab.influx"
curl -s -XPOST "$URL/query" --data-urlencode "q=CREATE DATABASE fsb2" >/dev/null
for f in a ab; do
	code=$(curl -s -o "$S/write.out" -w '%{http_code}' -XPOST "$URL/write?db=fsb2" --data-binary @"$S/$f.influx")
	t_expect_eq "influx: /write of $f" 204 "$code"
done
q2() { curl -s -G "$URL/query" --data-urlencode "db=fsb2" --data-urlencode "q=$1"; }
t_expect_eq "influx: A alone and A+B pooled are two points" 2 \
	"$(q2 'SELECT count(mean) FROM fsbench' | jq '.results[0].series[0].values[0][1]')"
t_expect_eq "influx: A's own point survives A+B (n, mean and time as exported alone)" \
	"$(jq -r .created "$S/r1.json") 1 $(jq '.runs[0].summary.files_per_sec' "$S/r1.json")" \
	"$(q2 'SELECT mean, n FROM fsbench WHERE merged = '"''"'' | jq -r '.results[0].series[0].values[0] | "\(.[0]) \(.[2]) \(.[1])"')"
t_expect_eq "influx: the pooled point is tagged and has both runs" 2 \
	"$(q2 'SELECT n FROM fsbench WHERE merged =~ /results/' | jq '.results[0].series[0].values[0][1]')"
t_expect_eq "influx: ci_lo never below zero" 0 "$(q 'SELECT count(ci_lo) FROM fsbench WHERE ci_lo < 0' | jq '.results[0].series[0].values[0][1] // 0')"
t_done
