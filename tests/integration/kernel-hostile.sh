#!/bin/bash
# The kernel gate under attack (issue 19): a stand-in for QEMU plays a hostile or failing
# guest, an unprivileged user (setpriv) plants files in the cache, the workdir and a shared
# directory, a crafted .deb aims depmod elsewhere, kill -9 lands mid-boot, LAVA files blow
# up. Each check fails if its attack works again. No real boot: fake-qemu.sh stands in.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
command -v setpriv >/dev/null || t_skip "setpriv is not installed"
DISKS=$W/disks
mkdir -p "$DISKS"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --boot-timeout 10s --timeout 30s)
# the stand-in's sleeps that a kill -9 of it orphaned, then the usual clean-up
trap 'cat "$W"/*.children 2>/dev/null | xargs -r kill 2>/dev/null; t_cleanup' EXIT


# a good guest's /out: a real suite result (no root needed for a directory run)
mkdir -p "$W/good" "$W/d"
"$FSBENCH" suite "$SRCDIR/configs/kgate.json" -d "$W/d" --repetitions 1 --json "$W/good/result.json" \
	>/dev/null 2>&1 || t_die "the suite run for the good guest's result failed"
echo 0 >"$W/good/status"
echo console=ttyS0 >"$W/good/cmdline"
echo "suite output" >"$W/good/stdout"
: >"$W/good/stderr"

# 1. a hostile results tar: a block device 7,0 0666, a setuid-root file, and stdout,
# release and cmdline symlinks to a root-only secret
echo "root-only-secret-$$" >"$W/secret"
chmod 0600 "$W/secret"
mkdir "$W/hostile"
echo 0 >"$W/hostile/status"
mknod -m 0666 "$W/hostile/loopdev" b 7 0
cp /bin/true "$W/hostile/suid" && chmod 4755 "$W/hostile/suid"
for f in stdout release cmdline; do ln -s "$W/secret" "$W/hostile/$f"; done
FAKE_QEMU_OUT=$W/hostile expect 125 "results disk is refused: member .*(not a regular file)" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1" --json "$W/w1.json"
t_expect_eq "non-regular files taken from the guest" "" "$(find "$W/w1" ! -type f ! -type d)"
t_expect_eq "setuid files taken from the guest" "" "$(find "$W/w1" -perm /6000)"
grep -rqs "root-only-secret" "$W/out" "$W/err" "$W/w1" "$W/w1.json" && t_fail "the secret leaked"
[ -e "$W/w1.json" ] && t_fail "kernel-run wrote --json from a refused guest"
# a tar whose names leave the directory, and a member that claims 1 TB
mkdir -p "$W/t2/sub" && echo x >"$W/t2/sub/f" && tar -cf "$W/paths.tar" -C "$W/t2" ./sub/f
FAKE_QEMU_TAR=$W/paths.tar expect 125 "member ./sub/f: not a plain file name" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1b"
echo 0 >"$W/t2/status" && tar -cf "$W/big.tar" -C "$W/t2" ./status &&
	python3 - "$W/big.tar" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[124:136] = b'17777777777\0'
s = sum(b[:148]) + 8 * 32 + sum(b[156:512])
b[148:156] = (b'%06o\0 ' % s)
open(sys.argv[1], 'wb').write(b)
PY
FAKE_QEMU_TAR=$W/big.tar expect 125 "size out of bounds" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1c"

# the good guest works through the same path (else the checks above prove nothing)
FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w4" --json "$W/w4.json"
t_expect_eq "kernel-run --json from the good guest" true "$([ -s "$W/w4.json" ] && echo true)"

# 2. a cache another user owns (HOME kept under sudo): refused before anything is booted
mkdir -p "$W/usercache" && chown 65534:65534 "$W/usercache"
nobody mkdir -p "$W/usercache/kernels" "$W/usercache/initramfs"
FSBENCH_CACHE_DIR=$W/usercache FAKE_QEMU_PIDFILE=$W/pid2 expect 2 "refusing .*usercache.*another user owns it" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w2"
[ -e "$W/pid2" ] && t_fail "QEMU ran from an untrusted cache"
mkdir -p "$W/gwcache" && chmod 0777 "$W/gwcache"
FSBENCH_CACHE_DIR=$W/gwcache expect 2 "refusing .*gwcache.*group or others may write it" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w2b"

# 3. lava job in a shared 1777 directory with planted symlinks to root's files
mkdir -m 1777 "$W/shared"
rel=$(basename "$(ls "$FSBENCH_CACHE_DIR"/kernels/*/boot/vmlinuz-* | head -n 1)" | sed 's/^vmlinuz-//')
for v in v1 v2 v3; do echo "root's $v" >"$W/$v" && chmod 0600 "$W/$v"; done
nobody ln -s "$W/v1" "$W/shared/vmlinuz-$rel.tmp"
nobody ln -s "$W/v2" "$W/shared/fsbench-initramfs-$rel.cpio.tmp"
nobody ln -s "$W/v3" "$W/shared/job.yaml"
expect 0 "fsbench lava job: $W/shared/job.yaml" "$FSBENCH" lava job --kernel "$deb" -o "$W/shared/job.yaml"
for v in v1 v2 v3; do t_expect_eq "root's $v after lava job" "root's $v" "$(cat "$W/$v")"; done
[ -L "$W/shared/job.yaml" ] && t_fail "job.yaml is still the planted symlink"
grep -q "^job_name: \"fsbench kgate $rel\"$" "$W/shared/job.yaml" || t_fail "job_name: $(grep job_name "$W/shared/job.yaml")"

# 4. a reused --workdir: an earlier run's results never pass for this one's
FAKE_QEMU_OUT=$W/good "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" \
	--disk-size 64M --boots 1 --workdir "$W/w5" >/dev/null 2>&1
[ -s "$W/w5/boot-01-baseline/guest/result.json" ] || t_fail "the first gate left no result to reuse"
mkdir "$W/failing" && echo 1 >"$W/failing/status" && echo "suite failed" >"$W/failing/stderr"
FAKE_QEMU_OUT=$W/failing expect 125 "the suite failed in the guest \(status 1\): cannot judge" \
	"$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" \
	--disk-size 64M --boots 1 --workdir "$W/w5"
grep -q "^verdict: good" "$W/out" && t_fail "a gate passed on stale results"
[ -e "$W/w5/boot-01-baseline/guest/result.json" ] && t_fail "the stale result.json is still in the boot's directory"
FAKE_QEMU_OUT=$W/failing expect 1 "the suite wrote no result \(status 1\)" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w4" --json "$W/w4b.json"
[ -e "$W/w4b.json" ] && t_fail "kernel-run copied a stale result to --json"

# 5. the default workdir is new each time; one another user made, or a planted boot
# directory, is refused
mkdir "$W/cwd" && cd "$W/cwd" || t_die "cd"
FAKE_QEMU_OUT=$W/good "$FSBENCH" kernel-run "${run[@]}" >/dev/null 2>&1 &
FAKE_QEMU_OUT=$W/good "$FSBENCH" kernel-run "${run[@]}" >/dev/null 2>&1
wait
t_expect_eq "workdirs of two kernel-runs started together" 2 "$(ls -d "$W"/cwd/fsbench-kgate-* | wc -l)"
cd "$W" || t_die "cd"
mkdir "$W/theirs" && chown 65534:65534 "$W/theirs"
expect 2 "--workdir: refusing $W/theirs: another user owns it" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/theirs"
mkdir -p "$W/w6" "$W/victimdir" && chmod 0700 "$W/victimdir" && ln -s "$W/victimdir" "$W/w6/boot-01-kernel"
FAKE_QEMU_OUT=$W/good expect 125 "boot-01-kernel exists and is a symlink" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w6"
t_expect_eq "the victim directory's mode" 700 "$(stat -c %a "$W/victimdir")"

# 6. a .deb with ./lib -> DIR and a real boot/vmlinuz-9.9.9-evil: depmod never runs on DIR
mkdir -p "$W/evil/DEBIAN" "$W/evil/boot" "$W/target"
printf 'Package: evil\nVersion: 1\nArchitecture: all\nMaintainer: x <x@x>\nDescription: x\n' >"$W/evil/DEBIAN/control"
head -c 4096 /dev/urandom >"$W/evil/boot/vmlinuz-9.9.9-evil"
mkdir -p "$W/target/modules/9.9.9-evil" && echo original >"$W/target/modules/9.9.9-evil/modules.dep"
ln -s "$W/target" "$W/evil/lib"
dpkg-deb --build --root-owner-group "$W/evil" "$W/evil.deb" >/dev/null 2>&1 || t_die "dpkg-deb --build"
mkdir -m 0755 "$W/cache6"
FSBENCH_CACHE_DIR=$W/cache6 expect 125 "refused: ./lib in the package is a symlink" \
	"$FSBENCH" kernel-run --kernel "$W/evil.deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --workdir "$W/w7"
t_expect_eq "DIR/modules/9.9.9-evil/modules.dep" original "$(cat "$W/target/modules/9.9.9-evil/modules.dep")"
t_expect_eq "files depmod wrote in DIR" 1 "$(find "$W/target" -type f | wc -l)"
# two boot/vmlinuz-*: not a kernel package (and the glob is freed: LSan found it was not)
rm "$W/evil/lib" && head -c 4096 /dev/urandom >"$W/evil/boot/vmlinuz-9.9.9-two"
dpkg-deb --build --root-owner-group "$W/evil" "$W/two.deb" >/dev/null 2>&1 || t_die "dpkg-deb --build"
FSBENCH_CACHE_DIR=$W/cache6 expect 125 "no single boot/vmlinuz-RELEASE" \
	"$FSBENCH" kernel-run --kernel "$W/two.deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --workdir "$W/w7c"
# an extraction a killed run left behind is swept by the next one
mkdir -p "$W/cache6/kernels/.extract.999999999.abcdef/boot"
FSBENCH_CACHE_DIR=$W/cache6 "$FSBENCH" kernel-run --kernel "$W/evil.deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" \
	--disk-size 64M --workdir "$W/w7b" >/dev/null 2>&1
[ -e "$W/cache6/kernels/.extract.999999999.abcdef" ] && t_fail "a dead run's .extract directory stays"
t_expect_eq "extraction directories left in the cache" "" "$(ls -A "$W/cache6/kernels")"

# 7 and 10. usage errors before the first boot: exit 2, QEMU never started
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "--json /proc/nonexistent/x.json" "$FSBENCH" kernel-gate --baseline "$deb" \
	--candidate "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --workdir "$W/w8" --json /proc/nonexistent/x.json
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "threads" "$FSBENCH" kernel-run "${run[@]}" --threads abc --workdir "$W/w8"
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "--disk-dir $W/nodir: No such file" "$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/nodir"
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "--disk-dir $W/secret: not a directory" "$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/secret"
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "--workdir: refusing $W/secret: it is not a directory" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/secret"
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "--qemu '': an empty name" "$FSBENCH" kernel-run "${run[@]}" --qemu ''
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "--qemu 'no-such-qemu': not found" "$FSBENCH" kernel-run "${run[@]}" --qemu no-such-qemu
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "kernel $W: not a regular file" "$FSBENCH" kernel-run "${run[@]}" --kernel "$W"
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "a comma in the path" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/a,b"
# 12. a command line the kernel would cut
FAKE_QEMU_PIDFILE=$W/pid7 expect 2 "the kernel keeps 2047" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" \
	--qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --append "$(printf 'x%.0s' $(seq 2000))" --candidate-append init_on_free=1
[ -e "$W/pid7" ] && t_fail "a usage error cost a boot"

# 8. kill -9 mid-boot: QEMU dies with fsbench, restore removes the scratch and results disks
FAKE_QEMU_OUT=$W/good FAKE_QEMU_SLEEP=60 FAKE_QEMU_PIDFILE=$W/pid8 \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w9" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$W/pid8" ] && break; sleep 0.1; done
[ -s "$W/pid8" ] || t_fail "the stand-in QEMU never started"
kill -9 $pid
wait $pid 2>/dev/null
sleep 0.5
qpid=$(cat "$W/pid8" 2>/dev/null)
# dead or a zombie (this machine's init may be slow to reap an orphan)
state=$(awk '{ print $3 }' "/proc/$qpid/stat" 2>/dev/null)
[ -n "$state" ] && [ "$state" != Z ] && { t_fail "QEMU outlived kill -9 of kernel-run ($state)"; kill -9 "$qpid"; }
[ -n "$(ls "$DISKS")" ] || t_fail "no scratch disk to restore (the test proves nothing)"
"$FSBENCH" restore >"$W/out" 2>&1 || t_fail "restore: $(tail -3 "$W/out")"
t_expect_eq "scratch disks left after restore" "" "$(ls "$DISKS")"
t_expect_eq "results.img left after restore" "" "$(ls "$W/w9"/boot-01-kernel/results.img 2>/dev/null)"

# 8. kill -9 mid-extraction: the .deb's half-extracted tree is journalled, restore removes it.
# killed_mid_extraction WHO CACHE COMMAND...: COMMAND run with CACHE, killed as its
# .extract.* directory appears; then restore must say it removed that tree, and have removed it
# working_in DIR: the pids of processes whose command line names DIR (dpkg-deb and its
# decompressor) or whose working directory is in it (tar); one pgrep and one find, so a call
# is quick beside an extraction's seconds
working_in() {
	{
		pgrep -f -- "$1"
		find /proc/[0-9]*/cwd -maxdepth 0 -lname "$1/*" 2>/dev/null | cut -d/ -f3
	} | sort -u | tr '\n' ' '
}
killed_mid_extraction() {
	local who=$1 cache=$2 pid xdir
	shift 2
	mkdir -m 0755 "$cache"
	FSBENCH_CACHE_DIR=$cache "$@" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 300); do ls -d "$cache"/kernels/.extract.* >/dev/null 2>&1 && break; sleep 0.05; done
	kill -9 $pid
	wait $pid 2>/dev/null
	# dpkg-deb's tar and decompressor die with it (they would unpack on for seconds)
	for _ in $(seq 10); do [ -z "$(working_in "$cache")" ] && break; sleep 0.1; done
	t_expect_eq "$who: processes left working in its cache 1 s after the kill" "" "$(working_in "$cache")"
	xdir=$(ls -d "$cache"/kernels/.extract.* 2>/dev/null | head -1)
	if [ -z "$xdir" ]; then
		t_fail "$who: no extraction directory to kill it in (the test proves nothing)"
		return
	fi
	"$FSBENCH" restore >"$W/out" 2>&1 || t_fail "restore after $who: $(tail -3 "$W/out")"
	grep -qF "removed the half-extracted $xdir" "$W/out" && t_ok "restore removed $who's $xdir" ||
		t_fail "restore after $who: $(cat "$W/out")"
	[ -e "$xdir" ] && t_fail "restore left $who's half-extracted $xdir" || t_ok "no half-extracted tree left by $who"
}
FAKE_QEMU_OUT=$W/good killed_mid_extraction kernel-run "$W/xcache" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w9x"
# lava job extracts the .deb the same way
mkdir "$W/lj"
killed_mid_extraction "lava job" "$W/lcache" "$FSBENCH" lava job --kernel "$deb" -o "$W/lj/job.yaml"
# a forged tree entry: a user's directory (its own identity, but not .extract.*), and a
# .extract.* directory that another user owns; restore removes neither
mkdir -p "$W/users-tree/sub" "$W/x/.extract.1.forged" && echo data >"$W/users-tree/sub/f"
chown 65534 "$W/x/.extract.1.forged" && chmod 0700 "$W/x/.extract.1.forged"
dead_pid=$(sh -c 'echo $$')
{
	printf '{"journal":"fsbench-journal/1","pid":%d,"start":1}\n' "$dead_pid"
	for d in "$W/users-tree" "$W/x/.extract.1.forged"; do
		printf '{"kind":"scratch","what":"tree","path":"%s","st_dev":%s,"ino":%s}\n' "$d" "$(stat -c %d "$d")" "$(stat -c %i "$d")"
	done
} >"$FSBENCH_STATE_DIR/journal-1-0.jsonl"
chmod 0600 "$FSBENCH_STATE_DIR/journal-1-0.jsonl"
"$FSBENCH" restore >"$W/forged.out" 2>&1 && t_fail "restore of forged tree entries exited 0"
t_expect_eq "a forged tree entry: the user's tree stays" data "$(cat "$W/users-tree/sub/f" 2>/dev/null)"
[ -d "$W/x/.extract.1.forged" ] && t_ok "a forged tree entry: another user's .extract.* stays" ||
	t_fail "restore removed another user's directory: $(cat "$W/forged.out")"
"$FSBENCH" restore --discard >/dev/null 2>&1

# 11. a full --disk-dir: QEMU pauses the guest; said at once, not after the timeout
mkdir "$W/small" && mount -t tmpfs -o size=80m fsbench-test "$W/small" && T_MOUNTS+=("$W/small")
FAKE_QEMU_FILL=1 FAKE_QEMU_PAUSE=1 expect 125 "QEMU paused the guest .*--disk-dir $W/small is full" \
	"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/small" --timeout 120s --workdir "$W/w10"
t_expect_eq "scratch disks left in $W/small" "" "$(ls "$W/small")"
# a guest QEMU stopped (paused) but with room on the disk: the timeout says it was not slow
FAKE_QEMU_PAUSE=1 expect 125 "did not finish within 15 s \(QEMU used no CPU .*not slow\)" \
	"$FSBENCH" kernel-run "${run[@]}" --timeout 15s --workdir "$W/w10b"
# ENOSPC while the .deb is extracted: tar's own reason, not dpkg-deb's "exit status 2"
mkdir -m 0755 "$W/small/cache"
FSBENCH_CACHE_DIR=$W/small/cache expect 125 "No space left on device" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w11"
t_expect_eq "extraction directories left on the full disk" "" "$(ls -A "$W/small/cache/kernels")"

# 3, continued: lava job -o on a full filesystem leaves the existing job as it was
echo "the old job" >"$W/small/job.yaml"
dd if=/dev/zero of="$W/small/fill" bs=1M status=none 2>/dev/null
expect 1 "writing $W/small/job.yaml: No space left on device" "$FSBENCH" lava job --kernel-url u --ramdisk-url r \
	-o "$W/small/job.yaml"
t_expect_eq "the job on a full disk" "the old job" "$(cat "$W/small/job.yaml")"
rm -f "$W/small/fill" "$W/small/job.yaml"

# 9. lava import: aliases, nesting and values are bounded; a 1 GB bound catches a blow-up:
# ulimit -v, or under AddressSanitizer (which reserves terabytes of shadow address space,
# so ulimit -v stops it starting) its own resident-size limit
memcap() {
	if ldd "$FSBENCH" 2>/dev/null | grep -q libasan; then
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1000"
	else
		ulimit -v 1000000
	fi
}
laughs=$W/laughs.yaml
echo 'a: &a ["x","x","x","x","x","x","x","x","x"]' >"$laughs"
p=a
for l in b c d e f g h i; do echo "$l: &$l [*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p]" >>"$laughs"; p=$l; done
(memcap; expect 2 "more than 64 aliases" "$FSBENCH" lava import -o "$W/i.json" "$laughs")
echo '- &x [*x, *x]' >"$W/rec.yaml"
(memcap; "$FSBENCH" lava import -o "$W/i.json" "$W/rec.yaml" >/dev/null 2>&1; [ $? -lt 128 ]) ||
	t_fail "lava import of a recursive alias crashed"
python3 -c "print('[' * 100000 + ']' * 100000)" >"$W/deep.yaml"
(memcap; expect 2 "nested deeper than 16" timeout 10 "$FSBENCH" lava import -o "$W/i.json" "$W/deep.yaml")
# (a latency case says its unit: without one, s and us would be the same number)
for bad in "smallfile.t-5.c.r0.files_per_sec 100" "smallfile.t1.c.r-7.files_per_sec 100" \
	"smallfile.t1.c.r0.files_per_sec -1e308" "smallfile.t1.c.r0.create.p99 1e300 s"; do
	set -- $bad
	echo "- {name: $1, result: pass, measurement: '$2'${3:+, unit: $3}}" >"$W/bad.yaml"
	expect 1 "out of range" "$FSBENCH" lava import -o "$W/i.json" "$W/bad.yaml"
done
[ -e "$W/i.json" ] && t_fail "lava import wrote a result from out-of-range values"

t_done
