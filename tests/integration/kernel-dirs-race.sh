#!/bin/bash
# Directories fsbench owns, files by descriptor, no root for QEMU (issue 29, items 2 and 1):
# another user (setpriv as nobody, in a loop where it races) cannot swap the kernel gate's --disk-dir, --workdir or
# the directory above it, its cache, or a symlink on their way, nor dbench's clients/ or dbench's and
# tree's -D under a directory of theirs, for a tree of theirs that
# root then writes through. A stand-in for QEMU plays the guest (fake-qemu.sh); each check
# fails if its attack works again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
command -v setpriv >/dev/null || t_skip "setpriv is not installed"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
racers=()
# race SCRIPT ARGS...: bash -c SCRIPT as the other user, in the background (setpriv itself,
# not a subshell, so stop_racers ends it)
race() { setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$@" & racers+=($!); }
stop_racers() { [ ${#racers[@]} -gt 0 ] && kill "${racers[@]}" 2>/dev/null; wait "${racers[@]}" 2>/dev/null; racers=(); }
trap 'stop_racers; t_cleanup' EXIT
mkdir -p "$W/disks"
kg_good_guest "$W/good"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-size 64M --boot-timeout 10s --timeout 60s)
echo "root-only-$$" >"$W/secret" && chmod 0600 "$W/secret"

# 1. a --disk-dir another user owns: refused before any boot (it swapped the boot's scratch
# directory for one holding scratch.img -> a root-only file, and root's QEMU wrote there)
mkdir "$W/theirdisks" && chown 65534:65534 "$W/theirdisks"
FAKE_QEMU_PIDFILE=$W/pid1 expect 2 "--disk-dir: refusing $W/theirdisks: .*another user owns it" \
	"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/theirdisks" --workdir "$W/w1"
[ -e "$W/pid1" ] && t_fail "QEMU ran on another user's --disk-dir"
# a shared sticky --disk-dir (a small tmpfs as /dev/shm): the racer swaps every scratch directory it can for
# one with scratch.img -> the secret; QEMU writes to the disk fsbench opened, by descriptor
mkdir "$W/shm" && mount -t tmpfs -o size=80m,mode=1777 fsbench-test "$W/shm" && T_MOUNTS+=("$W/shm") ||
	t_die "mounting a tmpfs for --disk-dir"
race 'while :; do for d in "$1"/fsbench-kgate.*; do
	[ -d "$d" ] || continue; mv "$d" "$d.gone" 2>/dev/null && mkdir "$d" && ln -s "$2" "$d/scratch.img"
	done; done' _ "$W/shm" "$W/secret"
for i in 1 2 3; do
	FAKE_QEMU_OUT=$W/good FAKE_QEMU_FILL=1 "$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/shm" \
		--workdir "$W/w1-$i" >/dev/null 2>&1
done
stop_racers
t_expect_eq "the root-only file after 3 boots with a racer in --disk-dir" "root-only-$$" "$(cat "$W/secret")"

# 2. a --workdir whose parent another user owns: refused (results are read back from it)
mkdir "$W/theirparent" && chown 65534:65534 "$W/theirparent"
FAKE_QEMU_PIDFILE=$W/pid2 expect 2 "the work directory's parent: refusing $W/theirparent" \
	"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/disks" --workdir "$W/theirparent/w"
[ -e "$W/pid2" ] && t_fail "QEMU ran with a workdir below another user's directory"

# 3. an absent --workdir in a shared sticky directory: the racer makes it 0777 and removes it
# again, so it is absent when checked and there when made (mkdir's EEXIST was accepted)
mkdir -m 1777 "$W/tmp"
race 'while :; do mkdir -m 0777 "$1" 2>/dev/null; rmdir "$1" 2>/dev/null; done' _ "$W/tmp/wd"
for i in $(seq 10); do
	FAKE_QEMU_OUT=$W/good "$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/disks" --workdir "$W/tmp/wd" \
		>/dev/null 2>&1
	owner=$(stat -c %u "$W/tmp/wd" 2>/dev/null)
	[ "$owner" = 0 ] && break # root made it first: the racer cannot remove it now
done
stop_racers
[ "$owner" = 0 ] || echo "# the racer made --workdir first in all 10 runs"
if [ "$(stat -c %u "$W/tmp/wd" 2>/dev/null)" = 65534 ] && [ -n "$(ls "$W/tmp/wd")" ]; then
	t_fail "root booted in another user's --workdir: $(ls "$W/tmp/wd")"
else
	t_ok "no boot in another user's --workdir"
fi

# 4. dbench -D in a shared directory: another user's clients/ (0777) where it swaps root's
# clients/client0 for its own, holding sub -> a root-only directory
mkdir -m 1777 "$W/shared" && mkdir -m 0700 "$W/victim"
LOAD=$SRCDIR/tests/fixtures/dbench/every-op.load
swapper='while :; do
	mv "$1/clients/client0" "$1/clients/old$RANDOM" 2>/dev/null
	mkdir -m 0777 -p "$1/clients/client0" 2>/dev/null && ln -s "$2" "$1/clients/client0/sub" 2>/dev/null
done'
nobody mkdir -m 0777 "$W/shared/clients"
race "$swapper" _ "$W/shared" "$W/victim"
expect 1 "clients: another user owns it" "$FSBENCH" dbench -D "$W/shared" -c "$LOAD" -t 2 --warmup 0 1
stop_racers
t_expect_eq "files root made outside -D" "" "$(ls -A "$W/victim")"
# racing from an empty -D: the other user makes clients/ the moment it can
sleep 0.5
rm -rf "$W/shared/clients" || t_die "removing the other user's clients/"
race 'while :; do mkdir -m 0777 "$1/clients" 2>/dev/null; done' _ "$W/shared"
race "$swapper" _ "$W/shared" "$W/victim"
for i in 1 2 3; do
	"$FSBENCH" dbench -D "$W/shared" -c "$LOAD" -t 1 --warmup 0 1 >/dev/null 2>&1
done
stop_racers
t_expect_eq "files root made outside -D with a racer" "" "$(ls -A "$W/victim")"
# -D itself another user's, as root: refused
mkdir "$W/theirD" && chown 65534:65534 "$W/theirD"
expect 1 "-D $W/theirD: another user owns it" "$FSBENCH" dbench -D "$W/theirD" -c "$LOAD" -t 1 --warmup 0 1
# 6. held by descriptor from the check on (issue 29 item 2): a symlink of the other user's,
# in a sticky directory, that it re-points in a loop between a directory root may use and a
# root-only one. A walk of realpath() and lstat() passed it (both ends are root's) and the
# path was used by name later, so boots, scratch disks and dbench's or tree's files landed
# in the root-only one; the walk by descriptor refuses a symlink another user owns.
mkdir -m 0755 "$W/rootA" "$W/rootB" && mkdir -m 0700 "$W/victim6"
flip='while :; do ln -sfn "$2" "$1.n" && mv -T "$1.n" "$1"; ln -sfn "$3" "$1.n" && mv -T "$1.n" "$1"; done'
nobody ln -s "$W/rootA" "$W/tmp/wlink"
race "$flip" _ "$W/tmp/wlink" "$W/rootA" "$W/victim6"
for i in 1 2 3; do # --workdir absent below the link: made, then used by name
	FAKE_QEMU_OUT=$W/good expect 2 "the work directory's parent: refusing .*symlink another user owns" \
		"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/disks" --workdir "$W/tmp/wlink/wd$i"
done
stop_racers
t_expect_eq "files root made in the root-only directory through --workdir" "" "$(ls -A "$W/victim6")"
nobody ln -sfn "$W/rootB" "$W/tmp/dlink"
race "$flip" _ "$W/tmp/dlink" "$W/rootB" "$W/victim6"
for i in 1 2 3; do # --disk-dir swapped: the scratch directory made by name in it
	FAKE_QEMU_OUT=$W/good expect 2 "--disk-dir: refusing .*symlink another user owns" \
		"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/tmp/dlink" --workdir "$W/w6-$i"
done
stop_racers
t_expect_eq "files root made in the root-only directory through --disk-dir" "" "$(ls -A "$W/victim6")"
# dbench -D and tree -D below a directory of the other user's, where it re-points sub from
# a directory of its own to the root-only one: the walk refuses the other user's directory
mkdir "$W/their6" && chown 65534:65534 "$W/their6"
mkdir "$W/shape6" && echo x >"$W/shape6/a.c" && echo y >"$W/shape6/b.h"
nobody mkdir "$W/their6/real" && nobody ln -s real "$W/their6/sub"
race "$flip" _ "$W/their6/sub" "$W/their6/real" "$W/victim6"
for i in 1 2 3; do
	expect 1 "-D $W/their6/sub: its directory $W/their6: another user owns it" \
		"$FSBENCH" dbench -D "$W/their6/sub" -c "$LOAD" -t 1 --warmup 0 1
	expect 1 "-D $W/their6/sub: its directory $W/their6: another user owns it" \
		"$FSBENCH" tree -D "$W/their6/sub" -i 1 -r 0 --shape-from "$W/shape6" --quiet
done
stop_racers
t_expect_eq "files root made in the root-only directory through -D" "" "$(ls -A "$W/victim6")"
# 7. fsbench restore removes what a journal names beneath its directory opened by the trusted
# walk, by descriptor: the other user's symlink on the way, re-pointed in a loop between the
# directory fsbench made its files in and a root-only one holding files of the same names, made
# restore remove files there (it checked the entry's inode through the link, then removed by
# the path again, one lookup per file). Each round journals a fresh tree of 2000 files and an
# image; the link is refused whatever it points to, and nothing in the root-only one goes.
mkdir -m 0755 "$W/rootR" && mkdir -m 0700 "$W/victim7" && mkdir -p -m 0700 "$FSBENCH_STATE_DIR"
nobody ln -s "$W/rootR" "$W/tmp/rlink"
race "$flip" _ "$W/tmp/rlink" "$W/rootR" "$W/victim7"
dead_pid=$(sh -c 'echo $$')
for i in 1 2 3 4 5; do
	for d in "$W/rootR" "$W/victim7"; do
		mkdir -m 0700 "$d/.extract.1.r$i" && (cd "$d/.extract.1.r$i" && touch f{1..2000}) &&
			echo "$d" >"$d/img$i" || t_die "making round $i's files in $d"
	done
	{
		printf '{"journal":"fsbench-journal/1","pid":%d,"start":1}\n' "$dead_pid"
		for e in "tree .extract.1.r$i" "image img$i"; do
			f=$W/rootR/${e#* }
			printf '{"kind":"scratch","what":"%s","path":"%s","st_dev":%s,"ino":%s}\n' \
				"${e%% *}" "$W/tmp/rlink/${e#* }" "$(stat -c %d "$f")" "$(stat -c %i "$f")"
		done
	} >"$FSBENCH_STATE_DIR/journal-$dead_pid-$i.jsonl"
	chmod 0600 "$FSBENCH_STATE_DIR/journal-$dead_pid-$i.jsonl"
	"$FSBENCH" restore --discard >"$W/restore7.out" 2>&1
done
stop_racers
t_expect_eq "files restore removed in the root-only directory (of 5 x 2001)" 10005 "$(find "$W/victim7" -type f | wc -l)"
grep -q "refusing its directory: $W/tmp/rlink: .*symlink another user owns" "$W/restore7.out" &&
	t_ok "restore refuses the other user's link: $(grep -m1 refusing "$W/restore7.out" | cut -c1-200)" ||
	t_fail "restore with the other user's link: $(head -3 "$W/restore7.out")"
t_expect_eq "files restore removed in the directory it made them in (the link refused)" 10005 \
	"$(find "$W/rootR" -type f | wc -l)"
# 8. the kernel cache (kernels/, pvh/, initramfs/) below a symlink of the other user's that
# it re-points between a directory root may use and a root-only one, as FSBENCH_CACHE_DIR's
# parent or as $HOME: realpath() and lstat() passed it (both ends are root's) and the cache
# was made and written by name, so packages, vmlinux and initramfs landed in the root-only
# one; the cache is held by descriptor from a walk that refuses the other user's symlink
mkdir -m 0755 "$W/rootC" && mkdir -m 0700 "$W/victim8"
nobody ln -s "$W/rootC" "$W/tmp/clink"
race "$flip" _ "$W/tmp/clink" "$W/rootC" "$W/victim8"
for i in 1 2 3; do
	FAKE_QEMU_OUT=$W/good FSBENCH_CACHE_DIR=$W/tmp/clink/cache expect 2 "refusing the cache .*clink: it is a symlink another user owns" \
		"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/disks" --workdir "$W/w8-$i"
done
stop_racers
nobody ln -sfn "$W/rootC" "$W/tmp/hlink"
race "$flip" _ "$W/tmp/hlink" "$W/rootC" "$W/victim8"
for i in 1 2 3; do
	FAKE_QEMU_OUT=$W/good FSBENCH_CACHE_DIR= XDG_CACHE_HOME= HOME=$W/tmp/hlink expect 2 "refusing the cache .*hlink: it is a symlink another user owns" \
		"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/disks" --workdir "$W/w8h-$i"
done
stop_racers
t_expect_eq "files root made in the root-only directory through the cache's path" "" "$(ls -A "$W/victim8")"
t_expect_eq "files root made in the directory the link led to" "" "$(ls -A "$W/rootC")"
# 5. nothing on the guest's side runs as root: QEMU is a transient uid of its own (issue 40),
# with no groups, no new privileges and its own seccomp sandbox, and reads the kernel and
# initramfs through descriptors
FAKE_QEMU_ID=$W/id FAKE_QEMU_ARGS=$W/args5 FAKE_QEMU_OUT=$W/good SUDO_UID= SUDO_GID= expect 0 "guest status 0" \
	"$FSBENCH" kernel-run "${run[@]}" --disk-dir "$W/disks" --workdir "$W/w5"
grep -Eqx '(8[0-9]{4}|9[0-9]{4}) \1 \[\1\] 1' "$W/id" 2>/dev/null &&
	t_ok "QEMU's uid gid [groups] no_new_privs: $(cat "$W/id")" ||
	t_fail "QEMU's uid gid [groups] no_new_privs: '$(cat "$W/id" 2>/dev/null)', not a transient uid's"
grep -qx -- "-sandbox" "$W/args5" && t_ok "QEMU runs with -sandbox on" || t_fail "no -sandbox on QEMU's command line"
t_expect_eq "QEMU's -kernel and -initrd" "/dev/fd /dev/fd" \
	"$(grep -A1 -x -- '-kernel\|-initrd' "$W/args5" | grep -o '^/dev/fd' | tr '\n' ' ' | sed 's/ $//')"
t_done
