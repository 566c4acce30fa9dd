#!/bin/bash
# compare gates on the eBPF probes' kernel histograms like on syscall latency: a doctored
# 50 % slower jbd2 commit p99 (and block flush p99) is a regression (exit 1), named.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH

"$FSBENCH" smallfile -s 4k -n 50 -t 1 --quiet --probes none --json "$S/run.json" >/dev/null ||
	t_die "fsbench smallfile run failed"
# one real run, a fixed +-1 % spread, and kernel histograms put in as the probes write them
i=0
for j in 0.99 1.00 1.01; do
	i=$((i + 1))
	jq --argjson j "$j" '.runs[0].probes = {device: "loop9", sources: {
		block: {status: "ok", hists: {"flush.q2c": {count: 200, p99_ns: (4000000 * $j)}}},
		jbd2: {status: "ok", hists: {commit: {count: 200, p99_ns: (9000000 * $j)}}}}}' \
		"$S/run.json" >"$S/base$i.json"
	jq '.runs[0].probes.sources.jbd2.hists.commit.p99_ns *= 1.5
		| .runs[0].probes.sources.block.hists["flush.q2c"].p99_ns *= 1.5' \
		"$S/base$i.json" >"$S/slow$i.json"
done
# the kernel-side figures are reported and judged, but gate only where a gate file names them
"$FSBENCH" compare --gate "$S"/base?.json --candidate "$S"/slow?.json >/dev/null 2>&1
t_expect_eq "slower commits, no gate file: exit (not the seeds' metrics: reported)" 0 $?
echo '{"metrics": {"bpf.*": {}}}' >"$S/gate-bpf.json"
"$FSBENCH" compare --gate-file "$S/gate-bpf.json" --json "$S/doc.json" "$S"/base?.json --candidate "$S"/slow?.json >"$S/doc.txt" 2>"$S/doc.err"
t_expect_eq "slower commits, a gate file naming bpf.*: exit" 1 $?
v='.samples[0].metrics[] | select(.name == "%s") | .comparisons[0].verdict'
t_expect_eq "bpf.commit.p99 verdict" regression "$(t_json "$S/doc.json" "$(printf "$v" bpf.commit.p99)")"
t_expect_eq "bpf.flush.p99 verdict" regression "$(t_json "$S/doc.json" "$(printf "$v" bpf.flush.p99)")"
t_expect_eq "files_per_sec verdict" unchanged "$(t_json "$S/doc.json" "$(printf "$v" files_per_sec)")"
grep -q '^bpf.commit.p99 (us, lower is better)' "$S/doc.txt" && t_ok "text table for commit p99" ||
	t_fail "no bpf.commit.p99 table in: $(cat "$S/doc.txt")"
# the same runs against themselves: no regression
"$FSBENCH" compare --gate "$S"/base?.json --candidate "$S"/base?.json >/dev/null 2>&1
t_expect_eq "same kernel histograms: exit" 0 $?
t_done
