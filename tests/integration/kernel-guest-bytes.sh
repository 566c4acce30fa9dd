#!/bin/bash
# What a guest or a kernel image says is parsed strictly and bounded (issue 29, items 4 and 5):
# the guest's status is a decimal 0-255, its bytes reach the terminal escaped (panic line,
# console tail, tar member names, suite output, a bzImage's release), its console is capped
# and read from the end, and the .deb cache is keyed by content. A stand-in for QEMU plays the
# guest (fake-qemu.sh); each check fails if its attack works again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
mkdir -p "$W/disks"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boot-timeout 10s --timeout 60s)
ESC=$(printf '\033')
# no_raw_controls WHAT FILE: FILE holds no ESC, BEL, CR or C1 CSI byte
no_raw_controls() {
	if LC_ALL=C grep -q "[$ESC$(printf '\a\r')]\|$(printf '\302\233')" "$2"; then
		t_fail "$1: raw control bytes reached the terminal: $(LC_ALL=C grep -a "[$ESC]" "$2" | head -2 | od -c | head -3)"
	else
		t_ok "$1: no raw control bytes on the terminal"
	fi
}

# a good guest's /out (the suite's result need not be real for these checks)
kg_good_guest "$W/good"
echo "suite output" >"$W/good/stdout"
: >"$W/good/stderr"

# 1. the status: 256 is not 0, 0x1 is not 0, nor are empty, spaces or a minus
i=0
for st in 256 0x1 "" " 0" "-0" "00" "1 1"; do
	i=$((i + 1))
	rm -rf "$W/st" && cp -r "$W/good" "$W/st" && printf '%s\n' "$st" >"$W/st/status"
	FAKE_QEMU_OUT=$W/st expect 125 "the guest's status .* is not a decimal 0-255: cannot judge" \
		"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/ws$i"
done
# and a real 0 and a real 3 still pass through
FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/ws-ok"
rm -rf "$W/st" && cp -r "$W/good" "$W/st" && echo 3 >"$W/st/status"
FAKE_QEMU_OUT=$W/st expect 3 "guest status 3" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/ws-3"
# a gate with a status 256 candidate is no "good"
rm -rf "$W/st" && cp -r "$W/good" "$W/st" && echo 256 >"$W/st/status"
FAKE_QEMU_OUT=$W/st expect 125 "not a decimal 0-255" "$FSBENCH" kernel-gate --baseline "$deb" --candidate "$deb" \
	--qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boots 1 --workdir "$W/wg256"
grep -q "^verdict: good" "$W/out" && t_fail "status 256 gave a good verdict"

# 2. escape sequences from the guest: a panic line, the console tail, suite output
printf 'Kernel panic - not syncing: \033]0;owned\a\033[2K\rverdict: good (exit 0)\n[ 1.0] \302\233' >"$W/panic.txt"
printf '2J tail \033[1A\n' >>"$W/panic.txt"
FAKE_QEMU_CONSOLE=$W/panic.txt expect 125 'panicked after .*: Kernel panic - not syncing: \\x1b\]0;owned\\x07' \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/wp"
no_raw_controls "a panic line and console tail" "$W/err"
grep -q '\\xc2\\x9b2J tail \\x1b\[1A' "$W/err" && t_ok "the console tail's CSI bytes are escaped" ||
	t_fail "the console tail: $(tail -3 "$W/err")"
rm -rf "$W/st" && cp -r "$W/good" "$W/st" && printf 'fine\n\033]0;title\a\033[31mred\n' >"$W/st/stdout"
FAKE_QEMU_OUT=$W/st expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/wo"
no_raw_controls "the suite's output" "$W/out"
grep -qx 'fine' "$W/out" && t_ok "the suite's plain lines stay as they were" || t_fail "stdout: $(cat "$W/out")"
# a tar member whose name clears the screen
mkdir -p "$W/tn" && echo 0 >"$W/tn/status" && echo x >"$W/tn/$ESC[2Jx" &&
	tar -cf "$W/tn.tar" -C "$W/tn" . || t_die "making the member-name tar"
FAKE_QEMU_TAR=$W/tn.tar expect 125 'member \./\\x1b\[2Jx: not a plain file name' \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/wt"
no_raw_controls "a refused member's name" "$W/err"

# 3. a bzImage whose release string holds escapes and a path: refused, escaped, never a path
python3 - "$W/evil-bz" <<'PY'
import sys
b = bytearray(0x400)
b[0x202:0x206] = b'HdrS'
b[0x20e:0x210] = (0x100).to_bytes(2, 'little')
b[0x300:0x300 + 16] = b'../\x1b[2J\x1b]0;x\x07 '
open(sys.argv[1], 'wb').write(b)
PY
mkdir -p "$W/mods"
expect 125 'its header.s release ".*\\x1b\[2J.*" is not a plain release name' \
	"$FSBENCH" kernel-run --kernel "$W/evil-bz" --modules "$W/mods" --qemu "$FAKE" --disk virtio \
	--disk-dir "$W/disks" --disk-size 64M --workdir "$W/wb"
no_raw_controls "a bzImage's release string" "$W/err"

# 4. a console flood: the boot is stopped at the cap, the tail of a long console read from
# its end (a 3 GB console once took 3.1 GB of memory)
FAKE_QEMU_FLOOD_MB=80 FAKE_QEMU_SLEEP=20 expect 125 "its console passed 64 MiB" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/wf"
# against the same boot with a 1 MiB console: what the console adds, not the build's own size
# (an ASan build's peak is some 60 MiB whatever the console)
for mb in 1 48; do
	FAKE_QEMU_FLOOD_MB=$mb /usr/bin/time -f %M -o "$W/rss$mb" "$FSBENCH" kernel-run "${run[@]}" \
		--workdir "$W/wf2-$mb" >/dev/null 2>"$W/err"
	grep -q "without a result; last console lines:" "$W/err" ||
		t_fail "a $mb MiB console without a result: $(tail -2 "$W/err")"
done
rss1=$(tail -1 "$W/rss1")
rss=$(tail -1 "$W/rss48")
[ "$((rss - rss1))" -lt 24576 ] && t_ok "peak memory with a 48 MiB console: $rss KiB ($rss1 KiB with 1 MiB)" ||
	t_fail "peak memory with a 48 MiB console: $rss KiB, $rss1 KiB with 1 MiB (the whole console was read)"

# 5. the .deb cache is keyed by content: two packages with one name, size and mtime
for v in a b; do
	rm -rf "$W/pkg" && mkdir -p "$W/pkg/DEBIAN" "$W/pkg/boot" "$W/pkg/lib/modules/9.9.9-same"
	printf 'Package: same\nVersion: 1\nArchitecture: all\nMaintainer: x <x@x>\nDescription: x\n' >"$W/pkg/DEBIAN/control"
	head -c 4096 /dev/urandom >"$W/pkg/boot/vmlinuz-9.9.9-same"
	find "$W/pkg" -exec touch -h -d @1700000000 {} +
	mkdir -p "$W/$v" && dpkg-deb -Znone --build --root-owner-group "$W/pkg" "$W/$v/same.deb" >/dev/null 2>&1 || t_die "dpkg-deb"
done
t_expect_eq "the two packages' sizes (the same)" "$(stat -c %s "$W/a/same.deb")" "$(stat -c %s "$W/b/same.deb")"
touch -d @1700000000 "$W/a/same.deb" "$W/b/same.deb"
mkdir -m 0755 "$W/cache5"
for v in a b; do
	FSBENCH_CACHE_DIR=$W/cache5 "$FSBENCH" kernel-run --kernel "$W/$v/same.deb" --qemu "$FAKE" --disk virtio \
		--disk-dir "$W/disks" --disk-size 64M --workdir "$W/wc$v" >/dev/null 2>&1
done
t_expect_eq "cache entries for two packages of one name, size and mtime" 2 "$(ls "$W/cache5/kernels" | wc -l)"

# 6. what the guest left is read through what fsbench holds, never found again by name (issue
# 29 item 2): a console swapped for a symlink to a root-only file once the guest said its last
# word (QEMU then lingers a second) is not what the failed boot's error quotes, nor is a
# guest/stdout swapped the same way while the guest's bytes are taken (a large stdout gives the
# swapper time) what kernel-run copies to its output
echo "root-only-$$" >"$W/secret" && chmod 0600 "$W/secret"
(for _ in $(seq 600); do
	c=$(ls "$W"/wsw/boot-*/console.log 2>/dev/null)
	if [ -n "$c" ] && grep -q FSBENCH-GUEST-EXIT "$c"; then
		ln -s "$W/secret" "$c.n" && mv -T "$c.n" "$c"
		break
	fi
	sleep 0.05
done) &
swapper=$!
FAKE_QEMU_LINGER=1 expect 125 "without a result; last console lines:" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/wsw"
wait $swapper
[ -L "$(ls -d "$W"/wsw/boot-*/console.log)" ] || t_fail "the console was not swapped (the test proves nothing)"
grep -q "root-only-$$" "$W/err" && t_fail "a swapped console: the root-only file was quoted: $(grep "root-only" "$W/err")" ||
	t_ok "a console swapped for a symlink: the root-only file is not quoted"
grep -q '| FSBENCH-GUEST-EXIT 0' "$W/err" && t_ok "the console's tail is the guest's own" ||
	t_fail "the console's tail: $(tail -3 "$W/err")"
rm -rf "$W/st" && cp -r "$W/good" "$W/st" && yes "a line of the suite's output" | head -c 24M >"$W/st/stdout"
(end=$((SECONDS + 60)); while [ $SECONDS -lt $end ]; do
	for o in "$W"/wso/boot-*/guest/stdout; do
		[ -f "$o" ] && [ ! -L "$o" ] && ln -sfn "$W/secret" "$o.n" && mv -T "$o.n" "$o" && exit 0
	done
done) &
swapper=$!
FAKE_QEMU_OUT=$W/st "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/wso" >"$W/out" 2>"$W/err"
kill $swapper 2>/dev/null; wait $swapper 2>/dev/null
[ -L "$(ls -d "$W"/wso/boot-*/guest/stdout)" ] || t_fail "guest/stdout was not swapped (the test proves nothing)"
grep -q "root-only-$$" "$W/out" && t_fail "a swapped guest/stdout: kernel-run copied the root-only file" ||
	t_ok "a guest/stdout swapped for a symlink: the root-only file is not copied ($(tail -1 "$W/err" | cut -c1-160))"

t_done
