#!/bin/sh
# Meson install script (-Dfs_mark_link=true, -Ddbench_link=true, -Dcompilebench_link=true):
# BINDIR/NAME -> fsbench, for the drop-ins dispatch.c knows by argv[0] (fs_mark, dbench,
# compilebench); never over a NAME that is not
# already ours (a packaged fs_mark or dbench stays; the install fails instead).
# usage: install-link.sh BINDIR [NAME]   (BINDIR relative to the prefix, or absolute;
# NAME fs_mark, dbench or compilebench, fs_mark when not given)
set -eu
name=${2:-fs_mark}
case $name in
fs_mark | dbench | compilebench) ;;
*)
	echo "install: $name: not a drop-in fsbench knows (fs_mark, dbench, compilebench)" >&2
	exit 1
	;;
esac
case $1 in
/*) dir=${DESTDIR:-}$1 ;;
*) dir=${MESON_INSTALL_DESTDIR_PREFIX:?run by meson install}/$1 ;;
esac
link=$dir/$name
if [ -e "$link" ] || [ -L "$link" ]; then
	# ours: a link to fsbench, symbolic or hard
	if [ "$(readlink "$link" 2>/dev/null)" = fsbench ] || [ "$link" -ef "$dir/fsbench" ]; then
		exit 0
	fi
	echo "install: not replacing $link: it is not a link to fsbench (a packaged $name?); remove it or configure with -D${name}_link=false" >&2
	exit 1
fi
ln -s fsbench "$link"
echo "Installing symlink $link -> fsbench"
