#!/bin/bash
# issue 10 item 5: invoked as fs_mark (symlink or hard link), fsbench is `fsbench
# smallfile`; the meson install script links fs_mark only where no foreign fs_mark is.
. "$(dirname "$0")/lib.sh"
. "$T_TESTS/fsmark-lib.sh"
t_fs_mark_link
d=$T_SCRATCH/d

# LKP's fsmark.yaml shape (its run script makes each -d first):
# fs_mark -d DIR/1 -D 16 -N 256 -n N -L 4 -S 1 -s 8192
mkdir -p "$d/1" "$d/2"
fs_mark -d "$d/1" -D 16 -N 256 -n 300 -L 4 -S 1 -s 8192 >"$T_SCRATCH/out" 2>"$T_SCRATCH/err"
t_expect_eq "symlink: exit" 0 "$?"
t_expect_eq "symlink: stderr" "" "$(cat "$T_SCRATCH/err")"
t_positive_rows "symlink, LKP rule" 4 "$(lkp_parse <"$T_SCRATCH/out")"
t_expect_eq "symlink: -L keeps, -N 256 over 16 subdirectories" "1200 04" \
	"$(find "$d/1" -type f | wc -l) $(ls "$d/1" | tail -1)"

# a hard link under the same name, called by path
ln "$FSBENCH" "$T_SCRATCH/fs_mark" 2>/dev/null || cp "$FSBENCH" "$T_SCRATCH/fs_mark"
"$T_SCRATCH/fs_mark" -d "$d/2" -n 10 -s 0 >"$T_SCRATCH/out"
t_expect_eq "hard link: exit" 0 "$?"
t_positive_rows "hard link, LKP rule" 1 "$(lkp_parse <"$T_SCRATCH/out")"
# fs_mark's header echoes its argv[0] as it was typed (issue 19 item 18)
t_expect_eq "header echoes argv[0]" "#  $T_SCRATCH/fs_mark  -d  $d/2  -n  10  -s  0 " "$(grep -m1 '^# ' "$T_SCRATCH/out")"

# errors are smallfile's, not "'-d' is not a command"
fs_mark -d "$d/3" -S 9 >/dev/null 2>"$T_SCRATCH/err"
t_expect_eq "bad flag: exit" 2 "$?"
grep -q "^fsbench smallfile: .*-S" "$T_SCRATCH/err" || t_fail "bad flag message: $(cat "$T_SCRATCH/err")"
grep -q "not a command" "$T_SCRATCH/err" && t_fail "fs_mark name went to the command dispatch"
# as fs_mark prints it: on stderr, exit 1 (dropin-usage.sh); the text is smallfile's
fs_mark --help 2>&1 | grep -q "^usage: fsbench smallfile" || t_fail "fs_mark --help is not smallfile's"
# any other name is still the command dispatch
ln -sf "$FSBENCH" "$T_SCRATCH/bin/fs_markx"
"$T_SCRATCH/bin/fs_markx" -d "$d" 2>&1 | grep -q "not a command" || t_fail "fs_markx is not the dispatch"

# the install script behind -Dfs_mark_link=true
inst=$SRCDIR/fsbench/install-link.sh
p=$T_SCRATCH/prefix
mkdir -p "$p/bin"
: >"$p/bin/fsbench"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin >/dev/null
t_expect_eq "install: link made" fsbench "$(readlink "$p/bin/fs_mark")"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin >/dev/null
t_expect_eq "install again over our link: exit" 0 "$?"
rm "$p/bin/fs_mark"
echo packaged >"$p/bin/fs_mark"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin 2>"$T_SCRATCH/err"
t_expect_eq "install over a foreign fs_mark: exit" 1 "$?"
t_expect_eq "foreign fs_mark untouched" packaged "$(cat "$p/bin/fs_mark")"
grep -q "not replacing $p/bin/fs_mark" "$T_SCRATCH/err" || t_fail "install message: $(cat "$T_SCRATCH/err")"
rm "$p/bin/fs_mark"
ln -s /usr/bin/fs_mark "$p/bin/fs_mark"
MESON_INSTALL_DESTDIR_PREFIX=$p sh "$inst" bin 2>/dev/null
t_expect_eq "install over a link to another fs_mark: exit" 1 "$?"
# an absolute bindir goes under DESTDIR
mkdir -p "$T_SCRATCH/dest/opt/b"
: >"$T_SCRATCH/dest/opt/b/fsbench"
DESTDIR=$T_SCRATCH/dest MESON_INSTALL_DESTDIR_PREFIX=$T_SCRATCH/dest/usr sh "$inst" /opt/b >/dev/null
t_expect_eq "install: absolute bindir under DESTDIR" fsbench "$(readlink "$T_SCRATCH/dest/opt/b/fs_mark")"
# the option is declared and off by default
grep -q "option('fs_mark_link', type : 'boolean', value : false" "$SRCDIR/meson_options.txt" ||
	t_fail "meson option fs_mark_link (default false) is missing"
t_done
