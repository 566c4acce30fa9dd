#!/bin/bash
# fsbench report: a self-contained page whose SVG plots render in headless Chromium; tables without gnuplot.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH

for r in 1 2 3 4 5 6; do
	"$FSBENCH" smallfile -s 4k -n 100 -t 1 --quiet --json "$S/r$r.json" >/dev/null || t_die "run $r failed"
done
"$FSBENCH" stream -d "$S" --size 128M --chunk 8M --mode writebehind --interval 10ms --sample-interval 2ms \
	--quiet --json "$S/st.json" >/dev/null || t_die "stream run failed"
# (intervals short enough that even a fast run has several points to plot)
# A suite-shaped result (coords on two filesystems, three thread counts) built from real
# small-file runs, plus the real streaming run with its kernel samples.
jq --slurpfile st "$S/st.json" '
 def mk(fs; t; rep; r): r | .threads = t
   | .coords = {fs: fs, workload: "smallfile", threads: t, repetition: rep, cell: (fs + "/smallfile/t=" + (t|tostring))}
   | .summary.files_per_sec *= (if fs == "xfs" then 1.3 else 1 end) * t * (1 + rep / 100);
 .runs[0] as $r | .runs = [("ext4", "xfs") as $fs | (1, 2, 4) as $t | range(0; 3) as $rep | mk($fs; $t; $rep; $r)]
 | .runs += [$st[0].runs[0] | .coords = {fs: "ext4", workload: "stream", threads: 1, repetition: 0, cell: "ext4/stream/t=1"}]
' "$S/r1.json" >"$S/suite.json" || t_die "building the suite-shaped result"
"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-result-2.schema.json" "$S/suite.json" ||
	t_die "the suite-shaped result is not a valid fsbench-result/2"

"$FSBENCH" report -o "$S/suite.html" "$S/suite.json" 2>"$S/err" || t_die "report failed: $(cat "$S/err")"
"$FSBENCH" report -o "$S/runs.html" "$S"/r[123].json 2>>"$S/err" || t_die "report failed: $(cat "$S/err")"
# an honest A/A: runs 1-3 against 4-6 of the same build on the same machine
"$FSBENCH" report -o "$S/aa.html" --baseline "$S"/r[123].json --candidate "$S"/r[456].json 2>>"$S/err" ||
	t_die "A/A report failed: $(cat "$S/err")"
grep -q '^<h1 id="verdict" class="verdict ' "$S/aa.html" && t_ok "A/A: a verdict" || t_fail "A/A: no verdict"
grep -q '<p id="how-sure"><b>How sure:</b> ' "$S/aa.html" && t_ok "A/A: how sure" || t_fail "A/A: no how sure"
t_expect_eq "A/A: the head's kernel release" "<tr data-fact=\"kernel\"><th>kernel release</th><td colspan=\"2\">$(uname -r)</td></tr>" \
	"$(grep '<tr data-fact="kernel"' "$S/aa.html")"
# one suite file, ext4 against xfs: no verdict and no instrumentation boxes (report --help)
t_expect_eq "one suite file: verdict headings and instrumentation boxes" 0 \
	"$(grep -c 'id="verdict"\|Instrumentation differs\|id="changed"' "$S/suite.html")"
grep -q '<tr data-fact="fs" class="differs"><th>filesystem</th><td>ext4</td><td>xfs</td></tr>' "$S/suite.html" &&
	t_ok "one suite file: the head names its sides" || t_fail "one suite file: $(grep '<tr data-fact="fs"' "$S/suite.html")"
if command -v gnuplot >/dev/null; then
	# Throughput against threads per (workload, unit), latency by percentile per (workload, op):
	# a 4 KiB small-file write and an 8 MiB streaming write must never share a plot.
	# Then throughput and Dirty/Writeback over time for the streaming run.
	ntput=$(jq '[.runs[] | [.workload, .series.unit]] | unique | length' "$S/suite.json")
	jq -r '[.runs[] | .workload as $w | .ops | to_entries[] | select(.value.count > 0)
		| "\($w): \(.key) latency by percentile"] | unique[]' "$S/suite.json" >"$S/cdf.want"
	grep -q '^smallfile: write' "$S/cdf.want" && grep -q '^stream: write' "$S/cdf.want" ||
		t_die "the suite-shaped result lacks a write op in both workloads: $(cat "$S/cdf.want")"
	# and, for runs made with the eBPF probes (as root), an I/O map for the first run of
	# each cell (a gnuplot run each: one a run made a 1000-run page take minutes): a PNG raster
	niomap=$(jq '[.runs[] | select((.probes.iomap.points // []) | length >= 2) | .coords | del(.repetition, .cell)] | unique | length' "$S/suite.json")
	nruns_map=$(jq '[.runs[] | select((.probes.iomap.points // []) | length >= 2)] | length' "$S/suite.json")
	if [ "$nruns_map" -gt "$niomap" ]; then
		grep -q "I/O maps are drawn for the first run of each cell on each side; $((nruns_map - niomap)) other runs have one too" "$S/suite.html" &&
			t_ok "the page says which runs' I/O maps it left out" || t_fail "no note of the runs without a map drawn"
	fi
	t_expect_eq "inline SVG plots in the suite page" $((ntput + $(wc -l <"$S/cdf.want") + 2)) \
		"$(grep -c '^<svg' "$S/suite.html")"
	t_expect_eq "I/O maps as inline PNG" "$niomap" \
		"$(grep -c '^<img class="raster" [^>]*src="data:image/png;base64,iVBORw0KGgo' "$S/suite.html")"
	grep -o '<figcaption>[^<]*latency by percentile</figcaption>' "$S/suite.html" |
		sed 's/<[^>]*>//g' | sort >"$S/cdf.got"
	t_expect_eq "percentile plots, one per (workload, op), titled by workload" "$(tr '\n' ';' <"$S/cdf.want")" \
		"$(tr '\n' ';' <"$S/cdf.got")"
	# each figure's caption and its lines (gnuplot's <title> per plotted line): smallfile
	# ran on ext4 and xfs, stream on ext4 only, so stream's write CDF has one line
	awk '/<figure>/ { t = "" }
	     /<title>/ { while (match($0, /<title>[^<]*<\/title>/)) {
			x = substr($0, RSTART + 7, RLENGTH - 15); if (x != "Gnuplot") t = t (t ? "," : "") x
			$0 = substr($0, RSTART + RLENGTH) } }
	     /<figcaption>/ { c = $0; gsub(/<[^>]*>/, "", c); print c " = " t }' "$S/suite.html" >"$S/lines"
	# latency: a line per cell (filesystem and thread count), as compare judges them
	grep -qx 'smallfile: write latency by percentile = ext4 t=1,ext4 t=2,ext4 t=4,xfs t=1,xfs t=2,xfs t=4' "$S/lines" &&
		grep -qx 'stream: write latency by percentile = ext4' "$S/lines" &&
		t_ok "write percentile plots: smallfile's line per cell, stream's ext4 alone" || t_fail "plot lines: $(cat "$S/lines")"
	grep -qx 'smallfile: files/s against threads = ext4,xfs' "$S/lines" &&
		t_ok "throughput against threads: a line per filesystem" || t_fail "throughput lines: $(cat "$S/lines")"
	# stream ran at one thread count: bars, not lone points on a log axis
	t_expect_eq "throughput plot captions" "smallfile: files/s against threads;stream: MB/s at 1 thread;" \
		"$(grep -oE '<figcaption>[^<]*(against threads|at [0-9]+ threads?)</figcaption>' "$S/suite.html" | sed 's/<[^>]*>//g' | tr '\n' ';')"
	t_expect_eq "time plot captions name the cell and repetition" \
		"ext4/stream/t=1 rep 1: throughput over time;ext4/stream/t=1 rep 1: Dirty and Writeback over time;" \
		"$(grep -o '<figcaption>[^<]*over time</figcaption>' "$S/suite.html" | sed 's/<[^>]*>//g' | tr '\n' ';')"
	# latency by percentile: x = 1/(1-p) on a log axis, so 50->90 % (log10 5) is 0.70 of
	# 90->99 % (one decade); latency on a log axis (tics at powers of ten), in human units
	fig() { awk -v cap="$2" 'BEGIN { RS = "</figure>" } index($0, "<figcaption>" cap "</figcaption>")' "$1"; }
	fig "$S/suite.html" "smallfile: write latency by percentile" >"$S/wfig"
	xtic() { grep -B1 ">$1</tspan>" "$S/wfig" | grep -o 'translate([0-9.]*' | head -1 | cut -d'(' -f2; }
	x50=$(xtic "50 %") x90=$(xtic "90 %") x99=$(xtic "99 %") xmax=$(xtic max)
	[ -n "$x50" ] && [ -n "$x90" ] && [ -n "$x99" ] && [ -n "$xmax" ] ||
		t_die "percentile tics missing: 50 %='$x50' 90 %='$x90' 99 %='$x99' max='$xmax'"
	ratio=$(echo "($x90 - $x50) / ($x99 - $x90)" | bc -l)
	[ "$(echo "$ratio > 0.65 && $ratio < 0.75 && $xmax > $x99" | bc -l)" = 1 ] &&
		t_ok "percentile axis is log 1/(1-p): 50-90 % / 90-99 % = $ratio (log10 5 = 0.70), max last" ||
		t_fail "percentile tics at 50 %=$x50 90 %=$x90 99 %=$x99 max=$xmax (ratio $ratio)"
	# 900 writes a line: 99.9 % would be the maximum itself, so it is not marked
	grep -q '>99.9 %</tspan>' "$S/wfig" && t_fail "99.9 % marked with 900 calls" || t_ok "no 99.9 % mark under 2000 calls"
	ytics=$(grep -A1 'text-anchor="end"' "$S/wfig" | grep -o '> *[0-9.]*</tspan>' | tr -dc '0-9.\n' | tr '\n' ' ')
	[ -n "$ytics" ] && ! echo "$ytics" | tr ' ' '\n' | grep -qvE '^(0\.0*1|1|10*)?$' &&
		t_ok "latency axis is log: tics $ytics" || t_fail "latency tics are not powers of ten: $ytics"
	grep -qE 'latency \((ns|µs|ms|s)\)' "$S/wfig" && t_ok "latency axis in human units" || t_fail "latency axis label"
	# the stream ran at one thread count: a bar per line, named under it
	fig "$S/suite.html" "stream: MB/s at 1 thread" | grep -qE '>ext4</(tspan|text)>' &&
		t_ok "one thread count: a bar named ext4" || t_fail "no bar for ext4 in the one-thread plot"
	# every caption once, and not again inside its plot
	t_expect_eq "repeated figure captions" "" \
		"$(grep -o '<figcaption>[^<]*</figcaption>' "$S/suite.html" | sort | uniq -d | tr '\n' ';')"
	dup=$(awk 'BEGIN { RS = "</figure>" } match($0, /<figcaption>[^<]*</) {
		c = substr($0, RSTART + 12, RLENGTH - 13); svg = substr($0, 1, RSTART)
		if (index(svg, ">" c "<")) print c }' "$S/suite.html")
	t_expect_eq "captions repeated inside their plots" "" "$dup"
	# a streaming run shorter than its series interval has one series point but kernel
	# samples: Dirty/Writeback is still drawn
	jq '(.runs[] | select(.workload == "stream") | .series) |= (.t_ns |= .[-1:] | .done |= .[-1:])' \
		"$S/suite.json" >"$S/short.json"
	"$FSBENCH" report -o "$S/short.html" "$S/short.json" 2>>"$S/err" || t_die "report failed: $(cat "$S/err")"
	t_expect_eq "one series point: time plots" "ext4/stream/t=1 rep 1: Dirty and Writeback over time;" \
		"$(grep -o '<figcaption>[^<]*over time</figcaption>' "$S/short.html" | sed 's/<[^>]*>//g' | tr '\n' ';')"
	# rows link to the plot of their metric: with a verdict (per cell) the cell's own plot,
	# its sides a line each; without one (a suite file's filesystems) the workload's
	t_expect_eq "A/A: write.p99's row links to its cell's plot" 1 \
		"$(grep -c '^<tr><td>smallfile t=1</td><td>write.p99 <a href="#plot-smallfile-t-1-write">plot</a></td>' "$S/aa.html")"
	t_expect_eq "A/A: the cell's write plot, a line a side" "baseline;candidate;" \
		"$(fig "$S/aa.html" "smallfile t=1: write latency by percentile" | grep -o '<title>[^<]*</title>' | grep -v 'Gnuplot\|gnuplot_plot_' | sed 's/<[^>]*>//g' | sort | tr '\n' ';')"
	t_expect_eq "one suite file: write.p99's rows link to the workload's plot" 3 \
		"$(grep -c '^<tr><td>smallfile/t=[124]</td><td>write.p99 <a href="#fig-smallfile-write-latency-by-percentile">plot</a></td>' "$S/suite.html")"
fi
grep -q 'class="regression"\|class="improvement"' "$S/suite.html" && t_ok "comparison table has verdicts" || t_fail "no verdicts"
# tables in human units: no exponents, latencies in ns/µs/ms/s
t_expect_eq "table cells with an exponent" "" "$(grep -oE '<td[^>]*>[^<]*[0-9]e[+-]?[0-9][^<]*</td>' "$S/suite.html" | head -3)"
grep -qE '<td>smallfile/t=1</td><td>fsync.p99( <a href="#fig-smallfile-fsync-latency-by-percentile">plot</a>)?</td><td class="num">[0-9.]+ ± [0-9.]+ (µs|ms) \(3\)</td>' "$S/suite.html" &&
	t_ok "fsync.p99 reads like '12.3 ± 6.9 ms (3)'" || t_fail "fsync.p99 cell: $(grep -o '<td>smallfile/t=1</td><td>fsync.p99.*</td><td[^>]*>[^<]*' "$S/suite.html")"
t_expect_eq "external resources (src/href to http, <link>)" 0 \
	"$(grep -cE '(src|href)="https?:|<link ' "$S/suite.html")"

# without gnuplot: said on stderr and in the page, tables still there
# the plots' temporary directory cannot be made: the error says why (the errno of mkdtemp)
if command -v gnuplot >/dev/null; then
	TMPDIR="$S/no-such-dir" "$FSBENCH" report -o "$S/notmp.html" "$S/suite.json" 2>"$S/err3"
	t_expect_eq "report without its temporary directory: exit" 1 $?
	grep -q "writing $S/notmp.html: No such file or directory" "$S/err3" &&
		t_ok "report says why it has no temporary directory" || t_fail "report: $(cat "$S/err3")"
	[ ! -e "$S/notmp.html" ] && t_ok "no page half written" || t_fail "$S/notmp.html exists"
fi
PATH=/nonexistent "$FSBENCH" report -o "$S/noplot.html" "$S/suite.json" 2>"$S/err2"
t_expect_eq "report without gnuplot: exit" 0 $?
grep -q 'gnuplot is not installed' "$S/err2" && t_ok "stderr says gnuplot is missing" || t_fail "stderr: $(cat "$S/err2")"
grep -q 'gnuplot is not installed' "$S/noplot.html" && t_ok "page says gnuplot is missing" || t_fail "page does not say so"
grep -q '<td>xfs</td><td class="num">4</td>' "$S/noplot.html" && t_ok "throughput table without plots" || t_fail "no table"
# more threads than the old fixed 64 still make a table row and a plot (limit: 1024)
jq '.runs[0].threads = 1000' "$S/r1.json" >"$S/t1000.json" || t_die "building a 1000-thread result"
"$FSBENCH" report -o "$S/t1000.html" "$S/t1000.json" 2>>"$S/err" || t_die "report failed: $(cat "$S/err")"
grep -q '</td><td class="num">1000</td><td class="num">' "$S/t1000.html" &&
	t_ok "a 1000-thread run has its throughput row" || t_fail "no row for 1000 threads"
if command -v gnuplot >/dev/null; then
	grep -q '<figcaption>smallfile: files/s at 1000 threads</figcaption>' "$S/t1000.html" &&
		t_ok "a 1000-thread run is plotted" || t_fail "no throughput plot for 1000 threads"
fi

# two sides: a cell's streaming run of each side in one time plot, one colour, the candidate dashed
if command -v gnuplot >/dev/null; then
	jq -c '.runs |= map(select(.workload == "stream"))' "$S/suite.json" >"$S/sa.json" &&
		jq -c '.runs |= map(select(.workload == "stream") | .series.done |= map(. / 2 | floor)
			| .kernel.samples.dirty_bytes |= map(. / 2))' "$S/suite.json" >"$S/sb.json" ||
		t_die "building the streaming pair"
	"$FSBENCH" report -o "$S/st2.html" --baseline "$S/sa.json" --candidate "$S/sb.json" 2>"$S/err" ||
		t_die "report of the streaming pair failed: $(cat "$S/err")"
	for what in "throughput over time" "Dirty and Writeback over time"; do
		t_expect_eq "pair: one $what plot for the cell" 1 \
			"$(grep -c "<figcaption>ext4/stream/t=1 rep 1: $what</figcaption>" "$S/st2.html")"
		awk -v c="<figcaption>ext4/stream/t=1 rep 1: $what<" '/<figure>/ { f = "" } { f = f $0 "\n" }
		     index($0, c) { print f }' "$S/st2.html" >"$S/time.svg"
		solid=$(grep -o "stroke='rgb([^']*)'  *d=" "$S/time.svg" | sed "s/ *d=//" | sort -u)
		dashed=$(grep -o "stroke='rgb([^']*)' stroke-dasharray=' *5,8'" "$S/time.svg" | sed "s/ stroke-das.*//" | sort -u)
		[ -n "$dashed" ] && [ "$solid" = "$dashed" ] && t_ok "pair: $what, the candidate dashed in the baseline's colour" ||
			t_fail "pair: $what: solid '$solid', dashed '$dashed'"
	done
	t_expect_eq "pair: the key names the sides" "baseline;candidate;" \
		"$(awk '/<figure>/ { f = "" } { f = f $0 "\n" } /<figcaption>ext4\/stream\/t=1 rep 1: throughput over time</ { print f }' "$S/st2.html" |
			grep -o '<text>[a-z]*</text>' | sed 's/<[^>]*>//g' | tr '\n' ';')"
fi

CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || t_skip "chromium is not installed (apt-get install chromium): page checks in a browser skipped"
command -v gnuplot >/dev/null || t_skip "gnuplot is not installed: no plots to render"
for page in suite runs aa; do
	profile=$(mktemp -d "$S/chrome.XXXXXX")
	# 800 px wide: the page must not be wider than the window
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--window-size=800,1400 --hide-scrollbars \
		--virtual-time-budget=5000 --dump-dom "file://$S/$page.html" >"$S/$page.dom" 2>"$S/chrome.err"
	body=$(grep -o '<body[^>]*>' "$S/$page.dom")
	case $body in
	*'data-overflow="no"'*) t_ok "$page: fits 800 px" ;;
	*) t_fail "$page: wider than 800 px: '$body'" ;;
	esac
	case $body in
	*'data-plots="ok"'*) t_ok "$page: every plot has a size and paths ($body)" ;;
	*) t_fail "$page: plots did not render: '$body'; $(tail -3 "$S/chrome.err")" ;;
	esac
	case $body in
	*'data-bad-links="none"'*) t_ok "$page: every link's target is on the page" ;;
	*) t_fail "$page: links without a target: '$body'" ;;
	esac
	case $body in
	*data-js-errors*) t_fail "$page: script errors in the page" ;;
	*) t_ok "$page: no script errors" ;;
	esac
done
t_done
