#!/bin/bash
# kernel-gate and kernel-run on a Debian kernel under QEMU (TCG, icount): bad inputs fail
# fast with a clear message; a panic and a boot timeout are errors with console lines; the
# guest's status is the job's; A/A passes and the same kernel with init_on_free=1 (a known
# change of the measured path) is caught. ci/setup downloads the kernel.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
kg_need_kernel
mkdir -p /dev/shm/fsbench-test.$$ && DISKS=/dev/shm/fsbench-test.$$
trap 'rmdir "$DISKS" 2>/dev/null; t_cleanup' EXIT
W=$T_SCRATCH
# the host-timed virtio disk for the single boots; the gates below use the model disk
common=(--disk virtio --disk-dir "$DISKS" --disk-size 1G)


# bad inputs: before any boot
expect 2 "missing.deb: No such file" "$FSBENCH" kernel-gate --baseline "$W/missing.deb" --candidate "$deb"
expect 2 "not a file, a .deb, or a release under /boot" "$FSBENCH" kernel-gate --baseline "$deb" --candidate no-such-release
echo "not an archive" >"$W/bad.deb"
expect 125 "not a usable .deb: dpkg-deb" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$W/bad.deb"
head -c 4096 /dev/urandom >"$W/vmlinuz"
expect 125 "not a bzImage" "$FSBENCH" kernel-run --kernel "$W/vmlinuz"
expect 2 "--baseline and --candidate are both needed" "$FSBENCH" kernel-gate --baseline "$deb"
expect 2 "--boots: 0 is out of range 1..50" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" --boots 0
expect 2 "suite no-such-suite" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" no-such-suite
# too few samples a side for a comparison, known from the suite before any boot: the option to change
expect 2 "give --boots 3, or --repetitions 2" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" \
	--boots 2 --repetitions 1 --workdir "$W/few"
[ -e "$W/few" ] && t_fail "a refused gate made its workdir"
expect 2 "one boot a side cannot show: give --boots 2" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" --boots 1

# a kernel that panics (no init to run) and one that does not boot in time: clear errors
# with the last console lines, and no QEMU left behind
expect 125 "panicked after .*last console lines" "$FSBENCH" kernel-run --kernel "$deb" "${common[@]}" \
	--append rdinit=/no-such-init --workdir "$W/panic" --boot-timeout 300
grep -q "panicked after .* s: Kernel panic - not syncing: VFS: Unable to mount root fs" "$W/err" ||
	t_fail "the panic's reason is not in the message"
grep -q "^  | \[ *[0-9.]*\] " "$W/err" || t_fail "no console lines in the message"
expect 125 "did not boot: no word from the guest's init within 5 s" "$FSBENCH" kernel-run --kernel "$deb" \
	"${common[@]}" --boot-timeout 5 --workdir "$W/slow"
pgrep -f "qemu-system-x86_64.*$DISKS" >/dev/null && t_fail "a QEMU of this test is still running"

# a KVM guest that never says a word (here /dev/kvm opens but guests stop after the
# firmware): said at once, not after the boot timeout. A stand-in QEMU plays it; a silent
# TCG guest is only slow, and waits out its boot timeout
FAKE=$SRCDIR/tests/integration/fake-qemu.sh
FAKE_QEMU_SILENT=1 expect 125 "printed nothing on the console within 10 s .*KVM cannot run guests on this host; --accel tcg" \
	"$FSBENCH" kernel-run --kernel "$deb" --qemu "$FAKE" --accel kvm "${common[@]}" --boot-timeout 120 --workdir "$W/kvm"
FAKE_QEMU_SILENT=1 expect 125 "did not boot: no word from the guest's init within 12 s" \
	"$FSBENCH" kernel-run --kernel "$deb" --qemu "$FAKE" --accel tcg "${common[@]}" --boot-timeout 12 --workdir "$W/tcgsilent"

# SIGTERM mid-boot: QEMU stopped, the scratch disk removed, 128 + 15
"$FSBENCH" kernel-run --kernel "$deb" "${common[@]}" --workdir "$W/term" >"$W/out" 2>"$W/err" &
pid=$!
sleep 6
kill -TERM $pid
wait $pid
t_expect_eq "kernel-run on SIGTERM: exit" 143 $?
grep -q "stopped by signal 15" "$W/err" || t_fail "no 'stopped by signal' line: $(tail -1 "$W/err")"
t_expect_eq "scratch disks left in $DISKS" "" "$(ls "$DISKS")"

# the guest's status is the job's: a 64 MiB stream on a disk too small fails in the guest.
# The kernel as a bzImage and a directory holding lib/modules/RELEASE this time: the .deb
# as the runs above extracted it
kdir=$(dirname "$(dirname "$(ls "$FSBENCH_CACHE_DIR"/kernels/*/boot/vmlinuz-* | head -n 1)")")
expect 2 "holds no lib/modules/" "$FSBENCH" kernel-run --kernel "$kdir"/boot/vmlinuz-* --modules "$W"
expect 1 "guest status 1" "$FSBENCH" kernel-run --kernel "$kdir"/boot/vmlinuz-* --modules "$kdir" \
	--disk virtio --disk-dir "$DISKS" --disk-size 64M \
	--repetitions 1 --workdir "$W/enospc" --json "$W/enospc.json"
t_expect_eq "enospc result is incomplete" false "$(t_json "$W/enospc.json" .complete)"

# The gates run on the model disk, the default under tcg: its time is the guest's, so an
# A/A gate passes whatever else the CI machine runs (on the host-timed virtio disk, two
# boots a side were seen to "regress" against themselves on unlink.p99 and max Dirty
# while other QEMUs ran beside them)
model=(--disk-dir "$DISKS" --disk-size 1G)
# A/A: the same kernel on both sides passes; the result records what ran where. 2 boots a
# side is the model disk's default: the baseline's halves hold one boot each, so the A/A line
# says it is not measured and why
expect 0 "boot 4/4: baseline" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" "${model[@]}" \
	--repetitions 3 --workdir "$W/aa" --json "$W/aa.json"
grep -q "^A/A noise floor (baseline boots odd vs even): not measured: the baseline's 2 boots make halves of one boot each" "$W/out" ||
	t_fail "no A/A line: $(grep '^A/A' "$W/out")"
grep -q "^host load from other processes" "$W/out" || t_fail "no host load line"
# progress: as each boot ends, its stages and the time left (0 after the last)
grep -Eq "^fsbench kernel-gate: 1 of 4 boots done; .*: its /init spoke at [0-9]+ s, the suite ran [0-9]+-[0-9]+ s; about [0-9]+ s left" "$W/err" ||
	t_fail "no progress line: $(grep -m1 'boots done' "$W/err")"
grep -q "^fsbench kernel-gate: 4 of 4 boots done; .*; about 0 s left" "$W/err" ||
	t_fail "the last boot does not leave 0 s: $(grep '4 of 4' "$W/err")"
grep -q "^verdict: good (exit 0)" "$W/out" || t_fail "no good verdict: $(tail -1 "$W/out")"
t_expect_eq "A/A verdict" good "$(t_json "$W/aa.json" .verdict)"
t_expect_eq "boots, A B B A" "baseline candidate candidate baseline" "$(t_json "$W/aa.json" '[.boots[].side] | join(" ")')"
r=$W/aa/boot-01-baseline/result.json
"$VALIDATE" "$SCHEMA" "$r" || t_fail "a boot's result does not validate"
t_expect_eq "vm.qemu" "tcg shift=0,sleep=off qemu64 1 2048" \
	"$(t_json "$r" '.vm.qemu | "\(.accelerator) \(.icount) \(.cpu_model) \(.cpus) \(.memory_mib)"')"
t_expect_eq "vm.scratch_disk" "null_blk /dev/nullb0 1073741824 50000" \
	"$(t_json "$r" '.vm.scratch_disk | "\(.model) \(.device) \(.bytes) \(.latency_ns)"')"
t_expect_eq "vm.kernel.release = guest's uname" "$(t_json "$r" .host.kernel)" "$(t_json "$r" .vm.kernel.release)"
t_json "$r" .vm.kernel.cmdline | grep -q "tsc=reliable" || t_fail "cmdline lacks tsc=reliable"
t_json "$r" .vm.kernel.cmdline | grep -q "cryptomgr.notests" || t_fail "cmdline lacks cryptomgr.notests"
# the guest's /init speaks first, with its own clock (busybox's applets were staged on the
# host: the line needs none made in the guest)
grep -Eq "^FSBENCH-GUEST-INIT uptime [0-9]+\.[0-9]+" "$W/aa/boot-01-baseline/console.log" ||
	t_fail "no FSBENCH-GUEST-INIT line: $(head -c 300 "$W/aa/boot-01-baseline/console.log")"
# Debian's kernels have CONFIG_PVH: booted as the vmlinux decompressed once into the cache
t_expect_eq "vm.kernel.entry" pvh "$(t_json "$r" .vm.kernel.entry)"
t_expect_eq "runs per boot" 6 "$(t_json "$r" '.runs | length')"
t_expect_eq "p99.9 not gated" false \
	"$(t_json "$W/aa.json" '[.compare.samples[].metrics[] | select(.name | endswith(".p99.9")) | .comparisons[].gate] | any')"

# the same kernel with init_on_free=1: freeing zeroes pages, more instructions per unlink.
# unlink's latency is not one of the seeds' metrics (files/s leaves unlink out, as fs_mark
# does): it gates where a gate file names it, as a developer of that path would
echo '{"metrics": {"unlink.*": {}}}' >"$W/gate-unlink.json"
expect 1 "boot 4/4: baseline" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" "${model[@]}" \
	--candidate-append init_on_free=1 --boots 2 --repetitions 3 --workdir "$W/iof" --json "$W/iof.json" \
	--gate-file "$W/gate-unlink.json"
grep -q "^verdict: regressed (exit 1)" "$W/out" || t_fail "init_on_free=1 not caught: $(tail -1 "$W/out")"
t_expect_eq "init_on_free=1: unlink.p50 gated and regressed" "regression true" \
	"$(t_json "$W/iof.json" '.compare.samples[].metrics[] | select(.name == "unlink.p50") | .comparisons[0] | "\(.verdict) \(.gate)"' | head -1)"
t_json "$W/iof.json" '.compare.samples[].metrics[] | select(.comparisons[0].verdict == "regression" and .comparisons[0].gate) | .name' |
	sed 's/^/    regressed: /'
t_json "$W/iof.json" .boots[1].kernel.cmdline | grep -q "init_on_free=1" || t_fail "candidate cmdline lacks init_on_free=1"

t_done
