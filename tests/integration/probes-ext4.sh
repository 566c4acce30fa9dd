#!/bin/bash
# eBPF attribution on ext4 over a loop device: 200 fsyncs give about 200 jbd2 commits and
# at least 200 flushes on that device, while another ext4 on another loop device, busy
# with its own fsyncs meanwhile, contributes nothing; the slowest fsyncs are explained.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root

t_range() { # WHAT LO HI VALUE
	if [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then t_ok "$1 = $4"; else t_fail "$1: expected $2..$3, got '$4'"; fi
}
flushes() { awk -v d="$1" '$3 == d { print $(NF - 1) }' /proc/diskstats; }

t_mkfs_loop ext4 128 -E lazy_itable_init=0,lazy_journal_init=0
other_mnt=$T_MNT other_dev=$(basename "$T_DEV")
t_mkfs_loop ext4 128 -E lazy_itable_init=0,lazy_journal_init=0
dev=$(basename "$T_DEV")
[ "$(cat "/sys/block/$dev/queue/write_cache")" = "write back" ] ||
	t_skip "$dev has no volatile write cache: the block layer drops flushes"

# the other device's own fsyncs and flushes for as long as the run lasts
(while :; do dd if=/dev/zero of="$other_mnt/f" bs=4k count=1 oflag=dsync status=none || exit; done) &
bg=$!
trap 'kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; t_cleanup' EXIT
sleep 0.2
f0=$(flushes "$dev") o0=$(flushes "$other_dev")
out=$T_SCRATCH/r.json
mkdir "$T_MNT/x" "$T_MNT/y" "$T_MNT/z"
"$FSBENCH" smallfile -d "$T_MNT/x" -s 4096 -n 200 -t 1 --json "$out" >/dev/null || t_fail "run failed"
f1=$(flushes "$dev") o1=$(flushes "$other_dev")
kill "$bg"
wait "$bg" 2>/dev/null
"$VALIDATE" "$SCHEMA" "$out" || t_fail "result does not validate"
case $(t_json "$out" '.runs[0].probes.sources.block.status') in
"skipped: fsbench was built without BPF"*) t_skip "fsbench was built without BPF support" ;;
esac

p='.runs[0].probes'
t_expect_eq "block status" ok "$(t_json "$out" "$p.sources.block.status")"
t_expect_eq "jbd2 status" ok "$(t_json "$out" "$p.sources.jbd2.status")"
t_expect_eq "device" "$dev" "$(t_json "$out" "$p.device")"
[ $((o1 - o0)) -ge 50 ] || t_fail "the other device flushed only $((o1 - o0)) times: the filter is not tested"
t_range "jbd2 commits" 190 215 "$(t_json "$out" "$p.sources.jbd2.counters.commits")"
t_range "jbd2 commit histogram count" 190 215 "$(t_json "$out" "$p.sources.jbd2.hists.commit.count")"
# the three phases of every commit, timed without a program on jbd2_commit_locking
for h in locked flushing logging; do
	t_range "jbd2 $h phases" 190 215 "$(t_json "$out" "$p.sources.jbd2.hists.$h.count")"
done
# every flush counted happened on this device, and nearly all of them: diskstats also
# counts the few before the run's start; the other device's 50 or more would show
lo=$((f1 - f0 - 20 > 200 ? f1 - f0 - 20 : 200))
t_range "flushes issued" $lo $((f1 - f0)) "$(t_json "$out" "$p.sources.block.counters.flush_issued")"
t_range "flushes completed (flush.d2c)" 200 $((f1 - f0)) "$(t_json "$out" "$p.sources.block.hists[\"flush.d2c\"].count")"
t_range "bios with PREFLUSH" 190 $((f1 - f0)) "$(t_json "$out" "$p.sources.block.counters.bio_preflush")"
# each request issued is timed to its completion once: the tag's slot finds its issue time
iss=$(t_json "$out" "$p.sources.block.counters.issued")
t_range "requests timed issue to completion" $((iss - 5)) "$iss" \
	"$(t_json "$out" "[$p.sources.block.hists | to_entries[] | select(.key | endswith(\".d2c\")) | .value.count] | add")"
t_expect_eq "events dropped" 0 "$(t_json "$out" "$p.sources.block.counters.events_dropped")"

# the slowest fsync: a commit that fits inside it, with this device's flushes inside that
s="$p.slow_calls | map(select(.op == \"fsync\"))"
t_expect_eq "fsyncs explained" 20 "$(t_json "$out" "$s | length")"
t_expect_eq "slowest first" true "$(t_json "$out" "$s | (.[0].duration_ns >= .[19].duration_ns)")"
# most slow fsyncs wait for their commit; one may be slow for want of a CPU on a busy machine
t_range "slow fsyncs with a commit" 10 20 "$(t_json "$out" "[$s | .[] | select(.kernel.commits_total >= 1)] | length")"
c="$s | map(select(.kernel.commits_total >= 1))[0]"
t_expect_eq "the slowest one's commit lies within it" true "$(t_json "$out" "$c | . as \$c | \$c.kernel.commits[0] | .start_ns >= 0 and .start_ns + .duration_ns <= \$c.duration_ns")"
t_expect_eq "its commit flushed" true "$(t_json "$out" "$c | .kernel.commits[0].flushes >= 1")"
t_expect_eq "its commit's phases add up to it" true "$(t_json "$out" "$c | .kernel.commits[0] | .locked_ns + .flushing_ns + .logging_ns == .duration_ns")"
t_expect_eq "window complete" true "$(t_json "$out" "$c | .kernel.complete")"
t_expect_eq "20 slowest creates too" 20 "$(t_json "$out" "$p.slow_calls | map(select(.op == \"create\")) | length")"

# the attribution table, as text and in the HTML report with the I/O map
"$FSBENCH" explain --op fsync -n 3 "$out" >"$T_SCRATCH/explain.txt" || t_fail "explain failed"
t_expect_eq "explain rows" 3 "$(grep -c '^fsync ' "$T_SCRATCH/explain.txt")"
grep -q "= jbd2 commit [0-9.]* ms (locked [0-9.]*, flushing [0-9.]*, logging [0-9.]*; [0-9]* flush\(es\)\? [0-9.]* ms on $dev" "$T_SCRATCH/explain.txt" &&
	t_ok "explain names the commit and its flushes on $dev" || t_fail "explain: $(cat "$T_SCRATCH/explain.txt")"
"$FSBENCH" report --no-plots -o "$T_SCRATCH/r.html" "$out" >/dev/null 2>&1 || t_fail "report failed"
grep -q '<h2>Kernel-side attribution</h2>' "$T_SCRATCH/r.html" && t_ok "report has the attribution section" ||
	t_fail "no attribution section in the report"
t_expect_eq "report attribution rows" 20 "$(grep -o '<tr><td>[a-z_]*</td><td class="num">' "$T_SCRATCH/r.html" | wc -l)"
# the result holds at most 512 points of the map, thinned by a stride that covers every request
t_range "iomap points" 256 512 "$(t_json "$out" "$p.iomap.kept")"
t_expect_eq "iomap stride covers the requests" true \
	"$(t_json "$out" "$p.iomap | .kept * .stride >= .events and (.kept - 1) * .stride < .events")"

# the raw_tp build of the programs, used on kernels without BTF-typed tracepoints
FSBENCH_BPF_RAW_TP=1 "$FSBENCH" smallfile -d "$T_MNT/y" -s 4096 -n 200 --json "$out" >/dev/null || t_fail "raw_tp run failed"
t_range "raw_tp: jbd2 commits" 190 215 "$(t_json "$out" "$p.sources.jbd2.counters.commits")"
t_range "raw_tp: flushes completed" 200 100000 "$(t_json "$out" "$p.sources.block.hists[\"flush.d2c\"].count")"
rm -rf "$T_MNT/y"/*

# one file: its few requests never fill a CPU's stage of FSB_REQ_BATCH completions, so
# all of them reach the histograms only through the read of the stages at the stop
"$FSBENCH" smallfile -d "$T_MNT/y" -s 4096 -n 1 --json "$out" >/dev/null || t_fail "one-file run failed"
iss=$(t_json "$out" "$p.sources.block.counters.issued")
[ "$iss" -ge 3 ] || t_fail "one file issued $iss requests: the staged completions are not tested"
t_expect_eq "one file: every request timed to its completion" "$iss" \
	"$(t_json "$out" "[$p.sources.block.hists | to_entries[] | select(.key | endswith(\".d2c\")) | .value.count] | add")"
rm -rf "$T_MNT/y"/*

# FSBENCH_BPF_DISARMED=1 (ci/bench-probes' calibration): the same programs load and attach
# but are never armed, so they record nothing, and the result says so in every status
FSBENCH_BPF_DISARMED=1 "$FSBENCH" smallfile -d "$T_MNT/y" -s 4096 -n 200 --json "$out" >/dev/null || t_fail "disarmed run failed"
"$VALIDATE" "$SCHEMA" "$out" || t_fail "disarmed result does not validate"
for s in block jbd2 iomap; do
	t_expect_eq "disarmed: $s status" "disarmed: loaded and attached, never armed (FSBENCH_BPF_DISARMED): a calibration, not a measured run" \
		"$(t_json "$out" "$p.sources.$s.status")"
done
t_expect_eq "disarmed: the block build loaded" tp_btf "$(t_json "$out" "$p.sources.block.build")"
t_expect_eq "disarmed: no figures" "null null" "$(t_json "$out" "$p.sources.block.counters") $(t_json "$out" "$p.sources.jbd2.hists")"
t_expect_eq "disarmed: no events" 0 "$(t_json "$out" "$p.events.received")"
t_expect_eq "disarmed: no slow call explained" 0 "$(t_json "$out" "$p.slow_calls | length")"
t_expect_eq "disarmed: xfs still says why not" "skipped: the target is ext4, not xfs" "$(t_json "$out" "$p.sources.xfs.status")"
rm -rf "$T_MNT/y"/*

# sync() (-S 2) hands the device's backing_dev_info writeback work: the writeback source
"$FSBENCH" smallfile -d "$T_MNT/y" -s 64k -n 100 -S 2 --probes block,writeback --json "$out" >/dev/null || t_fail "-S 2 run failed"
t_expect_eq "writeback status" ok "$(t_json "$out" "$p.sources.writeback.status")"
t_expect_eq "jbd2 not selected" "skipped: not selected (--probes)" "$(t_json "$out" "$p.sources.jbd2.status")"
t_range "writeback works" 1 100000 "$(t_json "$out" "$p.sources.writeback.counters.works")"
t_expect_eq "work histogram count" "$(t_json "$out" "$p.sources.writeback.counters.works")" "$(t_json "$out" "$p.sources.writeback.hists.work.count")"
rm -rf "$T_MNT/y"/*

# balance_dirty_pages pauses a writer over its device's own share of the dirty limit:
# strict_limit and a 2 MiB max_bytes on this loop device's backing_dev_info (its alone,
# put back on exit). The pause is the tracepoint's second-to-last argument, 6 here on
# 6.18 and 10 up to 6.12: whole jiffies of the kernel's HZ each, at most MAX_PAUSE (200 ms).
bdi=/sys/class/bdi/$(cat "/sys/block/$dev/dev")
if [ -w "$bdi/strict_limit" ] && [ -w "$bdi/max_bytes" ] && [ -r "$bdi/max_ratio_fine" ]; then
	old_fine=$(cat "$bdi/max_ratio_fine") old_strict=$(cat "$bdi/strict_limit")
	bdi_restore() { echo "$old_fine" >"$bdi/max_ratio_fine"; echo "$old_strict" >"$bdi/strict_limit"; }
	trap 'bdi_restore 2>/dev/null; t_cleanup' EXIT
	echo 1 >"$bdi/strict_limit" && echo $((2 << 20)) >"$bdi/max_bytes" || t_die "limiting $bdi failed"
	"$FSBENCH" stream -d "$T_MNT/y" --size 48M --chunk 1M --mode fdatasync --probes writeback --json "$out" >/dev/null ||
		t_fail "throttled stream run failed"
	bdi_restore || t_fail "putting $bdi back failed"
	w="$p.sources.writeback"
	note=$(t_json "$out" "$w.note")
	hz=$(sed -n 's/^HZ \([0-9]*\);.*/\1/p' <<<"$note")
	# no /boot/config here: HZ was measured from /proc/timer_list; the kernel's own says
	if [ -r /proc/config.gz ]; then
		t_expect_eq "HZ ($note)" "$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')" "$hz"
	fi
	arg=$(grep -o 'pause is argument [0-9]*' <<<"$note" | grep -o '[0-9]*$')
	[ "$arg" = 6 ] || [ "$arg" = 10 ] && t_ok "pause argument $arg" || t_fail "pause argument '$arg' ($note)"
	pauses=$(t_json "$out" "$w.counters.pauses") pause_ns=$(t_json "$out" "$w.counters.pause_ns")
	t_range "pauses of a writer over a 2 MiB strict limit" 1 1000000 "$pauses"
	jiffy=$((1000000000 / ${hz:-1}))
	[ $((pause_ns % jiffy)) = 0 ] && t_ok "pause_ns $pause_ns is whole jiffies of $jiffy ns" ||
		t_fail "pause_ns $pause_ns is not a multiple of the $jiffy ns jiffy"
	t_range "longest pause (ns)" "$jiffy" 200000000 "$(t_json "$out" "$w.hists.pause.max_ns")"
	rm -rf "$T_MNT/y"/*
else
	echo "note: $bdi has no strict_limit/max_bytes (before 6.2): writeback pauses not tested here"
fi

# on one CPU (a kernel gate's guest) the ring's consumer runs as SCHED_IDLE, so its drains
# do not land inside the timed calls of the workers it watches; with more CPUs it keeps its
# policy (ps's CLS: IDL against TS). Seen while the run lasts, polled from its threads.
policies() { # CMD...: every scheduling class the run's threads had while it ran
	"$@" >/dev/null 2>&1 &
	local pid=$! seen=""
	while kill -0 "$pid" 2>/dev/null; do
		seen="$seen $(ps -L -o cls= -p "$pid" 2>/dev/null | tr -d ' ' | paste -sd' ')"
		sleep 0.05
	done
	wait "$pid" || echo "run failed"
	tr ' ' '\n' <<<"$seen" | sed '/^$/d' | sort -u | paste -sd' '
}
cls=$(policies taskset -c 0 "$FSBENCH" smallfile -d "$T_MNT/y" -s 4096 -n 2000 --probes block,jbd2 --json "$out")
case " $cls " in *" IDL "*) t_ok "pinned to one CPU: the consumer is SCHED_IDLE ($cls)" ;; *) t_fail "pinned to one CPU: no SCHED_IDLE thread ($cls)" ;; esac
t_expect_eq "pinned: events dropped" 0 "$(t_json "$out" "$p.sources.block.counters.events_dropped")"
rm -rf "$T_MNT/y"/*
if [ "$(taskset -pc $$ | sed 's/.*: //')" != 0 ] && [ "$(nproc)" -ge 2 ]; then
	cls=$(policies taskset -c 0,1 "$FSBENCH" smallfile -d "$T_MNT/y" -s 4096 -n 2000 --probes block,jbd2 --json "$out")
	case " $cls " in *" IDL "*) t_fail "on two CPUs a thread was SCHED_IDLE ($cls)" ;; *) t_ok "on two CPUs no thread is SCHED_IDLE ($cls)" ;; esac
	rm -rf "$T_MNT/y"/*
fi

# --probes none: no probes at all; a bad source name is a usage error
"$FSBENCH" smallfile -d "$T_MNT/y" -s 4096 -n 20 --probes none --json "$out" >/dev/null || t_fail "--probes none run failed"
t_expect_eq "--probes none" null "$(t_json "$out" '.runs[0].probes')"
"$FSBENCH" smallfile -d "$T_MNT/z" -n 20 --probes block,jbd2 --json "$out" >/dev/null || t_fail "--probes block,jbd2 run failed"
t_expect_eq "--probes block,jbd2: jbd2" ok "$(t_json "$out" "$p.sources.jbd2.status")"
"$FSBENCH" smallfile -d "$T_MNT/z" -n 20 --probes nosuch --json "$out" >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "--probes nosuch exit" 2 "$?"
grep -q "unknown source 'nosuch'" "$T_SCRATCH/err" || t_fail "--probes nosuch: $(cat "$T_SCRATCH/err")"
t_done
