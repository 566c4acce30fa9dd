#!/bin/bash
# A stand-in for qemu-system-x86_64 that plays a guest: it prints the guest's markers on the
# -serial file and writes a results tar on the second -drive, as the fsbench initramfs's /init
# does, but what it writes is set by the test: FAKE_QEMU_OUT, a directory whose contents
# become the tar (made with the test's own tar, so it can hold device nodes, setuid files and
# symlinks), FAKE_QEMU_TAR (a ready tar), FAKE_QEMU_SLEEP (seconds before the end),
# FAKE_QEMU_FILL=1 (the guest fills its scratch disk, and the host's directory with it),
# FAKE_QEMU_PAUSE=1 (a guest QEMU paused: alive, silent, no CPU), FAKE_QEMU_SILENT=1 (a
# guest that never prints, as KVM's hung after the firmware on a host), FAKE_QEMU_PIDFILE.
serial="" results="" drive1="" n=0
while [ $# -gt 0 ]; do
	case $1 in
	-serial) serial=${2#file:}; shift ;;
	-drive)
		n=$((n + 1))
		f=${2#file=}; f=${f%%,*}
		[ $n = 1 ] && drive1=$f
		[ $n = 2 ] && results=$f
		shift ;;
	-*) [ $# -gt 1 ] && [ "${2#-}" = "$2" ] && shift ;;
	esac
	shift
done
[ -n "${FAKE_QEMU_PIDFILE:-}" ] && echo $$ >"$FAKE_QEMU_PIDFILE"
[ "${FAKE_QEMU_SILENT:-0}" = 1 ] && exec sleep 300 # no word until it is stopped
echo "[    0.000000] Linux version 9.9.9-fake" >>"$serial"
echo "FSBENCH-GUEST-INIT uptime 0.50" >>"$serial"
echo "FSBENCH-GUEST-START 9.9.9-fake uptime 0.60" >>"$serial"
if [ "${FAKE_QEMU_FILL:-0}" = 1 ]; then # the guest writes until the host's disk is full
	dd if=/dev/zero of="$drive1" bs=1M conv=notrunc status=none 2>/dev/null
fi
if [ "${FAKE_QEMU_PAUSE:-0}" = 1 ]; then
	kill -STOP $$
fi
# a child the test can find and end, since a kill -9 of this shell leaves it behind
sleep "${FAKE_QEMU_SLEEP:-0}" &
[ -n "${FAKE_QEMU_PIDFILE:-}" ] && echo $! >>"$FAKE_QEMU_PIDFILE.children"
wait $!
if [ -n "${FAKE_QEMU_TAR:-}" ]; then
	dd if="$FAKE_QEMU_TAR" of="$results" conv=notrunc status=none
elif [ -n "${FAKE_QEMU_OUT:-}" ]; then
	tar -cf - -C "$FAKE_QEMU_OUT" . | dd of="$results" conv=notrunc status=none
fi
echo "FSBENCH-GUEST-EXIT 0" >>"$serial"
exit 0
