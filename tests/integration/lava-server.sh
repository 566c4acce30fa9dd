#!/bin/bash
# fsbench on a real LAVA (ci/lava-server): a job from `fsbench lava job` submitted twice
# through `fsbench lava submit --wait`, both results imported; with the model disk (guest
# instructions are the clock) the two jobs agree with each other and with a local
# kernel-run of the same kernel, suite and build; a job LAVA cannot run is "cannot judge"
# naming the job with its log's tail; `ci/lava-server stop` leaves nothing behind.
. "$(dirname "$0")/lib.sh"
. "$T_TESTS/kgate-lib.sh"
W=$T_SCRATCH
kg_need_kernel
LAVA="$SRCDIR/ci/lava-server"
t0=$(date +%s)

# a LAVA someone already runs is used and left running; one this test starts is stopped
ours=1
"$LAVA" status >/dev/null 2>&1 && ours=0
lava_stop() {
	[ $ours = 1 ] || return 0
	"$LAVA" stop >"$W/stop.out" 2>&1
	cat "$W/stop.out"
}
trap 'lava_stop; t_cleanup' EXIT

"$LAVA" start >"$W/env" 2>"$W/start.err"
rc=$?
[ $rc = 3 ] && t_skip "LAVA's packages cannot be installed here: $(tail -1 "$W/start.err")"
[ $rc = 0 ] || t_die "ci/lava-server start: exit $rc: $(tail -5 "$W/start.err")"
eval "$(grep -E '^LAVA_(URL|TOKEN_FILE)=' "$W/env")"
[ -n "${LAVA_URL:-}" ] && [ -r "${LAVA_TOKEN_FILE:-}" ] || t_die "start printed no LAVA_URL/LAVA_TOKEN_FILE: $(cat "$W/env")"
t_ok "LAVA up at $LAVA_URL in $(($(date +%s) - t0)) s"
echo "    memory of the idle services (RSS): $(ps -o rss= -p "$(cat /var/lib/fsbench-lava/pids/* | awk '{ print $1 }' | paste -sd,)" --ppid "$(cat /var/lib/fsbench-lava/pids/* | awk '{ print $1 }' | paste -sd,)" | awk '{ s += $1 } END { printf "%d MiB", s / 1024 }')"
pids=$(cat /var/lib/fsbench-lava/pids/* 2>/dev/null | awk '{ print $1 }')
[ -n "$pids" ] || t_fail "ci/lava-server recorded no PIDs"

# rerunnable: start again says so and prints the same lines
"$LAVA" start >"$W/env2" 2>"$W/start2.err" || t_fail "second start: $(cat "$W/start2.err")"
t_expect_eq "second start's lines" "$(cat "$W/env")" "$(cat "$W/env2")"

# the job: the default suite on the model disk, the kernel and initramfs as file:// URLs
"$FSBENCH" lava job --kernel "$deb" -o "$W/job.yaml" 2>"$W/err" || t_die "lava job: $(cat "$W/err")"
sub() { "$FSBENCH" lava submit --lava "$LAVA_URL" --lava-token-file "${TOKEN:-$LAVA_TOKEN_FILE}" "$@"; }

# ci/test runs the root suite again on the ASan build: there the client's paths (submit,
# wait, a failed job's log, refusals, stop) run, not the two good jobs and the local boot
# (five minutes more, the same numbers; the normal build checks them)
short=${FSBENCH_LAVA_SHORT:-}
ldd "$FSBENCH" 2>/dev/null | grep -q libasan && short=1
if [ -n "$short" ]; then
	echo "    sanitized build (or FSBENCH_LAVA_SHORT): the good jobs and the local boot run in the normal build"
else
	# both jobs at once (one device each), results into a directory, and meanwhile the same
	# kernel and suite locally
	t1=$(date +%s)
	mkdir "$W/res"
	sub "$W/job.yaml" "$W/job.yaml" --wait -o "$W/res" >"$W/ids" 2>"$W/sub.err" &
	s1=$!
	"$FSBENCH" kernel-run --kernel "$deb" --timeout 30m --workdir "$W/local" --json "$W/local.json" \
		>"$W/local.out" 2>"$W/local.err" || t_fail "local kernel-run: $(tail -5 "$W/local.err")"
	wait $s1 || t_fail "lava submit: exit $?: $(tail -25 "$W/sub.err")"
	echo "    two LAVA jobs (jobs $(paste -sd' ' "$W/ids")) and a local boot: $(($(date +%s) - t1)) s"
	t_expect_eq "jobs Complete" 2 "$(grep -c "job [0-9]*: Complete" "$W/sub.err")"
	i=0
	for id in $(cat "$W/ids"); do
		i=$((i + 1))
		"$FSBENCH" lava import -o "$W/imp$i.json" "$W/res/job-$id.yaml" 2>"$W/err" || t_fail "import $i: $(cat "$W/err")"
		grep -q "measurements in 6 runs" "$W/err" || t_fail "import $i: $(cat "$W/err")"
	done
	t_expect_eq "results imported" 2 $i
	[ "$T_FAILED" = 0 ] || t_die "no results to compare"

	# the numbers: files/s and fsync p50 of each repetition, the two jobs and the local boot
	med() { # RESULT JQ-PATH: the median over the smallfile runs
		jq -r "[.runs[] | select(.workload == \"smallfile\") | $2] | sort | .[length / 2 | floor]" "$1"
	}
	for m in summary.files_per_sec ops.fsync.p50_ns; do
		a=$(med "$W/imp1.json" ".$m") b=$(med "$W/imp2.json" ".$m") l=$(med "$W/local.json" ".$m")
		echo "    $m median: LAVA job 1 $a, job 2 $b, local $l"
		# what the gate judges alike: within 1 % (the A/A floor of docs/kernel-gate.md)
		awk -v a="$a" -v b="$b" 'BEGIN { d = (a - b) / b; exit !(d < 0.01 && d > -0.01) }' &&
			t_ok "$m: the two LAVA jobs agree ($a, $b)" || t_fail "$m: LAVA jobs differ: $a vs $b"
		awk -v a="$a" -v b="$l" 'BEGIN { d = (a - b) / b; exit !(d < 0.01 && d > -0.01) }' &&
			t_ok "$m: LAVA agrees with the local boot ($a, $l)" || t_fail "$m: LAVA $a vs local $l"
	done
	"$FSBENCH" compare --gate "$W/imp1.json" --candidate "$W/imp2.json" >"$W/cmp" 2>&1
	t_expect_eq "compare --gate, LAVA job 1 vs job 2" 0 $?
	# (compare cannot pair the local result's runs with imported ones: an imported run has only
	# its cell, not the suite's coordinates; hence the medians above)
fi

# a job LAVA cannot run (its kernel is not there): cannot judge, naming the job, with its log
sed "s|url: \"file://[^\"]*vmlinuz[^\"]*\"|url: \"file://$W/no-such-vmlinuz\"|" "$W/job.yaml" >"$W/bad.yaml"
grep -q no-such-vmlinuz "$W/bad.yaml" || t_die "could not make the bad job"
expect 125 "cannot judge: job [0-9]+ \(.*bad.yaml, http://127.0.0.1:[0-9]+/scheduler/job/[0-9]+\) finished Incomplete" \
	sub "$W/bad.yaml" --wait --timeout 10m
sed -n '1,6p' "$W/err" | cut -c1-200 | sed 's/^/    | /'
grep -q "the log's last lines:" "$W/err" && [ "$(grep -c '^  [a-z]*: ' "$W/err")" -ge 5 ] ||
	t_fail "no log tail: $(cat "$W/err")"
grep -q "no-such-vmlinuz" "$W/err" || t_fail "the log tail does not say what failed: $(cat "$W/err")"

# a job that outlives --timeout: canceled, cannot judge
expect 125 "cannot judge: job [0-9]+ \(http://127.0.0.1:[0-9]+/scheduler/job/[0-9]+\): not finished after 10 s .*\(canceled\)" \
	sub "$W/job.yaml" --wait --timeout 10s

# bad tokens are refused before anything is submitted
printf 'x\n' >"$W/tok" && chmod 0666 "$W/tok"
TOKEN=$W/tok expect 2 "writable by its group or others" sub "$W/job.yaml"
chmod 0600 "$W/tok"
TOKEN=$W/tok expect 1 "HTTP 403" sub "$W/job.yaml"

# stop, with a job running: everything start started is gone, with the job's lava-run and
# qemu (sessions of their own, below the worker)
if [ $ours = 1 ]; then
	id=$(sub "$W/job.yaml" 2>"$W/err") || t_fail "submit: $(cat "$W/err")"
	for i in $(seq 240); do
		pgrep -f "lava-run \[job: $id\]" >/dev/null && break
		sleep 0.5
	done
	pgrep -f "lava-run \[job: $id\]" >/dev/null || t_fail "job $id did not start within 120 s"
	lava_stop >/dev/null
	ours=0
	grep -q "stopped worker (pid [0-9]*, and [0-9]* below it)" "$W/stop.out" ||
		t_fail "stop did not end the worker's job: $(cat "$W/stop.out")"
	left=""
	for p in $pids; do # a zombie awaiting PID 1's reaping has ended
		st=$(cat "/proc/$p/stat" 2>/dev/null) && st=${st##*) } && [ "${st%% *}" != Z ] && left="$left $p"
	done
	t_expect_eq "processes of ci/lava-server left after stop" "" "$left"
	t_expect_eq "lava-run or qemu of job $id left" "" \
		"$(pgrep -f "lava-run \[job: $id\]|/var/lib/lava/dispatcher/tmp/$id/" || true)"
	"$LAVA" status >/dev/null && t_fail "status says running after stop"
fi
echo "    wall time: $(($(date +%s) - t0)) s"
t_done
