#!/bin/bash
# issue 23: the man pages and the bash completion come from the option tables that --help
# prints. Every command `fsbench --help` lists (and each subcommand its --help lists) has a
# page; every option its --help lists is on that page with the same help text; the flags of
# each page's examples exist; the completion offers every option and completes a file
# option's value with files; `fsbench --help` keeps its summaries in one column.
. "$SRCDIR/tests/integration/lib.sh"

GEN=$BUILDDIR/fsbench/gen
command -v man >/dev/null || t_skip "man (man-db) is not installed"
[ -s "$GEN/fsbench.1" ] || t_die "no $GEN/fsbench.1: the build did not make the man pages"

# a page as plain text: one line per paragraph (no wrapping, so no hyphenation), ASCII
render() { MANWIDTH=4000 man -E ascii -l "$1" 2>/dev/null | col -b | tr -s ' \t' '  '; }
squeeze() { tr -s ' \t' '  ' | sed 's/^ //; s/ $//'; }

"$FSBENCH" --help >"$T_SCRATCH/help" || t_die "fsbench --help failed"
mapfile -t commands < <(awk 'NR > 2 && NF { print $1 }' "$T_SCRATCH/help")
[ "${#commands[@]}" -ge 10 ] || t_die "fsbench --help lists ${#commands[@]} commands"

# one column: every summary starts where the first one does
cols=$(awk 'NR > 2 && NF { match($0, /^  [^ ]+ +/); print RLENGTH }' "$T_SCRATCH/help" | sort -u)
[ "$(echo "$cols" | wc -l)" = 1 ] && t_ok "fsbench --help: one summary column" ||
	t_fail "fsbench --help: summaries start at columns $(echo $cols)"

render "$GEN/fsbench.1" >"$T_SCRATCH/fsbench.txt"
# the pages meson installs are the ones it was told of: a command missing there has none
for c in "${commands[@]}"; do
	grep -q "fsbench-$c(1)" "$T_SCRATCH/fsbench.txt" || t_fail "fsbench(1) does not list fsbench-$c(1)"
done

checked=0
# check_options PAGE_TEXT ARGS...: every option `fsbench ARGS --help` prints is on the page
# (counted in $checked)
check_options() {
	local text=$1 name help line
	shift
	"$FSBENCH" "$@" --help >"$T_SCRATCH/cmdhelp" || { t_fail "fsbench $* --help failed"; return; }
	while IFS= read -r line; do
		# "  -s, --size VALUE          help" or "      --json VALUE          help"
		[[ $line =~ ^\ \ (-.,\ |\ \ \ \ )--([a-z0-9-]+)(\ VALUE)?\ +(.*)$ ]] || continue
		name=${BASH_REMATCH[2]}
		help=$(printf '%s' "${BASH_REMATCH[4]}" | squeeze)
		checked=$((checked + 1))
		grep -q -- "--$name\\b" "$text" || { t_fail "fsbench $*: --$name is not on its man page"; continue; }
		grep -qF -- "$help" "$text" || t_fail "fsbench $*: --$name's help differs from the man page's: $help"
	done <"$T_SCRATCH/cmdhelp"
}

for c in "${commands[@]}"; do
	page=$GEN/fsbench-$c.1
	[ -s "$page" ] || { t_fail "no man page for $c ($page)"; continue; }
	render "$page" >"$T_SCRATCH/$c.txt"
	for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" FILES "SEE ALSO"; do
		grep -q "^$section" "$T_SCRATCH/$c.txt" || t_fail "fsbench-$c(1) has no $section"
	done
	before=$checked
	check_options "$T_SCRATCH/$c.txt" "$c"
	# subcommands: "fsbench lava job ..." lines of the command's own --help
	for sub in $("$FSBENCH" "$c" --help | sed -n "s/^.*fsbench $c \([a-z]\+\) .*/\1/p" | sort -u); do
		grep -q "^$c $sub" "$T_SCRATCH/$c.txt" || t_fail "fsbench-$c(1) has no section for $c $sub"
		check_options "$T_SCRATCH/$c.txt" "$c" "$sub"
	done
	# the examples' flags are the command's (a renamed flag breaks the page)
	sed -n '/^EXAMPLES/,/^SEE ALSO/p' "$T_SCRATCH/$c.txt" | grep -o -- ' --[a-z-]\+' | sort -u |
		while read -r flag; do
			grep -q -- "$flag\\b" "$T_SCRATCH/$c.txt" <(sed -n '/^OPTIONS/,/^EXIT/p' "$T_SCRATCH/$c.txt") ||
				echo "fsbench-$c(1): its example uses $flag, which it does not have"
		done >"$T_SCRATCH/badflags"
	[ -s "$T_SCRATCH/badflags" ] && t_fail "$(cat "$T_SCRATCH/badflags")"
	echo "fsbench-$c(1): $((checked - before)) options"
done
# a page cannot pass by the check finding nothing to check
[ "$checked" -ge 100 ] || t_fail "only $checked options in all the commands' --help"
t_ok "every option of every command's --help is on its man page ($checked)"

# and a page that lacks an option fails it: the suite's, without --dry-run
grep -v -- "--dry-run" "$T_SCRATCH/suite.txt" >"$T_SCRATCH/doctored.txt"
if (T_FAILED=0; check_options "$T_SCRATCH/doctored.txt" suite >/dev/null; exit $T_FAILED); then
	t_fail "a suite page without --dry-run passed the check"
else
	t_ok "a page that lacks an option fails the check"
fi

# exit statuses: a command's own replace the common ones, and bisect, which never exits 1,
# lists no "1" (the common "the run failed") while fsbench(1) still does
statuses() { sed -n '/^EXIT STATUS/,/^FILES/p' "$1" | grep -oE '^ ?[0-9]+ ' | tr -d ' ' | tr '\n' ' '; }
[ "$(statuses "$T_SCRATCH/bisect.txt")" = "0 2 125 128 " ] &&
	grep -q '^ \?2 usage: bad flags, --good' "$T_SCRATCH/bisect.txt" &&
	! grep -q 'nothing was created' "$T_SCRATCH/bisect.txt" &&
	t_ok "fsbench-bisect(1) lists its own exit statuses: $(statuses "$T_SCRATCH/bisect.txt")" ||
	t_fail "fsbench-bisect(1) exit statuses: $(statuses "$T_SCRATCH/bisect.txt")"
grep -q '^ \?1 the run failed' "$T_SCRATCH/fsbench.txt" && grep -q '^ \?1 the run failed' "$T_SCRATCH/smallfile.txt" &&
	t_ok "the common status 1 is still on fsbench(1) and the workloads' pages" ||
	t_fail "the common status 1 is gone from fsbench(1) or fsbench-smallfile(1)"

# the completion: every option of each command, files after a file option
comp=$GEN/fsbench
[ -s "$comp" ] || t_die "no completion script $comp"
bash -n "$comp" || t_fail "the completion script does not parse"
complete_words() { # complete_words WORD...: what completing the last word offers
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fsbench; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$comp" "$@"
}
complete_words fsbench "" | grep -qx kernel-gate || t_fail "completing a command does not offer kernel-gate"
for c in "${commands[@]}"; do
	offered=$(complete_words fsbench "$c" --)
	for name in $("$FSBENCH" "$c" --help | sed -nE 's/^  (-., |    )--([a-z0-9-]+).*/\2/p'); do
		grep -qx -- "--$name" <<<"$offered" || t_fail "completing fsbench $c -- does not offer --$name"
	done
done
offered=$(complete_words fsbench lava job --)
grep -qx -- "--kernel-url" <<<"$offered" || t_fail "completing fsbench lava job -- does not offer --kernel-url"
touch "$T_SCRATCH/gates.json"
offered=$(cd "$T_SCRATCH" && complete_words fsbench compare --gate-file gat)
[ "$offered" = gates.json ] || t_fail "completing compare --gate-file gat offers '$offered', not gates.json"
offered=$(complete_words fsbench compare --format "")
grep -qx text <<<"$offered" || t_fail "completing compare --format does not offer its choices: $offered"
t_ok "the completion offers every option, files for a file option, choices for a choice"
t_done
