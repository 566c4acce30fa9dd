#!/bin/bash
# The victim runs beside a stream in both modes, records its own op, keeps to its rate, cleans up.
. "$(dirname "$0")/lib.sh"

t_mkfs_loop ext4 1024
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
RATE=20

for vmode in read fsync; do
	out=$T_SCRATCH/$vmode.json
	"$FSBENCH" stream -d "$T_MNT" -t 2 --size 384M --runtime 2s --chunk 8M --mode writebehind \
		--victim $vmode --victim-rate $RATE --quiet --json "$out"
	t_expect_eq "$vmode: exit status" 0 $?
	"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$out" || t_fail "$vmode: result does not match the schema"
	t_expect_eq "$vmode: victim.mode" $vmode "$(t_json "$out" '.runs[0].victim.mode')"
	t_expect_eq "$vmode: victim.rate" $RATE "$(t_json "$out" '.runs[0].victim.rate')"
	t_expect_eq "$vmode: ops.victim recorded" true "$(t_json "$out" '.runs[0].ops.victim.count >= 1')"
	t_expect_eq "$vmode: victim.count is ops.victim.count" true \
		"$(t_json "$out" '.runs[0] | .victim.count == .ops.victim.count')"
	t_expect_eq "$vmode: the workers' ops do not include the victim's" true \
		"$(t_json "$out" '[.runs[0].per_thread[].ops | has("victim")] | any | not')"
	# a fixed schedule from the workers' start never runs ahead of its rate
	t_expect_eq "$vmode: at most rate x elapsed operations" true \
		"$(t_json "$out" ".runs[0] | .ops.victim.count <= ($RATE * (.summary.elapsed_ns / 1e9 + 0.3) | ceil) + 1")"
	t_expect_eq "$vmode: no error" null "$(t_json "$out" '.runs[0].victim.error')"
	# every victim latency kept: its percentiles exact, in order between min and max
	t_expect_eq "$vmode: victim percentiles exact" "true true" \
		"$(t_json "$out" '.runs[0].ops.victim | "\(.exact) \([.min_ns, .p50_ns, .p90_ns, .p99_ns, .max_ns] | . == sort)"')"
	t_expect_eq "$vmode: files left" "lost+found" "$(ls -A "$T_MNT")"
done

# without --victim there is no victim at all
out=$T_SCRATCH/none.json
"$FSBENCH" stream -d "$T_MNT" --size 16M --quiet --json "$out"
t_expect_eq "none: victim object" null "$(t_json "$out" '.runs[0].victim')"
t_expect_eq "none: victim op" null "$(t_json "$out" '.runs[0].ops.victim')"

for args in "--victim sometimes" "--victim read --victim-rate 0"; do
	# shellcheck disable=SC2086
	"$FSBENCH" stream -d "$T_MNT" --size 16M $args --quiet 2>/dev/null
	t_expect_eq "'$args': exit status" 2 $?
	t_expect_eq "'$args': files left" "lost+found" "$(ls -A "$T_MNT")"
done
t_done
