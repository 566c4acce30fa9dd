#!/bin/bash
# The victim works beside smallfile too: its op appears in the run, and its file is removed.
. "$(dirname "$0")/lib.sh"

t_mkfs_loop ext4 512
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json

for vmode in read fsync; do
	out=$T_SCRATCH/$vmode.json
	"$FSBENCH" smallfile -d "$T_MNT" -t 2 -n 100000 -s 4096 --runtime 1s --victim $vmode \
		--victim-rate 50 --json "$out" >/dev/null
	t_expect_eq "$vmode: exit status" 0 $?
	"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$out" || t_fail "$vmode: result does not match the schema"
	t_expect_eq "$vmode: victim.mode" $vmode "$(t_json "$out" '.runs[0].victim.mode')"
	t_expect_eq "$vmode: ops.victim recorded" true "$(t_json "$out" '.runs[0].ops.victim.count >= 1')"
	t_expect_eq "$vmode: the workers' own ops are still there" true \
		"$(t_json "$out" '.runs[0].ops | has("create") and has("fsync")')"
	t_expect_eq "$vmode: files left" "lost+found" "$(ls -A "$T_MNT")"
done
t_done
