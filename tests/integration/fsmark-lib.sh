# Helpers for the fs_mark drop-in tests (sourced after lib.sh): an fs_mark link to the
# fsbench under test, and the two harness parsers, written from their documented rules.

# t_fs_mark_link: puts a directory holding fs_mark -> $FSBENCH first in PATH.
t_fs_mark_link() {
	mkdir -p "$T_SCRATCH/bin"
	ln -sf "$FSBENCH" "$T_SCRATCH/bin/fs_mark"
	PATH=$T_SCRATCH/bin:$PATH
	[ "$(command -v fs_mark)" = "$T_SCRATCH/bin/fs_mark" ] || t_die "fs_mark link is not first in PATH"
}

# lkp_parse < OUTPUT: LKP's rule: skip to the line starting FSUse, then take the 4th field
# of every following line of exactly 5 fields, up to the first line that is not.
lkp_parse() { awk 'p && NF != 5 {exit} p {print $4} /^FSUse/ {p = 1}'; }

# mmtests_parse < LOG: mmtests' rule: every line after the one holding "App Overhead",
# 4th column (the log is stdout and stderr together).
mmtests_parse() { awk 'p {print $4} /App Overhead/ {p = 1}'; }

# t_positive_rows WHAT N VALUES: N values, each a number above 0.
t_positive_rows() {
	local n
	n=$(echo "$3" | grep -c .)
	t_expect_eq "$1: rows" "$2" "$n"
	echo "$3" | awk 'NF && !($1 + 0 > 0) {bad = 1} END {exit bad}' ||
		t_fail "$1: a value is not a positive number: $(echo "$3" | tr '\n' ' ')"
}
