#!/bin/bash
# issue 10 items 2 and 3: -D as large as fs_mark takes (LKP's stress-journal jobs), and
# open files that do not grow with -D (mmtests' 16 -d x -D 10000 under ulimit -n 20000).
. "$(dirname "$0")/lib.sh"
. "$T_TESTS/fsmark-lib.sh"
t_fs_mark_link
d=$T_SCRATCH/lkp
count_subdirs() { find "$1" -mindepth 1 -maxdepth 1 -type d | wc -l; }

# LKP's fsmark-stress-journal: `fs_mark -d DIR/1 -D N -N 1 -n N -L 1 -S 1 -s 4096`, with
# N 262144 and 1000000; scaled down by -n only (-D unchanged). -L implies -k, as in fs_mark.
for D in 262144 1000000; do
	rm -rf "$d"
	mkdir -p "$d/1"
	fs_mark -d "$d/1" -D "$D" -N 1 -n 300 -L 1 -S 1 -s 4096 >"$T_SCRATCH/out" 2>&1
	t_expect_eq "-D $D: exit" 0 "$?"
	t_positive_rows "-D $D, LKP rule" 1 "$(lkp_parse <"$T_SCRATCH/out")"
	t_expect_eq "-D $D -N 1: one subdirectory per file" 300 "$(count_subdirs "$d/1")"
	t_expect_eq "-D $D: files" 300 "$(find "$d/1" -type f | wc -l)"
	[ -d "$d/1/12b" ] || t_fail "-D $D: no subdirectory 12b (the 300th, %02x names)"
done
# without -k what the run made goes again, the user's -d stays
rm -rf "$d"
mkdir -p "$d/1"
"$FSBENCH" smallfile -d "$d/1" -D 1000000 -N 1 -n 300 -S 0 -s 0 >/dev/null
t_expect_eq "-D 1000000 without -k: exit" 0 "$?"
t_expect_eq "-D 1000000 without -k: nothing left" 0 "$(find "$d/1" -mindepth 1 | wc -l)"

# fs_mark's own bound: an int (atoi), so 2^31 is refused with a usage error
"$FSBENCH" smallfile -d "$d/1" -D 2147483648 -n 1 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "-D 2^31: exit" 2 "$?"
grep -q -- "-D\|subdirs" "$T_SCRATCH/err" || t_fail "-D 2^31 message: $(cat "$T_SCRATCH/err")"
"$FSBENCH" smallfile -d "$d/1" -D 2147483647 -N 1 -n 3 -s 0 -S 0 >/dev/null
t_expect_eq "-D 2^31-1: exit" 0 "$?"

# open files bounded independent of -D: a million subdirectories under 100 descriptors
(
	ulimit -n 100
	"$FSBENCH" smallfile -d "$d/1" -D 1000000 -N 2 -n 200 -t 4 -S 0 -s 0 >/dev/null
)
t_expect_eq "-D 1000000 -t 4 under ulimit -n 100: exit" 0 "$?"

# mmtests' small-file config through its shellpack: 16 top directories under a symlink to
# the data directory, which is emptied before fs_mark runs (fs_mark makes each -d),
# -D 10000 -S0 -n N -s 4096 -L N -t 1, stdout and stderr in one log; -n and -L scaled down.
data=$T_SCRATCH/data
mkdir -p "$data"
ln -s "$data" "$T_SCRATCH/fsmark-$$"
params=" -D 10000 -S0 -n 20 -s 4096 -L 3 -t 1"
for top in $(seq 1 16); do
	mkdir -p "$T_SCRATCH/fsmark-$$/$top"
	params+=" -d $T_SCRATCH/fsmark-$$/$top"
done
rm -rf "${data:?}"/*
(
	ulimit -n 20000
	# shellcheck disable=SC2086
	fs_mark $params &>"$T_SCRATCH/mmtests.log"
)
t_expect_eq "mmtests shape under ulimit -n 20000: exit" 0 "$?"
t_positive_rows "mmtests rule" 3 "$(mmtests_parse <"$T_SCRATCH/mmtests.log")"
t_expect_eq "mmtests shape: files kept (16 threads x 20 x 3)" 960 "$(find "$data" -type f | wc -l)"
t_expect_eq "mmtests shape: the 16 -d made again" 16 "$(count_subdirs "$data")"

t_done
