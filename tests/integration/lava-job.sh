#!/bin/bash
# fsbench lava: the generated jobs pass lava-dispatcher's own job schema (lava_common); the
# test cases the test definition reports come back through `lava import` as results that
# compare gates: the same values pass, 20 % fewer files/s is a regression.
. "$(dirname "$0")/lib.sh"
W=$T_SCRATCH

lava_validate() { # JOB.yaml: LAVA's validate(), strict, as the server runs it on submission
	/usr/bin/python3 -c 'import sys, yaml
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])))' "$1"
}
have_lava=1
/usr/bin/python3 -c 'import lava_common.schemas, yaml' 2>/dev/null || have_lava=0

# the job, for qemu and for a board over tftp: the same inline test definition
"$FSBENCH" lava job --kernel-url https://example.org/bzImage --ramdisk-url https://example.org/initramfs.cpio \
	--scratch-url https://example.org/scratch.img -o "$W/qemu.yaml" 2>/dev/null || t_fail "lava job (qemu)"
"$FSBENCH" lava job --kernel-url https://example.org/bzImage --ramdisk-url https://example.org/initramfs.cpio \
	--device-type x86 --boot-method ipxe --device /dev/sdb -o "$W/board.yaml" 2>/dev/null || t_fail "lava job (x86)"
# and on the model disk (no --scratch-url), where the guest's /init runs the suite itself
"$FSBENCH" lava job --kernel-url https://example.org/vmlinux --ramdisk-url https://example.org/initramfs.cpio \
	-o "$W/model.yaml" 2>/dev/null || t_fail "lava job (qemu, model disk)"
for j in qemu board model; do
	if [ $have_lava = 1 ]; then
		lava_validate "$W/$j.yaml" && t_ok "$j job passes lava_common's schema" || t_fail "$j job: LAVA's schema refuses it"
	fi
	grep -q "fsbench lava cases /out/result.json | while read -r name value unit; do lava-test-case" "$W/$j.yaml" ||
		t_fail "$j job: no lava-test-case loop"
	grep -q "FSBENCH-RESULT-BEGIN; base64 /out/result.json" "$W/$j.yaml" || t_fail "$j job: result JSON not kept"
done
# the suite as a local boot's /init runs it: no canary; on the model disk /init ran it
for j in qemu board; do
	grep -q "fsbench suite .*--force --no-canary --json /out/result.json" "$W/$j.yaml" ||
		t_fail "$j job: the suite is not run as a local boot runs it"
done
grep -q 'rc=$(cat /out/status' "$W/model.yaml" && ! grep -qF 'fsbench suite \"$@\"' "$W/model.yaml" &&
	t_ok "model-disk job: reports the suite /init ran" || t_fail "model-disk job: $(grep -A3 'steps:' "$W/model.yaml")"
[ $have_lava = 1 ] || echo "note: lava-common is not installed: schema checks skipped"
grep -q -- "--device /dev/sdb" "$W/board.yaml" || t_fail "board job: --device not used"
grep -q "icount shift=0,sleep=on" "$W/qemu.yaml" || t_fail "qemu job: no icount"
# LAVA's test shell unpacked into the ramdisk, not on a libguestfs disk (docs/lava.md)
grep -A4 "ramdisk:" "$W/qemu.yaml" | tr -d '\n' | grep -Eq "format: cpio.newc +overlays: +lava: true" ||
	t_fail "qemu job: no cpio overlay on the ramdisk: $(grep -A5 'ramdisk:' "$W/qemu.yaml")"
# a board without --device would have fsbench mkfs whatever /dev/vda is there
"$FSBENCH" lava job --kernel-url u --ramdisk-url r --device-type x86 >/dev/null 2>"$W/err"
t_expect_eq "board job without --device: exit" 2 $?
"$FSBENCH" lava job --device-type qemu >/dev/null 2>"$W/err"
t_expect_eq "job without a kernel: exit" 2 $?

# LAVA's job controls and whose job it is (issue 43): the priority and tags given, and the
# metadata, as LAVA's schema takes them; values LAVA would refuse are refused first
"$FSBENCH" lava job --kernel-url u --ramdisk-url r --priority 7 --tags rack-2,1,usb.hub -o "$W/ctl.yaml" 2>"$W/err" ||
	t_fail "lava job --priority --tags: $(cat "$W/err")"
[ $have_lava = 0 ] || lava_validate "$W/ctl.yaml" || t_fail "a job with priority and tags: LAVA's schema refuses it"
t_expect_eq "the job's priority, tags and metadata" "7 [\"rack-2\", \"1\", \"usb.hub\"] $("$FSBENCH" --version | awk '{ print $2 }') kgate" "$(/usr/bin/python3 -c 'import sys, yaml
j = yaml.safe_load(open(sys.argv[1])); m = j["metadata"]
print(j["priority"], str(j["tags"]).replace("'"'"'", "\""), m["fsbench.version"], m["fsbench.suite"])' "$W/ctl.yaml")"
for bad in "--priority 101" "--priority urgent" "--tags a,,b" "--tags a;b"; do
	# shellcheck disable=SC2086 # the option and its value
	"$FSBENCH" lava job --kernel-url u --ramdisk-url r $bad -o "$W/x.yaml" >/dev/null 2>"$W/err"
	t_expect_eq "lava job $bad: exit" 2 $?
done
[ ! -e "$W/x.yaml" ] || t_fail "a refused job was written"
# the gate's: refused before any work (no server is asked: the URL has none)
: >"$W/k" && echo t >"$W/tok" && chmod 0600 "$W/tok"
for bad in "--lava-priority 200" "--lava-tags x/y"; do
	# shellcheck disable=SC2086
	"$FSBENCH" kernel-gate --lava http://127.0.0.1:1/ --lava-token-file "$W/tok" $bad --baseline "$W/k" \
		--candidate "$W/k" --workdir "$W" >/dev/null 2>"$W/err"
	t_expect_eq "kernel-gate $bad: exit" 2 $?
	grep -q -- "${bad%% *} '" "$W/err" || t_fail "kernel-gate $bad: $(cat "$W/err")"
done
# boards of another architecture (issue 43, item 7): --kernel's initramfs holds this host's
# programs, so a board that is not x86 (by its type, or --arch) needs an initramfs of its
# own (--ramdisk-url), refused before any work otherwise; a u-boot job says its kernel type
mkdir "$W/arm"
"$FSBENCH" lava job --kernel "$W/k" --device-type bcm2711-rpi-4-b --boot-method u-boot --arch aarch64 \
	--device /dev/sda -o "$W/arm/job.yaml" >/dev/null 2>"$W/err"
t_expect_eq "an arm board with --kernel's x86-64 initramfs: exit" 2 $?
grep -q "give --ramdisk-url with an initramfs for it" "$W/err" || t_fail "arm board with --kernel: $(cat "$W/err")"
t_expect_eq "files made for the refused arm job" "" "$(ls "$W/arm")"
"$FSBENCH" lava job --kernel "$W/k" --device-type bcm2711-rpi-4-b --device /dev/sda -o "$W/arm/job.yaml" >/dev/null 2>"$W/err"
t_expect_eq "a board of no known architecture with --kernel: exit" 2 $?
grep -q "architecture is not known" "$W/err" || t_fail "unknown board with --kernel: $(cat "$W/err")"
"$FSBENCH" lava job --kernel-url https://example.org/Image --ramdisk-url https://example.org/arm64.cpio \
	--device-type bcm2711-rpi-4-b --boot-method u-boot --device /dev/sda -o "$W/x.yaml" >/dev/null 2>"$W/err"
t_expect_eq "u-boot without a kernel type or architecture: exit" 2 $?
for k in "--arch aarch64:image" "--arch armv7l:zimage" "--kernel-type uimage:uimage"; do
	"$FSBENCH" lava job --kernel-url https://example.org/Image --ramdisk-url https://example.org/arm.cpio \
		--device-type bcm2711-rpi-4-b --boot-method u-boot ${k%%:*} --device /dev/sda -o "$W/uboot.yaml" 2>"$W/err" ||
		t_fail "u-boot job ${k%%:*}: $(cat "$W/err")"
	t_expect_eq "u-boot job ${k%%:*}: the kernel's type" "${k#*:}" "$(/usr/bin/python3 -c 'import sys, yaml
print(yaml.safe_load(open(sys.argv[1]))["actions"][0]["deploy"]["kernel"].get("type"))' "$W/uboot.yaml")"
	[ $have_lava = 0 ] || lava_validate "$W/uboot.yaml" || t_fail "u-boot job ${k%%:*}: LAVA's schema refuses it"
done
"$FSBENCH" lava job --kernel-url u --ramdisk-url r --kernel-type image >/dev/null 2>"$W/err"
t_expect_eq "--kernel-type for qemu: exit" 2 $?

"$FSBENCH" kernel-gate --lava-tags a --baseline "$W/k" --candidate "$W/k" --workdir "$W" >/dev/null 2>"$W/err"
t_expect_eq "kernel-gate --lava-tags without --lava: exit" 2 $?
# where HTTP workers fetch the work directory's files (issue 43, item 7): an http(s) URL, with
# --workdir, and with --lava; refused before any work otherwise, saying why
"$FSBENCH" kernel-gate --lava-files-url https://files.example.org/g/ --baseline "$W/k" --candidate "$W/k" \
	--workdir "$W" >/dev/null 2>"$W/err"
t_expect_eq "kernel-gate --lava-files-url without --lava: exit" 2 $?
grep -q -- "--lava-files-url goes with --lava" "$W/err" || t_fail "--lava-files-url alone: $(cat "$W/err")"
for bad in "ftp://files.example.org/g/|not an http:// or https:// URL" "https://files.example.org/a b/|a space, quote"; do
	"$FSBENCH" kernel-gate --lava http://127.0.0.1:1/ --lava-token-file "$W/tok" --lava-files-url "${bad%|*}" \
		--baseline "$W/k" --candidate "$W/k" --workdir "$W" >/dev/null 2>"$W/err"
	t_expect_eq "kernel-gate --lava-files-url '${bad%|*}': exit" 2 $?
	grep -qF -- "${bad#*|}" "$W/err" || t_fail "--lava-files-url '${bad%|*}': $(cat "$W/err")"
done
"$FSBENCH" kernel-gate --lava http://127.0.0.1:1/ --lava-token-file "$W/tok" \
	--lava-files-url https://files.example.org/g/ --baseline "$W/k" --candidate "$W/k" >/dev/null 2>"$W/err"
t_expect_eq "kernel-gate --lava-files-url without --workdir: exit" 2 $?
grep -q "needs --workdir DIR" "$W/err" || t_fail "--lava-files-url without --workdir: $(cat "$W/err")"

# a suite's result (3 repetitions, in a directory: no root needed), as the guest reports it
"$FSBENCH" suite "$SRCDIR/configs/kgate.json" -d "$W" --repetitions 3 --json "$W/a.json" >/dev/null 2>&1 ||
	t_die "suite run failed"
"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-result-2.schema.json" "$W/a.json" ||
	t_fail "the suite's result does not validate against schema 2"
"$FSBENCH" lava cases "$W/a.json" >"$W/cases" || t_fail "lava cases"
bad=$(grep -cvE '^[A-Za-z0-9_.-]+ [-0-9.e+]+ [^ ]+$' "$W/cases")
t_expect_eq "case lines that lava-test-case would not take" 0 "$bad"
grep -q '^smallfile\.t1\.dir-smallfile-t-1\.r2\.files_per_sec ' "$W/cases" || t_fail "no files_per_sec case: $(head -2 "$W/cases")"
grep -q '^stream\.t1\.dir-stream-t-1\.r0\.bytes_per_sec .* B/s$' "$W/cases" || t_fail "no B/s case"
# one spelling per quantity in all a LAVA server gets: the cases' units are the export's
t_expect_eq "lava cases and export --format lava: the same units" \
	"$("$FSBENCH" export --format lava "$W/a.json" | awk '{print $4}' | sort -u | xargs)" \
	"$(awk '{print $3}' "$W/cases" | sort -u | xargs)"
t_expect_eq "lava cases: bytes/s in B/s, as the result has it" \
	"$(t_json "$W/a.json" '[.runs[] | select(.workload == "stream")][0].summary.bytes_per_sec | round')" \
	"$(awk '$1 ~ /^stream\..*\.r0\.bytes_per_sec$/ {printf "%.0f\n", $2; exit}' "$W/cases")"
t_expect_eq "lava cases: latency in s, as the export has it" 0 "$(grep -c '\.p[0-9.]* [0-9.]* us$' "$W/cases")"

# LAVA's results as /results/JOB/yaml gives them (measurement a string), with LAVA's own
# cases and the suite's pass/fail among them; and as the REST API's JSON page
to_yaml() { # FILES_PER_SEC JOB: a set value per repetition instead of the measured one
	echo "- {job: '$2', level: 1.1, metadata: {}, name: job, result: pass, suite: lava, unit: ''}"
	echo "- {job: '$2', name: fsbench-suite, result: pass, suite: 1_fsbench, measurement: null}"
	awk -v f="$1" -v job="$2" '{ v = $2; if (f != "" && $1 ~ /files_per_sec$/) { split($1, p, "."); v = f + 10 * substr(p[4], 2) }
		printf "- {job: '\''%s'\'', name: %s, result: pass, suite: 1_fsbench, measurement: '\''%.10f'\'', unit: %s}\n", job, $1, v, $3 }' "$W/cases"
}
# files/s here is whatever this busy machine gave; the gate is shown on set values
to_yaml "" 7 >"$W/lava-a.yaml"
to_yaml 1000 8 >"$W/lava-g1.yaml"
to_yaml 800 9 >"$W/lava-g2.yaml"
awk 'BEGIN { printf "{\"count\": 0, \"next\": null, \"results\": [" }
	{ printf "%s{\"name\": \"%s\", \"result\": \"pass\", \"measurement\": \"%s\", \"unit\": \"%s\"}", (NR > 1 ? ", " : ""), $1, $2, $3 }
	END { print "]}" }' "$W/cases" >"$W/lava-a.json"
"$FSBENCH" lava import -o "$W/imp-a1.json" "$W/lava-a.yaml" 2>"$W/err" || t_fail "import a: $(cat "$W/err")"
grep -q "2 other test cases" "$W/err" || t_fail "import did not skip LAVA's own cases: $(cat "$W/err")"
for g in g1 g2; do
	"$FSBENCH" lava import -o "$W/imp-$g.json" "$W/lava-$g.yaml" 2>/dev/null || t_fail "import $g"
done
"$FSBENCH" lava import -o "$W/imp-j.json" "$W/lava-a.json" 2>/dev/null || t_fail "import of the REST API's JSON"
# two jobs' files of the same cells (issue 43): every run of both kept, the second file's as
# repetitions after the first's; one job's results given twice are refused
"$FSBENCH" lava import -o "$W/imp-g12.json" "$W/lava-g1.yaml" "$W/lava-g2.yaml" 2>"$W/err" ||
	t_fail "import of two files: $(cat "$W/err")"
n1=$(t_json "$W/imp-g1.json" '.runs | length')
t_expect_eq "runs of two files" $((2 * n1)) "$(t_json "$W/imp-g12.json" '.runs | length')"
for v in 1000 1010 1020 800 810 820; do # files/s each repetition of each file was given
	t_expect_eq "smallfile runs of two files at files/s $v" 1 \
		"$(t_json "$W/imp-g12.json" "[.runs[] | select(.workload == \"smallfile\" and .summary.files_per_sec == $v)] | length")"
done
t_expect_eq "repetitions of the smallfile cell from two files" "0 1 2 3 4 5" \
	"$(t_json "$W/imp-g12.json" '[.runs[] | select(.workload == "smallfile") | .coords.repetition] | sort | map(tostring) | join(" ")')"
"$FSBENCH" lava import -o "$W/x.json" "$W/lava-g1.yaml" "$W/lava-g1.yaml" 2>"$W/err"
t_expect_eq "import of one job's results twice: exit" 2 $?
grep -q "both hold LAVA job 8's test cases" "$W/err" || t_fail "one job twice: $(cat "$W/err")"
[ ! -e "$W/x.json" ] || t_fail "one job twice: a result was written"
# the kernel the job booted, named on import, and the result kept in a history store
"$FSBENCH" lava import -o "$W/imp-k.json" --kernel 6.1.0-57-amd64 --kernel-package 6.1.170-1 \
	--kernel-commit 0123abcd --history "$W/h.db" "$W/lava-g1.yaml" 2>"$W/err" || t_fail "import --history: $(cat "$W/err")"
grep -q "fsbench lava import: --history: $W/h.db: added ($n1 runs)" "$W/err" && t_ok "import --history: $(tr "\n" " " <"$W/err")" ||
	t_fail "import --history: $(cat "$W/err")"
t_expect_eq "import --kernel: the result's kernel" "6.1.0-57-amd64 6.1.170-1 0123abcd" \
	"$(t_json "$W/imp-k.json" '"\(.host.kernel) \(.imported.kernel.package) \(.imported.kernel.commit)"')"
"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-result-2.schema.json" "$W/imp-k.json" ||
	t_fail "imp-k: an imported result with its kernel does not validate against schema 2"
"$FSBENCH" history list --db "$W/h.db" >"$W/list" 2>&1
grep -Eq "^ +1  6.1.0-57-amd64 +6.1.170-1 +0123abcd +$n1 runs +1 files" "$W/list" &&
	t_ok "the store holds the LAVA job's runs under its kernel" || t_fail "history list: $(cat "$W/list")"
for bad in "--history $W/h2.db" "--kernel-package 6.1.170-1" "--kernel 6.1.0-57 --kernel-commit XYZ123456" \
	"--kernel 6.1.0/57" "--kernel 6.1.0-57 --kernel-package 6.1.170_1"; do
	# shellcheck disable=SC2086 # the options' words
	"$FSBENCH" lava import -o "$W/bad.json" $bad "$W/lava-g1.yaml" 2>"$W/err"
	rc=$?
	[ $rc = 2 ] && [ ! -e "$W/bad.json" ] && [ ! -e "$W/h2.db" ] && t_ok "import $bad: exit 2: $(head -1 "$W/err")" ||
		t_fail "import $bad: exit $rc: $(cat "$W/err")"
done
# an imported result holds the metrics compare judges, not histograms or time series
t_expect_eq "imported result's command" lava-import "$(t_json "$W/imp-a1.json" .config.command)"
t_expect_eq "imported from" "lava $W/lava-a.yaml" "$(t_json "$W/imp-a1.json" '.imported | "\(.from) \(.files[0])"')"
for f in imp-a1 imp-j; do
	"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-result-2.schema.json" "$W/$f.json" ||
		t_fail "$f: an imported result does not validate against schema 2"
done
t_expect_eq "runs imported" "$(t_json "$W/a.json" '.runs | length')" "$(t_json "$W/imp-a1.json" '.runs | length')"
want=$(t_json "$W/a.json" '[.runs[] | select(.workload == "smallfile")][1].summary.files_per_sec')
got=$(t_json "$W/imp-a1.json" '[.runs[] | select(.workload == "smallfile")][1].summary.files_per_sec')
t_expect_eq "files_per_sec round trip" "$(printf %.3f "$want")" "$(printf %.3f "$got")"
want=$(t_json "$W/a.json" '[.runs[] | select(.workload == "smallfile")][0].ops.create.p50_ns')
got=$(t_json "$W/imp-j.json" '[.runs[] | select(.workload == "smallfile")][0].ops.create.p50_ns')
t_expect_eq "create.p50 (ns) round trip through JSON" "$want" "$(printf %.0f "$got")"

"$FSBENCH" compare --gate "$W/imp-g1.json" --candidate "$W/imp-g1.json" >"$W/cmp" 2>&1
t_expect_eq "compare --gate, LAVA A/A" 0 $?
"$FSBENCH" compare --gate "$W/imp-g1.json" --candidate "$W/imp-g2.json" >"$W/cmp" 2>&1
t_expect_eq "compare --gate, 20 % fewer files/s" 1 $?
grep -Eq "dir-smallfile-t-1 .* -19.8% regression" "$W/cmp" || t_fail "no regression line: $(head -5 "$W/cmp")"

# a real lava-run's results: every run and metric back, LAVA's own cases left out
"$FSBENCH" lava import -o "$W/real.json" "$SRCDIR/tests/fixtures/lava/lava-run-results.yaml" 2>"$W/err" ||
	t_fail "import of lava-run's results: $(cat "$W/err")"
grep -q "87 measurements in 6 runs" "$W/err" || t_fail "lava-run import: $(cat "$W/err")"
"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-result-2.schema.json" "$W/real.json" ||
	t_fail "lava-run's import does not validate against schema 2"
t_expect_eq "lava-run stream rep 1 MB/s" 220.37 "$(printf %.2f "$(t_json "$W/real.json" \
	'.runs[] | select(.coords.cell == "ext4-stream-t-1" and .coords.repetition == 1) | .summary.bytes_per_sec / 1e6')")"
"$FSBENCH" compare --gate "$W/real.json" --candidate "$W/real.json" >/dev/null 2>&1
t_expect_eq "lava-run result gated against itself" 0 $?
# with --suite each run gets its cell's coordinates, as the suite gives a local run, so
# compare pairs imported runs with local ones
"$FSBENCH" lava import --suite kgate -o "$W/real-s.json" "$SRCDIR/tests/fixtures/lava/lava-run-results.yaml" 2>"$W/err" ||
	t_fail "import --suite kgate: $(cat "$W/err")"
t_expect_eq "--suite: a run's coordinates" "ext4 ext4/stream/t=1 stream 1 64M" \
	"$(t_json "$W/real-s.json" '[.runs[] | select(.workload == "stream")][1].coords | "\(.fs) \(.cell) \(.workload) \(.repetition) \(.params.size)"')"
"$FSBENCH" lava import --suite kgate --fs xfs -o "$W/x.json" "$SRCDIR/tests/fixtures/lava/lava-run-results.yaml" 2>"$W/err"
t_expect_eq "--suite with an --fs the suite lacks: exit" 2 $?
"$FSBENCH" lava import --suite "$SRCDIR/configs/streaming.json" -o "$W/x.json" "$SRCDIR/tests/fixtures/lava/lava-run-results.yaml" 2>"$W/err"
t_expect_eq "--suite another suite: exit" 1 $?
grep -q "none of suite" "$W/err" || t_fail "another suite: $(cat "$W/err")"

# a unit that is neither today's (s) nor the old spelling (us) would be read a power of ten
# off: refused
awk '$1 ~ /create\.p50$/ {print; exit}' "$W/cases" | awk '{printf "- {job: '\''7'\'', name: %s, result: pass, measurement: '\''%s'\'', unit: ms}\n", $1, $2}' >"$W/ms.yaml"
"$FSBENCH" lava import -o "$W/x.json" "$W/ms.yaml" 2>"$W/err"
t_expect_eq "import of a case in ms: exit" 1 $?
grep -q "unit 'ms' is neither s (fsbench lava cases) nor us" "$W/err" && t_ok "import says which units it reads" ||
	t_fail "unit ms: $(cat "$W/err")"

# bad input: not YAML, no fsbench case
printf -- '- {name: job, result: pass}\n' >"$W/none.yaml"
"$FSBENCH" lava import -o "$W/x.json" "$W/none.yaml" 2>"$W/err"
t_expect_eq "import without fsbench cases: exit" 1 $?
printf '{ [ nope' >"$W/bad.yaml"
"$FSBENCH" lava import -o "$W/x.json" "$W/bad.yaml" 2>"$W/err"
t_expect_eq "import of broken YAML: exit" 2 $?
grep -Eq "bad.yaml:[0-9]+: " "$W/err" || t_fail "broken YAML message: $(cat "$W/err")"

t_done
