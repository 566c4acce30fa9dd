#!/bin/bash
# Privilege separation (issue 29, item 1): with fsbench as root, the guest's results disk (a
# tar the kernel under test wrote) is parsed by a child running as a transient uid of its own
# (issue 40: not QEMU's, not nobody), with no new privileges: strace sees the process that creates the guest's
# files in guest/ change its uid first. Root then makes files of its own from them (a stream,
# kg_user_stream_back: root's, 0644), and a
# stand-in for QEMU plays the guest (fake-qemu.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
command -v strace >/dev/null || t_skip "strace is not installed"
export SUDO_UID= SUDO_GID=
mkdir -p "$W/disks"
kg_good_guest "$W/good"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boot-timeout 10s --timeout 60s)
# the cache is built first, without strace (its steps are kernel-privsep's)
FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w0"
FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" strace -f -qq -o "$W/trace" \
	-e trace=setresuid,setresgid,prctl,openat -e signal=none "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1"
# the pid that created the guest's status file in guest/, and what it did before
pid=$(grep -E 'openat\([0-9]+, "status", O_WRONLY\|O_CREAT\|O_EXCL' "$W/trace" | head -1 | cut -d' ' -f1)
if [ -z "$pid" ]; then
	t_fail "no process created the guest's status file (strace: $(wc -l <"$W/trace") lines)"
else
	# strace pads a short pid with spaces to the width of the longest
	uid=$(grep -E "^$pid +setresuid\(" "$W/trace" | grep -Eo '\(([0-9]+),' | tr -d '(,' | head -1)
	[[ $uid =~ ^(8[0-9]{4}|9[0-9]{4})$ ]] &&
		t_ok "the results disk is parsed by pid $pid as transient uid $uid" ||
		t_fail "the process that wrote guest/status (pid $pid) never became a transient uid: $(grep -E "^$pid +" "$W/trace" | head -3)"
	grep -Eq "^$pid +prctl\(PR_SET_NO_NEW_PRIVS, 1" "$W/trace" &&
		t_ok "with no new privileges" || t_fail "pid $pid set no PR_SET_NO_NEW_PRIVS"
fi
boot=$(dirname "$(find "$W/w1" -name guest -type d | head -1)")
grep -Eq '^results disk: uid (8[0-9]{4}|9[0-9]{4}) gid (8[0-9]{4}|9[0-9]{4}) no_new_privs 1 pid_ns own mnt_ns own other_mounts 0$' "$boot/privsep" 2>/dev/null &&
	t_ok "the boot's note: $(cat "$boot/privsep")" || t_fail "the boot's note: '$(cat "$boot/privsep" 2>/dev/null)'"
# streamed back into root's own files: root's, not writable by others, as fsbench later reads it
t_expect_eq "guest/ entries not root's or writable by others" "" \
	"$(find "$boot/guest" \( ! -user 0 -o -perm /022 \) | head -5)"
t_expect_eq "guest/result.json" "$(cat "$W/good/result.json" | md5sum)" "$(cat "$boot/guest/result.json" | md5sum)"
t_done
