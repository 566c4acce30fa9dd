#!/bin/bash
# history changes names each series it could not judge, with its reason, in text and in
# --json's not_judged: files/s spread 30 % between the boots of each kernel is too noisy;
# a cell measured on one kernel only is too short. The judged series are not listed.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
[ -n "$S" ] && [ -d "$S" ] || t_die "no scratch directory"
command -v jq >/dev/null || t_skip "jq is not installed"
FX=$SRCDIR/tests/fixtures/results/probes-ext4.json
mk() { # NAME RELEASE PACKAGE FILES/S FILES-PARAM
	jq --arg rel "$2" --arg ver "#1 SMP PREEMPT_DYNAMIC Debian $3 (2026-01-01)" --argjson f "$4" --argjson n "$5" \
		'.host.kernel = $rel | .host.kernel_version = $ver | .runs[0].summary.files_per_sec = $f | .runs[0].params.files = $n' \
		"$FX" >"$S/r/$1.json" || t_die "jq $1"
}
mkdir "$S/r"
for k in 0 1 2; do
	mk "k$k-b1" "6.1.0-4$k-amd64" "6.1.14$k-1" 100 300
	mk "k$k-b2" "6.1.0-4$k-amd64" "6.1.14$k-1" 160 300
done
mk once "6.1.0-40-amd64" "6.1.140-1" 100 999 # another cell, one kernel, one boot
"$FSBENCH" history add --db "$S/h.db" -q "$S/r" >/dev/null 2>&1 || t_die "history add"
"$FSBENCH" history changes --db "$S/h.db" --metric files_per_sec >"$S/out" 2>&1
rc=$?
cat "$S/out"
t_expect_eq "changes' exit status (nothing judged)" 125 "$rc"
grep -q "^cannot judge files_per_sec .*files=300 .*: too noisy (spread between boots [0-9.]* %, above 20 %)" "$S/out" &&
	t_ok "the noisy series named" || t_fail "the noisy series not named"
grep -q "^cannot judge files_per_sec .*files=999 .*: too short" "$S/out" &&
	t_ok "the short series named" || t_fail "the short series not named"
t_expect_eq "the total" "0 series judged, 1 too short, 1 too noisy: 0 change points, 0 regressions" "$(tail -1 "$S/out")"
"$FSBENCH" history changes --db "$S/h.db" --json >"$S/json" 2>/dev/null
t_expect_eq "--json's not_judged (the latencies, the same on every boot, are judged)" \
	"files_per_sec too noisy 300 files_per_sec too short 999" \
	"$(jq -r '[.not_judged[] | select(.metric == "files_per_sec") | .metric, .reason, (.sample_key | fromjson | .params.files)] | join(" ")' "$S/json")"
t_expect_eq "--json: series judged, too short, too noisy, not_judged" "$(jq -r '"\(.series.too_short + .series.too_noisy)"' "$S/json")" \
	"$(jq -r '.not_judged | length' "$S/json")"
t_done
