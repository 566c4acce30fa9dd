#!/bin/bash
# A result belongs to its boot (issue 29, item 3): the guest writes back the boot's random
# token with the release and boot id it ran under and its time; a result made elsewhere (the
# host's kernel, an earlier boot) or one result passed off as two boots' is "cannot judge".
# A stand-in for QEMU plays the guest (fake-qemu.sh); each check fails if its replay passes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
mkdir -p "$W/disks"
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boot-timeout 10s --timeout 60s)

kg_good_guest "$W/good"
: >"$W/good/stdout" >"$W/good/stderr"
# forged DIR FILE VALUE: the good guest's /out with FILE forged
forged() {
	rm -rf "$W/$1" && cp -r "$W/good" "$W/$1" && printf '%s\n' "$3" >"$W/$1/$2"
}

# the stand-in's own token, release, boot id and time pass (else the rest proves nothing)
FAKE_QEMU_ARGS=$W/args FAKE_QEMU_OUT=$W/good expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w0"
# the token reaches the guest in its initrd (issue 40), never on QEMU's command line
w0tok=$(cat "$W"/w0/boot-*/guest/token 2>/dev/null)
[[ $w0tok =~ ^[0-9a-f]{32}$ ]] && t_ok "the boot's guest wrote back a token" || t_fail "no token came back: '$w0tok'"
grep -q "fsbench.token\|${w0tok:-no-token}" "$W/args" && t_fail "a token on QEMU's command line" ||
	t_ok "no token on QEMU's command line"

# 1. a result made elsewhere: no token, another boot's token, the host's release, an old time
forged notok token ""
FAKE_QEMU_OUT=$W/notok expect 125 "the result carries no token, not this boot's" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1"
forged oldtok token "$w0tok"
FAKE_QEMU_OUT=$W/oldtok expect 125 "the result carries the token \".*\", not this boot's" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w2"
forged hostrel release "$(uname -r)-host"
FAKE_QEMU_OUT=$W/hostrel expect 125 "the result says release .*-host., but this boot was of $FAKE_QEMU_RELEASE" \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w3"
forged old time "$(($(date +%s) - 86400))"
FAKE_QEMU_OUT=$W/old expect 125 "the result's time .* is outside its boot's" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w4"
forged noid boot_id "not-a-uuid"
FAKE_QEMU_OUT=$W/noid expect 125 "boot id .* is not a kernel's boot_id" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w5"

# 2. one boot's result passed off as every boot's: the same boot id, or the same result.json
gate=(kernel-gate --baseline "$deb" --candidate "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boots 1)
forged sameid boot_id "$(cat /proc/sys/kernel/random/uuid)"
FAKE_QEMU_OUT=$W/sameid expect 125 "the boot id of an earlier boot" "$FSBENCH" "${gate[@]}" --workdir "$W/w6"
grep -q "^verdict: good" "$W/out" && t_fail "a gate passed on one boot's result replayed"
FAKE_QEMU_OUT=$W/good expect 125 "the same result.json as an earlier boot" "$FSBENCH" "${gate[@]}" --workdir "$W/w7"
grep -q "^verdict: good" "$W/out" && t_fail "a gate passed on one result replayed"

t_done
