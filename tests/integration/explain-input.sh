#!/bin/bash
# explain reads result files anyone may have written: a run without a workload name or a
# target says "?" (never "(null)"), and times at the 64-bit limit are explained, not wrapped.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH

cat >"$S/r.json" <<'JSON'
{"schema": "fsbench-result/2", "runs": [{"threads": 1, "summary": {"complete": true},
 "probes": {"device": "sda", "slow_calls": [
  {"op": "fsync", "thread": 0, "start_ns": 0, "duration_ns": 2000000,
   "kernel": {"complete": true, "commits_total": 1, "commits": [
    {"start_ns": 0, "duration_ns": 1500000, "handles": 2, "flushes": 1, "flush_ns": 500000}]}},
  {"op": "fsync", "thread": 0, "start_ns": 9223372036854775807,
   "duration_ns": 9223372036854775807,
   "kernel": {"complete": true, "commits_total": 1, "commits": [
    {"start_ns": 9223372036854775807, "duration_ns": 9223372036854775807, "handles": 1,
     "flushes": 0, "flush_ns": 0}]}}]}}]}
JSON
"$FSBENCH" explain "$S/r.json" >"$S/out" 2>"$S/err"
t_expect_eq "explain of a run without workload: exit" 0 $?
grep -q '(null)' "$S/out" && t_fail "explain prints (null): $(cat "$S/out")" || t_ok "no (null)"
grep -q "^$S/r.json run 0: ?, ? on ?\$" "$S/out" && t_ok "missing names are '?'" ||
	t_fail "heading: $(head -1 "$S/out")"
t_expect_eq "both calls explained" 2 "$(grep -c '^fsync ' "$S/out")"
grep -q '^fsync .*= jbd2 commit 1.50 ms (1 flush 0.50 ms on sda, 2 handles)' "$S/out" &&
	t_ok "the commit is named" || t_fail "explain: $(cat "$S/out")"
t_done
