#!/bin/bash
# fsbench report's sides: suite A against suite B cell by cell (never ext4 against xfs, never
# A pooled with B), file against file, --across, and a comparison file rendered as it is.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH

"$FSBENCH" smallfile -d "$S" -s 4k -n 50 -t 1 --quiet --json "$S/r.json" >/dev/null || t_die "smallfile run failed"
# Two suite-shaped results from the real run: the same matrix (ext4 and xfs, 1 and 2
# threads, 3 repetitions); the candidate kernel makes 20 % fewer files/s on every cell,
# and xfs is 30 % faster than ext4 on both.
suite() {
	jq --argjson k "$1" '
	 def mk(fs; t; rep; r): r | .threads = t
	   | .coords = {fs: fs, workload: "smallfile", threads: t, repetition: rep, cell: (fs + "/smallfile/t=" + (t|tostring))}
	   | .summary.files_per_sec = 1000 * (if fs == "xfs" then 1.3 else 1 end) * t * (1 + rep / 100) * $k;
	 .runs[0] as $r | .runs = [("ext4", "xfs") as $fs | (1, 2) as $t | range(0; 3) as $rep | mk($fs; $t; $rep; $r)]
	' "$S/r.json"
}
suite 1 >"$S/a.json" && suite 0.8 >"$S/b.json" || t_die "building the suite-shaped results"
fps_row() { # PAGE SAMPLE: that sample's files/s row, tags stripped to "|"
	grep -o "<tr><td>$2</td><td>files_per_sec</td>.*</tr>" "$1" | sed 's/<[^>]*>/|/g; s/||*/|/g'
}

# --baseline/--candidate: cells paired, each side its own 3 runs, A never pooled with B
"$FSBENCH" report --no-plots -o "$S/ab.html" --baseline "$S/a.json" --candidate "$S/b.json" 2>"$S/err" ||
	t_die "report --baseline --candidate failed: $(cat "$S/err")"
t_expect_eq "A vs B: side headers" "baseline (mean ± 95% CI, n);candidate (mean ± 95% CI, n);" \
	"$(grep -o '<th>[a-z]* (mean[^<]*</th>' "$S/ab.html" | sed 's/<[^>]*>//g' | tr '\n' ';')"
for cell in ext4/smallfile/t=1 ext4/smallfile/t=2 xfs/smallfile/t=1 xfs/smallfile/t=2; do
	row=$(fps_row "$S/ab.html" "$cell")
	case $row in
	*"(3)|"*"(3)|-20.0 %|"*"|regression|") t_ok "A vs B: $cell paired, 3 runs a side, -20 %" ;;
	*) t_fail "A vs B: $cell: '$row'" ;;
	esac
done
t_expect_eq "A vs B: files/s rows (one per cell, no fs against fs)" 4 \
	"$(grep -c '<tr><td>[^<]*</td><td>files_per_sec</td>' "$S/ab.html")"
# and the verdict on top lists the four regressions, the cells' files/s
t_expect_eq "A vs B: the changed list" 4 \
	"$(sed 's/<wbr>//g' "$S/ab.html" | grep -c '<tr id="chg-[0-9]*" class="regression" data-group="0"><td>[0-9]*</td><td>[a-z0-9]*/smallfile/t=[12]</td><td>files_per_sec')"

# several files without sides: file against file, the same pairing
"$FSBENCH" report --no-plots -o "$S/files.html" "$S/a.json" "$S/b.json" 2>"$S/err" || t_die "report A B failed: $(cat "$S/err")"
t_expect_eq "A B: sides are the files" "a.json (mean ± 95% CI, n);b.json (mean ± 95% CI, n);" \
	"$(grep -o '<th>[a-z.]* (mean[^<]*</th>' "$S/files.html" | sed 's/<[^>]*>//g' | tr '\n' ';')"
case $(fps_row "$S/files.html" xfs/smallfile/t=2) in
*"(3)|"*"(3)|-20.0 %|"*) t_ok "A B: xfs/smallfile/t=2 paired with itself" ;;
*) t_fail "A B: $(fps_row "$S/files.html" xfs/smallfile/t=2)" ;;
esac
"$FSBENCH" report --no-plots -o "$S/across-file.html" --across file "$S/a.json" "$S/b.json" 2>"$S/err" ||
	t_die "report --across file failed: $(cat "$S/err")"
t_expect_eq "--across file: the same table as file against file" \
	"$(sed -n '/<h2>Comparison/,$p' "$S/files.html" | md5sum)" "$(sed -n '/<h2>Comparison/,$p' "$S/across-file.html" | md5sum)"

# one suite file: across fs, the same cell on both filesystems
"$FSBENCH" report --no-plots -o "$S/fs.html" "$S/a.json" 2>"$S/err" || t_die "report A failed: $(cat "$S/err")"
case $(fps_row "$S/fs.html" smallfile/t=1) in
*"(3)|"*"(3)|+30.0 %|"*) t_ok "one suite: ext4 against xfs, +30 %" ;;
*) t_fail "one suite: $(fps_row "$S/fs.html" smallfile/t=1)" ;;
esac

# an --across field the runs lack: an error, no page with the comparison silently dropped
"$FSBENCH" report --no-plots -o "$S/bad.html" --across kernel "$S/a.json" 2>"$S/err"
t_expect_eq "--across a field the runs lack: exit" 2 $?
grep -q 'coords.kernel' "$S/err" && t_ok "the error names coords.kernel" || t_fail "error: $(cat "$S/err")"
[ ! -e "$S/bad.html" ] && t_ok "no page written" || t_fail "a page was written"
"$FSBENCH" report --no-plots -o "$S/bad.html" --across fs "$S/a.json" --candidate "$S/b.json" 2>"$S/err"
t_expect_eq "--across with --candidate: exit" 2 $?
"$FSBENCH" report --no-plots -o "$S/bad.html" --candidate "$S/b.json" 2>"$S/err"
t_expect_eq "--candidate without a baseline: exit" 2 $?

# a comparison file: rendered as it is, the same rows compare wrote
"$FSBENCH" compare --json "$S/cmp.json" "$S/a.json" "$S/b.json" >/dev/null 2>&1
[ -s "$S/cmp.json" ] || t_die "compare --json wrote nothing"
"$FSBENCH" report -o "$S/cmp.html" "$S/cmp.json" 2>"$S/err" || t_die "report of a comparison failed: $(cat "$S/err")"
t_expect_eq "comparison file: one row per metric of each sample" \
	"$(jq '[.samples[].metrics[]] | length' "$S/cmp.json")" "$(grep -c '^<tr><td>' "$S/cmp.html")"
case $(fps_row "$S/cmp.html" ext4/smallfile/t=1) in
*"(3)|"*"(3)|-20.0 %|"*"|regression|") t_ok "comparison file: ext4/smallfile/t=1 -20 %, regression" ;;
*) t_fail "comparison file: $(fps_row "$S/cmp.html" ext4/smallfile/t=1)" ;;
esac
# a comparison alone has no runs to plot: no row links to a plot
t_expect_eq "comparison file: no links to plots it does not have" 0 "$(grep -c 'href="#\(fig\|plot\)-' "$S/cmp.html")"
"$FSBENCH" report -o "$S/bad.html" "$S/cmp.json" "$S/a.json" 2>"$S/err"
t_expect_eq "a comparison with result files: exit" 2 $?

# plot lines name the side, so A and B never share a line
if command -v gnuplot >/dev/null; then
	"$FSBENCH" report -o "$S/abp.html" --baseline "$S/a.json" --candidate "$S/b.json" 2>"$S/err" ||
		t_die "report with plots failed: $(cat "$S/err")"
	# a plot per cell (filesystem and thread count), as the verdicts are per cell: a line a
	# side; the runs' own percentiles, a set of points after each line, have no title of their own
	for cell in ext4/smallfile/t=1 ext4/smallfile/t=2 xfs/smallfile/t=1 xfs/smallfile/t=2; do
		fs=${cell%%/*} t=${cell##*=}
		awk -v cap="<figcaption>$cell: write latency by percentile</figcaption>" 'BEGIN { RS = "</figure>" } index($0, cap)' \
			"$S/abp.html" | grep -o '<title>[^<]*</title>' | grep -v Gnuplot | sed 's/<[^>]*>//g' >"$S/lines"
		t_expect_eq "$cell: write plot lines" "baseline: $fs t=$t;candidate: $fs t=$t;" \
			"$(grep -v '^gnuplot_plot_' "$S/lines" | sort | tr '\n' ';')"
		t_expect_eq "$cell: the runs' points, untitled, one set a line" 2 "$(grep -c '^gnuplot_plot_' "$S/lines")"
		# its rows in the comparison link to it, and it is there
		id=plot-$fs-smallfile-t-$t-write
		t_expect_eq "$cell: write.p99 row links to its plot" 1 \
			"$(grep -c "^<tr><td>$cell</td><td>write.p99 <a href=\"#$id\">plot</a></td>" "$S/abp.html")"
		t_expect_eq "$cell: the plot's anchor" 1 "$(grep -c "^<a id=\"$id\"></a>$" "$S/abp.html")"
	done
fi
t_done
