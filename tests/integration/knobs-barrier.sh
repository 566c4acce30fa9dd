#!/bin/bash
# Barriers per filesystem: xfs no longer accepts nobarrier (probes/target/fs_traits.c), so
# barrier=0 is "unsupported" without asking the kernel, and the mount (and the rest of the
# batch) stays as it was; btrfs takes nobarrier/barrier by remount.
. "$(dirname "$0")/lib.sh"
t_need_root
export FSBENCH_STATE_DIR=$T_SCRATCH/state
mnt_line() { awk -v m="$1" '$5 == m { print $6 " " $NF }' /proc/self/mountinfo; }

t_mkfs_loop xfs 320
Q=/sys/block/$(basename "$T_DEV")/queue
old_ra=$(cat "$Q/read_ahead_kb") old_line=$(mnt_line "$T_MNT")
mkdir -p "$T_MNT/d"
out=$("$FSBENCH" smallfile -d "$T_MNT/d" -n 10 --quiet --knob "read_ahead_kb=$((old_ra + 64))" --knob barrier=0 2>&1)
t_expect_eq "xfs barrier=0 exit status" 1 "$?"
case $out in *"barrier=0 on xfs $T_MNT: unsupported"*"nobarrier"*) t_ok "xfs: $out" ;; *) t_fail "message: $out" ;; esac
# the kernel was not asked: it would have logged the option it does not know
dmesg 2>/dev/null | tail -n 5 | grep -q "Unknown parameter 'nobarrier'" && t_fail "xfs was asked for nobarrier"
t_expect_eq "xfs mount unchanged" "$old_line" "$(mnt_line "$T_MNT")"
t_expect_eq "xfs read_ahead_kb rolled back" "$old_ra" "$(cat "$Q/read_ahead_kb")"
t_expect_eq "xfs journals left" 0 "$(ls "$FSBENCH_STATE_DIR" 2>/dev/null | wc -l)"
"$FSBENCH" knobs "$T_MNT" --set barrier=1 >/dev/null
t_expect_eq "xfs barrier=1 (already so) exit status" 0 "$?"

t_mkfs_loop btrfs 320
"$FSBENCH" knobs "$T_MNT" --set barrier=0 >/dev/null || t_fail "btrfs barrier=0"
case " $(mnt_line "$T_MNT") " in *nobarrier*) t_ok "btrfs nobarrier in mountinfo" ;; *) t_fail "btrfs: $(mnt_line "$T_MNT")" ;; esac
t_expect_eq "btrfs knobs shows barrier" 0 "$("$FSBENCH" knobs "$T_MNT" --json | jq .knobs.barrier)"
"$FSBENCH" knobs "$T_MNT" --set barrier=1 >/dev/null || t_fail "btrfs barrier=1"
case " $(mnt_line "$T_MNT") " in *nobarrier*) t_fail "btrfs still nobarrier: $(mnt_line "$T_MNT")" ;; *) t_ok "btrfs barriers back on" ;; esac
t_done
