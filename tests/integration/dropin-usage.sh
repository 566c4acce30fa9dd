#!/bin/bash
# Under the names fs_mark and dbench, fsbench's usage errors behave as the originals' do,
# since harnesses read their exit status and stream: fs_mark -h and a missing -d give the
# usage on stderr and exit 1 (nothing on stdout, nothing run); dbench without NPROCS exits 1
# and runs nothing. `fsbench smallfile -h` and `fsbench dbench --help` keep fsbench's own
# behaviour (stdout, exit 0).
. "$(dirname "$0")/lib.sh"
S=$T_SCRATCH
ln -s "$FSBENCH" "$S/fs_mark"
ln -s "$FSBENCH" "$S/dbench"
cd "$S" || t_die "cd $S"

./fs_mark -h >out 2>err
t_expect_eq "fs_mark -h: exit" 1 $?
t_expect_eq "fs_mark -h: stdout" 0 "$(wc -c <out)"
grep -q -- "-d" err && t_ok "fs_mark -h: usage on stderr" || t_fail "stderr: $(head -3 err)"

./fs_mark -s 4096 -n 10 >out 2>err
t_expect_eq "fs_mark without -d: exit" 1 $?
grep -q "^fs_mark: at least one -d directory is needed" err && t_ok "fs_mark without -d says why" ||
	t_fail "stderr: $(cat err)"
t_expect_eq "fs_mark without -d: nothing ran (stdout)" 0 "$(wc -c <out)"

./fs_mark -d "$S/fm" -s 4096 -n 10 -t 1 >out 2>err
t_expect_eq "fs_mark with -d: exit" 0 $?
grep -q "Files/sec" out && t_ok "fs_mark with -d runs and prints its table" || t_fail "stdout: $(cat out)"

./dbench -t 1 >out 2>err
t_expect_eq "dbench without NPROCS: exit" 1 $?
grep -q "^dbench: NPROCS, the number of clients, is needed" err && t_ok "dbench without NPROCS says why" ||
	t_fail "stderr: $(cat err)"
t_expect_eq "dbench without NPROCS: nothing ran (stdout)" 0 "$(wc -c <out)"

"$FSBENCH" smallfile -h >out 2>err
t_expect_eq "fsbench smallfile -h: exit" 0 $?
[ -s out ] && t_ok "fsbench smallfile -h: help on stdout" || t_fail "no help on stdout"
"$FSBENCH" dbench --help >out 2>err
t_expect_eq "fsbench dbench --help: exit" 0 $?
t_done
