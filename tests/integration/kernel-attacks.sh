#!/bin/bash
# Issue 40, item 7: the issue's attacks, made by another local user (nobody, 65534, through
# setpriv; the moves are tests/tools/attack) against a kernel-run as root that extracts a
# .deb into a fresh cache and boots the stand-in QEMU (fake-qemu.sh). Every move must fail,
# and each check says which protection it rests on:
#   (a) PTRACE_SEIZE and PTRACE_ATTACH of the running QEMU: EPERM. Rests on QEMU's
#       per-boot transient uid (ptrace needs the tracer's uid; QEMU is dumpable and this
#       kernel has no Yama, so nothing else stops it).
#   (b) /proc/QEMU/fd listed, and each descriptor (the results disk among them) opened
#       through /proc/QEMU/fd/N for reading and for writing; the results disk by its path:
#       all refused. Rests on the transient uid (proc's descriptor links need ptrace access)
#       and, by path, on the boot's directories being root's and closed.
#   (c) /proc/STEP/cwd of the dpkg-deb extraction and of the initramfs's cpio, both held
#       by stand-ins on PATH while the attacker moves: listing it, and opening
#       boot/vmlinuz-RELEASE or the staging tree's init through it, for reading and writing:
#       refused (rests on the step's transient uid: a magic link skips the directories'
#       modes, only ptrace access guards it); the same files by path: refused (rests on the
#       staging directory being root's 0700, and the tree in it the step uid's). The PVH
#       decompression runs in fsbench's own step, with no tool to hold it: its pvh/.stage.*
#       is checked (root's or the step's, 0700) only when the test's poll catches it, and
#       the test says when it did not.
#   (d) the boot's token: in no /proc/PID/cmdline that nobody can read while QEMU runs,
#       and QEMU's /proc/PID/environ refused. Rests on the token travelling in the per-boot
#       initrd (secret off the command line) and the transient uid (environ needs ptrace
#       access).
#   A result planted in guest/ (the issue's second move): the reader is not caught while it
#       runs (no hold): only that nobody cannot create a file in guest/ by path after the
#       run, root's then and closed to writes, is checked; not the reader's window itself.
#   (e) a descriptor held on whatever the attacker reached during the run (every 0.1 s,
#       through /proc/P/cwd and /proc/P/fd/N of each process of the run), written after
#       the run: the cache's kernel, vmlinux and initramfs keep their hashes, and a second
#       kernel-run boots the cached entries (no tool runs again) whose bytes equal those root
#       wrote. Rests on (b) and (c): the attacker holds nothing of the run's.
#   (f) a subverted step tool: the dpkg-deb stand-in, as the step's uid, opens the tree's
#       boot/vmlinuz-RELEASE read-write and hands the descriptor over an abstract unix socket
#       to nobody's process, which writes it after the run: root's cache keeps its hashes
#       and the second kernel-run boots root's bytes. Rests on the tree coming back to root
#       as a stream into files root makes (kg_user_stream_back): the descriptor reaches only
#       the step's own inode. Before that (the tree re-owned by chown and renamed into the
#       cache) the write landed in root's cached vmlinuz. The same for the cpio stand-in's
#       stdout, where the archive goes: a socket to root now (kg_user_run_into), root's
#       cached .cpio itself before.
# A control process run as nobody, with none of these protections (the attacker's uid, a
# cwd and a file of its own), takes every move first: the moves work there (ptrace, its
# fds, its cwd, its environ, the held descriptor written after the run), so a check below
# that finds a move refused proves the protection, not a host that forbids the move anyway.
# Against a build whose steps and QEMU ran as nobody (the design before issue 40, made by
# hand: kg_user_claim giving 65534), every check of (a), (b), (c) and (e) and QEMU's environ
# failed but vmlinuz by its path (.extract.* is root's 0700 whoever the step is), and the
# attacker wrote into root's cached boot/vmlinuz and modules.dep; the token stayed off the
# command lines (its own protection, which that build kept).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kgate-lib.sh"
kg_fake_setup
command -v setpriv >/dev/null || t_skip "setpriv is not installed"
[ -x /usr/bin/python3 ] || t_skip "python3 is not installed"
export SUDO_UID= SUDO_GID=
# the moves, readable by nobody wherever the checkout lies
cp "$SRCDIR/tests/tools/attack" "$W/attack" && chmod 0755 "$W/attack"
nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups -- "$@"; }
attack() { nobody /usr/bin/python3 "$W/attack" "$@"; }
# no_ok WHAT OUTPUT: every answer in OUTPUT is a refusal (no "=ok")
no_ok() {
	if [ -z "$2" ]; then
		t_fail "$1: no answer"
	elif grep -q '=ok' <<<"$2"; then
		t_fail "$1: the move worked: $(grep '=ok' <<<"$2" | head -3 | tr '\n' ' ')"
	else
		t_ok "$1 refused: $(head -1 <<<"$2" | sed 's/^[^ ]* //')"
	fi
}
# a cache of this test's own, fresh: the package is extracted, the vmlinux decompressed and
# the initramfs built in this run. Below $W (root's, sticky, open to all, as /tmp), so the
# staging directories' own modes are all that keeps nobody out by path.
export FSBENCH_CACHE_DIR=$W/cache
mkdir -p "$W/disks" "$W/bin" && mkdir -m 1777 "$W/ids"
# (f)'s socket: abstract, so no permission guards it
sock=fsbench-attack-$$-$RANDOM
# stand-ins that hold the steps while the attacker moves: dpkg-deb after its extraction (the
# tree is there), cpio before it packs (its working directory is the staging tree)
for tool in dpkg-deb cpio; do
	real=$(command -v "$tool") || t_skip "$tool is not installed"
	cat >"$W/bin/$tool" <<-EOS
	#!/bin/sh
	read -r pid _ </proc/self/stat # as the host sees it (the step has its own PID namespace)
	[ "$tool" = cpio ] || "$real" "\$@" || exit \$?
	# (f): the extraction's image handed to nobody's process (dpkg-deb -x - DIR: DIR last)
	if [ "$tool" = dpkg-deb ]; then
		for dir; do :; done
		/usr/bin/python3 "$W/attack" give "$sock" "\$dir"/boot/vmlinuz-* || true
	fi
	# (f): where the archive goes, cpio's stdout, handed to nobody's process as it is
	[ "$tool" = cpio ] && { /usr/bin/python3 "$W/attack" give-fd "$sock" 1 || true; }
	[ -e "$W/ids/$tool.pid" ] || echo "\$pid" >"$W/ids/$tool.pid"
	i=0
	while [ ! -e "$W/ids/go-$tool" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	[ "$tool" = cpio ] && exec "$real" "\$@"
	exit 0
	EOS
	chmod 0755 "$W/bin/$tool"
done
kg_good_guest "$W/good"
release=$FAKE_QEMU_RELEASE

# the control: nobody's own process, a cwd and an open file of its own
mkdir "$W/ctl" && echo victim >"$W/ctl/victim" && chown -R 65534:65534 "$W/ctl"
# (setpriv itself in the background, not the function: $! is then the process)
setpriv --reuid 65534 --regid 65534 --clear-groups -- sh -c 'cd "$1" && exec sleep 600 3<>victim' sh "$W/ctl" &
ctl=$!
T_PIDS+=("$ctl")
for i in $(seq 50); do [ "$(readlink "/proc/$ctl/cwd")" = "$W/ctl" ] && break; sleep 0.1; done
ctl_ok() { # WHAT OUTPUT WANT-REGEX
	grep -Eq "$3" <<<"$2" && t_ok "control: $1 works on nobody's own process" ||
		t_die "control: $1 fails even on nobody's own process ('$2'): this host forbids the move, and the checks below would prove nothing"
}
ctl_ok "ptrace" "$(attack ptrace "$ctl")" "^seize=ok"
ctl_ok "/proc/PID/fd/N" "$(attack open "/proc/$ctl/fd/3")" "read=ok write=ok"
ctl_ok "/proc/PID/cwd" "$(attack list "/proc/$ctl/cwd"; attack open "/proc/$ctl/cwd/victim")" "read=ok write=ok"
ctl_ok "/proc/PID/environ" "$(attack cat "/proc/$ctl/environ" >/dev/null && echo read=ok)" "read=ok"

# (f)'s receiver: whatever a step's tool hands it, written after the run ($W/go-hold)
attack receive "$sock" "$W/received" "$W/go-hold" 2>"$W/receive.err" &
receiver=$!
T_PIDS+=("$receiver")
# the run, and the attacker's hold on whatever it reaches (ended by $W/go-hold)
run=(--kernel "$deb" --qemu "$FAKE" --disk virtio --disk-dir "$W/disks" --disk-size 64M --boot-timeout 60s --timeout 120s)
PATH=$W/bin:$PATH FAKE_QEMU_OUT=$W/good FAKE_QEMU_HOLD=$W/ids/go-qemu FAKE_QEMU_PIDFILE=$W/ids/qemu.pid \
	"$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w1" >"$W/out1" 2>"$W/err1" &
gate=$!
T_PIDS+=("$gate")
attack hold "$W/held" "$W/go-hold" "$W" "$gate" "$ctl" 2>"$W/hold.err" &
holder=$!
T_PIDS+=("$holder")
# the PVH decompression's staging directory, when a poll catches it (no tool to hold)
(
	while kill -0 "$gate" 2>/dev/null; do
		stat -c '%u %a %n' "$W"/cache/pvh/.stage.* 2>/dev/null | head -1 >>"$W/pvh-stage"
		sleep 0.01
	done
) &
poll=$!
T_PIDS+=("$poll")
release_all() { touch "$W/ids/go-dpkg-deb" "$W/ids/go-cpio" "$W/ids/go-qemu" "$W/go-hold"; }
wait_file() { # FILE: until it is there (120 s), or fail with the run's last words
	for i in $(seq 1200); do [ -s "$1" ] && return 0; kill -0 "$gate" 2>/dev/null || break; sleep 0.1; done
	release_all
	t_die "$(basename "$1") never came: $(tail -3 "$W/err1")"
}

# held_step TOOL FILE: (c) on the step that runs TOOL, held by its stand-in, whose working
# directory holds FILE: nobody lists it and opens FILE through /proc/PID/cwd and by path;
# sets $tree, the step's working directory as root sees it
held_step() {
	local step
	wait_file "$W/ids/$1.pid"
	step=$(cat "$W/ids/$1.pid")
	tree=$(readlink "/proc/$step/cwd")
	[ -f "/proc/$step/cwd/$2" ] && t_ok "$1 (pid $step) is held in $tree" ||
		t_fail "no $2 in the tree $tree of the held $1"
	no_ok "listing /proc/$step/cwd ($1)" "$(attack list "/proc/$step/cwd")"
	no_ok "$2 through /proc/$step/cwd" "$(attack open "/proc/$step/cwd/$2")"
	no_ok "$2 by its path" "$(attack open "$tree/$2")"
}
# the extraction, held after dpkg-deb -x: its tree holds boot/vmlinuz-RELEASE
held_step dpkg-deb "boot/vmlinuz-$release"
top=$(dirname "$tree")
t_expect_eq "the extraction directory $(basename "$top")'s owner and mode" "0 700" "$(stat -c '%u %a' "$top")"
read -r xu xm <<<"$(stat -c '%u %a' "$tree")"
[ "$xu" != 65534 ] && [ "$xu" != 0 ] && t_ok "its x/ is the step's uid $xu's (mode $xm), not nobody's" ||
	t_fail "its x/ is uid $xu's"
touch "$W/ids/go-dpkg-deb"

# the initramfs's staging tree, held before cpio packs it: its /init is there
held_step cpio init
stage=$tree
# the staging tree and the directories above it up to the cache: none nobody's, and the
# first one below the cache closed to others
d=$stage
while [ "$d" != "$W/cache/initramfs" ] && [ "$d" != / ]; do
	read -r su sm <<<"$(stat -c '%u %a' "$d")"
	[ "$su" = 65534 ] && t_fail "$d is nobody's"
	top=$d
	d=$(dirname "$d")
done
t_expect_eq "the staging directory $(basename "$top")'s mode" "700" "$(stat -c '%a' "$top")"
touch "$W/ids/go-cpio"

# (a), (b), (d): QEMU, held once up
wait_file "$W/ids/qemu.pid"
q=$(head -1 "$W/ids/qemu.pid")
kill -0 "$q" 2>/dev/null && t_ok "QEMU (the stand-in, pid $q) runs as uid $(ps -o uid= -p "$q" | tr -d ' ')" ||
	t_fail "QEMU (pid $q) is not running"
out=$(attack ptrace "$q")
t_expect_eq "PTRACE_SEIZE and PTRACE_ATTACH of QEMU" "seize=EPERM attach=EPERM" "$out"
no_ok "listing /proc/$q/fd" "$(attack list "/proc/$q/fd")"
disk=
fds=()
for f in /proc/"$q"/fd/*; do
	fds+=("$f")
	case $(readlink "$f") in */results.img) disk=$(readlink "$f") && t_ok "QEMU holds the results disk as $f" ;; esac
done
[ -n "$disk" ] || t_fail "QEMU holds no results.img"
no_ok "QEMU's ${#fds[@]} descriptors through /proc/$q/fd/N" "$(attack open "${fds[@]}")"
[ -n "$disk" ] && no_ok "the results disk by its path" "$(attack open "$disk")"
# every command line nobody can read, QEMU's among them, while QEMU runs
nobody sh -c 'for p in /proc/[0-9]*; do tr "\0" " " <"$p/cmdline"; echo; done' >"$W/cmdlines" 2>/dev/null
grep -q "$FAKE" "$W/cmdlines" && t_ok "nobody read QEMU's command line, as anyone may" ||
	t_fail "QEMU's command line was not among those read"
attack cat "/proc/$q/environ" >/dev/null 2>"$W/environ.err" && t_fail "nobody read QEMU's environ" ||
	t_ok "QEMU's environ refused: $(cat "$W/environ.err")"
touch "$W/ids/go-qemu"
wait "$gate"
t_expect_eq "kernel-run's exit status" 0 $?
kill "$poll" 2>/dev/null
tok=$(cat "$W"/w1/boot-*/guest/token 2>/dev/null)
[[ $tok =~ ^[0-9a-f]{32}$ ]] && t_ok "the guest wrote back its token" || t_fail "no token came back ('$tok')"
grep -q "${tok:-no-token}" "$W/cmdlines" && t_fail "the boot's token is in a command line nobody read" ||
	t_ok "the token is in none of the $(grep -c . "$W/cmdlines") command lines nobody read"
if [ -s "$W/pvh-stage" ]; then
	read -r pu pm pn <"$W/pvh-stage"
	[ "$pu" != 65534 ] && [ "$pm" = 700 ] && t_ok "the PVH staging directory was uid $pu's, mode $pm" ||
		t_fail "the PVH staging directory $pn was uid $pu's, mode $pm"
else
	echo "# the PVH decompression's staging directory was not caught by the poll: not checked"
fi
# a result planted in guest/: the results reader runs too briefly to catch without a hold
# in fsbench: what is checked is the path after the run (root's, closed to writes); while
# the reader runs, guest/ is its uid's 0700 (results.c), which this test does not see
guest=$(ls -d "$W"/w1/boot-*/guest | head -1)
nobody sh -c 'echo planted >"$1/planted"' sh "$guest" 2>/dev/null && t_fail "nobody planted a file in $guest" ||
	t_ok "nobody cannot create a file in $guest"
read -r gu gm <<<"$(stat -c '%u %a' "$guest")"
[ "$gu" = 0 ] && [ $((8#$gm & 8#022)) = 0 ] && t_ok "guest/ is root's after the run, mode $gm" ||
	t_fail "guest/ is uid $gu's after the run, mode $gm"

# (e) the held descriptors, written after the run
cache_sums() { find "$W/cache" -type f ! -name '*.privsep' -exec sha256sum {} + | sort -k2; }
cache_sums >"$W/sums-root"
[ "$(wc -l <"$W/sums-root")" -ge 3 ] && t_ok "root's cache: $(wc -l <"$W/sums-root") files" ||
	t_fail "the cache holds $(wc -l <"$W/sums-root") files"
touch "$W/go-hold"
wait "$holder"
wait "$receiver"
grep -q "^wrote .*/boot/vmlinuz-$release" "$W/received" &&
	t_ok "(f) dpkg-deb's stand-in handed out its image, written after the run: $(grep -m1 '^wrote' "$W/received")" ||
	t_fail "(f) nothing handed by dpkg-deb's stand-in was written ($(head -3 "$W/received" "$W/receive.err" 2>/dev/null | tr '\n' ' ')): the move proves nothing"
grep -Eq "^(wrote|refused) (socket|.*\.cpio)" "$W/received" &&
	t_ok "(f) cpio's stand-in handed out its stdout: $(grep -Em1 "^(wrote|refused) (socket|.*\.cpio)" "$W/received")" ||
	t_fail "(f) cpio's stand-in handed out no stdout ($(tr '\n' ' ' <"$W/received"))"
sed 's/^/    /' "$W/held" | head -5
grep -qx "wrote $W/ctl/victim" "$W/held" && t_ok "control: the held descriptor on nobody's own file was written after the run" ||
	t_fail "control: the attacker held and wrote nothing of its own process: the hold proves nothing"
t_expect_eq "files of the run the attacker wrote after it" "" "$(grep '^wrote ' "$W/held" | grep -v "$W/ctl/")"
# (one hash of the list of each file's hash, so that a failure names the files that changed)
same_cache() { # WHAT
	cache_sums >"$W/sums-now"
	cmp -s "$W/sums-root" "$W/sums-now" && t_ok "$1: its $(wc -l <"$W/sums-root") files as root wrote them" ||
		t_fail "$1: changed: $(diff "$W/sums-root" "$W/sums-now" | grep '^>' | head -3 | tr '\n' ' ')"
}
same_cache "root's cache after the attacker's writes"
# a second run boots the cached entries: no tool runs, and the bytes it gets are root's
cpio_file=$(ls "$W"/cache/initramfs/*.cpio)
rm -f "$W"/ids/*.pid
PATH=$W/bin:$PATH FAKE_QEMU_OUT=$W/good FAKE_QEMU_HASH=$W/hash2 FAKE_QEMU_HASH_PREFIX=$(stat -c %s "$cpio_file") \
	expect 0 "guest status 0" "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w2"
t_expect_eq "tools run for the second kernel-run" "" "$(ls "$W"/ids/*.pid 2>/dev/null)"
kh=$(awk '$1 == "kernel" { print $2 }' "$W/hash2")
grep -q "^$kh  $W/cache/\(pvh\|kernels\)/" "$W/sums-root" &&
	t_ok "the second boot's kernel is root's cached $(grep "^$kh " "$W/sums-root" | head -1 | sed "s|.*$W/||")" ||
	t_fail "the second boot's kernel ($kh) is none of root's cached files"
t_expect_eq "the second boot's initramfs (before its token), against root's" "$(awk -v f="$cpio_file" '$2 == f { print $1 }' "$W/sums-root")" \
	"$(awk '$1 == "initrd-prefix" { print $2 }' "$W/hash2")"
same_cache "root's cache after the second run"
# a cached entry changed anyway (as the held descriptor changed root's vmlinuz before): its
# seal no longer matches, and the next run refuses it, naming it, rather than boot it
changed_refused() { # FILE ENTRY-PATH N: FILE changed in place is refused, naming ENTRY-PATH
	cp "$1" "$W/saved"
	printf ATTACKER | dd of="$1" conv=notrunc status=none
	PATH=$W/bin:$PATH FAKE_QEMU_OUT=$W/good "$FSBENCH" kernel-run "${run[@]}" --workdir "$W/w$3" >"$W/out$3" 2>"$W/err$3"
	rc=$?
	[ "$rc" != 0 ] && grep -q "refusing the cache entry $2" "$W/err$3" &&
		t_ok "a changed $(basename "$1") is refused (exit $rc): $(grep -m1 'refusing the cache entry' "$W/err$3" | cut -c1-200)" ||
		t_fail "a changed $(basename "$1"): exit $rc, $(tail -2 "$W/err$3")"
	dd if="$W/saved" of="$1" conv=notrunc status=none # its bytes back, for the next
}
vmlinuz=$(ls "$W"/cache/kernels/*/boot/vmlinuz-* | head -1)
changed_refused "$vmlinuz" "$(dirname "$(dirname "$vmlinuz")")" 3
changed_refused "$cpio_file" "$cpio_file" 4
t_done
