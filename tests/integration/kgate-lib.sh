# What the kernel gate's tests share (sourced after lib.sh).

# expect STATUS MESSAGE-REGEX COMMAND...: the exit status and a line of stderr; the
# output stays in $W/out and $W/err for the checks that follow
expect() {
	local want=$1 re=$2 rc
	shift 2
	"$@" >"$W/out" 2>"$W/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		t_fail "$*: exit $rc, expected $want"
		sed 's/^/    /' "$W/err" | tail -20
	elif ! grep -Eq -- "$re" "$W/err"; then
		t_fail "$*: stderr lacks /$re/"
		sed 's/^/    /' "$W/err" | tail -20
	else
		t_ok "exits $want: $(grep -E -m1 -- "$re" "$W/err" | cut -c1-240)"
	fi
}

# kg_need_kernel [GLOB]: root, QEMU, busybox-static and a Debian kernel .deb (GLOB, default
# any; ci/setup downloads one) or skip; sets $deb and the shared kernel and initramfs cache
kg_need_kernel() {
	t_need_root
	command -v qemu-system-x86_64 >/dev/null || t_skip "qemu-system-x86 is not installed"
	[ -x /bin/busybox ] || t_skip "busybox-static is not installed"
	deb=$(ls "${FSBENCH_CI_KERNELS:-/var/cache/fsbench/ci-kernels}"/linux-image-${1:-}*.deb 2>/dev/null | sort -V | tail -1)
	[ -n "$deb" ] || t_skip "no Debian ${1:+${1%.} }kernel .deb (ci/setup downloads one)"
	export FSBENCH_CACHE_DIR=${FSBENCH_CACHE_DIR:-/var/cache/fsbench/ci-cache}
}

# kg_fake_setup: what a test with the stand-in QEMU (fake-qemu.sh) needs, or skip: root,
# busybox-static, a Debian kernel .deb ($deb) whose release the stand-in reports, the shared
# cache, $W (sticky and open to all, as /tmp: the stand-in runs as QEMU does, unprivileged,
# and writes its pid files there), $FAKE, and this test's own restore journal
kg_fake_setup() {
	t_need_root
	[ -x /bin/busybox ] || t_skip "busybox-static is not installed"
	deb=$(ls "${FSBENCH_CI_KERNELS:-/var/cache/fsbench/ci-kernels}"/linux-image-*.deb 2>/dev/null | sort -V | tail -1)
	[ -n "$deb" ] || t_skip "no Debian kernel .deb (ci/setup downloads one)"
	export FSBENCH_CACHE_DIR=${FSBENCH_CACHE_DIR:-/var/cache/fsbench/ci-cache}
	export FAKE_QEMU_RELEASE=$(dpkg-deb -f "$deb" Package | sed "s/^linux-image-//")
	W=$T_SCRATCH
	chmod 1777 "$W"
	FAKE=$SRCDIR/tests/integration/fake-qemu.sh
	export FSBENCH_STATE_DIR=$W/state
}

# kg_good_guest DIR: a good guest's /out in DIR: a real suite result and status 0
kg_good_guest() {
	mkdir -p "$1" "$W/good-d"
	"$FSBENCH" suite "$SRCDIR/configs/kgate.json" -d "$W/good-d" --repetitions 1 --json "$1/result.json" \
		>/dev/null 2>&1 || t_die "the suite run for the good guest's result failed"
	echo 0 >"$1/status"
}
