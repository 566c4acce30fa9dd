#!/bin/bash
# A stream that fills the filesystem stops every thread, keeps a partial result and removes its files.
. "$(dirname "$0")/lib.sh"

t_mkfs_loop ext4 64
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json

for mode in buffered writebehind odirect; do
	out=$T_SCRATCH/$mode.json
	err=$("$FSBENCH" stream -d "$T_MNT" -t 2 --size 256M --chunk 1M --mode $mode --quiet --json "$out" 2>&1)
	t_expect_eq "$mode: exit status" 1 $?
	case $err in
	*"No space left on device"*) t_ok "$mode: the error says why: $err" ;;
	*) t_fail "$mode: unexpected error '$err'" ;;
	esac
	"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$out" || t_fail "$mode: result does not match the schema"
	t_expect_eq "$mode: complete" false "$(t_json "$out" '.complete')"
	t_expect_eq "$mode: run complete" false "$(t_json "$out" '.runs[0].summary.complete')"
	case $(t_json "$out" '.runs[0].summary.error') in
	*"No space left on device"*) t_ok "$mode: summary.error names ENOSPC" ;;
	*) t_fail "$mode: summary.error is '$(t_json "$out" '.runs[0].summary.error')'" ;;
	esac
	t_expect_eq "$mode: partial bytes were counted" true \
		"$(t_json "$out" '.runs[0].summary.bytes > 0 and .runs[0].summary.bytes < 2 * 268435456')"
	t_expect_eq "$mode: files left" "lost+found" "$(ls -A "$T_MNT")"
done

# -k keeps what was written, even after ENOSPC
"$FSBENCH" stream -d "$T_MNT" --size 256M --chunk 1M -k --quiet 2>/dev/null
t_expect_eq "-k after ENOSPC: exit status" 1 $?
t_expect_eq "-k after ENOSPC: files kept" 1 "$(ls "$T_MNT" | grep -c '^fsbench-stream\.')"
t_done
