#!/bin/bash
# A suite whose result file stops fitting (ENOSPC on the result's filesystem) must not exit
# 0, and says so once (issue 11 item 2: it printed the error 7 times and exited 0).
. "$(dirname "$0")/lib.sh"
t_tmpfs 1
out=$T_MNT
# fill the tmpfs but for a few pages: the first, small result fits, later ones do not
dd if=/dev/zero of="$out/fill" bs=4k count=$(( $(df --output=avail -B4k "$out" | tail -1) - 4 )) status=none
mkdir "$T_SCRATCH/d"
"$FSBENCH" suite quick --dir "$T_SCRATCH/d" --workloads smallfile -r 3 -t 1 -q --json "$out/r.json" >"$T_SCRATCH/o" 2>"$T_SCRATCH/e"
rc=$?
[ $rc != 0 ] && t_ok "suite exit $rc when its result stops fitting" || t_fail "suite exited 0: $(cat "$T_SCRATCH/e")"
t_expect_eq "the write error is said once" 1 "$(grep -c 'writing result' "$T_SCRATCH/e")"
grep -q "writing result $out/r.json: No space left on device" "$T_SCRATCH/e" && t_ok "it names the file and ENOSPC" ||
	t_fail "stderr: $(cat "$T_SCRATCH/e")"
ls "$out"/r.json.tmp.* >/dev/null 2>&1 && t_fail "temporary files left in $out" || t_ok "no temporary file left"

# export and report on a full filesystem name ENOSPC, not the stream's bare "Input/output error"
"$FSBENCH" smallfile -d "$T_SCRATCH/d" -s 4k -n 50 -t 1 --quiet --json "$T_SCRATCH/one.json" >/dev/null || t_die "smallfile run failed"
dd if=/dev/zero of="$out/fill2" bs=4k count=$(( $(df --output=avail -B4k "$out" | tail -1) )) status=none 2>/dev/null
for cmd in "export --format openmetrics" report; do
	# shellcheck disable=SC2086
	"$FSBENCH" $cmd "$T_SCRATCH/one.json" -o "$out/x.out" >/dev/null 2>"$T_SCRATCH/e2" && t_fail "$cmd exited 0 on a full filesystem"
	grep -q "writing $out/x.out: No space left on device" "$T_SCRATCH/e2" && t_ok "$cmd: names the file and ENOSPC" ||
		t_fail "$cmd: stderr: $(cat "$T_SCRATCH/e2")"
	[ -e "$out/x.out" ] && t_fail "$cmd left a partial $out/x.out" || t_ok "$cmd: no partial output"
done
ls "$out"/x.out.* >/dev/null 2>&1 && t_fail "temporary files left in $out" || t_ok "no temporary file left by export or report"
t_done
