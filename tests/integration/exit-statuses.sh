#!/bin/bash
# The exit-status convention (commands.h, docs/compare.md "Exit statuses") as git bisect run
# reads it: kernel-run and kernel-gate say 0 good, 2 usage, 125 cannot judge, and 128 when
# the system failed (the restore journal cannot be made), never 1, which git bisect run would
# read as "this commit is bad". No real boot: fake-qemu.sh stands in for QEMU.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
DISKS=$W/disks
mkdir -p "$DISKS"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --boot-timeout 10s --timeout 30s)
gate=(--baseline "$deb" --candidate "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M
	--boot-timeout 10s --timeout 60s --boots 1 --repetitions 3)
trap 'cat "$W"/*.children 2>/dev/null | xargs -r kill 2>/dev/null; t_cleanup' EXIT

kg_good_guest "$W/good"
FAKE_QEMU_OUT=$W/good expect 0 "" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/ok"

# usage: 2, before any work
expect 2 "--boot-timeout" "$FSBENCH" kernel-run "${run[@]}" --boot-timeout 0s --workdir "$W/u"
[ ! -e "$W/u" ] && t_ok "usage error: no work directory made" || t_fail "usage error made $W/u"

# a guest that leaves no result: the kernel's doing, cannot judge (skip)
mkdir -p "$W/empty" && echo 0 >"$W/empty/status"
FAKE_QEMU_SLEEP=0 FAKE_QEMU_TAR=/dev/null expect 125 "" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/nores"

# the system's failure: the restore journal's directory is a file, so no journal can be made;
# 128 (git bisect run stops), not 1 (bad) and not 125 (skip: it would go on to the next commit)
: >"$W/not-a-dir"
FSBENCH_STATE_DIR=$W/not-a-dir/state FAKE_QEMU_OUT=$W/good expect 128 "journal|$W/not-a-dir" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/sys1"
FSBENCH_STATE_DIR=$W/not-a-dir/state FAKE_QEMU_OUT=$W/good expect 128 "journal|$W/not-a-dir" \
	"$FSBENCH" kernel-gate "${gate[@]}" --workdir "$W/sys2"
grep -q "verdict: regressed" "$W/out" && t_fail "a system failure printed a verdict" ||
	t_ok "a system failure prints no verdict"
t_done
