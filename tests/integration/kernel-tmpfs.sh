#!/bin/bash
# The kernel extension on tmpfs: no block device, said plainly; no device figures, no
# write amplification, fs statistics absent with a reason; memory is still sampled.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root

t_tmpfs 64
out=$T_SCRATCH/tmpfs.json
"$FSBENCH" smallfile -d "$T_MNT" -n 100 -s 4k --json "$out" >/dev/null || t_fail "tmpfs run failed"
r='.runs[0]'
t_expect_eq "target.fstype" tmpfs "$(t_json "$out" "$r.target.fstype")"
t_expect_eq "target.has_block_device" false "$(t_json "$out" "$r.target.has_block_device")"
t_expect_eq "target.device" null "$(t_json "$out" "$r.target.device")"
t_expect_eq "target.note" "tmpfs has no block device" "$(t_json "$out" "$r.target.note")"
t_expect_eq "kernel.device" null "$(t_json "$out" "$r.kernel.device")"
t_expect_eq "kernel.device_reason" "tmpfs has no block device" "$(t_json "$out" "$r.kernel.device_reason")"
t_expect_eq "kernel.write_amplification" null "$(t_json "$out" "$r.kernel.write_amplification")"
t_expect_eq "kernel.inflight_max" null "$(t_json "$out" "$r.kernel.inflight_max")"
t_expect_eq "kernel.samples.inflight_write" null "$(t_json "$out" "$r.kernel.samples.inflight_write")"
t_expect_eq "fs_stats.tmpfs.available" false "$(t_json "$out" "$r.kernel.fs_stats.tmpfs.available")"
t_json "$out" "$r.kernel.fs_stats.tmpfs.reason" | grep -q "no journal or commit statistics for tmpfs" ||
	t_fail "fs_stats.tmpfs.reason: $(t_json "$out" "$r.kernel.fs_stats.tmpfs.reason")"
t_expect_eq "dirty_max_bytes is a number" number "$(t_json "$out" "$r.kernel.dirty_max_bytes | type")"
[ "$(t_json "$out" "$r.kernel.samples.t_ns | length")" -ge 2 ] || t_fail "fewer than 2 samples"
"$VALIDATE" "$SCHEMA" "$out" || t_fail "tmpfs result does not validate"

t_done
