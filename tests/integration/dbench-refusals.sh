#!/bin/bash
# issue 22 item 1: malformed loadfiles and flags are refused before any work, with exit 2
# and one line naming the line or the flag; -D is left as it was.
. "$(dirname "$0")/lib.sh"

D=$T_SCRATCH/d
mkdir "$D"
LOAD=$SRCDIR/tests/fixtures/dbench/every-op.load

refused() { # WHAT EXPECTED-TEXT ARGS...
	local what=$1 says=$2
	shift 2
	"$FSBENCH" dbench -D "$D" "$@" >"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
	t_expect_eq "$what: exit" 2 "$?"
	t_expect_eq "$what: one line" 1 "$(wc -l <"$T_SCRATCH/err")"
	grep -qF -- "$says" "$T_SCRATCH/err" || t_fail "$what: '$(cat "$T_SCRATCH/err")' does not say '$says'"
	t_expect_eq "$what: -D untouched" "" "$(ls -A "$D")"
}

bad=$T_SCRATCH/bad.load
printf 'Mkdir "\\clients" NT_STATUS_OK\nNTCreateX "\\clients\\client1\\a" 0x40 0x2 NT_STATUS_OK\n' >"$bad"
refused "NTCreateX without its handle" "bad.load, line 2: expected NTCreateX PATH OPTIONS DISPOSITION HANDLE STATUS" -c "$bad" 1
printf '# ok\nClose 1 NT_STATUS_OK\nUnlink "\\clients\\..\\..\\x" NT_STATUS_OK\n' >"$bad"
refused "a path leaving -D" "line 3: a '..' component would leave -D" -c "$bad" 1
printf 'Close 1 NT_STATUS_OK\nFrob 1 NT_STATUS_OK\n' >"$bad"
refused "an unknown operation" "line 2: unknown operation 'Frob'" -c "$bad" 1
printf 'Close 1\n' >"$bad"
refused "no status" "line 1: '1' is not a status" -c "$bad" 1
refused "a missing loadfile" "opening loadfile $T_SCRATCH/none.load: No such file or directory" -c "$T_SCRATCH/none.load" 1
refused "a directory as loadfile" "not a regular file" -c "$T_SCRATCH" 1
refused "an unknown flag" "--frobnicate: unknown option" -c "$LOAD" --frobnicate 1
refused "-t without a value" "-t: a value is required" -c "$LOAD" 1 -t
refused "a client count that is no number" "threads" -c "$LOAD" two
refused "0 clients" "threads" -c "$LOAD" 0
refused "two operands" "unexpected argument '3'" -c "$LOAD" 2 3
refused "another backend" "-B nfs: only the fileio backend" -c "$LOAD" -B nfs 1
# a clients/ (or clients/clientN) that is a symbolic link would take the load elsewhere
mkdir "$T_SCRATCH/elsewhere" "$T_SCRATCH/d2"
echo precious >"$T_SCRATCH/elsewhere/file"
ln -s "$T_SCRATCH/elsewhere" "$T_SCRATCH/d2/clients"
"$FSBENCH" dbench -D "$T_SCRATCH/d2" -c "$LOAD" --run-once 1 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "clients/ a symbolic link: exit" 2 "$?"
grep -qF -- "-D: $T_SCRATCH/d2/clients is a symbolic link, not a directory: not followed" "$T_SCRATCH/err" ||
	t_fail "clients/ a symbolic link: $(cat "$T_SCRATCH/err")"
rm "$T_SCRATCH/d2/clients"
mkdir "$T_SCRATCH/d2/clients"
ln -s "$T_SCRATCH/elsewhere" "$T_SCRATCH/d2/clients/client1"
"$FSBENCH" dbench -D "$T_SCRATCH/d2" -c "$LOAD" --run-once 2 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "clients/client1 a symbolic link: exit" 2 "$?"
grep -qF -- "clients/client1 is a symbolic link" "$T_SCRATCH/err" ||
	t_fail "clients/client1 a symbolic link: $(cat "$T_SCRATCH/err")"
t_expect_eq "the link's target untouched" "file" "$(ls "$T_SCRATCH/elsewhere")"
t_expect_eq "the link's target's file" precious "$(cat "$T_SCRATCH/elsewhere/file")"

"$FSBENCH" dbench -D "$T_SCRATCH/nowhere" -c "$LOAD" 1 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "a missing -D: exit" 2 "$?"
grep -qF -- "-D $T_SCRATCH/nowhere: No such file or directory" "$T_SCRATCH/err" ||
	t_fail "a missing -D: $(cat "$T_SCRATCH/err")"
[ -e "$T_SCRATCH/nowhere" ] && t_fail "a missing -D was created"
t_done
