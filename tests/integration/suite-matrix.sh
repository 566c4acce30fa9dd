#!/bin/bash
# fsbench suite on an image: all four filesystems made, mounted and checked; the result's
# target is what libblkid and libmount saw; nothing of fsbench's is left attached or mounted.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root
for fs in ext3 ext4 xfs btrfs; do
	command -v "mkfs.$fs" >/dev/null || t_skip "mkfs.$fs is not installed"
done

img=$T_SCRATCH/suite.img
res=$T_SCRATCH/r.json
# only what fsbench could have made: loop devices on our image, mounts under our scratch
ours() {
	losetup -l -n -O NAME,BACK-FILE | grep -F "$T_SCRATCH" || true
	grep -F "$T_SCRATCH" /proc/self/mountinfo || true
}
before=$(ours)
t_expect_eq "nothing of ours before" "" "$before"

cat >"$T_SCRATCH/s.json" <<'JSON'
{
  "description": "integration: four filesystems, options that show in mountinfo",
  "filesystems": [
    { "type": "ext3", "mount_options": "data=writeback" },
    { "type": "ext4", "barrier": "off" },
    { "type": "xfs", "mount_options": "noatime" },
    { "type": "btrfs", "mkfs_options": "-m single" }
  ],
  "workloads": [ { "name": "smallfile", "params": { "size": "4k", "files": 50, "files-per-subdir": 10, "subdirs": 4, "sync": 1 } } ],
  "threads": [1, 2],
  "image_size": "512M"
}
JSON

"$FSBENCH" suite "$T_SCRATCH/s.json" --image "$img" --json "$res" --repetitions 1 >"$T_SCRATCH/out" 2>&1
rc=$?
cat "$T_SCRATCH/out"
t_expect_eq "exit status" 0 "$rc"
t_expect_eq "left attached or mounted" "" "$(ours)"
[ -e "$img" ] && t_fail "image $img was not removed"
"$VALIDATE" "$SCHEMA" "$res" || t_fail "result does not validate"

t_expect_eq "runs" 8 "$(t_json "$res" '.runs | length')"
t_expect_eq "complete" true "$(t_json "$res" '.complete')"
t_expect_eq "cells" "ext3/smallfile/t=1 ext3/smallfile/t=2 ext4/barrier=0/smallfile/t=1 ext4/barrier=0/smallfile/t=2 xfs/smallfile/t=1 xfs/smallfile/t=2 btrfs/smallfile/t=1 btrfs/smallfile/t=2" \
	"$(t_json "$res" '[.runs[].coords.cell] | join(" ")')"
# libblkid's type on the device is what the suite asked mkfs for (ext3 is not ext4)
t_expect_eq "blkid type = coords.fs" "" \
	"$(t_json "$res" '.runs[] | select(.target.blkid_type != .coords.fs) | .coords.cell')"
t_expect_eq "files per run" "50 100 50 100 50 100 50 100" "$(t_json "$res" '[.runs[].summary.files] | join(" ")')"
# options as libmount read them back carry what was requested
t_expect_eq "ext3 data=writeback read back" true \
	"$(t_json "$res" '[.runs[] | select(.coords.fs == "ext3") | .target.mount_options | test("data=writeback")] | all')"
t_expect_eq "ext4 barrier=0 read back" true \
	"$(t_json "$res" '[.runs[] | select(.coords.fs == "ext4") | .target.mount_options | test("nobarrier")] | all')"
t_expect_eq "ext4 requested" "barrier=0" "$(t_json "$res" '.runs[2].coords.mount_options')"
t_expect_eq "xfs noatime read back" true \
	"$(t_json "$res" '[.runs[] | select(.coords.fs == "xfs") | .target.mount_options | test("noatime")] | all')"
t_expect_eq "btrfs mkfs argv" "mkfs.btrfs -f -q -m single" \
	"$(t_json "$res" '.runs[6].target.mkfs[0:5] | join(" ")')"
t_expect_eq "ext4 mkfs lazy init off" "lazy_itable_init=0,lazy_journal_init=0" \
	"$(t_json "$res" '.runs[2].target.mkfs[4]')"
t_expect_eq "loop backing file" "$img" "$(t_json "$res" '.runs[0].target.loop.backing_file')"
t_expect_eq "loop autoclear" true "$(t_json "$res" '.runs[0].target.loop.autoclear')"
# the scratch directory is on a disk filesystem here, which takes O_DIRECT
case $(stat -f -c %T "$T_SCRATCH") in
ext2/ext3 | xfs | btrfs) t_expect_eq "loop direct I/O" true "$(t_json "$res" '.runs[0].target.loop.direct_io')" ;;
esac
# every run measured the host and ran its canary (200 fsyncs) before and after
t_expect_eq "canaries of 200 fsyncs" 16 \
	"$(t_json "$res" '[.runs[].canary | .before.n, .after.n | select(. == 200)] | length')"
t_expect_eq "canary p50 > 0" true "$(t_json "$res" '[.runs[].canary | .before, .after | .p50_us > 0] | all')"
t_expect_eq "host load measured" true \
	"$(t_json "$res" '[.runs[].host_load | (.others_pct | type) == "number" and .cpus > 0] | all')"
# the table names the filesystems as columns
grep -q "^threads .*ext3.*ext4/barrier=0.*xfs.*btrfs" "$T_SCRATCH/out" || t_fail "no comparison table"

# --- --fs and --threads narrow the matrix; --dry-run makes nothing
"$FSBENCH" suite "$T_SCRATCH/s.json" --image "$img" --fs xfs,ext3 --threads 4 --dry-run >"$T_SCRATCH/dry" || t_fail "dry run failed"
t_expect_eq "dry-run cells" "2" "$(grep -cE '^ *[0-9]+  [a-z]' "$T_SCRATCH/dry")"
[ -e "$img" ] && t_fail "--dry-run created the image"

# --- an image path that exists is refused and left alone
echo keep >"$T_SCRATCH/exists.img"
"$FSBENCH" suite "$T_SCRATCH/s.json" --image "$T_SCRATCH/exists.img" --json "$T_SCRATCH/x.json" >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "existing image exit status" 1 "$?"
grep -q "exists" "$T_SCRATCH/err" || t_fail "no reason given: $(cat "$T_SCRATCH/err")"
t_expect_eq "existing image untouched" keep "$(cat "$T_SCRATCH/exists.img")"
t_expect_eq "left attached or mounted" "" "$(ours)"

# --- --keep-image keeps it (and only then)
"$FSBENCH" suite "$T_SCRATCH/s.json" --image "$img" --fs xfs --threads 1,2 --repetitions 2 --keep-image --no-canary --json "$T_SCRATCH/k.json" >/dev/null 2>&1 || t_fail "--keep-image run failed"
[ -f "$img" ] || t_fail "--keep-image removed the image"
# repetitions go round the matrix, every other round backwards: A B B A
t_expect_eq "interleaved order" "t=1:0 t=2:0 t=2:1 t=1:1" \
	"$(t_json "$T_SCRATCH/k.json" '[.runs[] | "t=\(.threads):\(.coords.repetition)"] | join(" ")')"
t_expect_eq "--no-canary" 0 "$(t_json "$T_SCRATCH/k.json" '[.runs[] | select(.canary)] | length')"
t_expect_eq "coords keys" "barrier cell fs knob_set knobs mkfs_options mount_options params repetition threads workload" \
	"$(t_json "$T_SCRATCH/k.json" '.runs[0].coords | keys | join(" ")')"
t_expect_eq "left attached or mounted" "" "$(ours)"
rm -f "$img"

# --- a failing cell is recorded as failed and the suite goes on; --fail-fast stops there
cat >"$T_SCRATCH/f.json" <<'JSON'
{ "filesystems": [ { "type": "ext4", "mount_options": "no_such_option" }, "xfs" ],
  "workloads": [ { "name": "smallfile", "params": { "size": "4k", "files": 10 } } ],
  "image_size": "320M" }
JSON
"$FSBENCH" suite "$T_SCRATCH/f.json" --image "$img" --json "$T_SCRATCH/f1.json" >/dev/null 2>&1
t_expect_eq "failing cell exit status" 1 "$?"
t_expect_eq "runs after a failing cell" "false true" "$(t_json "$T_SCRATCH/f1.json" '[.runs[].summary.complete] | join(" ")')"
t_json "$T_SCRATCH/f1.json" '.runs[0].summary.error' | grep -q "mounting /dev/loop" || t_fail "failed cell's error: $(t_json "$T_SCRATCH/f1.json" '.runs[0].summary.error')"
t_expect_eq "failing suite complete" false "$(t_json "$T_SCRATCH/f1.json" '.complete')"
"$VALIDATE" "$SCHEMA" "$T_SCRATCH/f1.json" || t_fail "result with a failed cell does not validate"
"$FSBENCH" suite "$T_SCRATCH/f.json" --image "$img" --fail-fast --json "$T_SCRATCH/f2.json" >/dev/null 2>&1
t_expect_eq "--fail-fast exit status" 1 "$?"
t_expect_eq "--fail-fast runs" 1 "$(t_json "$T_SCRATCH/f2.json" '.runs | length')"
t_expect_eq "left attached or mounted" "" "$(ours)"
[ -e "$img" ] && t_fail "image was not removed after failures"
t_done
