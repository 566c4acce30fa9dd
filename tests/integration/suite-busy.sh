#!/bin/bash
# Issue 40, item 5: a suite's mkfs that finds its device busy says who holds it. A process in
# a mount namespace of its own (unshare -m, as a privilege-separated step or a container) has
# the loop device mounted and sleeps: the host sees no mount, so --device takes the device,
# and mkfs fails "apparently in use by the system"; the cell's error names the sleeping
# process's pid, its comm and where it mounted the device. Once it is gone, the suite runs.
. "$(dirname "$0")/lib.sh"
t_need_root
command -v mkfs.ext4 >/dev/null || t_skip "mkfs.ext4 is not installed"
command -v unshare >/dev/null || t_skip "unshare is not installed"
cat >"$T_SCRATCH/s.json" <<'JSON'
{ "filesystems": ["ext4"],
  "workloads": [ { "name": "smallfile", "params": { "size": "4k", "files": 20 } } ] }
JSON
t_mkfs_loop ext4 64
dev=$T_DEV
umount "$T_MNT" || t_die "umount $T_MNT"
mkdir "$T_SCRATCH/held"
# unshare without --fork execs sh, which execs sleep: $! is the holder, and killing it (the
# cleanup does) ends its namespace and the mount with it
unshare -m --propagation private sh -c 'mount "$1" "$2" && echo $$ >"$3" && exec sleep 600' \
	sh "$dev" "$T_SCRATCH/held" "$T_SCRATCH/holder.pid" &
holder=$!
T_PIDS+=("$holder")
for i in $(seq 50); do [ -s "$T_SCRATCH/holder.pid" ] && break; sleep 0.1; done
[ "$(cat "$T_SCRATCH/holder.pid" 2>/dev/null)" = "$holder" ] || t_die "the holder did not mount $dev"
grep -q " $T_SCRATCH/held " /proc/self/mountinfo && t_die "the holder's mount reached the host's namespace"

"$FSBENCH" suite "$T_SCRATCH/s.json" --device "$dev" --force -r 1 --no-canary \
	--json "$T_SCRATCH/busy.json" >"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
t_expect_eq "exit status with the device held" 1 "$?"
line=$(grep "failed:" "$T_SCRATCH/out" | head -1)
echo "# $line"
want="mounted on $T_SCRATCH/held in the mount namespace of pid $holder (sleep)"
grep -qF "$want" <<<"$line" && t_ok "the cell's error names the holder: pid $holder (sleep)" ||
	t_fail "the cell's error lacks '$want': $line"
grep -qF "$dev ($(printf '%d:%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")) is busy" <<<"$line" &&
	t_ok "it says the device is busy, with its number" || t_fail "no '$dev (MAJ:MIN) is busy' in: $line"
grep -qF "$want" <<<"$(t_json "$T_SCRATCH/busy.json" '.runs[0].target.error')" &&
	t_ok "the result's target.error names it too" || t_fail "target.error: $(t_json "$T_SCRATCH/busy.json" '.runs[0].target.error')"

kill "$holder" && wait "$holder" 2>/dev/null
"$FSBENCH" suite "$T_SCRATCH/s.json" --device "$dev" --force -r 1 --no-canary \
	--json "$T_SCRATCH/free.json" >"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
t_expect_eq "exit status once the holder is gone" 0 "$?"
t_done
