#!/bin/bash
# issue 10 item 1: a missing -d is created (last component only), as fs_mark does, for
# smallfile and stream; a missing parent is an error naming the path.
. "$(dirname "$0")/lib.sh"
. "$T_TESTS/fsmark-lib.sh"

# the reference: fs_mark itself makes a missing -d (it writes fs_log.txt in the cwd,
# which lib.sh made the scratch directory)
if command -v fs_mark >/dev/null; then
	fs_mark -d "$T_SCRATCH/ref" -n 5 -s 0 -k >/dev/null 2>&1
	t_expect_eq "fs_mark made its -d" 5 "$(find "$T_SCRATCH/ref" -type f | wc -l)"
	[ -f "$T_SCRATCH/fs_log.txt" ] && t_ok "fs_mark's fs_log.txt went to the scratch directory"
fi

# the seed command line (thread 000), scaled down by -n, on a directory that is not there
"$FSBENCH" smallfile -d "$T_SCRATCH/t" -s 4096 -n 400 -N 50 -D 64 -t 1 -k >"$T_SCRATCH/out" 2>&1
t_expect_eq "seed line on a missing -d: exit" 0 "$?"
t_expect_eq "seed line: files kept in the made -d" 400 "$(find "$T_SCRATCH/t" -type f | wc -l)"
t_positive_rows "seed line, LKP rule" 1 "$(lkp_parse <"$T_SCRATCH/out")"

# without -k the run leaves nothing: the directory it made is removed once empty
"$FSBENCH" smallfile -d "$T_SCRATCH/nonexist" -n 10 -s 0 >/dev/null
t_expect_eq "issue's command: exit" 0 "$?"
[ -e "$T_SCRATCH/nonexist" ] && t_fail "a -d made by the run and left empty was not removed"

# several -d, one of them twice, threads over them
"$FSBENCH" smallfile -d "$T_SCRATCH/a" -d "$T_SCRATCH/b" -d "$T_SCRATCH/a" -t 3 -n 4 -s 0 -k >/dev/null
t_expect_eq "-d a -d b -d a: files" "8 4" \
	"$(find "$T_SCRATCH/a" -type f | wc -l) $(find "$T_SCRATCH/b" -type f | wc -l)"

# a missing parent: exit 1, one line naming the path and the reason, nothing made
"$FSBENCH" smallfile -d "$T_SCRATCH/noparent/x" -n 1 -s 0 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "missing parent: exit" 1 "$?"
t_expect_eq "missing parent: one line" 1 "$(wc -l <"$T_SCRATCH/err")"
grep -q "creating directory $T_SCRATCH/noparent/x: No such file or directory" "$T_SCRATCH/err" ||
	t_fail "missing parent message: $(cat "$T_SCRATCH/err")"
[ -e "$T_SCRATCH/noparent" ] && t_fail "a missing parent was created"

# a -d that is a file: no mkdir over it, a clear error
: >"$T_SCRATCH/file"
"$FSBENCH" smallfile -d "$T_SCRATCH/file" -n 1 -s 0 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "-d is a file: exit" 1 "$?"
grep -q "opening directory $T_SCRATCH/file: Not a directory" "$T_SCRATCH/err" ||
	t_fail "-d is a file message: $(cat "$T_SCRATCH/err")"

# stream -d likewise
"$FSBENCH" stream -d "$T_SCRATCH/s" --size 1M --chunk 256k --keep --quiet
t_expect_eq "stream on a missing -d: exit" 0 "$?"
t_expect_eq "stream: file in the made -d" 1 "$(find "$T_SCRATCH/s" -type f | wc -l)"
"$FSBENCH" stream -d "$T_SCRATCH/s2" --size 1M --chunk 256k --quiet
t_expect_eq "stream without --keep: exit" 0 "$?"
[ -e "$T_SCRATCH/s2" ] && t_fail "stream left the empty -d it made"
"$FSBENCH" stream -d "$T_SCRATCH/noparent/s" --size 1M --chunk 256k --quiet 2>"$T_SCRATCH/err"
t_expect_eq "stream, missing parent: exit" 1 "$?"
grep -q "creating directory $T_SCRATCH/noparent/s: No such file or directory" "$T_SCRATCH/err" ||
	t_fail "stream missing parent message: $(cat "$T_SCRATCH/err")"

t_done
