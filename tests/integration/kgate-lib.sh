# What the kernel gate's tests share (sourced after lib.sh).

# expect STATUS MESSAGE-REGEX COMMAND...: the exit status and a line of stderr; the
# output stays in $W/out and $W/err for the checks that follow
expect() {
	local want=$1 re=$2 rc
	shift 2
	"$@" >"$W/out" 2>"$W/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		t_fail "$*: exit $rc, expected $want"
		sed 's/^/    /' "$W/err" | tail -20
	elif ! grep -Eq -- "$re" "$W/err"; then
		t_fail "$*: stderr lacks /$re/"
		sed 's/^/    /' "$W/err" | tail -20
	else
		t_ok "exits $want: $(grep -E -m1 -- "$re" "$W/err" | cut -c1-240)"
	fi
}
