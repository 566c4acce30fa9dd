# Shared helpers for integration tests (sourced). Everything a test creates is registered
# here and removed by the EXIT trap, also when the test fails; nothing else is touched.
set -u

FSBENCH=${FSBENCH:?FSBENCH must point at the fsbench binary}
T_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-test.XXXXXX")
T_MOUNTS=()
T_LOOPS=()
T_FAILED=0

t_cleanup() {
	local i
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

# t_json FILE EXPR: evaluates a jq expression on a result file.
t_json() { jq -r "$2" "$1"; }
