#!/bin/bash
# Issue 40, items 1, 3 and 6: with fsbench as root, each gate's QEMU runs as a transient uid
# of its own (80000..99999, in no user database, claimed under a lock in /run/fsbench/uid):
# two gates at once never share it, neither is nobody or root, SUDO_UID (even -1 or 0) is
# not read, a process a guest left behind as that uid is killed before the uid is let go,
# and the boot's token is on no command line (/proc/PID/cmdline is everyone's): the guest
# finds it in the initrd, a file only that uid may read. A stand-in for QEMU plays the
# guest (fake-qemu.sh). Every check fails on the main of before issue 40.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
mkdir -p "$W/disks"
kg_good_guest "$W/good"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boot-timeout 20s --timeout 60s)
in_range() { [[ $1 =~ ^(8[0-9]{4}|9[0-9]{4})$ ]] && ! getent passwd "$1" >/dev/null && ! getent group "$1" >/dev/null; }
# the cache first (kernel, initramfs, vmlinux), so that both gates below boot at once
FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w0"

# two gates at once, one told SUDO_UID=-1 (which setresuid reads as "unchanged": root), the
# other SUDO_UID=0; each QEMU waits until the other is up, so that they surely overlap
gate() { # N SUDO_UID: a kernel-run in the background, its QEMU's traces in $W/qN.*
	SUDO_UID=$2 SUDO_GID=$2 FAKE_QEMU_OUT=$W/good FAKE_QEMU_SLEEP=4 FAKE_QEMU_ID=$W/q$1.id \
		FAKE_QEMU_ARGS=$W/q$1.args FAKE_QEMU_INITRD=$W/q$1.initrd FAKE_QEMU_PIDFILE=$W/q$1.pid \
		FAKE_QEMU_ORPHAN=$W/q$1.orphan "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w$1" \
		>"$W/g$1.out" 2>"$W/g$1.err" &
}
gate 1 -1
p1=$!
gate 2 0
p2=$!
T_PIDS+=("$p1" "$p2")
for i in $(seq 100); do [ -s "$W/q1.pid" ] && [ -s "$W/q2.pid" ] && break; sleep 0.1; done
if kill -0 "$(cat "$W/q1.pid" 2>/dev/null)" 2>/dev/null && kill -0 "$(cat "$W/q2.pid" 2>/dev/null)" 2>/dev/null; then
	t_ok "both QEMUs run at once"
	u1=$(ps -o uid= -p "$(cat "$W/q1.pid")" | tr -d ' ') u2=$(ps -o uid= -p "$(cat "$W/q2.pid")" | tr -d ' ')
	# the uid of each is its QEMU's alone: no other process on the host runs as it
	q1=$(cat "$W/q1.pid") q2=$(cat "$W/q2.pid")
	# descended from QEMU @1 or @2 (its sleeps, the orphan it started, the commands its
	# script runs for a moment): then it is QEMU's own, not another process of that uid
	own() {
		local p=$1 n=0
		while [ -n "$p" ] && [ "$p" -gt 1 ] && [ $n -lt 64 ]; do
			[ "$p" = "$q1" ] || [ "$p" = "$q2" ] && return 0
			p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
			n=$((n + 1))
		done
		return 1
	}
	others=$(ps -eo pid=,uid= | awk -v a="$u1" -v b="$u2" '($2 == a || $2 == b) { print $1 }' |
		while read -r p; do
			[ -d "/proc/$p" ] || continue # gone meanwhile
			own "$p" || grep -qs "fake-qemu\|sleep" "/proc/$p/cmdline" || echo "$p"
		done)
	t_expect_eq "other processes running as the two QEMUs' uids" "" "$others"
else
	t_fail "the two QEMUs did not run at once"
fi
wait "$p1"; rc1=$?
wait "$p2"; rc2=$?
t_expect_eq "the gates' exit statuses (SUDO_UID=-1, SUDO_UID=0)" "0 0" "$rc1 $rc2"
read -r id1 gid1 _ <"$W/q1.id"
read -r id2 gid2 _ <"$W/q2.id"
in_range "$id1" && in_range "$id2" && t_ok "QEMU ran as transient uids $id1 and $id2" ||
	t_fail "QEMU's uids $id1, $id2 are not transient ones (80000..99999, unnamed)"
[ "$id1" != "$id2" ] && t_ok "two gates at once: two uids" || t_fail "two gates at once shared uid $id1"
t_expect_eq "QEMU's gids are its uids" "$id1 $id2" "$gid1 $gid2"
# the token: the guest wrote back this boot's (the gate judged it), yet QEMU's command
# line never held it; the initrd it came in was QEMU's uid's, 0400
for n in 1 2; do
	tok=$(cat "$(find "$W/w$n" -path '*/guest/token' | head -1)" 2>/dev/null)
	[[ $tok =~ ^[0-9a-f]{32}$ ]] && t_ok "gate $n's guest wrote back its token" || t_fail "gate $n: no token came back ('$tok')"
	grep -q "fsbench.token\|${tok:-no-token}" "$W/q$n.args" && t_fail "gate $n: the token is on QEMU's command line" ||
		t_ok "gate $n: no token on QEMU's command line"
	read -r iu im <"$W/q$n.initrd"
	id=$(cut -d' ' -f1 "$W/q$n.id")
	t_expect_eq "gate $n: the initrd's owner and mode" "$id 400" "$iu $im"
	# what a guest left behind as that uid was killed before the uid was let go
	o=$(cat "$W/q$n.orphan" 2>/dev/null)
	[ -n "$o" ] || t_fail "gate $n: the stand-in left no process behind"
	# gone, or a zombie (killed, waiting for init's wait: it runs nothing)
	if [ -n "$o" ] && ps -o stat= -p "$o" 2>/dev/null | grep -vq '^Z'; then
		t_fail "gate $n: the process the guest left (pid $o) still runs after the gate"
		kill -9 "$o"
	else
		t_ok "gate $n: the process the guest left (pid $o) is gone"
	fi
	# (a zombie runs nothing: it waits for a parent's wait, here's an init's that may never come)
	t_expect_eq "gate $n: processes of uid $id after the gate" "" "$(ps -eo uid=,stat=,pid= | awk -v u="$id" '$1 == u && $2 !~ /^Z/ { print $3 }')"
	t_expect_eq "gate $n: uid $id's claim after the gate" "" "$(ls /run/fsbench/uid/$id.lock 2>/dev/null)"
	t_expect_eq "gate $n: files of its boot not root's" "" "$(find "$W/w$n" ! -user 0 | head -3)"
done
t_done
