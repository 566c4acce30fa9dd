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

# kernel-gate --history: each boot's result added after the verdict, in boot order
k2=$W/${deb##*/}
k2=${k2%%_*}_9.9-1_amd64.deb
cp "$deb" "$k2" || t_die "copying $deb"
gate=(--baseline "$deb" --candidate "$k2" --boots 2 --jobs 1 --qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --boot-timeout 10s --timeout 30s)
# four boots, four results (the gate refuses one result passed off as two)
mkdir -m 1777 "$W/seq"
for i in 1 2 3 4; do
	mkdir -p "$W/seq/$i" && cp "$W/good/status" "$W/seq/$i/" &&
		sed "s/\"created\": *\"[^\"]*\"/\"created\": \"2026-01-0${i}T00:00:00Z\"/" "$W/good/result.json" >"$W/seq/$i/result.json" ||
		t_die "making boot $i's result"
done
FAKE_QEMU_OUT_SEQ=$W/seq "$FSBENCH" kernel-gate "${gate[@]}" --workdir "$W/g1" --history "$W/g.db" >"$W/out" 2>"$W/err"
rc=$?
n=$(grep -c -- "--history: $W/g.db: .*boot-0[1-4]-[a-z]*/result.json: added" "$W/err")
[ "$n" = 4 ] && t_ok "kernel-gate (exit $rc): 4 boots added" || { t_fail "kernel-gate --history: exit $rc, $n added"; tail -20 "$W/err"; }
"$FSBENCH" history list --db "$W/g.db" >"$W/list" 2>&1
[ "$(grep -Ec " 2 files$" "$W/list")" = 2 ] && t_ok "two kernels of 2 boots each: $(head -1 "$W/list")" ||
	t_fail "history list: $(cat "$W/list")"

# a store that cannot be made: the system's failure, exit 128 (git bisect run stops)
: >"$W/not-a-dir"
FAKE_QEMU_OUT=$W/good expect 128 "--history:" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w2" --json "$W/r2.json" --history "$W/not-a-dir/h.db"
t_done
