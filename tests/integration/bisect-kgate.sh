#!/bin/bash
# fsbench bisect with the real kernel-gate as its child (fake-qemu.sh stands in for QEMU):
# the options after "--" reach kernel-gate, each step's --workdir gets its kernel-gate.json,
# the stand-in's guest gives the gate nothing it can judge (125), so the bad end is "not
# judged" and the bisection says "cannot judge" at once, and a gate that
# refuses its options (exit 2) stops the bisection with exit 2, never "bad".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
trap 'cat "$W"/*.children 2>/dev/null | xargs -r kill 2>/dev/null; t_cleanup' EXIT
mkdir -p "$W/disks" "$W/k"
# the same package under three names: ordered by version (equal), then by name
for i in 1 2 3; do ln -s "$deb" "$W/k/k$i.deb"; done
gate=(--qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boot-timeout 10s
	--timeout 60s --boots 1 --repetitions 3)
kg_good_guest "$W/good"
export FAKE_QEMU_OUT=$W/good

"$FSBENCH" bisect --good k1.deb --bad k3.deb --workdir "$W/run1" "$W/k" -- "${gate[@]}" \
	>"$W/out" 2>"$W/err"
rc=$?
sed 's/^/    /' "$W/out"; grep -i "could not|error|refus" "$W/run1/step-1/gate.log" | head -5
if [ "$rc" = 125 ] && grep -q '^cannot judge: --bad is' "$W/out" &&
	[ -s "$W/run1/step-1/kernel-gate.json" ] && grep -q '^verdict: ' "$W/run1/step-1/gate.log"; then
	t_ok "kernel-gate ran as the step's child: $(grep -m1 '^verdict: ' "$W/run1/step-1/gate.log")"
else
	t_fail "exit $rc"
	sed 's/^/    /' "$W/err" "$W/run1/step-1/gate.log" | tail -20
fi
"$FSBENCH" bisect --good k1.deb --bad k3.deb --workdir "$W/run2" "$W/k" -- "${gate[@]}" --boots 0 \
	>"$W/out" 2>"$W/err"
rc=$?
[ "$rc" = 2 ] && grep -q 'the gate refused its options' "$W/err" && ! grep -q '^first bad' "$W/out" &&
	t_ok "a gate's usage error stops it with exit 2: $(grep -m1 refused "$W/err")" ||
	{ t_fail "gate usage: exit $rc"; cat "$W/err"; }
t_done
