#!/bin/bash
# issue 10 item 6: the unlink phase starts only after the last thread's timed work is
# done, so it cannot compete with other threads' creates inside files/s. Checked from the
# syscall order under strace (nothing about speed is asserted).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || t_skip "strace is not installed"
d=$T_SCRATCH/d
mkdir "$d"

for S in 1 3; do
	strace -f -ttt -o "$T_SCRATCH/trace" -e trace=openat,write,fsync,close,unlinkat \
		"$FSBENCH" smallfile -d "$d" -s 4k -n 150 -t 4 -S $S --quiet ||
		t_fail "-S $S under strace failed"
	# the last entry of a timed call before the first unlinkat entry; the file's creates,
	# writes, fsyncs and closes. Lines are "PID SECONDS call(...".
	awk -v S=$S '
	/unlinkat\(/ && !first { first = $2 }
	/unlinkat\(/ { n_unlink++ }
	/O_CREAT/ || /fsync\(/ { if ($2 > last) last = $2; n_timed++ }
	END {
		printf "-S %s: %d creates/fsyncs, last at %s; %d unlinks, first at %s\n", S, n_timed, last, n_unlink, first
		exit !(n_unlink == 600 && n_timed >= 1200 && first >= last)
	}' "$T_SCRATCH/trace" || t_fail "-S $S: an unlink started before the last timed call (see above)"
	t_expect_eq "-S $S: files left" 0 "$(find "$d" -type f | wc -l)"
done
t_done
