#!/bin/bash
# Issue 40, item 5: a privilege-separated step (here dpkg-deb, a .deb into the kernel cache)
# runs in a mount namespace of its own without the host's other mounts: a suite's scratch
# filesystem mounted while the step starts is not kept alive by it. The host unmounts its
# ext4 while the step still runs, and mkfs of the loop device works at once (before issue 40,
# "apparently in use by the system": the step's copy of the mount held it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
command -v mkfs.ext4 >/dev/null || t_skip "mkfs.ext4 is not installed"
real=$(command -v dpkg-deb) || t_skip "dpkg-deb is not installed"
# a cache of this test's own: the package is extracted here, by the step
mkdir -m 0700 "$W/private"
export FSBENCH_CACHE_DIR=$W/private/cache
mkdir -p "$W/disks" "$W/bin" && mkdir -m 1777 "$W/ids"
t_mkfs_loop ext4 32
echo data >"$T_MNT/file"
# the step's dpkg-deb: says it runs and what it sees mounted, then waits for the host
cat >"$W/bin/dpkg-deb" <<-EOS
#!/bin/sh
cat /proc/self/mountinfo >"$W/ids/mountinfo"
# its pid as the host sees it (the step is in a PID namespace of its own; /proc is the host's)
read -r pid _ </proc/self/stat
echo "\$pid" >"$W/ids/started"
i=0
while [ ! -e "$W/ids/go" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
exec "$real" "\$@"
EOS
chmod 0755 "$W/bin/dpkg-deb"
kg_good_guest "$W/good"
PATH=$W/bin:$PATH FAKE_QEMU_OUT=$W/good "$FSBENCH" kernel-run --kernel "$deb" --qemu "$FAKE" --disk virtio \
	--disk-dir "$W/disks" --disk-size 64M --boot-timeout 20s --timeout 60s --workdir "$W/w" >"$W/out" 2>"$W/err" &
gate=$!
T_PIDS+=("$gate")
for i in $(seq 600); do [ -s "$W/ids/started" ] && break; sleep 0.1; done
if [ ! -s "$W/ids/started" ]; then
	touch "$W/ids/go"
	t_die "the step's dpkg-deb did not start: $(tail -3 "$W/err")"
fi
step=$(cat "$W/ids/started")
grep -q " $T_MNT " "$W/ids/mountinfo" && t_fail "the step sees the suite's scratch mount $T_MNT" ||
	t_ok "the step's namespace holds no $T_MNT ($(wc -l <"$W/ids/mountinfo") mounts)"
grep -q " $T_MNT " "/proc/$step/mountinfo" 2>/dev/null && t_fail "/proc/$step/mountinfo holds $T_MNT" ||
	t_ok "/proc/$step/mountinfo holds no $T_MNT"
# the suite ends its cell while the step runs: unmount, then a fresh mkfs of its device
umount "$T_MNT" && t_ok "the host unmounted $T_MNT" || t_fail "umount $T_MNT"
kill -0 "$step" 2>/dev/null && t_ok "the step (pid $step) still runs" || t_fail "the step ended before the check"
if msg=$(mkfs.ext4 -q -F "$T_DEV" 2>&1); then
	t_ok "mkfs.ext4 $T_DEV while the step runs"
else
	t_fail "mkfs.ext4 $T_DEV while the step runs: $msg"
fi
touch "$W/ids/go"
wait "$gate"
t_expect_eq "kernel-run's exit status" 0 $?
t_done
