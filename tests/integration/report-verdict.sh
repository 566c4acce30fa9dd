#!/bin/bash
# fsbench report of A against B leads with the verdict: in headless Chromium the first
# heading is the verdict, a doctored regression of fsync.p99 heads the changed list with its
# kernel-side why line, and a 24-run suite pair's page stays under 3 MB.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
FIX=$SRCDIR/tests/fixtures/results/probes-ext4.json # a real ext4 run with probes, trimmed

# three runs a side, 2 flushes per journal commit; B's fsyncs are 50 % slower at p99, with 3
flushes() { echo ".probes.sources.jbd2.counters.commits as \$c | .probes.sources.block.counters.flush_issued = \$c * $1"; }
jq -c ".runs = [range(3) as \$i | .runs[0] | .summary.files_per_sec += \$i | .ops.fsync.p99_ns += \$i * 1000
	| $(flushes 2)]" "$FIX" >"$S/A.json" || t_die "making A"
jq -c ".runs = [range(3) as \$i | .runs[0] | .summary.files_per_sec += \$i
	| .ops.fsync.p99_ns = (.ops.fsync.p99_ns * 1.5 + \$i * 1000) | $(flushes 3)]" "$FIX" >"$S/B.json" ||
	t_die "making B"

"$FSBENCH" compare --gate --baseline "$S/A.json" --candidate "$S/B.json" >"$S/gate.txt"
t_expect_eq "compare --gate exit" 1 "$?"
grep -q 'fsync.p99 +50.0 %: commits per fsync 1.00 -> 1.00, flushes per commit 2.00 -> 3.00' "$S/gate.txt" &&
	t_ok "compare's text says why" || t_fail "no why line: $(grep -A3 why "$S/gate.txt")"
"$FSBENCH" compare --format json --baseline "$S/A.json" --candidate "$S/B.json" >"$S/cmp.json"
t_expect_eq "the document carries the why" "flushes per commit" \
	"$(jq -r '.samples[0].metrics[] | select(.name == "fsync.p99") | .comparisons[0].why.items[1].name' "$S/cmp.json")"
"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-compare-1.schema.json" "$S/cmp.json" ||
	t_fail "the compare document does not validate"
"$FSBENCH" explain --baseline "$S/A.json" --candidate "$S/B.json" >"$S/explain.txt" || t_fail "explain failed"
grep -q '\[regression\]: fsync.p99 +50.0 %: commits per fsync' "$S/explain.txt" &&
	t_ok "explain --baseline --candidate says why" || t_fail "explain: $(cat "$S/explain.txt")"

# jbd2 refused on the baseline: fsync latencies not judged, and the verdict names the source
jq -c '.runs[].probes.sources.jbd2.status = "skipped: loading jbd2.bpf.o: Permission denied"' "$S/A.json" >"$S/A0.json"
"$FSBENCH" compare --gate --baseline "$S/A0.json" --candidate "$S/B.json" >"$S/gate0.txt"
t_expect_eq "unlike probes: gate exit" 0 "$?"
grep -q 'instrumentation: smallfile t=1 (candidate): source jbd2 loaded on the candidate only' "$S/gate0.txt" &&
	t_ok "the verdict names the source" || t_fail "no instrumentation line: $(tail -5 "$S/gate0.txt")"

"$FSBENCH" report -o "$S/ab.html" --baseline "$S/A.json" --candidate "$S/B.json" 2>"$S/err" ||
	t_die "report failed: $(cat "$S/err")"

# two runs a side: nothing is judged, and the verdict says so rather than "good"
jq -c '.runs |= .[0:2]' "$S/A.json" >"$S/A2.json" && jq -c '.runs |= .[0:2]' "$S/B.json" >"$S/B2.json"
"$FSBENCH" report --no-plots -o "$S/ab2.html" --baseline "$S/A2.json" --candidate "$S/B2.json" 2>"$S/err" ||
	t_die "report of two runs a side failed: $(cat "$S/err")"
grep -q '^<h1 id="verdict" class="verdict noisy">Not judged: no metric had enough runs' "$S/ab2.html" &&
	t_ok "two runs a side: not judged" || t_fail "two runs a side: $(grep -o '<h1[^>]*>[^<]*' "$S/ab2.html")"

# a 24-run suite pair (4 filesystems x 2 thread counts x 3 repetitions; xfs's fsync p99 60 %
# worse on the candidate), every run's I/O map at 1024 points (twice what a result keeps), its 20 slow calls per operation
mk_suite() { # FSYNC_P99_FACTOR_ON_XFS OUT.json
	jq -c --argjson f "$1" '.runs[0] as $r
	 | ($r.probes.iomap.points[0]) as $p
	 | ($r.probes.slow_calls[0]) as $sc
	 | .runs = [("ext4", "xfs", "btrfs", "ext3") as $fs | (1, 2) as $t | range(0; 3) as $rep
	   | $r | .threads = $t | .ops.fsync.p99_ns *= (if $fs == "xfs" then $f else 1 end)
	   | .coords = {fs: $fs, workload: "smallfile", threads: $t, repetition: $rep,
	                cell: ($fs + "/smallfile/t=" + ($t|tostring))}
	   | .probes.iomap.points = [range(1024) as $k | [$p[0] + $k * 1000000, $k * 8, 4096, "write"]]
	   | .probes.iomap.kept = 1024
	   | .probes.slow_calls = [range(100) as $k | $sc | .op = (["create","write","fsync","close","unlink"][$k % 5])]]' \
		"$FIX" >"$2"
}
mk_suite 1 "$S/s1.json" && mk_suite 1.6 "$S/s2.json" || t_die "making the suite pair"
"$FSBENCH" report -o "$S/suite.html" --baseline "$S/s1.json" --candidate "$S/s2.json" 2>"$S/err" ||
	t_die "suite report failed: $(cat "$S/err")"
size=$(stat -c %s "$S/suite.html")
[ "$size" -le $((3 * 1024 * 1024)) ] && t_ok "24-run pair's page: $size bytes (at most 3 MB)" ||
	t_fail "24-run pair's page is $size bytes, over 3 MB"

# attribution that scales: 20 slowest calls of the 48 runs in one table, each run's own folded
t_expect_eq "slowest calls overall" 20 \
	"$(sed -n '/<table class="slowest">/,/<\/table>/p' "$S/suite.html" | grep -c '^<tr><td>[0-9]')"
t_expect_eq "per-run attribution folded" 48 "$(grep -c '^<details class="run">' "$S/suite.html")"

if command -v gnuplot >/dev/null; then
	# baseline beside candidate: in files/s against threads each filesystem has one colour,
	# solid on the baseline and dashed on the candidate
	awk '/<figure>/ { f = "" } { f = f $0 "\n" }
	     /<figcaption>smallfile: files\/s against threads</ { print f }' "$S/suite.html" >"$S/tput.svg"
	dashed=$(grep -o "stroke='rgb([^']*)' stroke-dasharray=' *5,8'" "$S/tput.svg" | sed "s/ stroke-das.*//" | sort -u)
	solid=$(grep -o "stroke='rgb([^']*)'  *d=" "$S/tput.svg" | sed "s/ *d=//" | sort -u)
	t_expect_eq "candidate lines dashed, one colour per filesystem" 4 "$(echo "$dashed" | grep -c rgb)"
	t_expect_eq "the baseline's lines in the same colours, solid" "$dashed" "$solid"
fi

CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || t_skip "chromium is not installed (apt-get install chromium): page checks in a browser skipped"
for page in ab suite; do
	profile=$(mktemp -d "$S/chrome.XXXXXX")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--virtual-time-budget=5000 --dump-dom "file://$S/$page.html" >"$S/$page.dom" 2>"$S/chrome.err" ||
		t_fail "$page: chromium failed: $(tail -3 "$S/chrome.err")"
	# the first heading of the page as the browser built it
	first=$(grep -o '<h[1-6][^>]*>[^<]*' "$S/$page.dom" | head -1)
	case $first in
	'<h1 id="verdict" class="verdict regression">Regressed: '*) t_ok "$page: the verdict is the first heading ($first)" ;;
	*) t_fail "$page: first heading is '$first'" ;;
	esac
	row=$(sed -n '/<table id="changed">/,/<\/table>/p' "$S/$page.dom" | grep -o '<tr class="regression">.*' | head -1)
	case $row in
	*'<td>1</td>'*'fsync.p99'*'flushes per commit'*) t_ok "$page: the regression heads the changed list" ;;
	*'<td>1</td>'*'fsync.p99'*) [ "$page" = suite ] && t_ok "$page: the regression heads the changed list" ||
		t_fail "$page: no why in the top row: $row" ;;
	*) t_fail "$page: top row of the changed list: '$row'" ;;
	esac
	grep -q '<details id="comparison">' "$S/$page.dom" && t_ok "$page: the full comparison is folded" ||
		t_fail "$page: no folded comparison"
	case $(grep -o '<body[^>]*>' "$S/$page.dom") in
	*data-js-errors*) t_fail "$page: script errors in the page" ;;
	*) t_ok "$page: no script errors" ;;
	esac
done
t_done
