#!/bin/bash
# Every suite in configs/ expands with --dry-run (so every value passed the option tables),
# names its seed thread, and the embedded default runs without root in a directory.
. "$(dirname "$0")/lib.sh"
CONFIGS=$SRCDIR/configs

declare -A seed=([batching]=000 [streaming]=001 [writebehind]=002 [amplification]=003 [journal-modes]=004)
for f in "$CONFIGS"/*.json; do
	name=$(basename "$f" .json)
	if ! "$FSBENCH" suite "$f" --dry-run >"$T_SCRATCH/$name.dry" 2>"$T_SCRATCH/err"; then
		t_fail "$name: $(cat "$T_SCRATCH/err")"
		continue
	fi
	n=$(grep -cE '^ *[0-9]+  [a-z]' "$T_SCRATCH/$name.dry")
	[ "$n" -gt 0 ] || t_fail "$name: no cells"
	if [ -n "${seed[$name]:-}" ]; then
		jq -r .description "$f" | grep -q "thread ${seed[$name]}" ||
			t_fail "$name: the description does not name seed thread ${seed[$name]}"
	fi
	t_ok "$name: $n cells"
done
t_expect_eq "every seed has a suite" 5 "$(for s in "${!seed[@]}"; do [ -f "$CONFIGS/$s.json" ] && echo; done | wc -l)"

# a suite by name, from the configs directory
"$FSBENCH" suite batching -n >"$T_SCRATCH/b.dry" || t_fail "suite by name"
# the 2008 collapse: ext4 with dirsync and min_batch_time, threads 1 to 20
grep -q "mount options: dirsync,min_batch_time=4000,barrier=1" "$T_SCRATCH/b.dry" ||
	t_fail "batching: no ext4 dirsync,min_batch_time=4000 cell"
for t in 1 2 4 8 10 20; do
	grep -q "^ *[0-9]*  ext4-dirsync-batch/barrier=1/wc-on/smallfile/t=$t$" "$T_SCRATCH/b.dry" ||
		t_fail "batching: no ext4-dirsync-batch cell with $t threads"
done
grep -q "xfs/barrier=0.*skipped" "$T_SCRATCH/b.dry" && t_fail "batching asks xfs for barrier=0"
grep -q "smallfile --threads 1 --size 4k --files 2000 --files-per-subdir 50 --subdirs 64 --sync 1 --knob write_cache=write through" "$T_SCRATCH/b.dry" ||
	t_fail "batching: fs_mark's -s 4096 -N 50 -D 64 with the write cache off is missing"

# errors name the file, line and column
printf '{\n "filesystems": ["ext4"],\n "workloads": [{"name": "smallfile", "params": {"size": "4x"}}]\n}\n' >"$T_SCRATCH/bad.json"
"$FSBENCH" suite "$T_SCRATCH/bad.json" -n 2>"$T_SCRATCH/err"
t_expect_eq "bad suite exit status" 2 "$?"
grep -q "^fsbench suite: $T_SCRATCH/bad.json:3:57: workloads\[0\].params.size: " "$T_SCRATCH/err" ||
	t_fail "bad suite message: $(cat "$T_SCRATCH/err")"

# --- `fsbench` with no arguments and without root: small files in a temporary directory
run_unprivileged() {
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || return 77
		chmod 777 "$T_SCRATCH/nr"
		(cd "$T_SCRATCH/nr" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			env TMPDIR="$T_SCRATCH/nr" "$@")
	else
		(cd "$T_SCRATCH/nr" && env TMPDIR="$T_SCRATCH/nr" "$@")
	fi
}
mkdir "$T_SCRATCH/nr"
chmod 755 "$T_SCRATCH"
run_unprivileged "$FSBENCH" >"$T_SCRATCH/def.out" 2>&1
rc=$?
cat "$T_SCRATCH/def.out"
if [ "$rc" = 77 ]; then
	t_ok "no setpriv: default without root not tried"
else
	t_expect_eq "default exit status" 0 "$rc"
	grep -q "^Skipped: ext4, xfs, btrfs and ext3" "$T_SCRATCH/def.out" || t_fail "the default does not say what it skipped"
	grep -q "^dir/smallfile/t=2 " "$T_SCRATCH/def.out" || t_fail "the default did not run smallfile with 2 threads"
	grep -q "^dir/stream" "$T_SCRATCH/def.out" && t_fail "the unprivileged default ran the stream workload"
	res=$(ls "$T_SCRATCH"/nr/fsbench-suite-quick-*.json 2>/dev/null | head -1)
	[ -n "$res" ] || t_fail "no result file in the working directory"
	[ -n "$res" ] && t_expect_eq "default runs" 2 "$(t_json "$res" '.runs | length')"
	[ -n "$res" ] && t_expect_eq "default complete" true "$(t_json "$res" '.complete')"
	# --dir runs are labelled with the type of the filesystem holding the directory
	[ -n "$res" ] && t_expect_eq "default fs type" "$(findmnt -n -o FSTYPE -T "$T_SCRATCH/nr")" \
		"$(t_json "$res" '.runs[0].coords.fs')"
	t_expect_eq "temporary directory removed" "" "$(ls -d "$T_SCRATCH"/nr/fsbench.* 2>/dev/null)"
fi
t_done
