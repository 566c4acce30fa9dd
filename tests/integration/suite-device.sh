#!/bin/bash
# fsbench suite --device: a mounted device and one holding a signature are refused; --force
# takes the latter; the device is left unmounted.
. "$(dirname "$0")/lib.sh"
t_need_root
command -v mkfs.ext4 >/dev/null || t_skip "mkfs.ext4 is not installed"

cat >"$T_SCRATCH/s.json" <<'JSON'
{ "filesystems": ["ext4"],
  "workloads": [ { "name": "smallfile", "params": { "size": "4k", "files": 20 } } ] }
JSON

t_mkfs_loop ext2 128
dev=$T_DEV
"$FSBENCH" suite "$T_SCRATCH/s.json" --device "$dev" --force --json "$T_SCRATCH/m.json" >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "mounted device exit status" 1 "$?"
grep -q "is mounted on $T_MNT" "$T_SCRATCH/err" || t_fail "mounted device: $(cat "$T_SCRATCH/err")"
t_expect_eq "still ext2" ext2 "$(blkid -o value -s TYPE "$dev")"

umount "$T_MNT"
"$FSBENCH" suite "$T_SCRATCH/s.json" --device "$dev" --json "$T_SCRATCH/s1.json" >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "signature exit status" 1 "$?"
grep -q "holds a signature of type ext2; --force" "$T_SCRATCH/err" || t_fail "signature: $(cat "$T_SCRATCH/err")"
t_expect_eq "still ext2" ext2 "$(blkid -o value -s TYPE "$dev")"

"$FSBENCH" suite "$T_SCRATCH/s.json" --device "$dev" --force --json "$T_SCRATCH/f.json" >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "--force exit status" 0 "$?"
t_expect_eq "now ext4" ext4 "$(blkid -o value -s TYPE "$dev")"
t_expect_eq "run's device" "$dev" "$(t_json "$T_SCRATCH/f.json" '.runs[0].target.source')"
t_expect_eq "no image for a device" null "$(t_json "$T_SCRATCH/f.json" '.runs[0].target.loop')"
grep -qF " $dev " /proc/self/mountinfo && t_fail "$dev left mounted"
losetup "$dev" >/dev/null 2>&1 || t_fail "fsbench detached a loop device it did not attach"

# two suites on one device: the second is refused while the first holds it
cat >"$T_SCRATCH/long.json" <<'JSON'
{ "filesystems": ["ext4"], "repetitions": 3,
  "workloads": [ { "name": "smallfile", "params": { "size": "4k", "files": 2000 } } ] }
JSON
"$FSBENCH" suite "$T_SCRATCH/long.json" --device "$dev" --force --json "$T_SCRATCH/l1.json" >/dev/null 2>"$T_SCRATCH/err1" &
first=$!
for _ in $(seq 100); do grep -qF " $dev " /proc/self/mountinfo && break; sleep 0.1; done
"$FSBENCH" suite "$T_SCRATCH/s.json" --device "$dev" --force --json "$T_SCRATCH/l2.json" >/dev/null 2>"$T_SCRATCH/err2"
t_expect_eq "second suite on a busy device: exit" 1 "$?"
grep -q "device $dev is in use by another fsbench (pid $first" "$T_SCRATCH/err2" || t_fail "busy device: $(cat "$T_SCRATCH/err2")"
wait $first
t_expect_eq "the first suite: exit" 0 "$?"
grep -qF " $dev " /proc/self/mountinfo && t_fail "$dev left mounted"
t_done
