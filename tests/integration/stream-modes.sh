#!/bin/bash
# Every stream mode makes exactly the calls its definition says, per chunk, and cleans up.
. "$(dirname "$0")/lib.sh"

SCHEMA=$SRCDIR/report/schema/fsbench-result-2.schema.json
dir=$T_SCRATCH/d
mkdir "$dir"
T=2
N=8 # chunks per thread
CHUNK=$((1024 * 1024))
SIZE=$((N * CHUNK))

# expected counts per thread: write sync_file_range fadvise fdatasync (0: the op is absent)
declare -A want=(
	[buffered]="$N 0 0 0"
	[fdatasync]="$N 0 0 1"
	[writebehind]="$N $((2 * N - 1)) 0 1"
	[writebehind-dontneed]="$N $((2 * N - 1)) $N 1"
	[fadvise]="$N $N $N 1"
	[fsync-each]="$N 0 0 $N"
	[osync]="$N 0 0 0"
)
for mode in buffered fdatasync writebehind writebehind-dontneed fadvise fsync-each osync; do
	out=$T_SCRATCH/$mode.json
	"$FSBENCH" stream -d "$dir" -t $T --size $SIZE --chunk 1M --mode "$mode" --quiet --json "$out"
	t_expect_eq "$mode: exit status" 0 $?
	"$SRCDIR/tests/tools/validate-json" "$SCHEMA" "$out" || t_fail "$mode: result does not match the schema"
	i=0
	for op in write sync_file_range fadvise fdatasync; do
		n=(${want[$mode]})
		n=${n[i]}
		i=$((i + 1))
		if [ "$n" = 0 ]; then
			t_expect_eq "$mode: $op" null "$(t_json "$out" ".runs[0].ops[\"$op\"]")"
		else
			t_expect_eq "$mode: $op count" $((T * n)) "$(t_json "$out" ".runs[0].ops[\"$op\"].count")"
		fi
	done
	t_expect_eq "$mode: bytes" $((T * SIZE)) "$(t_json "$out" '.runs[0].summary.bytes')"
	t_expect_eq "$mode: complete" true "$(t_json "$out" '.complete')"
	t_expect_eq "$mode: per-thread rates" $T "$(t_json "$out" '.runs[0].summary.per_thread_mb_per_sec | map(select(. > 0)) | length')"
	# iozone's figures: children see is the sum of the per-writer rates, parent sees (total
	# over wall time) cannot exceed it, min <= avg <= max, and every writer counted; the
	# per-thread MB/s in the JSON are rounded to 10 digits, so the sum is equal to 1e-6
	# of itself, not to the byte
	t_expect_eq "$mode: iozone writers" $T "$(t_json "$out" '.runs[0].summary.iozone.writers')"
	t_expect_eq "$mode: children see is the sum of the writers' rates" true \
		"$(t_json "$out" '.runs[0].summary | ((.per_thread_mb_per_sec | add) * 1e6 - .iozone.children_see_bytes_per_sec | fabs) <= 1e-6 * .iozone.children_see_bytes_per_sec + 1')"
	t_expect_eq "$mode: parent sees is bytes_per_sec" true \
		"$(t_json "$out" '.runs[0].summary | (.bytes_per_sec - .iozone.parent_sees_bytes_per_sec | fabs) < 1')"
	t_expect_eq "$mode: parent sees <= children see" true \
		"$(t_json "$out" '.runs[0].summary.iozone | .parent_sees_bytes_per_sec <= .children_see_bytes_per_sec + 1e-6')"
	t_expect_eq "$mode: min <= avg <= max writer" true \
		"$(t_json "$out" '.runs[0].summary.iozone | .min_writer_bytes_per_sec <= .avg_writer_bytes_per_sec and .avg_writer_bytes_per_sec <= .max_writer_bytes_per_sec')"
	t_expect_eq "$mode: min xfer is the size" $SIZE "$(t_json "$out" '.runs[0].summary.iozone.min_xfer_bytes')"
	t_expect_eq "$mode: mb_per_sec is bytes_per_sec / 10^6" true \
		"$(t_json "$out" '.runs[0].summary | ((.mb_per_sec * 1e6 - .bytes_per_sec) | fabs) < 1')"
	t_expect_eq "$mode: bytes_per_sec over the whole elapsed time" true \
		"$(t_json "$out" '.runs[0].summary | ((.bytes_per_sec * .elapsed_ns / 1e9 - .bytes) | fabs) < 1000')"
	t_expect_eq "$mode: series unit" bytes "$(t_json "$out" '.runs[0].series.unit')"
	t_expect_eq "$mode: series ends at the total" $((T * SIZE)) "$(t_json "$out" '.runs[0].series.done[-1]')"
	t_expect_eq "$mode: series never decreases" true \
		"$(t_json "$out" '.runs[0].series.done as $d | [range(1; $d | length) | $d[.] >= $d[. - 1]] | all')"
	t_expect_eq "$mode: files left" "" "$(ls -A "$dir")"
done

# the text table carries iozone's lines, as iozone -t prints them
txt=$("$FSBENCH" stream -d "$dir" -t 2 --size 2M --chunk 1M)
for line in "Children see throughput for  2 initial writers" "Parent sees throughput for  2 initial writers" \
	"Min throughput per thread" "Max throughput per thread" "Avg throughput per thread" "Min xfer"; do
	printf '%s\n' "$txt" | grep -q "^	$line[ 	]*= *[0-9.]* kB" || t_fail "text output lacks iozone's '$line' line"
done

# -k keeps one file per thread, each of the full size
"$FSBENCH" stream -d "$dir" -t 2 --size 3M --chunk 1M -k --quiet
t_expect_eq "-k: exit status" 0 $?
t_expect_eq "-k: files kept" "2 3145728 3145728" "$(ls "$dir" | wc -l) $(stat -c %s "$dir"/fsbench-stream.* | tr '\n' ' ' | sed 's/ $//')"
rm -f "$dir"/fsbench-stream.*

# --runtime with --size 0 stops on time, syncs, and counts what it wrote
out=$T_SCRATCH/runtime.json
"$FSBENCH" stream -d "$dir" --size 0 --chunk 1M --mode writebehind --runtime 500ms --quiet --json "$out"
t_expect_eq "runtime: exit status" 0 $?
t_expect_eq "runtime: stopped by runtime" true "$(t_json "$out" '.runs[0].summary.stopped_by_runtime')"
t_expect_eq "runtime: sync_file_range is 2 x writes - 1" true \
	"$(t_json "$out" '.runs[0].ops | .sync_file_range.count == 2 * .write.count - 1')"
t_expect_eq "runtime: bytes are writes x chunk" true \
	"$(t_json "$out" '.runs[0] | .summary.bytes == .ops.write.count * 1048576')"
t_expect_eq "runtime: final fdatasync" 1 "$(t_json "$out" '.runs[0].ops.fdatasync.count')"

# bad values: exit 2, one line, nothing created
for args in "--size 4M --chunk 8M" "--mode sideways" "--size 0" "--chunk 100" "--threads 3 -d $dir"; do
	# shellcheck disable=SC2086
	err=$("$FSBENCH" stream -d "$dir" $args --quiet 2>&1 >/dev/null)
	t_expect_eq "'$args': exit status" 2 $?
	t_expect_eq "'$args': one line of error" 1 "$(printf '%s\n' "$err" | wc -l)"
	t_expect_eq "'$args': files left" "" "$(ls -A "$dir")"
done
"$FSBENCH" stream -d "$dir" --size 4M --chunk 8M 2>&1 | grep -q 'less than one chunk' ||
	t_fail "a size below one chunk is not named as such"
t_done
