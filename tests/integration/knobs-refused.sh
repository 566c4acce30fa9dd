#!/bin/bash
# Values that are refused leave nothing changed: by validation (a scheduler the queue does
# not list, nr_requests=0, which the kernel would silently raise to 4) with exit 2, and by
# the kernel (nr_requests above the hardware queue depth without a scheduler) with exit 1,
# the errno, and the knobs set before it in the batch rolled back.
. "$(dirname "$0")/lib.sh"
t_need_root
export FSBENCH_STATE_DIR=$T_SCRATCH/state
t_mkfs_loop ext4 256
disk=$(basename "$T_DEV")
Q=/sys/block/$disk/queue
grep -q -w none "$Q/scheduler" || t_skip "$disk cannot run without a scheduler"
echo none >"$Q/scheduler"   # our own loop device
old_ra=$(cat "$Q/read_ahead_kb") old_nr=$(cat "$Q/nr_requests") old_sched=$(cat "$Q/scheduler")
new_ra=$((old_ra + 64))
mkdir -p "$T_MNT/d"

run() { "$FSBENCH" smallfile -d "$T_MNT/d" -n 10 --quiet "$@" 2>&1; }
unchanged() {
	t_expect_eq "$1: read_ahead_kb unchanged" "$old_ra" "$(cat "$Q/read_ahead_kb")"
	t_expect_eq "$1: nr_requests unchanged" "$old_nr" "$(cat "$Q/nr_requests")"
	t_expect_eq "$1: scheduler unchanged" "$old_sched" "$(cat "$Q/scheduler")"
	t_expect_eq "$1: no journal left" 0 "$(ls "$FSBENCH_STATE_DIR" 2>/dev/null | wc -l)"
}

out=$(run --knob "read_ahead_kb=$new_ra" --knob scheduler=cfq-not-here)
t_expect_eq "unlisted scheduler exit status" 2 "$?"
case $out in *"cfq-not-here"*"not one of those"*) t_ok "says the scheduler is not listed" ;; *) t_fail "message: $out" ;; esac
unchanged "unlisted scheduler"

out=$(run --knob "read_ahead_kb=$new_ra" --knob nr_requests=0)
t_expect_eq "nr_requests=0 exit status" 2 "$?"
case $out in *"nr_requests"*"out of range"*) t_ok "says nr_requests=0 is out of range" ;; *) t_fail "message: $out" ;; esac
unchanged "nr_requests=0"

# without a scheduler, nr_requests cannot exceed the hardware queue depth
big=$((old_nr * 32)); [ "$big" -gt 65536 ] && big=65536
out=$(run --knob "read_ahead_kb=$new_ra" --knob "nr_requests=$big")
t_expect_eq "nr_requests=$big exit status" 1 "$?"
case $out in *"nr_requests=$big"*"refused"*"Invalid argument"*) t_ok "says the kernel refused it: $out" ;;
*) t_fail "message: $out" ;; esac
unchanged "nr_requests=$big"

out=$("$FSBENCH" knobs "$T_MNT" --set "read_ahead_kb=$new_ra" --set "nr_requests=$big" 2>&1)
t_expect_eq "knobs --set nr_requests=$big exit status" 1 "$?"
case $out in *"nothing was changed"*) t_ok "knobs --set says nothing was changed" ;; *) t_fail "message: $out" ;; esac
unchanged "knobs --set nr_requests=$big"

out=$(run --knob no_such_knob=1)
t_expect_eq "unknown knob exit status" 2 "$?"
out=$(run --knob drive_cache=off)
t_expect_eq "drive_cache on a loop device exit status" 2 "$?"
case $out in *"drive_cache"*"SCSI"*) t_ok "says drive_cache needs a SCSI/SATA disk" ;; *) t_fail "message: $out" ;; esac
t_done
