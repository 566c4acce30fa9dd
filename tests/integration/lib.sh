# Shared helpers for integration tests (sourced). Everything a test creates is registered
# here and removed by the EXIT trap, also when the test fails; nothing else is touched.
set -u

FSBENCH=${FSBENCH:?FSBENCH must point at the fsbench binary}
T_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-test.XXXXXX")
# where the test scripts are, for the helpers sourced after this one
T_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The scratch directory is the working directory: whatever a program writes into its cwd
# (fs_mark's fs_log.txt, a default-named suite result) goes with it, never into the
# checkout or the build tree a test was started from.
cd "$T_SCRATCH" || exit 1
T_MOUNTS=()
T_LOOPS=()
T_FUSE_MOUNTS=()
T_FUSE_PIDS=()
T_PIDS=() # daemons a test started (t_daemon): killed before the scratch directory goes
T_FAILED=0

t_cleanup() {
	local i
	# FUSE daemons first: their mounts may sit inside the others' and inside the scratch
	for ((i = ${#T_FUSE_MOUNTS[@]} - 1; i >= 0; i--)); do
		fusermount3 -u "${T_FUSE_MOUNTS[i]}" 2>/dev/null || umount -l "${T_FUSE_MOUNTS[i]}" 2>/dev/null
	done
	for p in "${T_FUSE_PIDS[@]}" "${T_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for ((i = ${#T_MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${T_MOUNTS[i]}" 2>/dev/null || umount -l "${T_MOUNTS[i]}" 2>/dev/null
	done
	for l in "${T_LOOPS[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$T_SCRATCH"
}
trap t_cleanup EXIT

t_skip() { echo "SKIP: $*"; exit 77; }
t_fail() { echo "FAIL: $*"; T_FAILED=1; }
t_die() { echo "FAIL: $*"; exit 1; }
t_ok() { echo "ok: $*"; }
t_done() { [ "$T_FAILED" = 0 ] || exit 1; exit 0; }

# t_expect_eq WHAT EXPECTED ACTUAL
t_expect_eq() {
	if [ "$2" = "$3" ]; then t_ok "$1 = $3"; else t_fail "$1: expected '$2', got '$3'"; fi
}

t_need_root() { [ "$(id -u)" = 0 ] || t_skip "needs root"; }

# t_mkfs_loop FSTYPE SIZE_MB [mkfs options...]: makes an image in the scratch directory,
# attaches it to a loop device, makes FSTYPE and mounts it. Sets T_MNT and T_DEV (call it
# directly, not in $(...): the cleanup lists must live in this shell).
t_mkfs_loop() {
	local fstype=$1 size=$2 img dev mnt
	shift 2
	t_need_root
	command -v "mkfs.$fstype" >/dev/null || t_skip "mkfs.$fstype is not installed"
	img=$(mktemp "$T_SCRATCH/img.XXXXXX")
	truncate -s "${size}M" "$img"
	dev=$(losetup --find --show "$img") || t_skip "no loop device available"
	T_LOOPS+=("$dev")
	case $fstype in
	xfs | btrfs) "mkfs.$fstype" -f -q "$@" "$dev" >/dev/null 2>&1 ;;
	*) "mkfs.$fstype" -q -F "$@" "$dev" >/dev/null 2>&1 ;;
	esac || t_die "mkfs.$fstype on $dev failed"
	mnt=$(mktemp -d "$T_SCRATCH/mnt.XXXXXX")
	mount "$dev" "$mnt" || t_die "mounting $dev on $mnt failed"
	T_MOUNTS+=("$mnt")
	T_MNT=$mnt
	T_DEV=$dev
}

# t_tmpfs SIZE_MB: a private tmpfs; sets T_MNT (call it directly, not in $(...)).
t_tmpfs() {
	local mnt
	t_need_root
	mnt=$(mktemp -d "$T_SCRATCH/tmpfs.XXXXXX")
	mount -t tmpfs -o "size=$1m" fsbench-test "$mnt" || t_skip "cannot mount tmpfs"
	T_MOUNTS+=("$mnt")
	T_MNT=$mnt
}

# t_daemon LOG CMD...: starts CMD in the background, output to LOG; cleanup kills it.
# Sets T_PID (call it directly, not in $(...)).
t_daemon() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	T_PID=$!
	T_PIDS+=("$T_PID")
}

# t_free_ports N: N TCP ports on 127.0.0.1 that were free a moment ago, space-separated.
t_free_ports() {
	/usr/bin/python3 -c '
import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$1"
}

# t_regressed SRC [JQ]: a comparison with a certain files/s regression, from one real run:
# baseline $T_SCRATCH/b1..3.json holds SRC at 0.99, 1.00 and 1.01 times its files/s, the
# candidate h1..3.json the same halved (and changed by the jq filter JQ); compared into
# $T_SCRATCH/cmp.json.
t_regressed() {
	local i=0 j
	for j in 0.99 1.00 1.01; do
		i=$((i + 1))
		jq ".runs[0].summary.files_per_sec *= $j" "$1" >"$T_SCRATCH/b$i.json"
		jq ".runs[0].summary.files_per_sec *= 0.5 | ${2:-.}" "$T_SCRATCH/b$i.json" >"$T_SCRATCH/h$i.json"
	done
	"$FSBENCH" compare --json "$T_SCRATCH/cmp.json" "$T_SCRATCH"/b?.json --candidate "$T_SCRATCH"/h?.json >/dev/null ||
		t_die "compare failed"
}

# t_json FILE EXPR: evaluates a jq expression on a result file.
t_json() { jq -r "$2" "$1"; }

# t_eiofs [eiofs options...]: mounts tests/tools/eiofs (an in-memory FUSE filesystem that
# fails writes or fsyncs on command) on a fresh directory; sets T_MNT and T_FUSE_PID and
# registers the unmount and the daemon (call it directly, not in $(...)). Skips when eiofs
# was not built (no libfuse3) or the kernel offers no /dev/fuse.
t_eiofs() {
	local mnt pid i
	t_need_root
	[ -n "${EIOFS:-}" ] && [ -x "$EIOFS" ] || t_skip "eiofs was not built (libfuse3-dev missing)"
	[ -c /dev/fuse ] || t_skip "no /dev/fuse"
	command -v fusermount3 >/dev/null || t_skip "fusermount3 is not installed (fuse3)"
	mnt=$(mktemp -d "$T_SCRATCH/eiofs.XXXXXX")
	"$EIOFS" "$mnt" -f -s "$@" 2>>"$T_SCRATCH/eiofs.log" &
	pid=$!
	T_FUSE_PIDS+=("$pid")
	T_FUSE_MOUNTS+=("$mnt")
	for ((i = 0; i < 100; i++)); do
		awk -v m="$mnt" '$5 == m && $0 ~ / - fuse/ {f = 1} END {exit !f}' /proc/self/mountinfo && break
		kill -0 "$pid" 2>/dev/null || t_die "eiofs exited before mounting: $(cat "$T_SCRATCH/eiofs.log")"
		sleep 0.05
	done
	[ "$i" -lt 100 ] || t_die "eiofs did not mount $mnt within 5 s"
	T_MNT=$mnt
	T_FUSE_PID=$pid
}
