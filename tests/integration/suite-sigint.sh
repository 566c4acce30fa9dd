#!/bin/bash
# SIGINT in the middle of a suite's cell: the cell stops, everything is unmounted and
# detached, the image removed, the result so far written as incomplete, exit 130.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root
command -v mkfs.ext4 >/dev/null || t_skip "mkfs.ext4 is not installed"
command -v mkfs.xfs >/dev/null || t_skip "mkfs.xfs is not installed"

img=$T_SCRATCH/sig.img
res=$T_SCRATCH/r.json
ours() {
	losetup -l -n -O NAME,BACK-FILE | grep -F "$T_SCRATCH" || true
	grep -F "$T_SCRATCH" /proc/self/mountinfo || true
}
cat >"$T_SCRATCH/s.json" <<'JSON'
{ "filesystems": ["ext4", "xfs"],
  "knob_sets": [ { "name": "nr64", "knobs": { "nr_requests": 64 } } ],
  "workloads": [
    { "name": "smallfile", "label": "short", "params": { "size": "4k", "files": 20, "sync": 0 } },
    { "name": "smallfile", "label": "long", "params": { "size": "4k", "files": 100000000, "sync": 1 } }
  ],
  "image_size": "256M" }
JSON

# the restore journal goes where this test can see it, not in /run/fsbench
mkdir "$T_SCRATCH/state"
FSBENCH_STATE_DIR=$T_SCRATCH/state TMPDIR=$T_SCRATCH "$FSBENCH" suite "$T_SCRATCH/s.json" --image "$img" --json "$res" >"$T_SCRATCH/out" 2>&1 &
pid=$!
# wait until the long cell runs: its first run is written, and a mount of ours exists
for _ in $(seq 1 200); do
	[ -s "$res" ] && [ "$(jq '.runs | length' "$res" 2>/dev/null)" = 1 ] &&
		grep -qF "$T_SCRATCH" /proc/self/mountinfo && break
	sleep 0.1
done
sleep 1
grep -qF "$T_SCRATCH" /proc/self/mountinfo || t_fail "the long cell was not running"
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$T_SCRATCH/out"
t_expect_eq "exit status" 130 "$rc"
t_expect_eq "left attached or mounted" "" "$(ours)"
[ -e "$img" ] && t_fail "image was not removed"
ls "$T_SCRATCH" | grep -q '^fsbench-suite\.' && t_fail "temporary directory left behind"
"$VALIDATE" "$SCHEMA" "$res" || t_fail "result does not validate"
t_expect_eq "complete" false "$(t_json "$res" '.complete')"
t_expect_eq "runs written" 2 "$(t_json "$res" '.runs | length')"
t_expect_eq "first run complete" true "$(t_json "$res" '.runs[0].summary.complete')"
t_expect_eq "interrupted cell" "ext4/long/t=1" "$(t_json "$res" '.runs[1].coords.cell')"
t_expect_eq "interrupted run incomplete" false "$(t_json "$res" '.runs[1].summary.complete')"
t_json "$res" '.runs[1].summary.error' | grep -q "signal 2" || t_fail "no signal in the error"
[ "$(t_json "$res" '.runs[1].summary.files')" -gt 0 ] || t_fail "the long cell had not started"
# the knob was set on fsbench's own loop device and put back before it was detached
t_expect_eq "knob applied" 64 "$(t_json "$res" '.runs[1].knobs.applied.nr_requests')"
t_expect_eq "knobs restored" true "$(t_json "$res" '.runs[1].knobs.restored')"
t_expect_eq "restore journal left" "" "$(ls -A "$T_SCRATCH/state")"
t_done
