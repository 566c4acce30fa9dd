#!/bin/bash
# fsbench tree as the Phoronix Test Suite's compilebench 1.0.3 runs it: its wrapper calls
# `compilebench -D t -i 10 --makej TEST` (the test the user picked appended) with stdout and
# stderr in one log, and its result parser (tests/tools/pts-parse, PTS's rules) reads TEST's
# line from that log with the profile's own OutputTemplate.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
cd "$S" || t_die "cd $S"
ln -s "$FSBENCH" compilebench
# a small shape keeps ten trees quick; PTS's own arguments are all there
mkdir -p shape/a/b
for i in 1 2 3 4 5; do
	head -c $((i * 3000)) /dev/zero >"shape/a/f$i.c"
	head -c 2000 /dev/zero >"shape/a/b/h$i.h"
done
# ob-cache/test-profiles/pts/compilebench-1.0.3/results-definition.xml's OutputTemplate
cat >template <<'T'
intial create total runs 10 avg #_INITIAL_CREATE_# MB/s (user 0.54s sys 0.78s)
no runs for create
no runs for patch
compile total runs 10 avg #_COMPILE_# MB/s (user 0.11s sys 0.56s)
no runs for clean
no runs for read tree
read compiled tree total runs 3 avg #_READ_COMPILED_TREE_# MB/s (user 0.20s sys 0.40s)
no runs for delete tree
delete compiled tree total runs 10 avg 3.86 seconds (user 0.18s sys 0.34s)
no runs for stat tree
no runs for stat compiled tree
T
for test in INITIAL_CREATE COMPILE READ_COMPILED_TREE; do
	rm -rf t && mkdir t
	./compilebench -D t -i 10 --makej --shape-from shape --json "$test.json" "$test" >"$test.log" 2>&1
	t_expect_eq "$test: compilebench link, exit" 0 $?
	v=$("$SRCDIR/tests/tools/pts-parse" template "$test" "$test.log")
	t_expect_eq "$test: PTS's parser finds a number" 0 $?
	phase=$(jq -r '.runs[0].summary.tree.pts_result.phase' "$test.json")
	t_expect_eq "$test: PTS reads the phase's average, as the result names it" \
		"$(jq -r --arg p "$phase" '.runs[0].summary.tree.phases[] | select(.phase == $p) | .avg_mb_per_sec * 100 | round / 100' "$test.json")" \
		"$(awk -v v="$v" 'BEGIN { printf "%g", v }')"
	t_expect_eq "$test: the whole --makej run, as compilebench's" "intial create compile read compiled tree delete compiled tree" \
		"$(jq -r '[.runs[0].summary.tree.phases[] | select(.runs > 0) | .phase] | join(" ")' "$test.json")"
	t_expect_eq "$test: trees removed" "" "$(ls -A t)"
done
t_expect_eq "the three tests' phases" "intial create,compile,read compiled tree" \
	"$(jq -rs '[.[].runs[0].summary.tree.pts_result.phase] | join(",")' INITIAL_CREATE.json COMPILE.json READ_COMPILED_TREE.json)"
# fsbench tree takes the same operand; an unknown test name is a usage error before any work
"$FSBENCH" tree -D t -i 1 --makej --shape-from shape --quiet COMPILE >/dev/null 2>&1
t_expect_eq "fsbench tree ... COMPILE: exit" 0 $?
err=$(./compilebench -D t -i 10 --makej BOGUS 2>&1 >/dev/null)
t_expect_eq "unknown test name: exit" 2 $?
case $err in *pts-test* | *BOGUS*) t_ok "unknown test name: named" ;; *) t_fail "unknown test name: $err" ;; esac
t_expect_eq "unknown test name: nothing made" "" "$(ls -A t)"
# the install script behind -Dcompilebench_link=true: a link, never over a foreign compilebench
inst=$SRCDIR/fsbench/install-link.sh
p=$S/prefix
mkdir -p "$p/bin"
: >"$p/bin/fsbench"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin compilebench >/dev/null
t_expect_eq "install: compilebench link made" fsbench "$(readlink "$p/bin/compilebench")"
rm "$p/bin/compilebench"
echo packaged >"$p/bin/compilebench"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin compilebench 2>/dev/null
t_expect_eq "install over a foreign compilebench: exit" 1 "$?"
t_expect_eq "foreign compilebench untouched" packaged "$(cat "$p/bin/compilebench")"
grep -q "option('compilebench_link', type : 'boolean', value : false" "$SRCDIR/meson_options.txt" ||
	t_fail "meson option compilebench_link (default false) is missing"
t_done
