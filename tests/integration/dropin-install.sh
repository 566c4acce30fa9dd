#!/bin/bash
# issue 42: from a `meson install --destdir`, PREFIX/lib/fsbench/bin holds fs_mark, dbench
# and compilebench, links to the installed fsbench that run it as those programs (their
# usage errors the originals'), and with that directory first in PATH `man NAME` shows
# fsbench-as-NAME(1), which `man -l` renders with what differs from the original.
. "$(dirname "$0")/lib.sh"
command -v man >/dev/null || t_skip "man (man-db) is not installed"

D=$T_SCRATCH/root
meson install -C "$BUILDDIR" --no-rebuild --quiet --destdir "$D" >"$T_SCRATCH/install.log" 2>&1 ||
	t_die "meson install --destdir failed: $(tail -5 "$T_SCRATCH/install.log")"
opt() { meson introspect "$BUILDDIR" --buildoptions | jq -r --arg n "$1" '.[] | select(.name == $n) | .value'; }
P=$D$(opt prefix)
dropins=$P/lib/fsbench/bin
man1=$P/$(opt mandir)/man1
cd "$T_SCRATCH" || t_die "cd $T_SCRATCH"

for name in fs_mark dbench compilebench; do
	[ "$(readlink -f "$dropins/$name")" = "$(readlink -f "$P/$(opt bindir)/fsbench")" ] ||
		t_fail "$dropins/$name is not a link to the installed fsbench: $(ls -l "$dropins/$name" 2>&1)"
	page=$man1/fsbench-as-$name.1
	MANWIDTH=80 man -l "$page" >"$T_SCRATCH/page.txt" 2>&1 || t_fail "man -l ${page##*/} failed"
	for section in NAME SYNOPSIS "DIFFERENCES FROM" OPTIONS "EXIT STATUS" "SEE ALSO"; do
		grep -q "^$section" "$T_SCRATCH/page.txt" || t_fail "${page##*/} has no $section"
	done
	PATH=$dropins:$PATH MANWIDTH=80 man "$name" >"$T_SCRATCH/byname.txt" 2>&1
	cmp -s "$T_SCRATCH/page.txt" "$T_SCRATCH/byname.txt" &&
		t_ok "man $name with $dropins first in PATH is fsbench-as-$name(1)" ||
		t_fail "man $name with the drop-ins in PATH: $(head -1 "$T_SCRATCH/byname.txt")"
done
grep -q "4k mean 4096 bytes, where fs_mark 3.3 reads" <(MANWIDTH=4000 man -l "$man1/fsbench-as-fs_mark.1" 2>/dev/null) &&
	t_ok "fsbench-as-fs_mark(1) says what -s 4k means to each" || t_fail "fsbench-as-fs_mark(1) does not say what -s 4k means"

PATH=$dropins:$PATH fs_mark -h >out 2>err
t_expect_eq "installed fs_mark -h: exit" 1 $?
t_expect_eq "installed fs_mark -h: stdout" 0 "$(wc -c <out)"
PATH=$dropins:$PATH fs_mark -d "$T_SCRATCH/fm" -s 4k -n 10 >out 2>err
t_expect_eq "installed fs_mark -d: exit" 0 $?
grep -q "Files/sec" out && t_ok "installed fs_mark runs and prints its table" || t_fail "stdout: $(cat out) $(cat err)"
PATH=$dropins:$PATH dbench -t 1 >out 2>err
t_expect_eq "installed dbench without NPROCS: exit" 1 $?
grep -q "^dbench: NPROCS" err && t_ok "installed dbench refuses as dbench" || t_fail "stderr: $(cat err)"
PATH=$dropins:$PATH compilebench --help >out 2>err
t_expect_eq "installed compilebench --help: exit" 0 $?
grep -q -- "--makej" out && t_ok "installed compilebench is fsbench tree" || t_fail "stdout: $(head -3 out)"
t_done
