#!/bin/bash
# export --format csv read back as spreadsheets and pandas read it: python3's csv module (and
# pandas when it is installed) get a header, one row per run and metric with the cell's
# coordinates, and every value equal to the result JSON's own, in base units; fields with
# commas, quotes and newlines survive RFC 4180 quoting.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
PY=/usr/bin/python3
mkdir -p "$S/d"

for r in 1 2; do
	"$FSBENCH" smallfile -d "$S/d" -s 4k -n 100 -t 1 --quiet --json "$S/r$r.json" >/dev/null || t_die "run $r failed"
done
# a host name with every character CSV has to quote: , " and a newline
jq '.host.hostname = "lab 1,rack \"b\"\nend"' "$S/r1.json" >"$S/odd.json"
"$FSBENCH" export --format csv -o "$S/r.csv" "$S/r1.json" "$S/r2.json" || t_fail "csv export"
"$FSBENCH" export --format csv -o "$S/odd.csv" "$S/odd.json" || t_fail "csv export of an odd host name"
t_expect_eq "CRLF line ends (RFC 4180)" "$(wc -l <"$S/r.csv")" "$(grep -c $'\r$' "$S/r.csv")"

# check CSV RESULT.json...: each row's value is the run's own, found by the run's value in
# the result's units (files_per_sec: summary; OP.pNN: ops.OP.pNN_ns in ns, the CSV in s)
$PY - "$S/r.csv" "$S/r1.json" "$S/r2.json" >"$S/check.out" 2>&1 <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
runs = [json.load(open(f))["runs"][0] for f in sys.argv[2:]]
need = ["sample", "workload", "threads", "fs", "mount_options", "knob_set", "params", "side",
        "kernel", "host", "metric", "unit", "run", "value"]
missing = [c for c in need if c not in rows[0]]
if missing:
    sys.exit(f"no column {missing}")
def raw(run, metric):
    if metric == "files_per_sec":
        return run["summary"]["files_per_sec"], 1
    if "." not in metric:
        return None, None
    op, q = metric.split(".", 1)
    if op in run.get("ops", {}) and q.startswith("p"):
        return run["ops"][op][q.replace(".", "_") + "_ns"], 1e-9
    return None, None
checked = bad = 0
for r in rows:
    want, scale = raw(runs[int(r["run"])], r["metric"])
    if want is None:
        continue
    got = float(r["value"])
    checked += 1
    if abs(got - want * scale) > 1e-9 * max(abs(want * scale), 1e-12):
        bad += 1
        print(f"{r['metric']} run {r['run']}: csv {got}, JSON {want * scale}")
fs = {r["fs"] for r in rows}
units = {r["metric"]: r["unit"] for r in rows}
print(f"checked {checked} bad {bad} rows {len(rows)}")
print("fs", *sorted(fs))
print("units", units["files_per_sec"], units["fsync.p99"])
print("workload", *sorted({r["workload"] for r in rows}), "threads", *sorted({r["threads"] for r in rows}))
print("params size", json.loads(rows[0]["params"])["size"])
PY
[ $? = 0 ] || t_fail "csv module: $(cat "$S/check.out")"
grep -q '^checked [1-9][0-9]* bad 0 ' "$S/check.out" && t_ok "csv module: every value is the JSON's ($(head -1 "$S/check.out"))" ||
	t_fail "csv values: $(head -5 "$S/check.out")"
t_expect_eq "csv: fs column" "fs $(jq -r '.runs[0].target.fstype' "$S/r1.json")" "$(grep '^fs ' "$S/check.out")"
t_expect_eq "csv: base units" "units files/s s" "$(grep '^units ' "$S/check.out")"
t_expect_eq "csv: workload and threads" "workload smallfile threads 1" "$(grep '^workload ' "$S/check.out")"
t_expect_eq "csv: params as JSON" "params size 4096" "$(grep '^params ' "$S/check.out")"
# a row per run and metric: n runs times the metrics of the JSON export
t_expect_eq "csv: a row per run and metric" \
	"$(($("$FSBENCH" export --format kcidb "$S/r1.json" "$S/r2.json" | jq '.tests | length') * 2))" \
	"$(grep -o 'rows [0-9]*' "$S/check.out" | cut -d' ' -f2)"

t_expect_eq "csv: the odd host name read back" 'lab 1,rack "b"
end' "$($PY -c '
import csv, sys
print(next(csv.DictReader(open(sys.argv[1], newline="")))["host"])' "$S/odd.csv")"

# a comparison: a side and a verdict per row
t_regressed "$S/r1.json"
"$FSBENCH" export --format csv -o "$S/cmp.csv" "$S/cmp.json" || t_fail "csv export of a comparison"
t_expect_eq "csv: the candidate's files/s rows say regression" regression "$($PY -c '
import csv, sys
print(*sorted({r["verdict"] for r in csv.DictReader(open(sys.argv[1], newline=""))
               if r["side"] == "candidate" and r["metric"] == "files_per_sec"}))' "$S/cmp.csv")"

if $PY -c 'import pandas' 2>/dev/null; then
	t_expect_eq "pandas: files/s per run equal the JSON's" \
		"$(jq -n '[inputs.runs[0].summary.files_per_sec] | map(. * 1e6 | round) | join(" ")' "$S/r1.json" "$S/r2.json")" \
		"$($PY -c '
import sys, pandas
d = pandas.read_csv(sys.argv[1])
v = d[d.metric == "files_per_sec"].sort_values("run").value
print(" ".join(str(round(x * 1e6)) for x in v))' "$S/r.csv")"
else
	echo "note: pandas is not installed: read back with the csv module only"
fi
t_done
