#!/bin/bash
# issue 29 item 2: dbench's Unlink, Rename, Mkdir, Rmdir and Deltree follow no symlink on
# the loadfile's path. In a shared sticky -D another user plants "planted" -> a root-only
# directory holding the names the loadfile uses; root, replaying "\planted\f", must not
# reach that directory: the op fails (ELOOP) and ends the run as a failed op does, or (Mkdir,
# Deltree, whose results dbench ignores) does nothing there. Before the fix, the calls were
# *at() calls with the whole relative path, which followed "planted".
. "$(dirname "$0")/lib.sh"
t_need_root
command -v setpriv >/dev/null || t_skip "setpriv is not installed"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

chmod 0755 "$T_SCRATCH" # the other user reaches -D through it
D=$T_SCRATCH/shared
V=$T_SCRATCH/victim
mkdir -m 1777 "$D" && mkdir -m 0700 "$V" "$V/sub" "$V/d" || t_die "making -D and the victim"
echo f >"$V/f" && echo old >"$V/old" && echo inner >"$V/d/inner"
nobody ln -s "$V" "$D/planted" || t_die "planting the link as another user"
snapshot() { (cd "$V" && find . -printf '%p %s %m\n' | sort); }
before=$(snapshot)

# one loadfile line at a time: the op's status, what the error says (empty: success)
replay() { # WHAT EXPECTED-EXIT EXPECTED-TEXT LINE
	printf '%s\n' "$4" >"$T_SCRATCH/one.load"
	"$FSBENCH" dbench -D "$D" -c "$T_SCRATCH/one.load" --run-once --warmup 0 1 \
		>"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
	t_expect_eq "$1: exit" "$2" "$?"
	if [ -n "$3" ]; then
		grep -qF -- "$3" "$T_SCRATCH/err" || t_fail "$1: '$(cat "$T_SCRATCH/err")' does not say '$3'"
	fi
	t_expect_eq "$1: the root-only directory" "$before" "$(snapshot)"
}
loop=$(perl -MPOSIX -e 'print strerror(POSIX::ELOOP)' 2>/dev/null || echo "Too many levels of symbolic links")
replay "Unlink through the link" 1 "loadfile line 1: Unlink $D/planted/f: $loop" \
	'Unlink "\planted\f" 0x6 NT_STATUS_OK'
replay "Rename from through the link" 1 "loadfile line 1: Rename $D/planted/old: $loop" \
	'Rename "\planted\old" "\renamed" NT_STATUS_OK'
echo f0 >"$D/f0"
replay "Rename into the link" 1 "loadfile line 1: Rename $D/f0: $loop" \
	'Rename "\f0" "\planted\old" NT_STATUS_OK'
t_expect_eq "Rename into the link: its source stays" f0 "$(cat "$D/f0")"
rm -f "$D/f0"
replay "Rmdir through the link" 1 "loadfile line 1: Rmdir $D/planted/sub: $loop" \
	'Rmdir "\planted\sub" NT_STATUS_OK'
replay "Mkdir through the link" 0 "" 'Mkdir "\planted\made" NT_STATUS_OK'
replay "Deltree through the link" 0 "" 'Deltree "\planted\d" NT_STATUS_OK'
# as the loadfile expects them to fail: they do, and the run goes on
replay "Unlink through the link, expected to fail" 0 "" \
	'Unlink "\planted\f" 0x6 NT_STATUS_OBJECT_NAME_NOT_FOUND'
t_expect_eq "-D holds the link and nothing of root's" "planted" "$(ls -A "$D")"
t_done
