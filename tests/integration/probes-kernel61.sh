#!/bin/bash
# The eBPF sources on Debian's 6.1 kernel (the one ci/setup downloads), booted once in QEMU:
# block, jbd2 and writeback load (6.1's verifier refused block and jbd2 and libbpf refused
# writeback in a guest before), N fsyncs on ext4 give about N journal commits and at least
# N device flushes, the counts agree with the guest's diskstats, and writeback's pauses,
# read from 6.1's argument layout, are whole jiffies no longer than the kernel's maximum.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
kg_need_kernel 6.1.
mkdir -p /dev/shm/fsbench-test.$$ && DISKS=/dev/shm/fsbench-test.$$
trap 'rm -rf "$DISKS"; t_cleanup' EXIT

t_range() { # WHAT LO HI VALUE
	if [[ "$4" =~ ^[0-9]+$ ]] && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then t_ok "$1 = $4"; else t_fail "$1: expected $2..$3, got '$4'"; fi
}

# One boot: N files with an fsync each, and a 64 MiB buffered writer under a 4 MiB dirty
# limit with 4 KiB requests (the guest's own settings; the host's are untouched), on ext4
# and on btrfs, whose writeback costs the one vCPU enough that balance_dirty_pages pauses
# the writer (20 to 26 times in each boot tried; ext4's kept up in most).
N=100
fs='"ext4"'
command -v mkfs.btrfs >/dev/null && fs='"ext4", "btrfs"'
cat >"$T_SCRATCH/suite.json" <<EOF
{
  "description": "probes-kernel61: $N fsyncs, then a writer under a 4 MiB dirty limit",
  "filesystems": [$fs],
  "workloads": [
    { "name": "smallfile", "params": { "size": "4k", "files": $N, "sync": 1 } },
    { "name": "stream", "params": { "size": "64M", "chunk": "1M", "mode": "fdatasync" } }
  ],
  "knob_sets": [ { "name": "dirty4m-4k", "knobs": { "dirty_bytes": 4194304, "dirty_background_bytes": 1048576,
                                                  "max_sectors_kb": 4, "nomerges": 2 } } ],
  "threads": [1],
  "repetitions": 1,
  "image_size": "320M"
}
EOF
out=$T_SCRATCH/r.json
# the host-timed virtio disk: it has a write cache, so the flushes the fsyncs cause reach it
# (the model disk has none unless --disk-cache gives it one)
# with the guest kernel's BPF run-time statistics on: each program's runs reach the result
"$FSBENCH" kernel-run --kernel "$deb" --disk virtio --disk-dir "$DISKS" --disk-size 512M --workdir "$T_SCRATCH/boot" \
	--append sysctl.kernel.bpf_stats_enabled=1 --json "$out" "$T_SCRATCH/suite.json" >"$T_SCRATCH/out" 2>"$T_SCRATCH/err" ||
	t_die "kernel-run on $deb failed: $(tail -5 "$T_SCRATCH/err")"
"$VALIDATE" "$SCHEMA" "$out" || t_fail "the guest's result does not validate"
t_json "$out" .host.kernel | grep -q '^6\.1\.' || t_die "the guest ran $(t_json "$out" .host.kernel), not 6.1"
case $(t_json "$out" '.runs[0].probes.sources.block.status') in
"skipped: fsbench was built without BPF"*) t_skip "fsbench was built without BPF support" ;;
esac

r='.runs[] | select(.coords.workload == "smallfile" and .coords.fs == "ext4")'
p="$r | .probes.sources"
for s in block jbd2 writeback iomap; do
	t_expect_eq "$s status" ok "$(t_json "$out" "$p.$s.status")"
done
t_expect_eq "block build" tp_btf "$(t_json "$out" "$p.block.build")"
t_expect_eq "jbd2 build" tp_btf "$(t_json "$out" "$p.jbd2.build")"
t_expect_eq "writeback found 6.1's layout" "pause is argument 10" \
	"$(t_json "$out" "$p.writeback.note" | grep -o 'pause is argument [0-9]*')"
t_range "jbd2 commits for $N fsyncs" $N $((N + N / 10 + 5)) "$(t_json "$out" "$p.jbd2.counters.commits")"
t_expect_eq "commit histogram count = commits" "$(t_json "$out" "$p.jbd2.counters.commits")" \
	"$(t_json "$out" "$p.jbd2.hists.commit.count")"
t_range "commits with their phases" $N $((N + N / 10 + 5)) "$(t_json "$out" "$p.jbd2.hists.logging.count")"
t_range "end_commit runs counted (bpf_stats)" $N $((N + N / 10 + 5)) "$(t_json "$out" "$p.jbd2.programs.fsb_jbd2_end_commit.runs")"
t_expect_eq "their run time counted" true "$(t_json "$out" "$p.jbd2.programs.fsb_jbd2_end_commit.run_ns > 0")"
t_expect_eq "every block program counted" 3 "$(t_json "$out" "$p.block.programs | keys | length")"
t_range "bios with PREFLUSH" $N $((N * 3)) "$(t_json "$out" "$p.block.counters.bio_preflush")"
# the guest's own count of the flushes its disk did: every one issued is seen, none twice
dflush=$(t_json "$out" "$r | .kernel.device.flush_ios")
t_range "guest diskstats flushes" $N $((N * 4)) "$dflush"
t_range "flushes issued (diskstats $dflush)" $((dflush - 5)) "$dflush" "$(t_json "$out" "$p.block.counters.flush_issued")"
t_range "flushes completed (flush.d2c)" $N "$dflush" "$(t_json "$out" "$p.block.hists[\"flush.d2c\"].count")"
t_expect_eq "block events dropped" 0 "$(t_json "$out" "$p.block.counters.events_dropped")"
t_range "fsyncs explained with a commit" 1 20 \
	"$(t_json "$out" "[$r | .probes.slow_calls[] | select(.op == \"fsync\" and .kernel.commits_total >= 1)] | length")"

# writeback: the pauses are 6.1's pause argument (ctx[10]), in jiffies of this HZ: a whole
# number of jiffies each, none over MAX_PAUSE (HZ/5 jiffies, 200 ms). Another argument
# (6.18's ctx[6] is a rate here, others page counts) is positive on every throttled call
# and gives seconds, or no multiple of the jiffy.
w='[.runs[] | select(.coords.workload == "stream") | .probes.sources.writeback]'
t_expect_eq "writeback status (stream)" ok "$(t_json "$out" "$w | map(.status) | unique | join(\" \")")"
hz=$(t_json "$out" "${w}[0].note" | sed -n 's/^HZ \([0-9]*\);.*/\1/p')
t_expect_eq "guest HZ (Debian's CONFIG_HZ)" 250 "$hz"
pauses=$(t_json "$out" "$w | map(.counters.pauses) | add")
pause_ns=$(t_json "$out" "$w | map(.counters.pause_ns) | add")
jiffy=$((1000000000 / ${hz:-1}))
if [ "$fs" = '"ext4"' ]; then
	echo "note: no mkfs.btrfs: ext4's writer alone, which writeback mostly keeps up with"
	t_range "writer pauses" 0 100000 "$pauses"
else
	t_range "writer pauses" 1 100000 "$pauses"
fi
if [ "${pauses:-0}" -gt 0 ] 2>/dev/null; then
	[ $((pause_ns % jiffy)) = 0 ] && t_ok "pause_ns $pause_ns is whole jiffies of $jiffy ns" ||
		t_fail "pause_ns $pause_ns is not a multiple of the $jiffy ns jiffy"
	t_range "longest pause (ns)" "$jiffy" 200000000 "$(t_json "$out" "$w | map(.hists.pause.max_ns // 0) | max")"
	t_expect_eq "pause histogram count = pauses" "$pauses" "$(t_json "$out" "$w | map(.hists.pause.count // 0) | add")"
fi

t_done
