#!/bin/bash
# issue 33 item 7: where a call's time goes, as fs_mark 3.3 decides it. eiofs makes every
# new directory's mkdir take 200 ms and every fsync 100 ms: the subdirectory mkdirs in the
# loop are outside the timed calls, so they are App Overhead; the fsyncs are timed calls,
# so they are not. fs_mark itself, when installed, is held to the same two bounds.
# Forced sleeps are minimums: no speed is asserted.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
mkdir_ms=200 fsync_ms=100 files=12 subdirs=4

t_eiofs --delay-mkdir-ms $mkdir_ms --delay-fsync-ms $fsync_ms
# lower: the 4 subdirectories' mkdirs; upper: less than half of the fsyncs' forced time
# on top (counting the fsyncs would add all of it)
lo=$((subdirs * mkdir_ms * 1000)) hi=$((subdirs * mkdir_ms * 1000 + files * fsync_ms * 1000 / 2))
check() {
	local what=$1 us=$2
	if [ "$us" -ge "$lo" ] && [ "$us" -lt "$hi" ]; then
		t_ok "$what: App Overhead $us us holds the mkdirs ($lo us), not the fsyncs"
	else
		t_fail "$what: App Overhead $us us, expected at least $lo (the subdirectories' mkdirs) and below $hi (the fsyncs are timed calls)"
	fi
}

"$FSBENCH" smallfile -d "$T_MNT/f" -D $subdirs -N 3 -n $files -s 4096 -S 1 \
	--json "$S/r.json" >"$S/out"
t_expect_eq "fsbench on eiofs: exit" 0 "$?"
us=$(awk 'p && NF == 5 {print $5; exit} /^FSUse/ {p = 1}' "$S/out")
t_expect_eq "fsbench: table is the JSON in microseconds" \
	"$(jq '.runs[0].summary.app_overhead_ns / 1000 | floor' "$S/r.json")" "$us"
t_expect_eq "fsbench: fsyncs timed" $files "$(t_json "$S/r.json" '.runs[0].ops.fsync.count')"
check fsbench "$us"

if command -v fs_mark >/dev/null && ! [ "$(readlink -f "$(command -v fs_mark)")" = "$(readlink -f "$FSBENCH")" ]; then
	# fs_mark takes a -d of under 40 bytes: a relative one, from the mount
	(cd "$T_MNT" && fs_mark -d m -D $subdirs -N 3 -n $files -s 4096 -S 1 -l "$S/fs_log.txt") >"$S/fsm.out"
	t_expect_eq "fs_mark on eiofs: exit" 0 "$?"
	check "fs_mark 3.3 (the reference)" "$(awk 'p && NF == 5 {print $5; exit} /^FSUse/ {p = 1}' "$S/fsm.out")"
else
	echo "note: no fs_mark 3.3 installed: the reference half is not run"
fi
t_done
