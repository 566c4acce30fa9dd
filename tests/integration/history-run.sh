#!/bin/bash
# history run: each kernel booted --boots times by kernel-run and added to the store (N boots
# a kernel land in it), a second run boots nothing new, a kernel that does not boot is said,
# counted and exits 125 while the other kernels still count, and usage errors boot nothing.
# No real boot: fake-qemu.sh stands in for QEMU.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
DISKS=$W/disks
mkdir -p "$DISKS" "$W/k"
trap 'cat "$W"/*.children 2>/dev/null | xargs -r kill 2>/dev/null; t_cleanup' EXIT
kg_good_guest "$W/good"
export FAKE_QEMU_OUT=$W/good
# two kernels of one release, told apart by their package versions (the .deb's file name)
pkg=$(dpkg-deb -f "$deb" Package)
k1=$W/k/${pkg}_1.0-1_amd64.deb
k2=$W/k/${pkg}_1.0-2_amd64.deb
cp "$deb" "$k1" && cp "$deb" "$k2" || t_die "copying $deb"
head -c 4096 /dev/urandom >"$W/k/bad-vmlinuz"
vm=(--qemu "$FAKE" --disk virtio --disk-dir "$DISKS" --disk-size 64M --boot-timeout 10s --timeout 30s)
hr=("$FSBENCH" history run --db "$W/h.db" --workdir "$W/hr" --jobs 2)
# hr_expect STATUS ARGS...: history run with ARGS exits STATUS; its report (stdout) in $W/out
hr_expect() {
	local want=$1 rc
	shift
	"${hr[@]}" "$@" >"$W/out" 2>"$W/err"
	rc=$?
	[ "$rc" = "$want" ] && t_ok "history run ${*: -1}...: exits $rc" ||
		{ t_fail "history run $*: exit $rc, expected $want"; tail -20 "$W/out" "$W/err" | sed 's/^/    /'; }
}

hr_expect 0 -- "${vm[@]}" "$k1" "$k2"
grep -q "history run: 4 boots (0 failed)" "$W/out" && t_ok "4 boots: $(grep -c ': added' "$W/out") added" ||
	t_fail "first run: $(cat "$W/out")"
"$FSBENCH" history list --db "$W/h.db" >"$W/list" 2>&1 || t_fail "history list: $(cat "$W/list")"
n=$(grep -Ec "^ *[12] +$FAKE_QEMU_RELEASE +1\.0-[12] .* 2 files$" "$W/list")
t_expect_eq "kernels with 2 boots (files) in the store" 2 "$n"

# the second night: nothing new to boot
hr_expect 0 -- "${vm[@]}" "$k1" "$k2"
grep -q "history run: 0 boots" "$W/out" && [ "$(grep -c "in the store already: skipped" "$W/out")" = 2 ] &&
	t_ok "second run: $(grep -m1 skipped "$W/out")" || t_fail "second run: $(cat "$W/out")"

# one more boot wanted: only the missing one is made
hr_expect 0 --boots 3 -- "${vm[@]}" "$k1"
grep -q "2 of 3 boots in the store: booting 1" "$W/out" && grep -q "history run: 1 boot (0 failed)" "$W/out" &&
	t_ok "--boots 3: one boot made" || t_fail "--boots 3: $(cat "$W/out")"

# another suite key (a kernel-run option that changes results): booted again
hr_expect 0 --boots 1 -- "${vm[@]}" --memory 512 "$k1"
grep -q "history run: 1 boot (0 failed)" "$W/out" && t_ok "another suite key boots again" ||
	t_fail "--memory 512: $(cat "$W/out")"

# a kernel that does not boot: each boot said and counted, 125; the good kernel beside it
# is skipped
hr_expect 125 -- "${vm[@]}" "$W/k/bad-vmlinuz" "$k2"
grep -Eq "bad-vmlinuz.*FAILED, exit [0-9]+" "$W/out" && grep -q "(2 failed)" "$W/out" &&
	t_ok "bad kernel: $(grep -m1 FAILED "$W/out" | cut -c1-200)" || t_fail "bad kernel: $(cat "$W/out")"

# usage: nothing boots
before=$(ls "$W/hr"/*/* | wc -l)
expect 2 "no such kernel file" "${hr[@]}" -- "${vm[@]}" "$W/k/none.deb" "$k1"
expect 2 "not a kernel-run option" "${hr[@]}" -- "${vm[@]}" --no-such-option "$k1"
expect 2 "history run sets it" "${hr[@]}" -- "${vm[@]}" --json x.json "$k1"
expect 2 "no kernels" "${hr[@]}"
expect 2 "the same kernel as" "${hr[@]}" -- "${vm[@]}" "$k1" "$W/k/../k/${k1##*/}"
t_expect_eq "work directory entries after the usage errors" "$before" "$(ls "$W/hr"/*/* | wc -l)"
# a store that cannot be opened is the system's (128), before any boot
: >"$W/not-a-dir"
expect 128 "opening the store" "$FSBENCH" history run --db "$W/not-a-dir/h.db" --workdir "$W/hr" -- "${vm[@]}" "$k1"
t_done
