#!/bin/bash
# Privilege separation (issue 29, item 1): with fsbench as root, dpkg-deb and depmod (a .deb
# into the kernel cache), find, sort and cpio (the initramfs) and the decompression of the
# bzImage's payload into the PVH cache (in the step itself: no tool) run as the unprivileged user
# QEMU runs as, a transient uid of the gate's range claimed for each step (issue 40: never
# nobody, never SUDO_UID), with no new privileges, in a PID and a mount namespace of their
# own; the trees they wrote end root's before they are cache.
# Stand-ins first on PATH record who runs them, then exec the real tool. A stand-in for QEMU
# plays the guest (fake-qemu.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
export SUDO_UID= SUDO_GID=
# the step's uid and gid: one number of the gate's range, in no user database
uid_re='(8[0-9]{4}|9[0-9]{4})'
note_re() { echo "^$1: uid $uid_re gid $uid_re no_new_privs 1 pid_ns own mnt_ns own other_mounts 0\$"; }
# a cache of this test's own, so that the package is extracted and the initramfs built here,
# below a directory only root may enter, as root's ~/.cache is: the steps reach their
# directories and read their sources by descriptor, not by path
mkdir -m 0700 "$W/private"
export FSBENCH_CACHE_DIR=$W/private/cache
mkdir -p "$W/disks" "$W/bin" && mkdir -m 1777 "$W/ids"
for tool in dpkg-deb depmod cpio; do
	real=$(command -v "$tool") || t_skip "$tool is not installed"
	cat >"$W/bin/$tool" <<-EOS
	#!/bin/sh
	# who runs $tool: uid, no_new_privs, its PID and mount namespaces
	echo "\$(id -u) \$(awk '/^NoNewPrivs/ { print \$2 }' /proc/self/status) \$(readlink /proc/self/ns/pid) \$(readlink /proc/self/ns/mnt)" >>"$W/ids/$tool"
	exec "$real" "\$@"
	EOS
	chmod 0755 "$W/bin/$tool"
done
kg_good_guest "$W/good"
host_ns="$(readlink /proc/self/ns/pid) $(readlink /proc/self/ns/mnt)"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boot-timeout 10s --timeout 60s)

PATH=$W/bin:$PATH FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1"
for tool in dpkg-deb depmod cpio; do
	if [ ! -s "$W/ids/$tool" ]; then
		t_fail "$tool did not run (through the stand-in on PATH)"
		continue
	fi
	read -r uid nnp pidns mntns <"$W/ids/$tool"
	[[ $uid =~ ^$uid_re$ ]] && ! getent passwd "$uid" >/dev/null &&
		t_ok "$tool ran as transient uid $uid" || t_fail "$tool ran as uid $uid, not a transient one"
	t_expect_eq "$tool's no_new_privs" "1" "$nnp"
	[ "$pidns" != "${host_ns% *}" ] && t_ok "$tool in its own PID namespace ($pidns)" ||
		t_fail "$tool in fsbench's PID namespace"
	[ "$mntns" != "${host_ns#* }" ] && t_ok "$tool in its own mount namespace ($mntns)" ||
		echo "# $tool in fsbench's mount namespace (none could be made here)"
done
# the cache: root's alone, nothing group- or world-writable, no staging left over
t_expect_eq "cache entries not owned by root" "" "$(find "$W/private/cache" ! -user 0 | head -5)"
t_expect_eq "cache entries writable by group or others" "" "$(find "$W/private/cache" ! -type l -perm /022 | head -5)"
t_expect_eq "staging directories left in the cache" "" "$(find "$W/private/cache" -name '.extract.*' -o -name '.stage.*' | head -5)"
note_ok() { # WHAT STEP FILE
	grep -Eq "$(note_re "$2")" "$3" 2>/dev/null && t_ok "$1: $(cat "$3")" ||
		t_fail "$1: '$(cat "$3" 2>/dev/null)' is not /$(note_re "$2")/"
}
note_ok "the extraction's note" "dpkg-deb, depmod" "$(ls "$W"/private/cache/kernels/*/.privsep | head -1)"
note_ok "the initramfs's note" "staging, cpio" "$(ls "$W"/private/cache/initramfs/*.privsep | head -1)"
# the PVH vmlinux: decompressed from the package's bzImage by the unprivileged user (its
# note), into a directory that root took back and renamed into pvh/ as root's file
note_ok "the PVH decompression's note" "decompression" "$(ls "$W"/private/cache/pvh/*.privsep | head -1)"
vml=$(ls "$W"/private/cache/pvh/vmlinux-* 2>/dev/null | grep -v '\.privsep$' | head -1)
t_expect_eq "the PVH vmlinux's owner and mode" "0 644" "$(stat -c '%u %a' "$vml" 2>/dev/null)"
file_magic=$(head -c 4 "$vml" 2>/dev/null | od -An -c | tr -d ' ')
t_expect_eq "the PVH vmlinux is an ELF" "177ELF" "$file_magic"
# root once made /dev/console in the staging tree; now root appends it to the archive
cpio_file=$(ls "$W"/private/cache/initramfs/*.cpio | head -1)
tail -c 512 "$cpio_file" | grep -aq "dev/console" && t_ok "the initramfs holds dev/console" ||
	t_fail "no dev/console at the end of $cpio_file"
# a second run trusts and uses that cache: no tool runs again
rm -f "$W"/ids/*
PATH=$W/bin:$PATH FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w2"
t_expect_eq "tools run for a cached kernel and initramfs" "" "$(ls "$W/ids")"
t_expect_eq "decompressions for a cached vmlinux" "1" "$(cat "$W"/private/cache/pvh/*.privsep 2>/dev/null | wc -l)"

# what the unprivileged step may have put in the tree is checked before root takes it: a
# package with a setuid file, or with a symlink leading out of the tree, is refused, and
# nothing of it stays in the cache
fake_deb() { # NAME: a package with a real boot/vmlinuz-9.9.9-NAME, in $W/NAME.deb
	mkdir -p "$W/$1/DEBIAN" "$W/$1/boot" "$W/$1/lib/modules/9.9.9-$1"
	printf 'Package: %s\nVersion: 1\nArchitecture: all\nMaintainer: x <x@x>\nDescription: x\n' "$1" >"$W/$1/DEBIAN/control"
	head -c 4096 /dev/urandom >"$W/$1/boot/vmlinuz-9.9.9-$1"
}
fake_deb suid && echo x >"$W/suid/boot/tool" && chmod 4755 "$W/suid/boot/tool"
fake_deb escape && ln -s ../../../../etc "$W/escape/lib/modules/9.9.9-escape/etc"
for p in suid:"a setuid or setgid file" escape:"a symlink leading outside the tree"; do
	dpkg-deb --build --root-owner-group "$W/${p%%:*}" "$W/${p%%:*}.deb" >/dev/null 2>&1 || t_die "dpkg-deb --build"
	expect 125 "kernel .*: refused: .* is ${p#*:}" "$FSBENCH" kernel-run \
		--kernel "$W/${p%%:*}.deb" "${run[@]:2}" --workdir "$W/w-${p%%:*}"
done
t_expect_eq "what the refused packages left in the cache" "" \
	"$(ls -A "$W/private/cache/kernels" | grep -v "^$(basename "$deb" .deb)-")"
t_done
