#!/bin/sh
# Meson install script (-Dfs_mark_link=true): BINDIR/fs_mark -> fsbench, never over an
# fs_mark that is not already ours (a packaged fs_mark stays; the install fails instead).
# usage: install-fs_mark-link.sh BINDIR   (relative to the prefix, or absolute)
set -eu
case $1 in
/*) dir=${DESTDIR:-}$1 ;;
*) dir=${MESON_INSTALL_DESTDIR_PREFIX:?run by meson install}/$1 ;;
esac
link=$dir/fs_mark
if [ -e "$link" ] || [ -L "$link" ]; then
	# ours: a link to fsbench, symbolic or hard
	if [ "$(readlink "$link" 2>/dev/null)" = fsbench ] || [ "$link" -ef "$dir/fsbench" ]; then
		exit 0
	fi
	echo "install: not replacing $link: it is not a link to fsbench (a packaged fs_mark?); remove it or configure with -Dfs_mark_link=false" >&2
	exit 1
fi
ln -s fsbench "$link"
echo "Installing symlink $link -> fsbench"
