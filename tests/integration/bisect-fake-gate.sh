#!/bin/sh
# A stand-in for kernel-gate that fsbench bisect runs through --gate-cmd: BASELINE CANDIDATE
# STEPDIR. Canned per kernel by file name: $BISECT_CANNED holds "NAME LEVEL [METRIC]" lines
# (a kernel is bad against one of a lower level; METRIC is what regressed, default files/s;
# a name not listed is level 0), $BISECT_SKIP names that do not boot (125), $BISECT_STOP
# names whose gate fails for the system's reason (128). It writes STEPDIR/kernel-gate.json
# as the gate does (its "compare" part only). $BISECT_COUNT, when set, gets each candidate's
# name a line as the gate starts (gates run); $BISECT_SLEEP seconds pass before it answers.
b=$(basename "$1") c=$(basename "$2") dir=$3
[ -n "${BISECT_COUNT:-}" ] && echo "$c" >>"$BISECT_COUNT"
[ -n "${BISECT_SLEEP:-}" ] && sleep "$BISECT_SLEEP"
level() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$BISECT_CANNED"; }
metric=$(awk -v k="$c" '$1 == k && $3 { print $3 }' "$BISECT_CANNED")
[ -n "${BISECT_SKIP:-}" ] && grep -qx "$c" "$BISECT_SKIP" && exit 125
[ -n "${BISECT_STOP:-}" ] && grep -qx "$c" "$BISECT_STOP" && exit 128
lb=$(level "$b") lc=$(level "$c")
if [ "$lc" -gt "$lb" ]; then
	verdict=regression change=-$(((lc - lb) * 4)).1 rc=1
else
	verdict=unchanged change=0.3 rc=0
fi
# files/s and MB/s always; the one that regressed (if any) says so
m=${metric:-files/s}
cmp() { # NAME: one metric's comparison
	if [ "$1" = "$m" ]; then v=$verdict ch=$change; else v=unchanged ch=0.2; fi
	printf '{"name": "%s", "comparisons": [{"verdict": "%s", "gate": true, "change_pct": %s, "floor_pct": 1.5}]}' "$1" "$v" "$ch"
}
cat >"$dir/kernel-gate.json" <<EOT
{"schema": "fsbench-kernel-gate/1", "exit": $rc,
 "compare": {"samples": [{"label": "ext4 smallfile t1", "metrics": [$(cmp files/s), $(cmp MB/s)]}]}}
EOT
exit $rc
