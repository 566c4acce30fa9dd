#!/bin/bash
# Without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN every eBPF source is skipped with its
# reason, and the run still passes and writes a valid result.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root
command -v capsh >/dev/null || t_skip "capsh (libcap2-bin) is not installed"

t_mkfs_loop ext4 64
out=$T_SCRATCH/r.json
mkdir "$T_MNT/x" "$T_MNT/y" "$T_MNT/z"
capsh --drop=cap_bpf,cap_perfmon,cap_sys_admin -- -c \
	"\"$FSBENCH\" smallfile -d \"$T_MNT/x\" -s 4096 -n 50 --json \"$out\"" >/dev/null ||
	t_fail "the run failed without privilege"
"$VALIDATE" "$SCHEMA" "$out" || t_fail "result does not validate"
case $(t_json "$out" '.runs[0].probes.sources.block.status') in
"skipped: fsbench was built without BPF"*) t_skip "fsbench was built without BPF support" ;;
esac
p='.runs[0].probes'
t_expect_eq "sources" "$(t_json "$out" "$p.sources | length")" "$(t_json "$out" "[$p.sources[] | select(.status | startswith(\"skipped: \"))] | length")"
t_expect_eq "block reason" "skipped: loading BPF programs needs CAP_BPF and CAP_PERFMON: Operation not permitted" "$(t_json "$out" "$p.sources.block.status")"
t_expect_eq "no slow-call attribution" 0 "$(t_json "$out" "$p.slow_calls | length")"
t_expect_eq "files done" 50 "$(t_json "$out" '.runs[0].summary.files')"
t_done
