#!/bin/bash
# Every output checked (issue 29, item 6): a command whose stdout, -o or --json cannot be
# written (/dev/full) exits non-zero with a message naming it, never 0; and /dev/full stays
# the device (a file renamed over it would replace it).
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
[ -c /dev/full ] || t_skip "/dev/full is not a character device here"
mkdir "$S/d" "$S/db"
"$FSBENCH" smallfile -d "$S/d" -s 4k -n 20 -L 2 --quiet --json "$S/a.json" >/dev/null || t_die "smallfile"
cp "$S/a.json" "$S/b.json"
LAVA=$SRCDIR/tests/fixtures/lava/lava-run-results.yaml

# full WHAT REGEX COMMAND...: COMMAND (its stdout or file on /dev/full) exits non-zero, says REGEX
full() {
	local what=$1 re=$2 rc
	shift 2
	"$@" >"$S/err.out" 2>"$S/err"
	rc=$?
	# stdout on /dev/full is redirected by the caller's wrapper below
	if [ "$rc" = 0 ]; then
		t_fail "$what: exit 0 with its output lost"
	elif ! grep -Eq -- "$re" "$S/err"; then
		t_fail "$what: exit $rc without /$re/: $(head -3 "$S/err")"
	else
		t_ok "$what: exit $rc: $(grep -E -m1 -- "$re" "$S/err")"
	fi
	[ -c /dev/full ] || t_die "$what replaced /dev/full with a file"
}
# to_full COMMAND...: COMMAND with stdout on /dev/full
to_full() { "$@" >/dev/full; }

full "compare to a full stdout" "writing stdout" to_full "$FSBENCH" compare "$S/a.json" "$S/b.json"
full "explain to a full stdout" "writing stdout" to_full "$FSBENCH" explain "$S/a.json"
full "lava cases to a full stdout" "writing stdout" to_full "$FSBENCH" lava cases "$S/a.json"
full "lava job to a full stdout" "writing stdout" to_full "$FSBENCH" lava job --kernel-url u --ramdisk-url r
full "export to a full stdout" "writing stdout" to_full "$FSBENCH" export --format openmetrics "$S/a.json"
full "--version to a full stdout" "writing stdout" to_full "$FSBENCH" --version
full "export -o /dev/full" "writing /dev/full" "$FSBENCH" export --format openmetrics -o /dev/full "$S/a.json"
full "report -o /dev/full" "writing /dev/full" "$FSBENCH" report -o /dev/full "$S/a.json"
full "compare --json /dev/full" "writing /dev/full" "$FSBENCH" compare --json /dev/full "$S/a.json" "$S/b.json"
full "lava import -o /dev/full" "writing /dev/full" "$FSBENCH" lava import -o /dev/full "$LAVA"
full "dbench --json /dev/full" "writing result /dev/full" "$FSBENCH" dbench -D "$S/db" -t 1 --json /dev/full 1
# the same commands to a real stdout still exit 0 (else the checks above prove nothing)
"$FSBENCH" compare "$S/a.json" "$S/b.json" >"$S/out" 2>&1 && t_ok "compare to a file: exit 0" || t_fail "compare: $(tail -2 "$S/out")"
"$FSBENCH" lava import -o "$S/i.json" "$LAVA" >/dev/null 2>&1 && [ -s "$S/i.json" ] && t_ok "lava import -o a file" ||
	t_fail "lava import -o a file failed"
t_done
