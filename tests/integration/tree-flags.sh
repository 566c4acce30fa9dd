#!/bin/bash
# The tree workload refuses bad flags before any work: exit 2, one line naming the flag.
. "$(dirname "$0")/lib.sh"

d=$T_SCRATCH/d
mkdir "$d" "$T_SCRATCH/empty"
echo x >"$T_SCRATCH/plain"
check() { # FLAG-NAME-IN-MESSAGE ARGS...
	local want=$1 err
	shift
	err=$("$FSBENCH" tree -D "$d" "$@" --quiet 2>&1 >/dev/null)
	t_expect_eq "'$*': exit status" 2 $?
	t_expect_eq "'$*': one line" 1 "$(printf '%s\n' "$err" | wc -l)"
	printf '%s\n' "$err" | grep -q -- "$want" || t_fail "'$*': message does not name $want: $err"
	t_expect_eq "'$*': nothing made" "" "$(ls -A "$d")"
}
check "-i" -i -1
check "-i" -i many
check "-r" -r -5
check "--shape-from" --shape-from "$T_SCRATCH/none"
check "--shape-from" --shape-from "$T_SCRATCH/empty"
check "--shape-from" --shape-from "$T_SCRATCH/plain"
check "--object-ratio" --object-ratio 0
check "--patch-every" --patch-every 0
check "-i 0" -i 0 -r 0
check "-i 0" -i 0 -r 3
check "one directory" -D "$T_SCRATCH/other"
check "--bogus" --bogus
t_done
