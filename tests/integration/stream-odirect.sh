#!/bin/bash
# O_DIRECT streams on ext4: aligned chunks work; a chunk off the logical block size is refused up front.
. "$(dirname "$0")/lib.sh"

t_mkfs_loop ext4 512
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
lbs=$(blockdev --getss "$T_DEV")
out=$T_SCRATCH/r.json

"$FSBENCH" stream -d "$T_MNT" -t 2 --size 64M --chunk 1M --mode odirect --quiet --json "$out"
t_expect_eq "odirect: exit status" 0 $?
"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$out" || t_fail "result does not match the schema"
t_expect_eq "odirect: write count" 128 "$(t_json "$out" '.runs[0].ops.write.count')"
t_expect_eq "odirect: fdatasync count" 2 "$(t_json "$out" '.runs[0].ops.fdatasync.count')"
t_expect_eq "odirect: bytes" $((128 * 1048576)) "$(t_json "$out" '.runs[0].summary.bytes')"
t_expect_eq "odirect: files left" "lost+found" "$(ls -A "$T_MNT")"

# a chunk that is a multiple of the logical block size but of nothing larger still works
"$FSBENCH" stream -d "$T_MNT" --size $((lbs * 2048)) --chunk $((lbs * 3)) --mode odirect --quiet
t_expect_eq "odirect, chunk of 3 logical blocks: exit status" 0 $?

for chunk in $((lbs + lbs / 2)) 1000; do
	err=$("$FSBENCH" stream -d "$T_MNT" --size 16M --chunk "$chunk" --mode odirect --quiet 2>&1)
	t_expect_eq "odirect, chunk $chunk: exit status" 2 $?
	case $err in
	*"not a multiple of $lbs"*) t_ok "odirect, chunk $chunk: the error names the alignment $lbs" ;;
	*) t_fail "odirect, chunk $chunk: unexpected error '$err'" ;;
	esac
	t_expect_eq "odirect, chunk $chunk: files left" "lost+found" "$(ls -A "$T_MNT")"
done
t_done
