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
