#!/bin/bash
# The tree workload's counts exact on xfs and btrfs too: trees as the shape says, the
# directory empty after --makej's deletes, the device bytes of every phase counted.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
t_need_root

shape=$T_SCRATCH/shape
mkdir -p "$shape/a/b" "$shape/c"
head -c 30000 /dev/urandom >"$shape/a/b/x.c"
head -c 5000 /dev/urandom >"$shape/a/y.h"
head -c 700 /dev/urandom >"$shape/c/z"
DIRS=4 FILES=3

for fs in xfs btrfs; do
	size=256
	[ "$fs" = xfs ] && size=320 # mkfs.xfs refuses less than 300 MiB
	t_mkfs_loop $fs $size
	d=$T_MNT/work
	mkdir "$d"
	"$FSBENCH" tree -D "$d" -i 4 -r 0 -k --shape-from "$shape" --quiet --json "$T_SCRATCH/$fs.json"
	t_expect_eq "$fs: exit status" 0 $?
	t_expect_eq "$fs: directories" $((4 * DIRS)) "$(find "$d" -mindepth 1 -type d | wc -l)"
	t_expect_eq "$fs: files" $((4 * FILES)) "$(find "$d" -mindepth 1 -type f | wc -l)"
	t_expect_eq "$fs: nothing else" $((4 * (DIRS + FILES))) "$(find "$d" -mindepth 1 | wc -l)"
	rm -rf "${d:?}"/*
	"$FSBENCH" tree -D "$d" -i 3 --makej --shape-from "$shape" --quiet --json "$T_SCRATCH/$fs-j.json"
	t_expect_eq "$fs: makej exit status" 0 $?
	"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$T_SCRATCH/$fs-j.json" || t_fail "$fs: result does not match the schema"
	t_expect_eq "$fs: empty after the deletes" "" "$(ls -A "$d")"
	t_expect_eq "$fs: unlinks" $((3 * (FILES + 1))) "$(t_json "$T_SCRATCH/$fs-j.json" '.runs[0].ops.unlink.count')"
	t_expect_eq "$fs: rmdirs" $((3 * DIRS)) "$(t_json "$T_SCRATCH/$fs-j.json" '.runs[0].ops.rmdir.count')"
	t_expect_eq "$fs: device bytes in every phase run" 4 \
		"$(t_json "$T_SCRATCH/$fs-j.json" '[.runs[0].summary.tree.phases[] | select(.runs > 0 and (.device_write_bytes | type) == "number")] | length')"
done
t_done
