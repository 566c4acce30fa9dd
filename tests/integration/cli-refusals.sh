#!/bin/bash
# Issue 11 items 5 and 9: bad values are refused up front with exit 2 and one line naming
# the flag, before any work (nan thresholds, missing values, empty lists and paths).
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
mkdir "$S/d"
"$FSBENCH" smallfile -d "$S/d" -s 4k -n 20 -L 2 --quiet --json "$S/a.json" >/dev/null || t_die "smallfile"
cp "$S/a.json" "$S/b.json"

# refuse ERROR_SUBSTRING fsbench-args...: exit 2, the message on one line, nothing on stdout
refuse() {
	local want=$1
	shift
	"$FSBENCH" "$@" >"$S/out" 2>"$S/err"
	local rc=$?
	if [ $rc = 2 ] && grep -qF -- "$want" "$S/err" && [ "$(wc -l <"$S/err")" = 1 ] && [ ! -s "$S/out" ]; then
		t_ok "$*: $(cat "$S/err")"
	else
		t_fail "$*: exit $rc, stderr '$(cat "$S/err")', expected '$want'"
	fi
}

# nan passed every range check and so disabled the gate
for v in nan inf -inf 1e999; do
	refuse "--alpha: '$v' is not a finite number" compare --gate --alpha "$v" "$S/a.json" "$S/b.json"
	refuse "--threshold: '$v' is not a finite number" compare --gate --threshold "$v" "$S/a.json" "$S/b.json"
	refuse "--noise: '$v' is not a finite number" compare --gate --noise "$v" "$S/a.json" "$S/b.json"
done
refuse "--alpha: 0.7 is out of range" compare --gate --alpha 0.7 "$S/a.json" "$S/b.json"
refuse "--threshold: -1 is out of range" compare --threshold -1 "$S/a.json" "$S/b.json"
refuse "--json $S/nope/c.json: No such file" compare --json "$S/nope/c.json" "$S/a.json" "$S/b.json"

# a flag without its value is named
refuse "--json: a value is required" smallfile -d "$S/d" --json
refuse "--image: a value is required" suite quick --image
refuse "--set: a value is required" knobs "$S" --set

# empty values and lists
refuse "--cpus '': an empty CPU list" smallfile -d "$S/d" -n 5 -s 4k --cpus ''
refuse "--fs: an empty list selects nothing" suite quick --fs ''
refuse "--image: an empty value" suite quick --image ''
refuse "--dir $S/a.json: Not a directory" suite quick -d "$S/a.json"
refuse "image size 209715200: too small for xfs" suite quick --fs xfs --size 200M
refuse "too small for ext4" suite quick --fs ext4 --size 1M
refuse "matches no metric" export --format influx --metrics '[' "$S/a.json"

cat >"$S/k.json" <<'JSON'
{ "filesystems": ["ext4"], "knob_sets": [ { "name": "neg", "knobs": { "dirty_ratio": -1 } } ],
  "workloads": [ { "name": "smallfile" } ] }
JSON
refuse "dirty_ratio: -1 is out of range" suite "$S/k.json" -n
echo '{}' >"$S/e.json"
refuse "filesystems: expected a non-empty array, found nothing" suite "$S/e.json" -n
# issue 19 item 15: a knob of 1e308 is a real number, not "a number" after "or a number"
sed 's/"dirty_ratio": -1/"nr_requests": 1e308/' "$S/k.json" >"$S/k2.json"
refuse "nr_requests: expected a string or an integer, found a number with a fraction or exponent" suite "$S/k2.json" -n
# a directory as the suite: "Is a directory", not "Input/output error"
"$FSBENCH" suite "$S/d" -n >/dev/null 2>"$S/err" && t_fail "a directory ran as a suite"
grep -qF "reading suite $S/d: Is a directory" "$S/err" && t_ok "a directory as the suite: $(cat "$S/err")" ||
	t_fail "a directory as the suite: $(cat "$S/err")"
# issue 29 item 8: kernel options that do not apply are refused before any boot (QEMU here is
# /bin/false: a boot would say it failed instead)
k=(--kernel "$S/k.deb" --qemu /bin/false --disk-dir "$S")
for o in "--disk-cache 64M" "--disk-mbps 100" "--disk-latency 1ms" "--disk-queue-depth 8"; do
	refuse "shape the model disk: with --disk virtio they would be ignored" kernel-run "${k[@]}" --disk virtio $o
done
refuse "--memory 1000000 MiB a boot, 1 at a time, but the host has" kernel-run "${k[@]}" --disk virtio --memory 1000000
refuse "a .deb brings its own modules; --modules would be ignored" kernel-run "${k[@]}" --modules "$S"
refuse "--baseline-modules would be ignored" kernel-gate --baseline "$S/k.deb" --candidate "$S/k.deb" \
	--baseline-modules "$S" --qemu /bin/false
refuse "a newline or a '--' word" kernel-run "${k[@]}" --append "quiet -- null_blk.gb=1"
refuse "a newline or a '--' word" kernel-run "${k[@]}" --append "--"
refuse "a newline or a '--' word" kernel-gate --baseline "$S/k.deb" --candidate "$S/k.deb" --candidate-append "$(printf 'a\nb')"
t_done
