#!/bin/bash
# issue 23: `meson install` puts in place the program, its configs, the result and compare
# schemas, a man page per command and the bash completion; the installed program runs from
# the DESTDIR on its installed configs, and its result validates against the installed schema.
. "$(dirname "$0")/lib.sh"
VALIDATE=$SRCDIR/tests/tools/validate-json

D=$T_SCRATCH/root
meson install -C "$BUILDDIR" --no-rebuild --quiet --destdir "$D" >"$T_SCRATCH/install.log" 2>&1 ||
	t_die "meson install --destdir failed: $(tail -5 "$T_SCRATCH/install.log")"
prefix=$(meson introspect "$BUILDDIR" --buildoptions | jq -r '.[] | select(.name == "prefix") | .value')
opt() { meson introspect "$BUILDDIR" --buildoptions | jq -r --arg n "$1" '.[] | select(.name == $n) | .value'; }
P=$D$prefix
bin=$P/$(opt bindir)/fsbench
share=$P/$(opt datadir)
man1=$P/$(opt mandir)/man1

[ -x "$bin" ] || t_die "no installed program at $bin"
t_expect_eq "installed fsbench --version" "fsbench $("$FSBENCH" --version | cut -d' ' -f2)" "$("$bin" --version)"

# the optional links under other tools' names: there exactly when configured (the install
# scripts that refuse to replace a packaged tool are tested in fsmark-name.sh)
for tool in fs_mark dbench compilebench; do
	case $(opt "${tool}_link") in
	true) [ "$(readlink "$P/$(opt bindir)/$tool")" = fsbench ] || t_fail "-D${tool}_link=true, but no $tool link" ;;
	*) [ ! -e "$P/$(opt bindir)/$tool" ] || t_fail "$tool installed without -D${tool}_link=true" ;;
	esac
done
# configs: every suite of the tree, byte for byte
for f in "$SRCDIR"/configs/*.json; do
	cmp -s "$f" "$share/fsbench/configs/${f##*/}" || t_fail "configs/${f##*/} is not installed as it is"
done
# schemas: every one in report/schema
for f in "$SRCDIR"/report/schema/*.json; do
	cmp -s "$f" "$share/fsbench/schema/${f##*/}" || t_fail "schema ${f##*/} is not installed"
done
# a man page per command, each one man can read
pages=0
for c in "" $("$bin" --help | awk 'NR > 2 && NF { print $1 }'); do
	page=$man1/fsbench${c:+-$c}.1
	if [ ! -s "$page" ]; then
		t_fail "no installed man page $page"
		continue
	fi
	MANWIDTH=80 man -l "$page" >"$T_SCRATCH/page.txt" 2>&1 && grep -q "^EXIT STATUS" "$T_SCRATCH/page.txt" ||
		t_fail "man -l ${page##*/} does not render"
	pages=$((pages + 1))
done
[ "$pages" -ge 14 ] && t_ok "$pages man pages installed" || t_fail "only $pages man pages"
comp=$share/bash-completion/completions/fsbench
[ -s "$comp" ] && bash -c ". '$comp'; complete -p fsbench" >/dev/null 2>&1 &&
	t_ok "bash completion installed and loads" || t_fail "no loadable bash completion at $comp"

# the installed program on every installed suite: each expands (--dry-run: nothing is made)
for f in "$share"/fsbench/configs/*.json; do
	"$bin" suite "$f" --dry-run --dir "$T_SCRATCH" >"$T_SCRATCH/dry.out" 2>&1 ||
		t_fail "installed fsbench suite ${f##*/} --dry-run: $(tail -2 "$T_SCRATCH/dry.out")"
done
# and one real run: the quick suite's small-file cells in a directory
mkdir "$T_SCRATCH/run"
timeout 300 "$bin" suite "$share/fsbench/configs/quick.json" --dir "$T_SCRATCH/run" \
	--workloads smallfile --threads 1 --quiet --json "$T_SCRATCH/quick.json" >"$T_SCRATCH/run.out" 2>&1
t_expect_eq "installed fsbench suite quick.json --dir: exit" 0 $?
"$VALIDATE" "$share/fsbench/schema/fsbench-result-2.schema.json" "$T_SCRATCH/quick.json" &&
	t_ok "the installed program's result validates against the installed schema" ||
	t_fail "quick.json from the installed program does not validate"
t_expect_eq "cells run" true "$(jq '[.runs[]? ] | length > 0' "$T_SCRATCH/quick.json")"
# a suite by name: the installed program looks where it was installed to, never into the
# source tree it was built from
"$bin" suite quick --dry-run >"$T_SCRATCH/byname.out" 2>&1
if grep -qF "$SRCDIR/configs" "$T_SCRATCH/byname.out"; then
	t_fail "the installed program read the source tree's suite: $(head -1 "$T_SCRATCH/byname.out")"
else
	t_ok "the installed program does not read the source tree's configs: $(head -1 "$T_SCRATCH/byname.out")"
fi
t_done
