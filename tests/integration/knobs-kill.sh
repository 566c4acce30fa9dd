#!/bin/bash
# SIGTERM in mid-run restores at once; kill -9 in mid-run: the journal survives, a new run refuses to touch knobs, `fsbench
# restore` puts the values back and removes it, a second restore has nothing to do; a
# journal whose device changed identity is refused and kept.
. "$(dirname "$0")/lib.sh"
t_need_root
export FSBENCH_STATE_DIR=$T_SCRATCH/state
t_mkfs_loop ext4 256
disk=$(basename "$T_DEV")
Q=/sys/block/$disk/queue
old_nr=$(cat "$Q/nr_requests") old_ra=$(cat "$Q/read_ahead_kb")
new_nr=32; [ "$old_nr" = 32 ] && new_nr=64
new_ra=$((old_ra + 64))

start_and_kill() {
	local sig=${1:-KILL}
	mkdir -p "$T_MNT/d"
	"$FSBENCH" smallfile -d "$T_MNT/d" -s 4096 -n 10000000 --runtime 60 --quiet \
		--knob "nr_requests=$new_nr" --knob "read_ahead_kb=$new_ra" &
	local pid=$! i
	for i in $(seq 200); do
		[ "$(cat "$Q/read_ahead_kb")" = "$new_ra" ] && break
		sleep 0.05
	done
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	status=$?
}

# a signal stops the run, and the run restores its knobs itself
start_and_kill TERM
t_expect_eq "exit status after SIGTERM" 143 "$status"
t_expect_eq "read_ahead_kb after SIGTERM" "$old_ra" "$(cat "$Q/read_ahead_kb")"
t_expect_eq "nr_requests after SIGTERM" "$old_nr" "$(cat "$Q/nr_requests")"
t_expect_eq "journals after SIGTERM" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"

start_and_kill
t_expect_eq "read_ahead_kb after kill -9" "$new_ra" "$(cat "$Q/read_ahead_kb")"
t_expect_eq "journals after kill -9" 1 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"

out=$("$FSBENCH" smallfile -d "$T_MNT/d" -n 10 --quiet --knob read_ahead_kb=256 2>&1)
t_expect_eq "a new run with --knob while a dead run's journal is pending" 1 "$?"
case $out in *"fsbench restore"*) t_ok "it says to run fsbench restore" ;; *) t_fail "message: $out" ;; esac

"$FSBENCH" restore >"$T_SCRATCH/restore.out" 2>&1
t_expect_eq "restore exit status" 0 "$?"
t_expect_eq "nr_requests restored" "$old_nr" "$(cat "$Q/nr_requests")"
t_expect_eq "read_ahead_kb restored" "$old_ra" "$(cat "$Q/read_ahead_kb")"
t_expect_eq "journals after restore" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
grep -q "read_ahead_kb=.*restored" "$T_SCRATCH/restore.out" && t_ok "restore says what it did" ||
	t_fail "restore output: $(cat "$T_SCRATCH/restore.out")"
"$FSBENCH" restore >"$T_SCRATCH/restore2.out" 2>&1
t_expect_eq "second restore exit status" 0 "$?"
grep -q "nothing to restore" "$T_SCRATCH/restore2.out" && t_ok "second restore has nothing to do" ||
	t_fail "second restore: $(cat "$T_SCRATCH/restore2.out")"

# kill during the run's own restore (issue 11 item 7). The journal of a switch from none
# to mq-deadline with nr_requests set holds nr_requests (under none), the scheduler, and
# nr_requests again (mq-deadline's default, which none may refuse). A run's own restore
# killed just after putting the scheduler back leaves exactly this: scheduler none, the
# journal whole. Replaying it newest first wrote mq-deadline's value under none: EINVAL.
sched_list=$(cat "$Q/scheduler")
case $sched_list in *mq-deadline*none* | *none*mq-deadline*)
	echo none >"$Q/scheduler"
	nr_none=$(cat "$Q/nr_requests")
	nr_x=16; [ "$nr_none" = 16 ] && nr_x=24
	mkdir -p "$T_MNT/d"
	"$FSBENCH" smallfile -d "$T_MNT/d" -s 4096 -n 10000000 --runtime 60 --quiet \
		--knob scheduler=mq-deadline --knob "nr_requests=$nr_x" &
	pid=$!
	for i in $(seq 200); do
		[ "$(cat "$Q/nr_requests")" = "$nr_x" ] && break
		sleep 0.05
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	t_expect_eq "journalled knobs of the killed run" "nr_requests scheduler nr_requests" \
		"$(jq -r 'select(.knob) | .knob' "$FSBENCH_STATE_DIR"/journal-*.jsonl | xargs)"
	echo none >"$Q/scheduler" # what the killed restore had done
	"$FSBENCH" restore >"$T_SCRATCH/restore-mid.out" 2>&1
	t_expect_eq "restore after a kill during restore: exit status" 0 "$?"
	t_expect_eq "scheduler after it" none "$(sed 's/.*\[\(.*\)\].*/\1/' "$Q/scheduler")"
	t_expect_eq "nr_requests after it" "$nr_none" "$(cat "$Q/nr_requests")"
	t_expect_eq "journals after it" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
	grep -q "scheduler=\"none\": restored" "$T_SCRATCH/restore-mid.out" &&
		t_ok "a knob already at its value counts as restored" ||
		t_fail "restore output: $(cat "$T_SCRATCH/restore-mid.out")"
	;;
*) echo "SKIP (part): $disk offers no mq-deadline and none: $sched_list" ;;
esac

# the device goes away and the loop comes back on a new diskseq: not the same device
start_and_kill
img=$(losetup -n -O BACK-FILE "$T_DEV")
umount "$T_MNT" || t_die "umount $T_MNT"
losetup -d "$T_DEV"
dev2=$(losetup --find --show "$img") || t_die "re-attaching $img"
T_LOOPS+=("$dev2")
mount "$dev2" "$T_MNT" || t_die "mounting $dev2"
Q2=/sys/block/$(basename "$dev2")/queue
ra2=$(cat "$Q2/read_ahead_kb")
"$FSBENCH" restore >"$T_SCRATCH/restore3.out" 2>&1
t_expect_eq "restore onto a changed device exit status" 1 "$?"
grep -q -e "diskseq" -e "is gone" "$T_SCRATCH/restore3.out" && t_ok "restore says the device changed" ||
	t_fail "restore output: $(cat "$T_SCRATCH/restore3.out")"
t_expect_eq "read_ahead_kb of the new device untouched" "$ra2" "$(cat "$Q2/read_ahead_kb")"
t_expect_eq "journal kept" 1 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
"$FSBENCH" restore --discard >/dev/null 2>&1
t_expect_eq "journals after --discard" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
t_done
