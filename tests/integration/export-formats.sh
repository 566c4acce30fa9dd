#!/bin/bash
# fsbench export: what each format carries (labels, the run's time, content ids, bounds that
# stay positive, one direction per github file), and that the same input gives the same bytes.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
VALIDATE=$SRCDIR/tests/tools/validate-json
FIX=$SRCDIR/tests/fixtures
mkdir -p "$S/d"

for r in 1 2 3; do
	"$FSBENCH" smallfile -d "$S/d" -s 4k -n 100 -t 1 --quiet --json "$S/r$r.json" >/dev/null || t_die "run $r failed"
done
"$FSBENCH" stream -d "$S/d" --size 8M --chunk 1M --threads 1 --quiet --json "$S/st.json" >/dev/null || t_die "stream run failed"
# a comparison with a certain regression: one real run at +-1 % spread against half of it
t_regressed "$S/r1.json"

R=$S/r1.json
FS=$(jq -r '.runs[0].target.fstype' "$R")
KERNEL=$(jq -r '.host.kernel' "$R")
HOST=$(jq -r '.host.hostname' "$R")
MODEL=$(jq -r '.runs[0].target.model // "unknown"' "$R")
MOUNT=$(jq -r '.runs[0].target.mount_options' "$R")
CREATED=$(jq -r '[inputs.created] | min' -n "$S"/r?.json)
LAST=$(jq -r '[inputs.created] | max' -n "$S"/r?.json)
EPOCH=$(date -u -d "$LAST" +%s)

formats="openmetrics prometheus influx csv bencher github-bigger github-smaller kcidb lava"
for input in result compare; do
	if [ $input = result ]; then in=("$S"/r?.json); else in=("$S/cmp.json"); fi
	for f in $formats; do
		"$FSBENCH" export --format "$f" -o "$S/$input.$f" "${in[@]}" || t_fail "$input: $f export"
	done

	"$VALIDATE" "$FIX/kcidb-v5.3.schema.json" "$S/$input.kcidb" && t_ok "$input: kcidb valid against KCIDB v5.3" || t_fail "$input: kcidb invalid"
	if [ $input = result ]; then
		t_expect_eq "$input: kcidb statuses" DONE "$(jq -r '[.tests[].status] | unique | join(",")' "$S/$input.kcidb")"
	else # a gated comparison's verdict: FAIL for a regression, PASS unchanged or improved
		t_expect_eq "$input: kcidb statuses, FAIL and PASS only for verdicts" 0 \
			"$(jq '[.tests[] | select((.status == "FAIL" and .misc.verdict != "regression") or
				(.status == "PASS" and (.misc.verdict | IN("unchanged", "improvement") | not)) or
				(.misc.verdict == null and .status != "DONE"))] | length' "$S/$input.kcidb")"
		t_expect_eq "$input: kcidb the regressed files/s FAILs" FAIL \
			"$(jq -r '[.tests[] | select(.misc.side == "candidate" and (.path | endswith("files_per_sec"))) | .status] | unique | join(",")' "$S/$input.kcidb")"
		t_expect_eq "$input: kcidb gated unchanged or improved metrics PASS" true \
			"$(jq '[.tests[] | select(.status == "PASS")] | length > 0' "$S/$input.kcidb")"
	fi
	t_expect_eq "$input: kcidb files/s unit" "files/s" \
		"$(jq -r '[.tests[] | select(.path | contains("files_per_sec")) | .number.unit][0]' "$S/$input.kcidb")"
	t_expect_eq "$input: kcidb ratio unit" "x" \
		"$(jq -r '[.tests[] | select(.path | contains("write_amplification")) | .number.unit][0]' "$S/$input.kcidb")"
	t_expect_eq "$input: kcidb ids are unique" 0 \
		"$(jq '[.tests[].id] | length - (unique | length)' "$S/$input.kcidb")"
	t_expect_eq "$input: kcidb paths are components of [a-zA-Z0-9_-] joined by dots" 0 \
		"$(jq -r '.tests[].path' "$S/$input.kcidb" | grep -cvE '^[a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*$')"
	t_expect_eq "$input: kcidb path of files/s names sample, fs, mount options, knob set, metric" \
		"fsbench.smallfile_t_1.$FS.$(sed 's/[^a-zA-Z0-9-]\{1,\}/_/g; s/^_//; s/_$//' <<<"$MOUNT").none.files_per_sec" \
		"$(jq -r '[.tests[] | select(.path | endswith("files_per_sec")) | .path] | unique | join(" ")' "$S/$input.kcidb")"

	t_expect_eq "$input: openmetrics ends with # EOF" "# EOF" "$(tail -n 1 "$S/$input.openmetrics")"
	grep -q '^# TYPE fsbench_latency_seconds summary$' "$S/$input.openmetrics" && t_ok "$input: latency is a summary" ||
		t_fail "$input: latency family is not a summary"
	bad=$(grep -vcE '^fsbench(,[^ =,]+=([^ ,\\]|\\.)+)+ mean=[-0-9.e+]+,median=[^ ]+,n=[0-9]+i(,[a-z_]+=[^ ]+)* [0-9]+$' "$S/$input.influx")
	t_expect_eq "$input: influx lines that do not parse" 0 "$bad"
	# one run has no interval: absent at n = 1, present from n = 2
	t_expect_eq "$input: influx intervals at n = 1" 0 "$(grep -E ',n=1i' "$S/$input.influx" | grep -c 'ci_lo=')"
	t_expect_eq "$input: kcidb intervals at n = 1" 0 \
		"$(jq '[.tests[] | select(.misc.n == 1 and (.misc | has("ci95_lo")))] | length' "$S/$input.kcidb")"

	"$VALIDATE" "$FIX/bencher-bmf.schema.json" "$S/$input.bencher" && t_ok "$input: bencher BMF valid" || t_fail "$input: BMF invalid"
	t_expect_eq "$input: BMF bounds bracket the value" true \
		"$(jq '[.[][] | select(.lower_value) | .lower_value <= .value and .value <= .upper_value] | all' "$S/$input.bencher")"
	t_expect_eq "$input: BMF measures" "dirty-max-bytes files-per-second latency write-amplification writeback-max-bytes" \
		"$(jq -r '[.[] | keys[]] | unique | join(" ")' "$S/$input.bencher")"

	for d in bigger smaller; do
		"$VALIDATE" "$FIX/github-benchmark.schema.json" "$S/$input.github-$d" && t_ok "$input: github-$d valid" || t_fail "$input: github-$d invalid"
	done
	t_expect_eq "$input: github-bigger holds higher-is-better only" "files/s" "$(jq -r '[.[].unit] | unique | join(",")' "$S/$input.github-bigger")"
	t_expect_eq "$input: github-smaller holds lower-is-better only" 0 \
		"$(jq '[.[] | select(.extra | contains("higher is better"))] | length' "$S/$input.github-smaller")"
	t_expect_eq "$input: github-smaller has latency" true "$(jq '[.[] | select(.unit == "s")] | length > 0' "$S/$input.github-smaller")"
	# one spelling per quantity: the units of every format that names them are the same set
	t_expect_eq "$input: units spelled alike in influx, kcidb, github and lava" \
		"$(grep -o ',unit=[^,]*' "$S/$input.influx" | cut -d= -f2 | sort -u | xargs)" \
		"$( (jq -r '.tests[].number.unit' "$S/$input.kcidb"; jq -r '.[].unit' "$S/$input.github-bigger" "$S/$input.github-smaller"; awk '{print $4}' "$S/$input.lava") | sort -u | xargs)"

	bad=$(grep -vcE '^[A-Za-z0-9_-]+ (pass|fail) [0-9.]+ [^ =>]+$' "$S/$input.lava")
	t_expect_eq "$input: lava lines that do not parse" 0 "$bad"
	# lava-server keeps a test case name to 100 characters: longer series are cut and hashed,
	# and the names stay apart
	t_expect_eq "$input: lava names over 100 characters" 0 "$(awk 'length($1) > 100' "$S/$input.lava" | wc -l)"
	t_expect_eq "$input: lava names repeated" 0 "$(awk '{print $1}' "$S/$input.lava" | sort | uniq -d | wc -l)"
	# one prefix per sample and side, the same for all its metrics, the metric last
	awk '$1 ~ /_files_per_sec$/ {sub(/_files_per_sec$/, "", $1); print $1}' "$S/$input.lava" >"$S/prefixes"
	t_expect_eq "$input: lava prefixes (one per side)" "$([ $input = result ] && echo 1 || echo 2)" "$(wc -l <"$S/prefixes")"
	t_expect_eq "$input: every lava name is a prefix, then its metric" 0 \
		"$(awk 'NR == FNR {p[$1]; next} {ok = 0; for (x in p) if (index($1, x "_") == 1) ok = 1; if (!ok) print}' "$S/prefixes" "$S/$input.lava" | wc -l)"

	# the same input exported again, a second later, is the same bytes in every format
	sleep 1
	for f in $formats; do
		"$FSBENCH" export --format "$f" "${in[@]}" | cmp -s - "$S/$input.$f" && t_ok "$input: $f re-export is byte-identical" ||
			t_fail "$input: $f differs when exported again"
	done
done

# the comparison made again (a new compare "created") still exports the same bytes
"$FSBENCH" compare --json "$S/cmp2.json" "$S"/b?.json --candidate "$S"/h?.json >/dev/null
for f in $formats; do
	"$FSBENCH" export --format "$f" "$S/cmp2.json" | cmp -s - "$S/compare.$f" && t_ok "compare made again: $f identical" ||
		t_fail "compare made again: $f differs"
done

# labels: real labels, tags or fields, with the result's values, in every format
om_line=$(grep '^fsbench_files_per_second{' "$S/result.openmetrics")
for kv in "fs=\"$FS\"" 'workload="smallfile"' 'threads="1"' "kernel=\"$KERNEL\"" "host=\"$HOST\"" \
	"device_model=\"$MODEL\"" "mount_options=\"$MOUNT\"" 'knob_set="none"'; do
	case $om_line in *"$kv"*) t_ok "openmetrics label $kv" ;; *) t_fail "openmetrics: no $kv in $om_line" ;; esac
done
influx_line=$(grep ',metric=files_per_sec,' "$S/result.influx")
esc() { sed 's/[ ,=]/\\&/g' <<<"$1"; }
for kv in "fs=$FS" "workload=smallfile" "threads=1" "kernel=$(esc "$KERNEL")" "host=$(esc "$HOST")" \
	"device_model=$(esc "$MODEL")" "mount_options=$(esc "$MOUNT")" "knob_set=none"; do
	case $influx_line in *",$kv,"* | *",$kv "*) t_ok "influx tag ${kv%%=*}" ;; *) t_fail "influx: no tag $kv in $influx_line" ;; esac
done
t_expect_eq "kcidb misc labels" "$FS smallfile 1 $KERNEL $HOST $MODEL none" \
	"$(jq -r '.tests[0].misc | "\(.fs) \(.workload) \(.threads) \(.kernel) \(.host) \(.device_model) \(.knob_set)"' "$S/result.kcidb")"
t_expect_eq "kcidb mount options" "$MOUNT" "$(jq -r '.tests[0].misc.mount_options' "$S/result.kcidb")"
t_expect_eq "kcidb environment host" "$HOST" "$(jq -r '.tests[0].environment.misc.host' "$S/result.kcidb")"
t_expect_eq "github extra carries kernel and host" true \
	"$(jq --arg k "kernel=$KERNEL" --arg h "host=$HOST" '[.[].extra | contains($k) and contains($h)] | all' "$S/result.github-bigger")"
t_expect_eq "bencher names carry fs, mount and knobs" true \
	"$(jq --arg m "fs=$FS mount=$MOUNT knobs=none" '[keys[] | contains($m)] | all' "$S/result.bencher")"
grep -q "_fs_${FS}_mount_" "$S/result.lava" && t_ok "lava names carry the fs" || t_fail "lava: no fs in $(head -1 "$S/result.lava")"

# suite runs: the labels come from their coordinates (what the suite asked for)
for i in 1 2 3; do
	jq --argjson i "$i" '.runs[0].coords = {fs: "xfs", mount_options: "", barrier: 1, knob_set: "wc-off",
		workload: "smallfile", threads: 1, repetition: ($i - 1), cell: "xfs/barrier=1/wc-off/smallfile/t=1"}' \
		"$S/r$i.json" >"$S/su$i.json"
done
"$FSBENCH" export --format openmetrics --metrics files_per_sec "$S"/su?.json >"$S/su.om"
for kv in 'fs="xfs"' "mount_options=\"$MOUNT\"" 'knob_set="wc-off"' 'sample="barrier=1 wc-off smallfile t=1"'; do
	grep -q "^fsbench_files_per_second{.*$kv" "$S/su.om" && t_ok "suite label $kv" || t_fail "suite: no $kv in $(grep '^fsbench_files' "$S/su.om")"
done
# the same labels mean the same from a suite and from a standalone run: the options as mounted
# and "WORKLOAD t=N"; what the suite asked for is kept beside them
t_expect_eq "standalone and suite: one sample label" "smallfile t=1" \
	"$(grep -o 'sample="[^"]*"' "$S/result.openmetrics" | sort -u | cut -d'"' -f2)"
"$FSBENCH" export --format kcidb --metrics files_per_sec "$S"/su?.json >"$S/su.kcidb"
t_expect_eq "suite: kcidb keeps live and requested mount options" "$MOUNT|defaults" \
	"$(jq -r '.tests[0].misc | "\(.mount_options)|\(.mount_requested)"' "$S/su.kcidb")"
"$FSBENCH" export --format influx --metrics files_per_sec "$S"/su?.json | grep -q ',mount_requested="defaults"' &&
	t_ok "suite: influx field mount_requested" || t_fail "suite: influx has no mount_requested"

# time: the run's, not the export's; results pooled from several files are stamped with the
# latest start and tagged merged, so they never land on a point one file makes alone
t_expect_eq "influx timestamp of pooled results is the latest start" "${EPOCH}000000000" "$(awk '{print $NF}' "$S/result.influx" | sort -u)"
t_expect_eq "kcidb start_time of pooled results is the latest start" "$LAST" "$(jq -r '[.tests[].start_time] | unique | join(",")' "$S/result.kcidb")"
t_expect_eq "influx: pooled points are tagged merged" "$(wc -l <"$S/result.influx")" "$(grep -c ',merged=3\\ results\\,\\ [0-9a-f]\{8\},' "$S/result.influx")"
"$FSBENCH" export --format influx "$S/r1.json" >"$S/one.influx"
t_expect_eq "influx: one result alone is stamped with its own start" \
	"$(date -u -d "$(jq -r .created "$S/r1.json")" +%s)000000000" "$(awk '{print $NF}' "$S/one.influx" | sort -u)"
t_expect_eq "influx: one result alone has no merged tag" 0 "$(grep -c ',merged=' "$S/one.influx")"

# KCIDB: a comparison's tests and a plain export's of the same series share their paths (the
# side is in misc and the id, not in the path)
t_expect_eq "kcidb: comparison and plain export, the same paths" \
	"$(jq -r '[.tests[].path] | unique | join(" ")' "$S/result.kcidb")" \
	"$(jq -r '[.tests[].path] | unique | join(" ")' "$S/compare.kcidb")"
t_expect_eq "kcidb: the comparison's sides in misc.side" "baseline candidate" \
	"$(jq -r '[.tests[].misc.side] | unique | join(" ")' "$S/compare.kcidb")"
# a suite's ext4 and xfs cells of one build are two tests, not one test run twice
for fs in ext4 xfs; do
	for i in 1 2 3; do
		jq --arg fs $fs --argjson i "$i" '.runs[0].coords = {fs: $fs, mount_options: "", knob_set: "none",
			workload: "smallfile", threads: 1, repetition: ($i - 1), cell: "\($fs)/smallfile/t=1"}' \
			"$S/r$i.json" >"$S/fs-$fs$i.json"
	done
done
"$FSBENCH" export --format kcidb --metrics files_per_sec "$S"/fs-ext4?.json "$S"/fs-xfs?.json >"$S/fs.kcidb" ||
	t_fail "kcidb export of two filesystems"
t_expect_eq "kcidb: two filesystems of one build, two tests" 2 "$(jq '.tests | length' "$S/fs.kcidb")"
t_expect_eq "kcidb: two filesystems of one build, two paths" 2 "$(jq '[.tests[].path] | unique | length' "$S/fs.kcidb")"
t_expect_eq "kcidb: each path names its filesystem" "ext4 xfs" \
	"$(jq -r '[.tests[] | select((.path | split(".")[2]) == .misc.fs) | .misc.fs] | sort | join(" ")' "$S/fs.kcidb")"
"$VALIDATE" "$FIX/kcidb-v5.3.schema.json" "$S/fs.kcidb" && t_ok "two filesystems: kcidb valid" || t_fail "two filesystems: kcidb invalid"

# one run has no interval in any format: absent, not bounds equal to the mean
for f in influx kcidb bencher github-bigger csv; do
	"$FSBENCH" export --format $f "$S/r1.json" >"$S/n1.$f" || t_fail "n = 1: $f export"
done
t_expect_eq "n = 1: influx has no ci_lo/ci_hi" 0 "$(grep -c 'ci_lo=\|ci_hi=' "$S/n1.influx")"
t_expect_eq "n = 1: kcidb has no ci95_lo/ci95_hi" 0 \
	"$(jq '[.tests[].misc | select(has("ci95_lo") or has("ci95_hi"))] | length' "$S/n1.kcidb")"
t_expect_eq "n = 1: bencher has no lower_value/upper_value" 0 \
	"$(jq '[.[][] | select(has("lower_value") or has("upper_value"))] | length' "$S/n1.bencher")"
t_expect_eq "n = 1: github range says n=1" "n=1" "$(jq -r '[.[].range] | unique | join(",")' "$S/n1.github-bigger")"
t_expect_eq "n = 1: csv has no interval column" 0 "$(head -1 "$S/n1.csv" | grep -c 'ci')"
# and from two runs the interval is there
"$FSBENCH" export --format influx "$S/r1.json" "$S/r2.json" | grep -q ',n=2i' &&
	"$FSBENCH" export --format influx "$S/r1.json" "$S/r2.json" | grep ',n=2i' | grep -q 'ci_lo=' &&
	t_ok "n = 2: influx has its interval" || t_fail "n = 2: influx has no interval"

# KCIDB builds from the kernel; ids from the content
t_expect_eq "kcidb build_id from the kernel" true \
	"$(jq --arg k "fsbench:$KERNEL/" '[.tests[].build_id | startswith($k)] | all' "$S/result.kcidb")"
t_expect_eq "kcidb build carries uname -v" "$(jq -r .host.kernel_version "$R")" "$(jq -r '.builds[0].misc.kernel_version' "$S/result.kcidb")"
jq '.runs[0].summary.files_per_sec *= 2' "$S/r1.json" >"$S/x1.json"
id_a=$(jq -r '.tests[] | select(.path | endswith("files_per_sec")) | .id' "$S/result.kcidb")
id_b=$("$FSBENCH" export --format kcidb "$S/x1.json" "$S/r2.json" "$S/r3.json" | jq -r '.tests[] | select(.path | endswith("files_per_sec")) | .id')
[ -n "$id_a" ] && [ "$id_a" != "$id_b" ] && t_ok "kcidb: other values, other id" || t_fail "kcidb: id '$id_a' unchanged by other values"
id_r=$("$FSBENCH" export --format kcidb "$S/r3.json" "$S/r1.json" "$S/r2.json" | jq -r '.tests[] | select(.path | endswith("files_per_sec")) | .id')
t_expect_eq "kcidb: the files in another order, the same id" "$id_a" "$id_r"
id_c=$("$FSBENCH" export --format kcidb "$S/r1.json" "$S/r2.json" "$S/r3.json" --build-id ci:42 | jq -r '.tests[] | select(.path | endswith("files_per_sec")) | .id')
t_expect_eq "kcidb: --build-id does not change the id" "$id_a" "$id_c"
# sides on two kernels are two builds: one --build-id for both is refused
for i in 1 2 3; do jq '.host.kernel = "9.9.9-candidate"' "$S/h$i.json" >"$S/k$i.json"; done
"$FSBENCH" compare --json "$S/cmpk.json" "$S"/b?.json --candidate "$S"/k?.json >/dev/null
"$FSBENCH" export --format kcidb --build-id ci:42 "$S/cmpk.json" >/dev/null 2>"$S/err"
t_expect_eq "kcidb: one --build-id for two kernels: exit" 2 $?
grep -q "different kernels" "$S/err" && t_ok "kcidb: says why" || t_fail "kcidb: $(cat "$S/err")"
t_expect_eq "kcidb: a build per kernel" 2 \
	"$("$FSBENCH" export --format kcidb "$S/cmpk.json" | jq '[.tests[].build_id] | unique | length')"

# bounds of quantities that cannot be negative stay positive where a t interval would not
for i in 1 2 3; do
	f=$(echo "20 1 0.05" | cut -d' ' -f$i)
	jq ".runs[0].summary.files_per_sec *= $f" "$S/r1.json" >"$S/sp$i.json"
done
"$FSBENCH" compare --json "$S/sp.json" "$S"/sp?.json --candidate "$S"/sp?.json >/dev/null 2>&1
t_expect_eq "spread: the symmetric t interval goes below zero" true \
	"$(jq '[.samples[0].metrics[] | select(.name == "files_per_sec") | .sides[0].ci95[0] < 0] | all' "$S/sp.json")"
"$FSBENCH" export --format bencher "$S"/sp?.json >"$S/sp.bencher"
t_expect_eq "spread: bencher lower_value >= 0" true "$(jq '[.[][] | select(.lower_value) | .lower_value >= 0] | all' "$S/sp.bencher")"
t_expect_eq "spread: bencher files/s lower < value < upper" true \
	"$(jq '[.[]["files-per-second"] // empty | .lower_value < .value and .value < .upper_value] | all' "$S/sp.bencher")"
"$FSBENCH" export --format influx "$S"/sp?.json >"$S/sp.influx"
t_expect_eq "spread: influx ci_lo > 0" 0 "$(grep -c 'ci_lo=-' "$S/sp.influx")"
"$FSBENCH" export --format kcidb "$S"/sp?.json >"$S/sp.kcidb"
t_expect_eq "spread: kcidb ci95_lo >= 0" true "$(jq '[.tests[].misc.ci95_lo >= 0] | all' "$S/sp.kcidb")"
t_expect_eq "spread: kcidb files/s ci95_lo > 0" true "$(jq '[.tests[] | select(.path | endswith("files_per_sec")) | .misc.ci95_lo > 0] | all' "$S/sp.kcidb")"

# bencher: bytes/s really bytes/s, latency in ns under the built-in latency measure
"$FSBENCH" export --format bencher "$S/st.json" >"$S/st.bencher"
t_expect_eq "bencher bytes-per-second is bytes/s" "$(jq '.runs[0].summary.bytes_per_sec | round' "$S/st.json")" \
	"$(jq '[.[]["bytes-per-second"] // empty][0].value | round' "$S/st.bencher")"
t_expect_eq "bencher write p99 latency is ns" "$(jq '.runs[0].ops.write.p99_ns | round' "$S/st.json")" \
	"$(jq '[to_entries[] | select(.key | endswith(" write p99")) | .value.latency.value][0] | round' "$S/st.bencher")"

# github-benchmark, which refused every result (each has both directions), is gone
"$FSBENCH" export --format github-benchmark -o "$S/gh.json" "$S/cmp.json" 2>"$S/err"
t_expect_eq "github-benchmark is no format: exit" 2 $?
[ ! -e "$S/gh.json" ] && t_ok "github-benchmark: no output file" || t_fail "github-benchmark wrote $S/gh.json"

# the halved candidate fails in LAVA and shows as a regression in OpenMetrics
grep -q '_side_candidate_files_per_sec fail ' "$S/compare.lava" && t_ok "lava: regression is fail" || t_fail "$(head -3 "$S/compare.lava")"
grep -q '^fsbench_regression{.*side="candidate".*,metric="files_per_sec"} 1$' "$S/compare.openmetrics" && t_ok "openmetrics: regression gauge" ||
	t_fail "no regression gauge"
# not judged is not "no regression": with two runs a side every metric is insufficient, and
# OpenMetrics then has no fsbench_regression sample at all, only fsbench_verdict's state
"$FSBENCH" compare --json "$S/cmp22.json" "$S/r1.json" "$S/r2.json" --candidate "$S/r3.json" "$S/x1.json" >/dev/null 2>&1
"$FSBENCH" export --format openmetrics "$S/cmp22.json" >"$S/cmp22.om" || t_fail "openmetrics export of an insufficient comparison"
t_expect_eq "insufficient: no fsbench_regression sample" 0 "$(grep -c '^fsbench_regression{' "$S/cmp22.om")"
N22=$(jq '[.samples[].metrics[].comparisons[]] | length' "$S/cmp22.json")
t_expect_eq "insufficient: every compared metric has fsbench_verdict{fsbench_verdict=\"insufficient\"} 1" \
	"$N22" "$(grep -c '^fsbench_verdict{.*,fsbench_verdict="insufficient"} 1$' "$S/cmp22.om")"
# a stateset: every state of every compared metric, 0 but for the judge's
t_expect_eq "insufficient: the stateset's other states are 0" "$((N22 * 5))" \
	"$(grep -c '^fsbench_verdict{.*,fsbench_verdict="[a-z_]*"} 0$' "$S/cmp22.om")"
"$FSBENCH" export --format prometheus "$S/cmp22.json" >"$S/cmp22.prom" || t_fail "prometheus export of an insufficient comparison"
t_expect_eq "prometheus (text 0.0.4): the verdict a gauge with a verdict label" "$N22 0" \
	"$(grep -c '^fsbench_verdict{.*,verdict="insufficient"} 1$' "$S/cmp22.prom") $(grep -c 'stateset\|^# UNIT' "$S/cmp22.prom")"
"$FSBENCH" export --format influx "$S/cmp22.json" | grep -q 'verdict="insufficient"' && t_ok "insufficient: influx says so" ||
	t_fail "insufficient: influx lost the verdict"
"$FSBENCH" export --format nonsense "$S/cmp.json" >/dev/null 2>&1
t_expect_eq "unknown format: exit" 2 $?
# options after the files too, and the output file by its long name
"$FSBENCH" export "$S/cmp.json" --output "$S/late.txt" --format lava || t_fail "export with options after the file"
cmp -s "$S/late.txt" <("$FSBENCH" export --format lava "$S/cmp.json") && t_ok "export: options after the file" ||
	t_fail "export --output after the file differs from stdout"
"$FSBENCH" export --format lava --bogus "$S/cmp.json" >/dev/null 2>&1
t_expect_eq "export unknown option: exit" 2 $?
t_done
