#!/bin/bash
# Two runs that change the knobs of one device cannot overlap: the second is refused at once,
# naming the device and the first run's pid, and changes nothing; the first restores the
# original value; then the second may run, also with a state directory of its own (the
# locks are one per system). Runs on two devices overlap freely; kill -9 leaves no lock.
. "$(dirname "$0")/lib.sh"
t_need_root
export FSBENCH_STATE_DIR=$T_SCRATCH/state
t_mkfs_loop ext4 256
mnt_a=$T_MNT disk_a=$(basename "$T_DEV")
Q=/sys/block/$disk_a/queue
old_nr=$(cat "$Q/nr_requests")
x=32 y=48
[ "$old_nr" = 32 ] && x=24
[ "$old_nr" = 48 ] && y=56
mkdir -p "$mnt_a/a" "$mnt_a/b"

# wait_nr QUEUE VALUE: until nr_requests of QUEUE is VALUE (or 10 s)
wait_nr() {
	local i
	for i in $(seq 200); do
		[ "$(cat "$1/nr_requests")" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

"$FSBENCH" smallfile -d "$mnt_a/a" -s 4096 -n 10000000 --runtime 6 --quiet \
	--knob "nr_requests=$x" --json "$T_SCRATCH/first.json" &
first=$!
wait_nr "$Q" "$x" || t_fail "the first run's nr_requests=$x never came in force"

out=$("$FSBENCH" smallfile -d "$mnt_a/b" -s 4096 -n 100 --quiet --knob "nr_requests=$y" 2>&1)
t_expect_eq "a second run on the same device: exit status" 1 "$?"
want="--knob nr_requests=$y: the knobs of $disk_a ($(cat "/sys/block/$disk_a/dev")) are held by another fsbench run (pid $first); runs that change the same knobs cannot overlap"
case $out in *"$want"*) t_ok "it names the device and the holder" ;; *) t_fail "message: $out" ;; esac
t_expect_eq "the second run changed nothing" "$x" "$(cat "$Q/nr_requests")"
t_expect_eq "the second run left no file in the directory" 0 "$(ls "$mnt_a/b" | wc -l)"

out=$("$FSBENCH" knobs "$mnt_a" --set "nr_requests=$y" 2>&1)
t_expect_eq "knobs --set on the same device: exit status" 1 "$?"
case $out in *"held by another fsbench run (pid $first)"*) t_ok "knobs --set names the holder" ;;
*) t_fail "knobs --set message: $out" ;; esac
t_expect_eq "knobs --set changed nothing" "$x" "$(cat "$Q/nr_requests")"

# another FSBENCH_STATE_DIR does not get round the lock (issue 11 item 8)
out=$(FSBENCH_STATE_DIR=$T_SCRATCH/state2 "$FSBENCH" smallfile -d "$mnt_a/b" -s 4096 -n 100 --quiet \
	--knob "nr_requests=$y" 2>&1)
t_expect_eq "a second run with another state directory: exit status" 1 "$?"
case $out in *"held by another fsbench run (pid $first)"*) t_ok "it names the holder" ;;
*) t_fail "message: $out" ;; esac
t_expect_eq "it changed nothing" "$x" "$(cat "$Q/nr_requests")"

# restore keeps its hands off a live run's journal
"$FSBENCH" restore >"$T_SCRATCH/restore.out" 2>&1
t_expect_eq "restore during the run: exit status" 0 "$?"
t_expect_eq "restore during the run changed nothing" "$x" "$(cat "$Q/nr_requests")"
t_expect_eq "journals during the run" 1 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"

wait "$first"
t_expect_eq "the first run: exit status" 0 "$?"
t_expect_eq "nr_requests after the first run" "$old_nr" "$(cat "$Q/nr_requests")"
t_expect_eq "the first run's before" "$old_nr" "$(t_json "$T_SCRATCH/first.json" '.runs[0].knobs.before.nr_requests')"

"$FSBENCH" smallfile -d "$mnt_a/b" -s 4096 -n 100 --quiet --knob "nr_requests=$y" \
	--json "$T_SCRATCH/second.json"
t_expect_eq "the second run, once the first ended: exit status" 0 "$?"
t_expect_eq "its applied nr_requests" "$y" "$(t_json "$T_SCRATCH/second.json" '.runs[0].knobs.applied.nr_requests')"
t_expect_eq "its before (the original)" "$old_nr" "$(t_json "$T_SCRATCH/second.json" '.runs[0].knobs.before.nr_requests')"
t_expect_eq "nr_requests after the second run" "$old_nr" "$(cat "$Q/nr_requests")"

# two devices: the runs overlap, both in force at once, and each restores its own
t_mkfs_loop ext4 256
mnt_b=$T_MNT disk_b=$(basename "$T_DEV")
QB=/sys/block/$disk_b/queue
old_nr_b=$(cat "$QB/nr_requests")
xb=$x
[ "$old_nr_b" = "$xb" ] && xb=$y
mkdir -p "$mnt_b/a"
"$FSBENCH" smallfile -d "$mnt_a/a" -s 4096 -n 10000000 --runtime 3 --quiet --knob "nr_requests=$x" &
pa=$!
"$FSBENCH" smallfile -d "$mnt_b/a" -s 4096 -n 10000000 --runtime 3 --quiet --knob "nr_requests=$xb" &
pb=$!
wait_nr "$Q" "$x" && wait_nr "$QB" "$xb" && kill -0 "$pa" 2>/dev/null && kill -0 "$pb" 2>/dev/null &&
	t_ok "both runs have their knobs in force at once" || t_fail "the two runs did not overlap"
wait "$pa"
t_expect_eq "run on $disk_a: exit status" 0 "$?"
wait "$pb"
t_expect_eq "run on $disk_b: exit status" 0 "$?"
t_expect_eq "nr_requests of $disk_a after" "$old_nr" "$(cat "$Q/nr_requests")"
t_expect_eq "nr_requests of $disk_b after" "$old_nr_b" "$(cat "$QB/nr_requests")"
t_expect_eq "nothing left in the state directory" "" "$(ls -A "$FSBENCH_STATE_DIR")"

# kill -9 drops the lock with the process: restore takes it at once and puts the value back
"$FSBENCH" smallfile -d "$mnt_a/a" -s 4096 -n 10000000 --runtime 60 --quiet --knob "nr_requests=$x" &
pk=$!
wait_nr "$Q" "$x" || t_fail "the killed run's nr_requests=$x never came in force"
kill -9 "$pk"
wait "$pk" 2>/dev/null
start=$(date +%s%N)
"$FSBENCH" restore >"$T_SCRATCH/restore2.out" 2>&1
t_expect_eq "restore after kill -9: exit status" 0 "$?"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 4000 ] && t_ok "restore did not wait for a lock (${ms} ms)" || t_fail "restore waited ${ms} ms for a dead run's lock"
t_expect_eq "nr_requests after restore" "$old_nr" "$(cat "$Q/nr_requests")"
t_expect_eq "nothing left after restore" "" "$(ls -A "$FSBENCH_STATE_DIR")"
t_done
