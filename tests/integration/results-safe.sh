#!/bin/bash
# Results are never lost and never written through a planted link (issue 11, items 2 and 4):
# output paths checked before any work, unique default suite names, an incomplete result
# on disk after kill -9, temporary files that follow no symlink.
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
mkdir -p "$S/d" "$S/ro"

# --json checked before any work: exit 2, nothing run, the error names the path
for cmd in "smallfile -d $S/d -s 4k -n 10" "stream -d $S/d -s 1M --chunk 1M"; do
	for bad in "$S/missing/r.json" "$S/d"; do
		$FSBENCH $cmd --json "$bad" >"$S/out" 2>"$S/err"
		rc=$?
		t_expect_eq "${cmd%% *} --json $bad: exit" 2 $rc
		grep -q -- "--json $bad: " "$S/err" && t_ok "${cmd%% *}: error names $bad" ||
			t_fail "${cmd%% *}: error: $(cat "$S/err")"
		[ ! -s "$S/out" ] && t_ok "${cmd%% *}: nothing ran" || t_fail "${cmd%% *} ran: $(head -3 "$S/out")"
	done
done
"$FSBENCH" suite quick --dir "$S/d" --workloads smallfile -r 1 -t 1 -q --json "$S/missing/q.json" 2>"$S/err"
t_expect_eq "suite --json in a missing directory: exit" 2 $?
grep -q "missing/q.json: No such file" "$S/err" && t_ok "suite says why" || t_fail "suite: $(cat "$S/err")"
t_expect_eq "suite says it once" 1 "$(wc -l <"$S/err")"

# two suites started together in one directory: two result files, both complete
mkdir "$S/pair" && cd "$S/pair" || t_die "cd"
"$FSBENCH" suite quick --dir "$S/d" --workloads smallfile -r 1 -t 1 -q &
p1=$!
"$FSBENCH" suite quick --dir "$S/d" --workloads smallfile -r 1 -t 1 -q
rc2=$?
wait $p1
rc1=$?
t_expect_eq "both suites exit 0" "0 0" "$rc1 $rc2"
t_expect_eq "two default result files" 2 "$(ls fsbench-suite-quick-*.json | wc -l)"
t_expect_eq "both complete" "true true" "$(jq -r .complete fsbench-suite-quick-*.json | xargs)"
cd "$S" || t_die "cd"

# kill -9 mid-run: the result is on disk, marked incomplete, with the loops done so far
"$FSBENCH" smallfile -d "$S/d" -s 4k -n 50 -L 100000 -k --json "$S/k.json" >/dev/null &
pid=$!
for _ in $(seq 100); do
	[ "$(jq -r '.partial.loops_done // 0' "$S/k.json" 2>/dev/null)" -ge 2 ] 2>/dev/null && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
t_expect_eq "killed run's result: complete" false "$(t_json "$S/k.json" .complete)"
[ "$(t_json "$S/k.json" .partial.loops_done)" -ge 2 ] && t_ok "killed run's result has its loops" ||
	t_fail "partial: $(t_json "$S/k.json" .partial)"
ls "$S"/k.json.tmp.* >/dev/null 2>&1 && t_fail "temporary files left" || t_ok "no temporary file left"
rm -rf "$S/d" && mkdir "$S/d"

# a finished run: complete, no "partial" left in it
"$FSBENCH" smallfile -d "$S/d" -s 4k -n 20 -L 2 --json "$S/a.json" >/dev/null || t_fail "smallfile failed"
t_expect_eq "finished run: complete, no partial" "true null 1" \
	"$(jq -r '[.complete, .partial, (.runs | length)] | map(tostring) | join(" ")' "$S/a.json")"

# a symlink planted at the old fixed temporary name is neither followed nor replaced
echo precious >"$S/victim"
for out in export report; do
	ln -s "$S/victim" "$S/$out.out.tmp"
	if [ $out = export ]; then
		"$FSBENCH" export --format influx -o "$S/$out.out" "$S/a.json"
	else
		"$FSBENCH" report --no-plots -o "$S/$out.out" "$S/a.json" 2>/dev/null
	fi
	t_expect_eq "$out -o: exit" 0 $?
	t_expect_eq "$out -o: the symlink's target untouched" precious "$(cat "$S/victim")"
	[ -L "$S/$out.out.tmp" ] && t_ok "$out -o: the planted link is still a link" || t_fail "$out: link replaced"
	[ -f "$S/$out.out" ] && [ ! -L "$S/$out.out" ] && [ -s "$S/$out.out" ] &&
		t_ok "$out -o: output written" || t_fail "$out -o: no output"
done

# what is read: a result named through another user's link, a FIFO, a directory, a file
# past the bound are refused with the reason (exit 2), never followed, waited on or loaded
cp "$S/a.json" "$S/own.json" && ln -s "$S/own.json" "$S/own-link.json"
"$FSBENCH" compare "$S/own-link.json" --candidate "$S/a.json" >/dev/null 2>"$S/err"
t_expect_eq "compare through this user's own link: exit" 0 $?
mkfifo "$S/fifo.json"
timeout 20 "$FSBENCH" compare "$S/fifo.json" --candidate "$S/a.json" >/dev/null 2>"$S/err"
t_expect_eq "compare of a FIFO: exit" 2 $?
grep -q "fifo.json: not a regular file" "$S/err" && t_ok "a FIFO is named" || t_fail "FIFO: $(cat "$S/err")"
truncate -s $(((1 << 30) + 1)) "$S/huge.json"
"$FSBENCH" export --format influx "$S/huge.json" >/dev/null 2>"$S/err"
t_expect_eq "export of a file past 1 GiB: exit" 2 $?
grep -q "huge.json: larger than 1 GiB: not read" "$S/err" && t_ok "the bound is named" || t_fail "huge: $(cat "$S/err")"
rm -f "$S/huge.json"
echo '{"rules": []}' >"$S/gate.json" && ln -s "$S/gate.json" "$S/gate-link.json"
if [ "$(id -u)" = 0 ]; then
	mkdir -m 1777 "$S/shared"
	ln -s "$S/own.json" "$S/shared/planted.json" && chown -h 65534:65534 "$S/shared/planted.json"
	"$FSBENCH" compare "$S/shared/planted.json" --candidate "$S/a.json" >/dev/null 2>"$S/err"
	t_expect_eq "compare through another user's link: exit" 2 $?
	grep -q "planted.json: a symbolic link owned by uid 65534: not followed" "$S/err" &&
		t_ok "another user's link is named" || t_fail "planted link: $(cat "$S/err")"
	ln -s "$S/gate.json" "$S/shared/gate.json" && chown -h 65534:65534 "$S/shared/gate.json"
	"$FSBENCH" compare "$S/a.json" --candidate "$S/a.json" --gate-file "$S/shared/gate.json" >/dev/null 2>"$S/err"
	t_expect_eq "--gate-file through another user's link: exit" 2 $?
	grep -q "gate file .*shared/gate.json: a symbolic link owned by uid 65534" "$S/err" &&
		t_ok "the gate file's link is named" || t_fail "gate link: $(cat "$S/err")"
fi
t_done
