#!/bin/bash
# history changes --bisect DIR (issue 39 item 3): each regression's last kernel before and
# first after go to fsbench bisect over the .debs in DIR, which may hold kernels the store
# never saw (here 6.1.0-56, between the store's 6.1.0-55 and 6.1.0-57): the first bad one
# is found among them, and bisect's arguments after -- reach it. A stand-in gate (canned by
# package name) takes kernel-gate's place, so nothing boots. Bad input: bisect's arguments
# without --bisect, --bisect with --json, a DIR that is not a directory.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
[ -n "$S" ] && [ -d "$S" ] || t_die "no scratch directory"
command -v dpkg-deb >/dev/null || t_skip "dpkg-deb is not installed"

# the store: files/s 4 % lower from 6.1.0-57 on, 2 boots a kernel, no 6.1.0-56
FX=$SRCDIR/tests/fixtures/results/probes-ext4.json
mkdir "$S/r"
pkgs=(6.1.140-1 6.1.147-1 6.1.153-1 6.1.158-1 6.1.164-1 6.1.170-1 6.1.176-1)
rels=(6.1.0-47 6.1.0-49 6.1.0-51 6.1.0-53 6.1.0-55 6.1.0-57 6.1.0-58)
for i in "${!pkgs[@]}"; do
	for boot in 1 2; do
		f=$(awk -v i="$i" -v b="$boot" 'BEGIN { print 223.5 * (i >= 5 ? 0.96 : 1) * (1 + (b == 1 ? 0.001 : -0.001) * (i % 3 - 1)) }')
		jq --arg rel "${rels[i]}-amd64" --arg ver "#1 SMP PREEMPT_DYNAMIC Debian ${pkgs[i]} (2026-01-01)" \
			--argjson f "$f" --arg b "$boot" \
			'.host.kernel = $rel | .host.kernel_version = $ver | .runs[0].summary.files_per_sec = $f | .created = ("2026-01-0" + $b + "T00:00:00Z")' \
			"$FX" >"$S/r/k$i-b$boot.json" || t_die "jq"
	done
done
"$FSBENCH" history add --db "$S/h.db" --quiet "$S"/r/*.json >/dev/null 2>&1 || t_die "history add"

# DIR: the packages of 6.1.0-55, -56 and -57 (empty .debs with their control fields)
mkdir "$S/debs"
deb() { # RELEASE VERSION
	local d=$S/pkg-$1
	mkdir -p "$d/DEBIAN"
	printf 'Package: linux-image-%s-amd64\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' \
		"$1" "$2" >"$d/DEBIAN/control"
	dpkg-deb --build "$d" "$S/debs/linux-image-$1-amd64_$2_amd64.deb" >/dev/null || t_die "dpkg-deb $1"
}
deb 6.1.0-55 6.1.164-1
deb 6.1.0-56 6.1.166-1
deb 6.1.0-57 6.1.170-1

# the stand-in gate: a candidate from 6.1.0-56 on regressed files/s (-4 %)
cat >"$S/gate.sh" <<'EOT'
#!/bin/sh
c=$(basename "$2") dir=$3
echo "$c" >>"$GATE_LOG"
case $c in *6.1.0-5[67]-*) v=regression ch=-4.0 rc=1 ;; *) v=unchanged ch=0.1 rc=0 ;; esac
printf '{"schema": "fsbench-kernel-gate/1", "compare": {"samples": [{"label": "ext4 smallfile t1", "metrics": [{"name": "files_per_sec", "comparisons": [{"verdict": "%s", "gate": true, "change_pct": %s, "floor_pct": 0.2}]}]}]}}\n' "$v" "$ch" >"$dir/kernel-gate.json"
exit $rc
EOT
chmod +x "$S/gate.sh"
export GATE_LOG=$S/gates

"$FSBENCH" history changes --db "$S/h.db" --metric files_per_sec --bisect "$S/debs" -- \
	--gate-cmd "$S/gate.sh" --workdir "$S/bis" >"$S/out" 2>"$S/err"
t_expect_eq "history changes --bisect: exit (the regression stands)" 1 $?
grep -q "^REGRESSION files_per_sec" "$S/out" && t_ok "the change point first" || t_fail "out: $(cat "$S/out")"
grep -q "^bisecting 6.1.0-55-amd64 6.1.164-1 -> 6.1.0-57-amd64 (files_per_sec) among the kernels in $S/debs" "$S/out" &&
	t_ok "its two kernels handed to bisect" || t_fail "out: $(cat "$S/out")"
grep -q "^first bad: linux-image-6.1.0-56-amd64" "$S/out" && t_ok "the first bad package, one the store never saw: 6.1.0-56" ||
	t_fail "out: $(cat "$S/out") err: $(cat "$S/err")"
grep -q "^bisect of 6.1.0-55-amd64 -> 6.1.0-57-amd64: exit 0" "$S/out" && t_ok "bisect's exit said" || t_fail "out: $(cat "$S/out")"
[ -s "$S/bis/bisect.json" ] && t_ok "bisect's record in the --workdir handed through" || t_fail "no $S/bis/bisect.json"

# bad input: nothing bisected
: >"$GATE_LOG"
"$FSBENCH" history changes --db "$S/h.db" -- --gate-cmd "$S/gate.sh" >/dev/null 2>"$S/err"
t_expect_eq "bisect's arguments without --bisect: exit" 2 $?
"$FSBENCH" history changes --db "$S/h.db" --json --bisect "$S/debs" >/dev/null 2>"$S/err"
t_expect_eq "--bisect with --json: exit" 2 $?
"$FSBENCH" history changes --db "$S/h.db" --bisect "$S/h.db" >/dev/null 2>"$S/err"
t_expect_eq "--bisect with a file, not a directory: exit" 2 $?
t_expect_eq "no gate ran for bad input" 0 "$(wc -l <"$GATE_LOG")"
t_done
