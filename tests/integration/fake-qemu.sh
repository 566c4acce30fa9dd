#!/bin/bash
# A stand-in for qemu-system-x86_64 that plays a guest: it prints the guest's markers on the
# -serial file and writes a results tar on the second -drive, as the fsbench initramfs's /init
# does, but what it writes is set by the test: FAKE_QEMU_OUT, a directory whose contents
# become the tar (made with the test's own tar, so it can hold device nodes, setuid files and
# symlinks), FAKE_QEMU_TAR (a ready tar), FAKE_QEMU_SLEEP (seconds before the end),
# FAKE_QEMU_FILL=1 (the guest fills its scratch disk, and the host's directory with it),
# FAKE_QEMU_PAUSE=1 (a guest QEMU paused: alive, silent, no CPU), FAKE_QEMU_SILENT=1 (a
# guest that never prints, as KVM's hung after the firmware on a host), FAKE_QEMU_PIDFILE,
# FAKE_QEMU_CONSOLE (a file the guest then prints on the console), FAKE_QEMU_FLOOD_MB (MiB
# of console lines printed first), FAKE_QEMU_ARGS (a file that gets QEMU's arguments),
# FAKE_QEMU_ID (a file that gets who it runs as: "uid gid [groups] no_new_privs"),
# FAKE_QEMU_INITRD (a file that gets the -initrd's owner uid and mode, "uid mode"),
# FAKE_QEMU_ORPHAN (a file that gets the pid of a process it leaves running, in a session
# of its own, as a guest that escaped QEMU would),
# FAKE_QEMU_LINGER (seconds it stays after its last console line, before it exits),
# FAKE_QEMU_OUT_SEQ (a directory, writable by the guest's user, of 1/, 2/...: each boot in
# turn takes the next one as its FAKE_QEMU_OUT, claimed by making taken.N),
# FAKE_QEMU_HOLD (a file: once up, the guest waits until it exists, at most 60 s, before its
# results), FAKE_QEMU_HASH (a file that gets the sha256 of the -kernel and of the -initrd it
# was given, "kernel HASH" and "initrd HASH", and with FAKE_QEMU_HASH_PREFIX=N "initrd-prefix
# HASH" of its first N bytes: the cached initramfs, before the boot's own token archive).
# Into FAKE_QEMU_OUT's tar it adds what the real /init writes when the directory lacks it:
# token (from the per-boot archive fsbench appends to the -initrd, etc/fsbench/token, or
# else from fsbench.token= on -append), boot_id (a new one), time (now) and release
# (FAKE_QEMU_RELEASE), so a test forges them by putting its own there.
serial="" results="" drive1="" n=0 append="" initrd="" kernel=""
[ -n "${FAKE_QEMU_ARGS:-}" ] && printf '%s\n' "$@" >"$FAKE_QEMU_ARGS"
# who QEMU runs as: uid, gid, groups and no_new_privs
[ -n "${FAKE_QEMU_ID:-}" ] && echo "$(id -u) $(id -g) [$(id -G)] $(awk '/^NoNewPrivs/ { print $2 }' /proc/self/status)" >"$FAKE_QEMU_ID"
while [ $# -gt 0 ]; do
	case $1 in
	-serial) serial=${2#file:}; shift ;;
	-append) append=$2; shift ;;
	-initrd) initrd=$2; shift ;;
	-kernel) kernel=$2; shift ;;
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
[ -n "${FAKE_QEMU_INITRD:-}" ] && stat -L -c '%u %a' "$initrd" >"$FAKE_QEMU_INITRD"
[ -n "${FAKE_QEMU_HASH:-}" ] && echo "kernel $(sha256sum "$kernel" | cut -d' ' -f1)
initrd $(sha256sum "$initrd" | cut -d' ' -f1)" >"$FAKE_QEMU_HASH"
[ -n "${FAKE_QEMU_HASH_PREFIX:-}" ] &&
	echo "initrd-prefix $(head -c "$FAKE_QEMU_HASH_PREFIX" "$initrd" | sha256sum | cut -d' ' -f1)" >>"$FAKE_QEMU_HASH"
[ -n "${FAKE_QEMU_PIDFILE:-}" ] && echo $$ >"$FAKE_QEMU_PIDFILE"
[ -n "${FAKE_QEMU_ORPHAN:-}" ] && setsid sh -c 'echo $$ >"$1"; exec sleep 600' sh "$FAKE_QEMU_ORPHAN" </dev/null >/dev/null 2>&1 &
[ "${FAKE_QEMU_SILENT:-0}" = 1 ] && exec sleep 300 # no word until it is stopped
echo "[    0.000000] Linux version 9.9.9-fake" >>"$serial"
echo "FSBENCH-GUEST-INIT uptime 0.50" >>"$serial"
echo "FSBENCH-GUEST-START 9.9.9-fake uptime 0.60" >>"$serial"
if [ "${FAKE_QEMU_FILL:-0}" = 1 ]; then # the guest writes until the host's disk is full
	dd if=/dev/zero of="$drive1" bs=1M conv=notrunc status=none 2>/dev/null
fi
if [ -n "${FAKE_QEMU_FLOOD_MB:-}" ]; then
	yes "[    1.000000] a guest flooding its console with lines of this size" |
		head -c "$((FAKE_QEMU_FLOOD_MB << 20))" >>"$serial"
fi
if [ -n "${FAKE_QEMU_HOLD:-}" ]; then
	hold_n=0
	while [ ! -e "$FAKE_QEMU_HOLD" ] && [ $hold_n -lt 600 ]; do sleep 0.1; hold_n=$((hold_n + 1)); done
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
elif [ -n "${FAKE_QEMU_OUT_SEQ:-}" ] || [ -n "${FAKE_QEMU_OUT:-}" ]; then
	if [ -n "${FAKE_QEMU_OUT_SEQ:-}" ]; then
		seq_n=1 # the first not taken: mkdir claims it, whoever the guest runs as
		while ! mkdir "$FAKE_QEMU_OUT_SEQ/taken.$seq_n" 2>/dev/null; do seq_n=$((seq_n + 1)); done
		FAKE_QEMU_OUT=$FAKE_QEMU_OUT_SEQ/$seq_n
	fi
	out=$(mktemp -d) && cp -a "$FAKE_QEMU_OUT/." "$out/"
	tok=
	for w in $append; do case $w in fsbench.token=*) tok=${w#fsbench.token=} ;; esac; done
	# the kernel would unpack the archive appended last: its one file's bytes follow its name
	[ -n "$initrd" ] && [ -z "$tok" ] &&
		tok=$(tail -c 1024 "$initrd" | tr '\0' '\n' | grep -A3 'etc/fsbench/token$' | grep -Eo '^[0-9a-f]{32}$' | head -1)
	[ -e "$out/token" ] || echo "$tok" >"$out/token"
	[ -e "$out/boot_id" ] || cat /proc/sys/kernel/random/uuid >"$out/boot_id"
	[ -e "$out/time" ] || date +%s >"$out/time"
	[ -e "$out/release" ] || [ -z "${FAKE_QEMU_RELEASE:-}" ] || echo "$FAKE_QEMU_RELEASE" >"$out/release"
	tar -cf - -C "$out" . | dd of="$results" conv=notrunc status=none
	rm -rf "$out"
fi
[ -n "${FAKE_QEMU_CONSOLE:-}" ] && cat "$FAKE_QEMU_CONSOLE" >>"$serial"
echo "FSBENCH-GUEST-EXIT 0" >>"$serial"
[ -n "${FAKE_QEMU_LINGER:-}" ] && sleep "$FAKE_QEMU_LINGER"
exit 0
