#!/bin/bash
# kill -9 in the middle of `suite --image` (issue 11 item 6): the mount, the loop device,
# the image and the temporary directory are left; `fsbench restore` puts the run's knobs
# back, then unmounts, detaches and removes them, saying so. Then forged scratch entries
# naming things fsbench did not make (this test's own loop device, mount and files) are
# refused, and those things stay.
. "$(dirname "$0")/lib.sh"
t_need_root
command -v mkfs.ext4 >/dev/null || t_skip "mkfs.ext4 is not installed"
export FSBENCH_STATE_DIR=$T_SCRATCH/state
mkdir -m 0700 "$FSBENCH_STATE_DIR"
img=$T_SCRATCH/k.img
cat >"$T_SCRATCH/s.json" <<'JSON'
{ "filesystems": ["ext4"],
  "knob_sets": [ { "name": "nr40", "knobs": { "nr_requests": 40 } } ],
  "workloads": [
    { "name": "smallfile", "params": { "size": "4k", "files": 100000000, "sync": 0 } }
  ],
  "image_size": "128M" }
JSON

TMPDIR=$T_SCRATCH "$FSBENCH" suite "$T_SCRATCH/s.json" --image "$img" -q \
	--json "$T_SCRATCH/r.json" >"$T_SCRATCH/out" 2>&1 &
pid=$!
mnt="" loop=""
for _ in $(seq 1 300); do
	mnt=$(awk -v s="$T_SCRATCH/" 'index($5, s) == 1 {print $5}' /proc/self/mountinfo)
	loop=$(losetup -n -O NAME -j "$img" 2>/dev/null)
	if [ -n "$mnt" ] && [ -n "$loop" ]; then
		nr=$(cat "/sys/block/$(basename "$loop")/queue/nr_requests")
		[ "$nr" = 40 ] && break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
[ -n "$mnt" ] && [ -n "$loop" ] || t_die "the suite never mounted its image: $(cat "$T_SCRATCH/out")"
# if restore fails, the trap still takes them away
T_MOUNTS+=("$mnt")
T_LOOPS+=("$loop")
tmpdir=$(dirname "$mnt")
t_expect_eq "nr_requests set by the killed suite" 40 "$nr"
grep -qF " $mnt " /proc/self/mountinfo && t_ok "kill -9 left the mount" || t_fail "no mount left"
[ -e "$img" ] && t_ok "kill -9 left the image" || t_fail "no image left"
t_expect_eq "journals left" 2 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"

"$FSBENCH" restore >"$T_SCRATCH/restore.out" 2>&1
t_expect_eq "restore exit status" 0 "$?"
cat "$T_SCRATCH/restore.out"
for what in "nr_requests=.*restored" "unmounted $mnt" "$loop.*detached\|detached $loop" "removed image $img" \
	"removed directory $mnt" "removed directory $tmpdir"; do
	grep -q "$what" "$T_SCRATCH/restore.out" && t_ok "restore says: $what" || t_fail "restore does not say: $what"
done
grep -qF " $mnt " /proc/self/mountinfo && t_fail "still mounted" || t_ok "unmounted"
t_expect_eq "loop devices on the image" "" "$(losetup -n -O NAME -j "$img" 2>/dev/null)"
[ -e "$img" ] && t_fail "the image is still there" || t_ok "the image is gone"
[ -e "$tmpdir" ] && t_fail "$tmpdir is still there" || t_ok "the temporary directory is gone"
t_expect_eq "journals after restore" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"

# forged scratch entries: each names something of this test's, fsbench did not make it
t_mkfs_loop ext4 64
dev=$(cat "/sys/block/$(basename "$T_DEV")/dev") seq=$(cat "/sys/block/$(basename "$T_DEV")/diskseq")
own=$T_SCRATCH/users-file
echo precious >"$own"
mkdir "$T_SCRATCH/users-dir" && echo data >"$T_SCRATCH/users-dir/f"
ino() { stat -c %i "$1"; }
sdev() { stat -c %d "$1"; }
dead_pid=$(sh -c 'echo $$')
{
	printf '{"journal":"fsbench-journal/1","pid":%d,"start":1}\n' "$dead_pid"
	# the image: another inode than the file at that path now
	printf '{"kind":"scratch","what":"image","path":"%s","st_dev":%s,"ino":%s}\n' "$own" "$(sdev "$own")" $(($(ino "$own") + 1))
	# the user's directory, its own identity, but not empty
	printf '{"kind":"scratch","what":"dir","path":"%s","st_dev":%s,"ino":%s}\n' "$T_SCRATCH/users-dir" "$(sdev "$T_SCRATCH/users-dir")" "$(ino "$T_SCRATCH/users-dir")"
	# this test's loop device, its identity right, but backed by another file than "the image"
	printf '{"kind":"scratch","what":"loop","path":"%s","dev":"%s","diskseq":%s,"image":"%s","image_dev":%s,"image_ino":%s}\n' "$T_DEV" "$dev" "$seq" "$own" "$(sdev "$own")" "$(ino "$own")"
	# this test's mount point, with another device than the one mounted there
	printf '{"kind":"scratch","what":"mount","path":"%s","dev":"7:1023","diskseq":1}\n' "$T_MNT"
} >"$FSBENCH_STATE_DIR/journal-1-0.jsonl"
chmod 0600 "$FSBENCH_STATE_DIR/journal-1-0.jsonl"
"$FSBENCH" restore >"$T_SCRATCH/forged.out" 2>&1
t_expect_eq "restore of forged scratch entries: exit status" 1 "$?"
cat "$T_SCRATCH/forged.out"
grep -q "left mounted" "$T_SCRATCH/forged.out" && t_ok "the mount is refused" || t_fail "mount not refused"
grep -q "left attached" "$T_SCRATCH/forged.out" && t_ok "the loop device is refused" || t_fail "loop not refused"
grep -q "not the file fsbench made" "$T_SCRATCH/forged.out" && t_ok "the file is refused" || t_fail "file not refused"
grep -qF " $T_MNT " /proc/self/mountinfo && t_ok "the test's mount stays" || t_fail "the test's mount was unmounted"
t_expect_eq "the test's loop device stays" "$dev" "$(cat "/sys/block/$(basename "$T_DEV")/dev" 2>/dev/null)"
t_expect_eq "the user's file stays" precious "$(cat "$own")"
t_expect_eq "the user's directory stays" data "$(cat "$T_SCRATCH/users-dir/f")"
t_expect_eq "the journal stays" 1 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
"$FSBENCH" restore --discard >/dev/null 2>&1
t_done
