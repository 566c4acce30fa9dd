#!/bin/bash
# kernel-run --history DB: the boot's result goes into the history store once (a second add
# of the same file adds nothing), --history without --json is a usage error before any boot,
# and a store that cannot be opened is the system's failure (128), never the kernel's (1).
# No real boot: fake-qemu.sh stands in for QEMU.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
DISKS=$W/disks
mkdir -p "$DISKS"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --boot-timeout 10s --timeout 30s)
trap 'cat "$W"/*.children 2>/dev/null | xargs -r kill 2>/dev/null; t_cleanup' EXIT
kg_good_guest "$W/good"

expect 2 "--history needs --json" "$FSBENCH" kernel-run "${run[@]}" --history "$W/h.db" --workdir "$W/u"
[ ! -e "$W/u" ] && [ ! -e "$W/h.db" ] && t_ok "usage error: nothing made" || t_fail "usage error made files"

FAKE_QEMU_OUT=$W/good expect 0 "--history: $W/h.db: added \([0-9]+ runs\)" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1" --json "$W/r1.json" --history "$W/h.db"
"$FSBENCH" history list --db "$W/h.db" >"$W/list" 2>&1 || t_fail "history list: $(cat "$W/list")"
grep -Eq ": 1 files, [1-9][0-9]* runs" "$W/list" && t_ok "the store holds the boot's file: $(head -1 "$W/list")" ||
	t_fail "history list: $(cat "$W/list")"
# the kernel with its package's version, as bisection and the series' order need it
pkgver=$(dpkg-deb -f "$deb" Version)
grep -Eq "^ *1 +$FAKE_QEMU_RELEASE +$pkgver " "$W/list" && t_ok "kernel $FAKE_QEMU_RELEASE kept with package $pkgver" ||
	t_fail "history list: $(cat "$W/list")"
# the same file again: nothing new
"$FSBENCH" history add --db "$W/h.db" "$W/r1.json" >"$W/add" 2>&1
grep -q "already" "$W/add" && t_ok "adding the boot's file again adds nothing" || t_fail "add: $(cat "$W/add")"

# a store that cannot be made: the system's failure, exit 128 (git bisect run stops)
: >"$W/not-a-dir"
FAKE_QEMU_OUT=$W/good expect 128 "--history:" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w2" --json "$W/r2.json" --history "$W/not-a-dir/h.db"
t_done
