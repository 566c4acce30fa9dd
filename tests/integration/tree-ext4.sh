#!/bin/bash
# The tree workload on a real ext4: every phase's counts exact against the shape, the
# directory empty after the delete phases, nothing outside -D touched, device bytes per phase.
. "$(dirname "$0")/lib.sh"
SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
VALIDATE=$SRCDIR/tests/tools/validate-json
t_need_root

# the shape: 5 directories (the root included), 7 regular files (2 sources, 2 headers,
# 3 others), 137000 bytes; a symbolic link and a fifo that are not part of it
shape=$T_SCRATCH/shape
mkdir -p "$shape/arch/x86" "$shape/include" "$shape/lib"
head -c 40000 /dev/urandom >"$shape/main.c"
head -c 60000 /dev/urandom >"$shape/arch/x86/entry.S"
head -c 9000 /dev/urandom >"$shape/include/a.h"
head -c 1000 /dev/urandom >"$shape/include/b.h"
head -c 27000 /dev/urandom >"$shape/Makefile"
: >"$shape/lib/Kconfig"
: >"$shape/arch/README"
ln -s main.c "$shape/link.c"
mkfifo "$shape/lib/fifo"
DIRS=5 FILES=7 SOURCES=2

t_mkfs_loop ext4 256 -E lazy_itable_init=0,lazy_journal_init=0
d=$T_MNT/work
mkdir "$d"
# things that are not the workload's: beside -D, and inside it
echo keep >"$T_MNT/beside"
echo mine >"$d/mine.txt"
before=$(cd "$T_MNT" && find . -path ./work -prune -o -printf '%p %s %T@\n' | sort | md5sum)

count() { find "$d" -mindepth 1 -name mine.txt -prune -o "$@" -print | wc -l; }

# --- -i 3 -r 0 -k: three trees made exactly as the shape says, and kept
out=$T_SCRATCH/create.json
"$FSBENCH" tree -D "$d" -i 3 -r 0 -k --shape-from "$shape" --quiet --json "$out"
t_expect_eq "create: exit status" 0 $?
"$VALIDATE" "$SCHEMA" "$out" || t_fail "create: result does not match the schema"
t_expect_eq "create: directories" $((3 * DIRS)) "$(count -type d)"
t_expect_eq "create: files" $((3 * FILES)) "$(count -type f)"
t_expect_eq "create: nothing else" $((3 * (DIRS + FILES))) "$(count)"
t_expect_eq "create: bytes on disk" $((3 * 137000)) \
	"$(find "$d" -mindepth 1 -name mine.txt -prune -o -type f -printf '%s\n' | awk '{s += $1} END {print s}')"
t_expect_eq "create: sizes match the shape" \
	"$(find "$shape" -type f -printf '%s\n' | sort -n | tr '\n' ' ')" \
	"$(find "$d/fsbench-tree-1" -type f -printf '%s\n' | sort -n | tr '\n' ' ')"
t_expect_eq "create: shape files" $FILES "$(t_json "$out" '.runs[0].summary.tree.shape.files')"
t_expect_eq "create: phase runs" 3 "$(t_json "$out" '.runs[0].summary.tree.phases[0].runs')"
t_expect_eq "create: phase name" "intial create" "$(t_json "$out" '.runs[0].summary.tree.phases[0].phase')"
t_expect_eq "create: mkdir calls" $((3 * DIRS)) "$(t_json "$out" '.runs[0].ops.mkdir.count')"
t_expect_eq "create: create calls" $((3 * FILES)) "$(t_json "$out" '.runs[0].ops.create.count')"
t_expect_eq "create: phase histogram = total" "$(t_json "$out" '.runs[0].ops.create.count')" \
	"$(t_json "$out" '.runs[0].summary.tree.phases[0].ops.create.count')"
t_expect_eq "create: bytes written" $((3 * 137000)) "$(t_json "$out" '.runs[0].summary.bytes')"
t_expect_eq "create: device bytes counted" true \
	"$(t_json "$out" '.runs[0].summary.tree.phases[0].device_write_bytes >= 3 * 137000')"
t_expect_eq "create: the device is the loop device" "$(basename "$T_DEV")" "$(t_json "$out" '.runs[0].summary.tree.device')"
# a second run refuses to build over the kept trees, before any work
err=$("$FSBENCH" tree -D "$d" -i 1 -r 0 --shape-from "$shape" --quiet 2>&1)
t_expect_eq "kept trees: refused" 1 $?
printf '%s\n' "$err" | grep -q "fsbench-tree-0 exists" || t_fail "kept trees: message '$err'"
t_expect_eq "kept trees: untouched" $((3 * (DIRS + FILES))) "$(count)"
find "$d" -mindepth 1 -maxdepth 1 -name 'fsbench-tree-*' -exec rm -rf {} +

# --- --makej: create and compile each tree, read compiled three times, delete all
out=$T_SCRATCH/makej.json
txt=$("$FSBENCH" tree -D "$d" -i 2 --makej --shape-from "$shape" --json "$out")
t_expect_eq "makej: exit status" 0 $?
"$VALIDATE" "$SCHEMA" "$out" || t_fail "makej: result does not match the schema"
t_expect_eq "makej: empty after delete compiled tree" 0 "$(count)"
t_expect_eq "makej: phases run" "intial create=2 compile=2 read compiled tree=3 delete compiled tree=2" \
	"$(t_json "$out" '[.runs[0].summary.tree.phases[] | select(.runs > 0) | "\(.phase)=\(.runs)"] | join(" ")')"
ph() { t_json "$out" ".runs[0].summary.tree.phases[] | select(.phase == \"$1\") | $2"; }
t_expect_eq "makej: objects made" $((2 * SOURCES)) "$(ph compile .files)"
t_expect_eq "makej: object bytes" $((2 * (40000 * 153 / 100 + 60000 * 153 / 100))) "$(ph compile .bytes_written)"
t_expect_eq "makej: files read" $((3 * (FILES + SOURCES))) "$(ph "read compiled tree" .files)"
t_expect_eq "makej: unlinks" $((2 * (FILES + SOURCES))) "$(ph "delete compiled tree" .ops.unlink.count)"
t_expect_eq "makej: rmdirs" $((2 * DIRS)) "$(ph "delete compiled tree" .ops.rmdir.count)"
t_expect_eq "makej: one syncfs per run" 9 "$(t_json "$out" '.runs[0].ops.syncfs.count')"
t_expect_eq "makej: device bytes per phase" 4 \
	"$(t_json "$out" '[.runs[0].summary.tree.phases[] | select(.runs > 0) | select(.device_write_bytes | type == "number")] | length')"
t_expect_eq "makej: runs listed" 9 "$(t_json "$out" '.runs[0].summary.tree.runs | length')"
for line in "intial create total runs 2 avg [0-9.]* MB/s (user [0-9.]*s sys [0-9.]*s)" "no runs for create" \
	"compile total runs 2 avg" "read compiled tree total runs 3 avg [0-9.]* MB/s" \
	"delete compiled tree total runs 2 avg [0-9.]* seconds" "no runs for stat compiled tree"; do
	printf '%s\n' "$txt" | grep -q "^$line" || t_fail "makej: no line '$line' in the summary"
done
# compilebench's lines only: everything else fsbench prints there starts with '#'
t_expect_eq "makej: no stray summary lines" 0 \
	"$(printf '%s\n' "$txt" | sed -n '/^run complete:/,$p' | grep -vcE '^(run complete:|=+|#.*|.* total runs [0-9]+ avg .*|no runs for .*|)$')"

# --- random runs: the same seed, the same runs; trees left are removed at the end
out=$T_SCRATCH/random.json
"$FSBENCH" tree -D "$d" -i 2 -r 25 --seed 5 --patch-every 2 --shape-from "$shape" --quiet --json "$out"
t_expect_eq "random: exit status" 0 $?
"$VALIDATE" "$SCHEMA" "$out" || t_fail "random: result does not match the schema"
t_expect_eq "random: empty afterwards" 0 "$(count)"
t_expect_eq "random: runs" 27 "$(t_json "$out" '.runs[0].summary.tree.runs | length')"
t_expect_eq "random: runs per phase add up" 27 "$(t_json "$out" '[.runs[0].summary.tree.phases[].runs] | add')"
"$FSBENCH" tree -D "$d" -i 2 -r 25 --seed 5 --patch-every 2 --shape-from "$shape" --quiet --json "$out.2"
t_expect_eq "random: reproducible order" "$(t_json "$out" '[.runs[0].summary.tree.runs[] | "\(.phase)/\(.tree)"] | join(",")')" \
	"$(t_json "$out.2" '[.runs[0].summary.tree.runs[] | "\(.phase)/\(.tree)"] | join(",")')"
t_expect_eq "random: clean removes what compile made" true \
	"$(t_json "$out" '[.runs[0].summary.tree.phases[] | select(.phase == "clean" or .phase == "compile") | .bytes == .runs * 153000] | all')"
t_expect_eq "random: patch rewrites one file in two" true \
	"$(t_json "$out" '.runs[0].summary.tree.phases[] | select(.phase == "patch") | .runs == 0 or (.files >= .runs * 3 and .files <= .runs * 4)')"
t_expect_eq "random: creates make whole trees" true \
	"$(t_json "$out" '[.runs[0].summary.tree.phases[] | select(.phase == "create" or .phase == "intial create") | .files == .runs * 7] | all')"

# --- ENOSPC mid-phase: exit 1, the error names the path, a partial result, the trees removed
big=$T_SCRATCH/big
mkdir -p "$big/sub"
head -c $((8 << 20)) /dev/urandom >"$big/sub/blob.c"
echo x >"$big/small.h"
out=$T_SCRATCH/nospc.json
"$FSBENCH" tree -D "$d" -i 100 -r 0 --shape-from "$big" --quiet --json "$out" 2>"$T_SCRATCH/err"
t_expect_eq "ENOSPC: exit status" 1 $?
grep -q "$d/fsbench-tree-[0-9]*.*No space left on device" "$T_SCRATCH/err" || t_fail "ENOSPC: message '$(cat "$T_SCRATCH/err")'"
"$VALIDATE" "$SCHEMA" "$out" || t_fail "ENOSPC: result does not match the schema"
t_expect_eq "ENOSPC: incomplete" false "$(t_json "$out" '.runs[0].summary.complete')"
t_expect_eq "ENOSPC: the finished creates counted" true \
	"$(t_json "$out" '.runs[0].summary.tree | (.phases[0].runs > 10) and (.runs | length) == .phases[0].runs')"
t_expect_eq "ENOSPC: trees removed" 0 "$(count)"

# --- nothing outside -D changed, and the foreign file inside it is still there
after=$(cd "$T_MNT" && find . -path ./work -prune -o -printf '%p %s %T@\n' | sort | md5sum)
t_expect_eq "outside -D untouched" "$before" "$after"
t_expect_eq "foreign file kept" mine "$(cat "$d/mine.txt")"
t_done
