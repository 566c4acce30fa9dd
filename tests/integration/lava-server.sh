#!/bin/bash
# fsbench on a real LAVA (ci/lava-server): an A/A `kernel-gate --lava` (each boot a LAVA
# job) gives good, and with the model disk (guest instructions are the clock) its boots'
# numbers agree with a local kernel-run of the same kernel, suite and build, which compare
# pairs with them; a job LAVA cannot run is "cannot judge" naming the job with its log's
# tail; `ci/lava-server stop` leaves nothing behind. The test's LAVA is an instance of its own
# (a state directory in the scratch directory, a free port): the machine's LAVA and another
# test's are not touched, and a second instance beside it is started and destroyed.
. "$(dirname "$0")/lib.sh"
. "$T_TESTS/kgate-lib.sh"
W=$T_SCRATCH
kg_need_kernel
LAVA="$SRCDIR/ci/lava-server"
t0=$(date +%s)

ST=$W/lava # this test's instance
lava() { "$LAVA" --state-dir "$ST" "$@"; }
# start holds LAVA for this shell and stop lets go of the hold: a LAVA another holds too is
# left running for them; the last holder's stop stops it. destroy (at exit) stops it whoever
# holds it and removes its database, configuration and state.
lava_stop() {
	lava stop >"$W/stop.out" 2>&1
	cat "$W/stop.out"
}
# INSTANCE-DIR OUT ERR [start's options]: started on a free port (another program may take
# the one tried: then another is tried); start's exit status
start_free() {
	local st=$1 out=$2 err=$3 rc i p
	shift 3
	for i in 1 2 3 4 5; do
		p=$((20000 + RANDOM % 40000))
		# as docs/lava.md runs it, eval "$(ci/lava-server start)": it returns once up (the
		# services it leaves running hold no end of the pipe; 124: they did)
		v=$(timeout 900 "$LAVA" --state-dir "$st" --port "$p" start "$@" 2>"$err")
		rc=$?
		printf '%s\n' "$v" >"$out"
		[ $rc = 1 ] && grep -q "is in use by another program" "$err" && continue
		return $rc
	done
	return $rc
}
trap '"$LAVA" --state-dir "$W/lava-b" destroy >/dev/null 2>&1; "$LAVA" --state-dir "$ST" destroy >>"$W/stop.out" 2>&1; t_cleanup' EXIT

start_free "$ST" "$W/env" "$W/start.err"
rc=$?
[ $rc = 3 ] && t_skip "LAVA's packages cannot be installed here: $(tail -1 "$W/start.err")"
[ $rc = 0 ] || t_die "ci/lava-server start: exit $rc: $(tail -5 "$W/start.err")"
IDA=$(cat "$ST/instance")
# stdout is for eval: the two lines and nothing the services print on the way
t_expect_eq "start's stdout" "LAVA_URL LAVA_TOKEN_FILE" "$(cut -d= -f1 "$W/env" | paste -sd' ')"
eval "$(grep -E '^LAVA_(URL|TOKEN_FILE)=' "$W/env")"
[ -n "${LAVA_URL:-}" ] && [ -r "${LAVA_TOKEN_FILE:-}" ] || t_die "start printed no LAVA_URL/LAVA_TOKEN_FILE: $(cat "$W/env")"
t_ok "LAVA up at $LAVA_URL in $(($(date +%s) - t0)) s"
echo "    memory of the idle services (RSS): $(ps -o rss= -p "$(cat "$ST"/pids/* | awk '{ print $1 }' | paste -sd,)" --ppid "$(cat "$ST"/pids/* | awk '{ print $1 }' | paste -sd,)" | awk '{ s += $1 } END { printf "%d MiB", s / 1024 }')"
pids=$(cat "$ST"/pids/* 2>/dev/null | awk '{ print $1 }')
[ -n "$pids" ] || t_fail "ci/lava-server recorded no PIDs"

# rerunnable: start again says so and prints the same lines
lava start >"$W/env2" 2>"$W/start2.err" || t_fail "second start: $(cat "$W/start2.err")"
t_expect_eq "second start's lines" "$(cat "$W/env")" "$(cat "$W/env2")"
# this test alone holds it (no other test or user): then its stop below must stop it
ours=0
[ "$(lava status | grep '^held by pid' | awk '{ print $4 }' | paste -sd' ')" = "$$" ] && ours=1

# a second holder (another test's shell): our stop leaves LAVA running for it, and once it
# has ended, its hold is dropped and the last stop stops LAVA
if [ $ours = 1 ]; then
	(lava start >/dev/null 2>"$W/hold.err" && exec sleep 600) &
	holder=$!
	T_PIDS+=("$holder")
	for i in $(seq 100); do lava status | grep -q "^held by pid $holder " && break; sleep 0.2; done
	t_expect_eq "holders" "$$ $holder" "$(lava status | grep '^held by pid' | awk '{ print $4 }' | sort -n | paste -sd' ')"
	lava stop >"$W/stop1.out" 2>&1
	grep -q "still held by pid $holder: left running" "$W/stop1.out" && lava status >/dev/null &&
		t_ok "stop while another holds it: $(cat "$W/stop1.out")" || t_fail "stop while another holds it: $(cat "$W/stop1.out"); $(lava status)"
	lava start >"$W/env3" 2>/dev/null || t_fail "start again"
	kill "$holder" && wait "$holder" 2>/dev/null
	t_expect_eq "holders once the other has ended" "$$" "$(lava status | grep '^held by pid' | awk '{ print $4 }' | paste -sd' ')"
fi

# what an instance is refused, before anything starts
expect 2 "--state-dir lava: not an absolute path" "$LAVA" --state-dir lava status
ln -s "$ST" "$W/lava-link"
expect 2 "--state-dir $W/lava-link: a symlink" "$LAVA" --state-dir "$W/lava-link" status
expect 2 "--port 80: not a port from 1000 to 65533" "$LAVA" --state-dir "$W/lava-b" --port 80 start
expect 1 "port $(cat "$ST/port") on 127.0.0.1 is in use by another program" \
	"$LAVA" --state-dir "$W/lava-b" --port "$(cat "$ST/port")" start
expect 1 "destroy: the machine's LAVA \(/var/lib/fsbench-lava\) is not destroyed" "$LAVA" --state-dir /var/lib/fsbench-lava destroy
expect 2 "usage: ci/lava-server" "$LAVA" --state-dir "$ST" start -n 0
rm -rf "$W/lava-b"

# a second instance beside the first (its own state directory and port): its own database,
# worker and devices, and its stop and destroy end nothing of the first's
t1=$(date +%s)
start_free "$W/lava-b" "$W/envb" "$W/startb.err" -n 1 || t_fail "the second instance's start: $(tail -3 "$W/startb.err")"
IDB=$(cat "$W/lava-b/instance")
urlb=$(sed -n 's/^LAVA_URL=//p' "$W/envb")
[ "$IDB" != "$IDA" ] && [ "$urlb" != "$LAVA_URL" ] || t_fail "the second instance is the first: $IDB $urlb"
t_expect_eq "the second instance's worker and devices" "fsbench-worker-$IDB qemu01" \
	"$(curl -sf -H "Authorization: Token $(cat "$W/lava-b/token")" "${urlb}api/v0.2/devices/" | jq -r '.results[] | "\(.worker_host) \(.hostname)"' | sort -u | paste -sd' ')"
t_expect_eq "the first's workers, with the second up" "fsbench-worker-$IDA" \
	"$(curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL}api/v0.2/workers/" | jq -r '[.results[].hostname | select(startswith("fsbench-"))] | join(" ")')"
grep -q "^instance: $IDB (state $W/lava-b, $urlb, database lavaserver_$IDB)" <("$LAVA" --state-dir "$W/lava-b" status) ||
	t_fail "the second's status: $("$LAVA" --state-dir "$W/lava-b" status)"
"$LAVA" --state-dir "$W/lava-b" destroy >"$W/destroyb.out" 2>&1 || t_fail "destroy: $(cat "$W/destroyb.out")"
grep -q "dropped database lavaserver_$IDB" "$W/destroyb.out" || t_fail "destroy dropped no database: $(cat "$W/destroyb.out")"
t_expect_eq "the second's database, configuration and state after destroy" "" \
	"$(cd / && runuser -u postgres -- psql -Atc "select datname from pg_database where datname = 'lavaserver_$IDB'" 2>&1; ls -d "/etc/lava-server/fsbench-$IDB" "/etc/lava-server/dispatcher.d/fsbench-worker-$IDB" "/var/lib/lava-server/fsbench-$IDB" "$W/lava-b" 2>/dev/null)"
lava status >/dev/null && [ "$(cat "$ST"/pids/* | awk '{ print $1 }' | sort | paste -sd' ')" = "$(echo "$pids" | sort | paste -sd' ')" ] &&
	t_ok "the first instance runs on, its processes the same ($(($(date +%s) - t1)) s for the second's start and destroy)" ||
	t_fail "the second's destroy touched the first: $(lava status)"

# the job: the default suite on the model disk, the kernel and initramfs as file:// URLs
"$FSBENCH" lava job --kernel "$deb" -o "$W/job.yaml" 2>"$W/err" || t_die "lava job: $(cat "$W/err")"
sub() { "$FSBENCH" lava submit --lava "$LAVA_URL" --lava-token-file "${TOKEN:-$LAVA_TOKEN_FILE}" "$@"; }

# the smallest suite the gate takes (2 repetitions of 2 boots a side: 4 samples,
# RPT_MIN_SAMPLES 3), smallfile as in kgate.json (files/s, fsync p50)
cat >"$W/aa.json" <<-'SUITE'
	{ "description": "lava-server test: the smallest suite kernel-gate takes",
	  "filesystems": ["ext4"],
	  "workloads": [ { "name": "smallfile",
	    "params": { "size": "4k", "files": 400, "files-per-subdir": 50, "subdirs": 8, "sync": 1 } } ],
	  "threads": [1], "repetitions": 2, "image_size": "512M" }
SUITE

# ci/test runs the root suite again on the ASan build: there the client's paths (submit,
# wait, a failed or canceled job's log, refusals, stop) run, not the gate's four jobs and
# the local boot (minutes more, the same numbers; the normal build checks them)
short=${FSBENCH_LAVA_SHORT:-}
ldd "$FSBENCH" 2>/dev/null | grep -q libasan && short=1
if [ -n "$short" ]; then
	echo "    sanitized build (or FSBENCH_LAVA_SHORT): the gate's jobs and the local boot run in the normal build"
else
	# an A/A kernel-gate through LAVA (its 4 boots as jobs, as many at a time as the server
	# has idle qemu devices: ci/lava-server makes one per core) and meanwhile a local kernel-run of the same kernel and suite
	t1=$(date +%s)
	# (3 repetitions locally: compare needs 3 samples a side)
	"$FSBENCH" kernel-run --kernel "$deb" --timeout 30m --workdir "$W/local" --json "$W/local.json" \
		--repetitions 3 "$W/aa.json" >"$W/local.out" 2>"$W/local.err" &
	l1=$!
	expect 0 "fsbench kernel-gate: boots and results in" "$FSBENCH" kernel-gate --lava "$LAVA_URL" \
		--lava-token-file "$LAVA_TOKEN_FILE" --baseline "$deb" --candidate "$deb" \
		--workdir "$W/gate" --json "$W/gate.json" "$W/aa.json"
	cp "$W/out" "$W/gate.out"
	wait $l1 || t_fail "local kernel-run: exit $?: $(tail -5 "$W/local.err")"
	echo "    A/A kernel-gate --lava (4 jobs) and a local kernel-run beside it: $(($(date +%s) - t1)) s"
	grep -q "^verdict: good (exit 0)" "$W/gate.out" || t_fail "no good verdict: $(tail -3 "$W/gate.out")"
	t_expect_eq "gate's boots, A B B A, each a LAVA job" "baseline candidate candidate baseline lava lava lava lava" \
		"$(t_json "$W/gate.json" '([.boots[].side] + [.boots[].backend]) | join(" ")')"
	t_json "$W/gate.json" '.boots[0].lava.url' | grep -Eq "^http://127.0.0.1:[0-9]+/scheduler/job/[0-9]+$" ||
		t_fail "boot 1 names no LAVA job: $(t_json "$W/gate.json" '.boots[0]')"
	# the verdict in LAVA too: a job of its own whose test cases are the gated metrics' and
	# the verdict's, each pass here (good), with the change as the measurement
	vj=$(t_json "$W/gate.json" '.published.job // empty')
	grep -q "the verdict is also in LAVA job $vj (.*): [0-9]* test cases" "$W/err" ||
		t_fail "the gate does not say where the verdict is: $(grep -i verdict "$W/err")"
	vapi() { curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL%/}$1"; }
	for i in $(seq 600); do
		[ -n "$vj" ] && [ "$(vapi "/api/v0.2/jobs/$vj/" | jq -r .state)" = Finished ] && break
		sleep 1
	done
	t_expect_eq "the verdict job $vj: its health and metadata" "Complete verdict good" \
		"$(vapi "/api/v0.2/jobs/$vj/" | jq -r '"\(.health) \(.definition | capture("fsbench.side: \"?(?<s>[a-z]+)").s) \(.definition | capture("fsbench.verdict: \"?(?<v>[a-z][a-z ]*[a-z])").v)"')"
	vapi "/api/v0.2/jobs/$vj/tests/?limit=1000" >"$W/vtests.json" || t_fail "the verdict job's tests"
	t_expect_eq "its verdict case" pass "$(jq -r '.results[] | select(.name == "fsbench-gate-verdict") | .result' "$W/vtests.json")"
	t_expect_eq "its files/s case" pass \
		"$(jq -r '.results[] | select(.name | endswith("-files_per_sec")) | .result' "$W/vtests.json")"
	t_expect_eq "its cases: the document's gated comparisons and the verdict" \
		"$(t_json "$W/gate.json" '.published.cases')" \
		"$(jq '[.results[] | select(.name | startswith("fsbench-gate-"))] | length' "$W/vtests.json")"
	# the gate's judgement: the same comparison and A/A floor as a local gate's
	t_expect_eq "gate's comparisons judged" true \
		"$(t_json "$W/gate.json" '[.compare.samples[].metrics[] | select(.name == "files_per_sec")] | length > 0')"
	# the same boot as a local one (docs/lava.md, "The same boot"): the guest's own result
	# from each job's log, the local command line (and LAVA's shell), what QEMU had beside
	t_expect_eq "each boot's result from its job's log" "log log log log" \
		"$(t_json "$W/gate.json" '[.boots[].lava.result_from] | join(" ")')"
	t_expect_eq "each boot's command line as booted" true \
		"$(t_json "$W/gate.json" '[.boots[].kernel.cmdline | test("^console=ttyS0 quiet .*panic=-1 .*fsbench.shell")] | all')"
	# every metric a local boot's result has, each LAVA boot's has: its ops, summary and probes
	metrics() { jq -c '[.runs[] | {w: .workload, o: (.ops | keys), s: (.summary | keys), p: (.probes.sources // {} | keys)}] | unique' "$1"; }
	for r in "$W"/gate/boot-0*/result.json; do
		t_expect_eq "$(basename "$(dirname "$r")"): the metrics of a local boot's result" \
			"$(metrics "$W/local.json")" "$(metrics "$r")"
	done
	t_expect_eq "each boot names LAVA's extra QEMU options" true \
		"$(t_json "$W/gate.json" '[.boots[].lava.not_local | index("-nographic") != null] | all')"
	# LAVA's raw results back through `fsbench lava import`, too
	"$FSBENCH" lava import -o "$W/imp1.json" "$W/gate/boot-01-baseline/lava-results.yaml" 2>"$W/err" ||
		t_fail "import: $(cat "$W/err")"
	grep -q "measurements in 2 runs" "$W/err" || t_fail "import: $(cat "$W/err")"
	[ "$T_FAILED" = 0 ] || t_die "no results to compare"

	# the numbers: files/s and fsync p50, each LAVA boot's median against the local boot's,
	# within the A/A floor (1 %, docs/kernel-gate.md)
	med() { # RESULT JQ-PATH: the median over the smallfile runs
		jq -r "[.runs[] | select(.workload == \"smallfile\") | $2] | sort | .[length / 2 | floor]" "$1"
	}
	for m in summary.files_per_sec ops.fsync.p50_ns; do
		l=$(med "$W/local.json" ".$m") all=""
		for r in "$W"/gate/boot-0*/result.json; do
			a=$(med "$r" ".$m") all="$all $a"
			awk -v a="$a" -v b="$l" 'BEGIN { d = (a - b) / b; exit !(d < 0.01 && d > -0.01) }' ||
				t_fail "$m: LAVA $a ($r) vs local $l"
		done
		t_ok "$m median: LAVA boots$all, local $l (within 1 %)"
	done
	# and compare pairs a local result's runs with LAVA's (the import's suite coordinates)
	"$FSBENCH" compare --gate "$W/local.json" --candidate "$W"/gate/boot-0[14]-baseline/result.json \
		--json "$W/cmp.json" >"$W/cmp" 2>&1
	t_expect_eq "compare --gate, local vs the LAVA baseline boots" 0 $?
	grep -q "files_per_sec" "$W/cmp" || t_fail "compare paired nothing: $(head -5 "$W/cmp")"
	# every metric, latencies too: both sides' probes and exact percentiles are the guest's
	t_expect_eq "local vs LAVA: fsync.p50 judged" false \
		"$(t_json "$W/cmp.json" '[.samples[].metrics[] | select(.name == "fsync.p50") | .comparisons[].verdict] | (length == 0 or any(. == "insufficient"))')"

	# a night's history through LAVA: `history run -- --lava` boots each kernel as a job and
	# adds its result; the second night boots nothing
	t1=$(date +%s)
	"$FSBENCH" history run --db "$W/night.db" --boots 1 --suite "$W/aa.json" --workdir "$W/night" \
		-- --lava "$LAVA_URL" --lava-token-file "$LAVA_TOKEN_FILE" "$deb" >"$W/night.out" 2>&1
	t_expect_eq "history run through LAVA: exit" 0 "$?"
	grep -q "boot 1: added" "$W/night.out" && "$FSBENCH" history list --db "$W/night.db" | grep -q ": 1 files, 2 runs (0 incomplete)" &&
		t_ok "history run through LAVA: one job, its result in the store ($(($(date +%s) - t1)) s)" ||
		t_fail "history run through LAVA: $(tail -5 "$W/night.out"); $("$FSBENCH" history list --db "$W/night.db" 2>&1 | head -3)"
	t_expect_eq "the store's boot was a LAVA job" "lava" \
		"$(t_json "$(ls "$W"/night/*/*/boot-1.json | head -1)" '.vm.backend // (if .vm.lava then "lava" else "local" end)')"
	"$FSBENCH" history run --db "$W/night.db" --boots 1 --suite "$W/aa.json" --workdir "$W/night" \
		-- --lava "$LAVA_URL" --lava-token-file "$LAVA_TOKEN_FILE" "$deb" >"$W/night2.out" 2>&1
	grep -q "0 boots (0 failed), 1 kernel skipped as in the store" "$W/night2.out" &&
		t_ok "the second night: $(tail -1 "$W/night2.out")" || t_fail "the second night: $(cat "$W/night2.out")"

	# a matrix (one kernel x two suites: two jobs at once), one result for the kernel
	cat >"$W/st.json" <<-'SUITE'
		{ "description": "lava-server test: a matrix's second suite",
		  "filesystems": ["ext4"],
		  "workloads": [ { "name": "stream", "params": { "size": "64M", "chunk": "8M", "mode": "fdatasync" } } ],
		  "threads": [1], "repetitions": 2, "image_size": "512M" }
	SUITE
	t1=$(date +%s)
	mkdir "$W/matrix"
	expect 0 "kernel 0 \(6[^)]*\): 4 runs from 2 job\(s\): $W/matrix/k0-.*\.json" sub --kernel "$deb" \
		--suite "$W/aa.json" --suite "$W/st.json" -o "$W/matrix"
	echo "    a matrix of 1 kernel x 2 suites: $(($(date +%s) - t1)) s"
	m=$(ls "$W"/matrix/k0-*.json)
	"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-result-2.schema.json" "$m" ||
		t_fail "the matrix's result does not validate against schema 2"
	t_expect_eq "the matrix's runs" "smallfile smallfile stream stream" "$(t_json "$m" '[.runs[].workload] | sort | join(" ")')"
	"$FSBENCH" report "$m" -o "$W/matrix.html" >/dev/null 2>"$W/err" || t_fail "report of the matrix's result: $(cat "$W/err")"
	# (compare pairs every run or refuses: the local result has no stream runs to pair)
	"$FSBENCH" compare "$m" "$m" >"$W/cmp" 2>&1
	t_expect_eq "compare takes the matrix's result" 0 $?
	# its KCIDB submission names the kernel the jobs booted
	"$FSBENCH" export --format kcidb "$m" >"$W/matrix.kcidb" 2>"$W/err" || t_fail "kcidb export of the matrix's result: $(cat "$W/err")"
	"$SRCDIR/tests/tools/validate-json" "$SRCDIR/tests/fixtures/kcidb-v5.3.schema.json" "$W/matrix.kcidb" ||
		t_fail "the matrix's KCIDB submission does not validate against KCIDB v5.3"
	t_expect_eq "the matrix's KCIDB kernel" "$(t_json "$m" '.host.kernel')" \
		"$(jq -r '.builds[0].misc.kernel_release' "$W/matrix.kcidb")"
	case $(t_json "$m" '.host.kernel') in 6.*) ;; *) t_fail "the matrix's result names no kernel: $(t_json "$m" '.host.kernel')" ;; esac
fi

# --lava refuses what a LAVA job sets itself, before any work
expect 2 "--cpu: not with --lava" "$FSBENCH" kernel-gate --lava "$LAVA_URL" --lava-token-file "$LAVA_TOKEN_FILE" \
	--baseline "$deb" --candidate "$deb" --cpu max
expect 2 "--lava and --lava-token-file go together" "$FSBENCH" kernel-run --lava "$LAVA_URL" --kernel "$deb"

# a boot whose job LAVA cancels: kernel-run --lava is cannot judge, naming the job, its URL
# and the log's last lines (the job canceled through the API once it was submitted)
api() { curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL%/}$1"; }
last=$(api "/api/v0.2/jobs/?ordering=-id&limit=1" | jq -r '.results[0].id // 0')
"$FSBENCH" kernel-run --lava "$LAVA_URL" --lava-token-file "$LAVA_TOKEN_FILE" --kernel "$deb" \
	--workdir "$W/kr" "$W/aa.json" >"$W/kr.out" 2>"$W/kr.err" &
kr=$!
id=""
# once it runs: a job canceled before it started has no log to show
for i in $(seq 240); do
	id=$(api "/api/v0.2/jobs/?ordering=-id&limit=1" | jq -r ".results[0] | select(.id > $last and .state == \"Running\") | .id")
	[ -n "$id" ] && break
	sleep 0.5
done
# and once its log has lines: on a loaded host "Running" comes well before the first line,
# and a job canceled then has no log to show (the API answers 404)
for i in $(seq 120); do
	[ -n "$id" ] && [ "$(api "/api/v0.2/jobs/$id/logs/" 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.5
done
[ -n "$id" ] && api "/api/v0.2/jobs/$id/cancel/" >/dev/null || t_fail "no running job of kernel-run --lava to cancel"
wait $kr
t_expect_eq "kernel-run --lava, its job canceled: exit" 125 $?
grep -Eq "boot 1 \(kernel\): job $id \(http://127.0.0.1:[0-9]+/scheduler/job/$id\) finished Canceled; the log's last lines:" "$W/kr.err" &&
	[ "$(grep -c '^  [a-z]*: ' "$W/kr.err")" -ge 3 ] && t_ok "the canceled job named, with its log's tail" ||
	t_fail "canceled job: $(cat "$W/kr.err")"

# a job LAVA cannot run (its kernel is not there): cannot judge, naming the job, with its log
sed "s|url: \"file://[^\"]*vmlinu[xz][^\"]*\"|url: \"file://$W/no-such-vmlinuz\"|" "$W/job.yaml" >"$W/bad.yaml"
grep -q no-such-vmlinuz "$W/bad.yaml" || t_die "could not make the bad job"
expect 125 "cannot judge: job [0-9]+ \(.*bad.yaml, http://127.0.0.1:[0-9]+/scheduler/job/[0-9]+\) finished Incomplete" \
	sub "$W/bad.yaml" --wait --timeout 10m
sed -n '1,6p' "$W/err" | cut -c1-200 | sed 's/^/    | /'
grep -q "the log's last lines:" "$W/err" && [ "$(grep -c '^  [a-z]*: ' "$W/err")" -ge 5 ] ||
	t_fail "no log tail: $(cat "$W/err")"
grep -q "no-such-vmlinuz" "$W/err" || t_fail "the log tail does not say what failed: $(cat "$W/err")"

# a kernel that panics (no init to run: rdinit names nothing): panic=-1 and -no-reboot end
# the job at once, not at LAVA's timeout, and the line names the panic, which LAVA's
# "Connection closed" does not
sed 's|rdinit=/init|rdinit=/no-such-init|' "$W/job.yaml" >"$W/panic.yaml"
grep -q no-such-init "$W/panic.yaml" || t_die "could not make the panicking job"
t1=$(date +%s)
expect 125 "finished Incomplete.*; the guest's kernel failed: Kernel panic - not syncing: VFS: Unable to mount root fs" \
	sub "$W/panic.yaml" --wait --timeout 10m
echo "    a panicking kernel's job: $(($(date +%s) - t1)) s from submission to cannot judge"

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
	grep -q "stopped worker (pid [0-9]*, and [0-9]* below it)" "$W/stop.out" ||
		t_fail "stop did not end the worker's job: $(cat "$W/stop.out")"
	left=""
	for p in $pids; do # a zombie awaiting PID 1's reaping has ended
		st=$(cat "/proc/$p/stat" 2>/dev/null) && st=${st##*) } && [ "${st%% *}" != Z ] && left="$left $p"
	done
	t_expect_eq "processes of ci/lava-server left after stop" "" "$left"
	t_expect_eq "lava-run or qemu of job $id left" "" \
		"$(pgrep -f "lava-run \[job: $id\]|/var/lib/lava/dispatcher/tmp/$IDA-$id/" || true)"
	lava status >/dev/null && t_fail "status says running after stop"
fi
echo "    wall time: $(($(date +%s) - t0)) s"
t_done
