#!/bin/bash
# lava job --kernel names the kernel and initramfs it copies beside the job by their content
# (issue 43): two jobs of one release whose initramfs differ (here the suite's repetitions,
# built into it; as well another suite or another build of the release) each keep their own
# file, and a job's file is never replaced under it by a later job's.
. "$(dirname "$0")/lib.sh"
t_need_root
[ -x /bin/busybox ] || t_skip "busybox-static is not installed"
deb=$(ls "${FSBENCH_CI_KERNELS:-/var/cache/fsbench/ci-kernels}"/linux-image-*.deb 2>/dev/null | sort -V | tail -1)
[ -n "$deb" ] || t_skip "no Debian kernel .deb (ci/setup downloads one)"
W=$T_SCRATCH
# a cache and a restore journal of this test's own: nothing outside the scratch directory
export FSBENCH_CACHE_DIR=$W/cache FSBENCH_STATE_DIR=$W/state
mkdir "$W/jobs"

url() { # JOB.yaml IMAGE: the file:// path of its kernel or ramdisk
	grep -A6 "^      $2:" "$1" | sed -n 's|^ *url: "file://\(.*\)"$|\1|p' | head -1
}
"$FSBENCH" lava job --kernel "$deb" --repetitions 1 -o "$W/jobs/a.yaml" >/dev/null 2>"$W/err" ||
	t_die "lava job a: $(cat "$W/err")"
ra=$(url "$W/jobs/a.yaml" ramdisk)
ka=$(url "$W/jobs/a.yaml" kernel)
[ -f "$ra" ] && [ -f "$ka" ] || t_die "job a's images: '$ra' '$ka'"
suma=$(sha256sum <"$ra" | cut -c1-32)
"$FSBENCH" lava job --kernel "$deb" --repetitions 2 -o "$W/jobs/b.yaml" >/dev/null 2>"$W/err" ||
	t_die "lava job b: $(cat "$W/err")"
rb=$(url "$W/jobs/b.yaml" ramdisk)
kb=$(url "$W/jobs/b.yaml" kernel)
[ "$ra" != "$rb" ] && t_ok "two initramfs of one release: two files" ||
	t_fail "jobs a and b share the initramfs $ra"
t_expect_eq "job a's initramfs after job b" "$suma" "$(sha256sum <"$ra" | cut -c1-32)"
t_expect_eq "initramfs files beside the jobs" 2 "$(ls "$W/jobs" | grep -c '^fsbench-initramfs-.*\.cpio$')"
# named by content: the name's hash is the file's, the same kernel one file
for f in "$ra" "$rb" "$ka"; do
	h=$(basename "$f" .cpio)
	t_expect_eq "$(basename "$f"): its name's hash" "${h##*-}" "$(sha256sum <"$f" | cut -c1-32)"
done
t_expect_eq "one kernel, one copy" "$ka" "$kb"
t_expect_eq "files left beside the jobs" "a.yaml b.yaml" "$(ls "$W/jobs" | grep -v '^fsbench-initramfs-\|^vmlinu[xz]-' | xargs)"
t_done
