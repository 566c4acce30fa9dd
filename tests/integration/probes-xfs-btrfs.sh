#!/bin/bash
# The xfs and btrfs eBPF sources see their filesystem's events: 200 fsyncs on xfs force
# the log and write iclogs; on btrfs they enter btrfs_sync_file and complete ordered
# extents. The other filesystems' sources say why they were skipped.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root

t_range() { # WHAT LO HI VALUE
	if [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then t_ok "$1 = $4"; else t_fail "$1: expected $2..$3, got '$4'"; fi
}
p='.runs[0].probes'

t_mkfs_loop xfs 512
mkdir "$T_MNT/x"
out=$T_SCRATCH/xfs.json
"$FSBENCH" smallfile -d "$T_MNT/x" -s 4096 -n 200 --json "$out" >/dev/null || t_fail "xfs run failed"
"$VALIDATE" "$SCHEMA" "$out" || t_fail "xfs result does not validate"
case $(t_json "$out" '.runs[0].probes.sources.block.status') in
"skipped: fsbench was built without BPF"*) t_skip "fsbench was built without BPF support" ;;
esac
t_expect_eq "xfs status" ok "$(t_json "$out" "$p.sources.xfs.status")"
t_expect_eq "jbd2 on xfs" "skipped: the target is xfs, not ext4" "$(t_json "$out" "$p.sources.jbd2.status")"
t_range "xfs log forces" 200 100000 "$(t_json "$out" "$p.sources.xfs.counters.log_forces")"
t_range "xfs iclog writes" 190 100000 "$(t_json "$out" "$p.sources.xfs.counters.iclog_writes")"
t_expect_eq "iclog_write histogram count" "$(t_json "$out" "$p.sources.xfs.counters.iclog_writes")" "$(t_json "$out" "$p.sources.xfs.hists.iclog_write.count")"
# most slow fsyncs wait for the log; one may be slow for want of a CPU on a busy machine
t_range "slow fsyncs that forced the log" 10 20 "$(t_json "$out" "[$p.slow_calls[] | select(.op == \"fsync\") | select(.kernel.xfs.log_forces + .kernel.xfs.iclog_writes >= 1)] | length")"

t_mkfs_loop btrfs 512
mkdir "$T_MNT/x"
out=$T_SCRATCH/btrfs.json
"$FSBENCH" smallfile -d "$T_MNT/x" -s 4096 -n 200 --json "$out" >/dev/null || t_fail "btrfs run failed"
"$VALIDATE" "$SCHEMA" "$out" || t_fail "btrfs result does not validate"
t_expect_eq "btrfs status" ok "$(t_json "$out" "$p.sources.btrfs.status")"
t_expect_eq "xfs on btrfs" "skipped: the target is btrfs, not xfs" "$(t_json "$out" "$p.sources.xfs.status")"
t_range "btrfs sync_file calls" 195 205 "$(t_json "$out" "$p.sources.btrfs.counters.sync_files")"
t_range "btrfs ordered extents" 190 100000 "$(t_json "$out" "$p.sources.btrfs.counters.ordered_extents")"
t_expect_eq "ordered_extent histogram count" "$(t_json "$out" "$p.sources.btrfs.counters.ordered_extents")" "$(t_json "$out" "$p.sources.btrfs.hists.ordered_extent.count")"
t_range "block flushes on btrfs" 200 100000 "$(t_json "$out" "$p.sources.block.counters.flush_issued")"
t_done
