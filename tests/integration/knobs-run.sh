#!/bin/bash
# --knob during a smallfile run on a loop device: applied values are in force during the run
# and in the JSON, the old ones are back afterwards, barrier=0 shows in mountinfo only
# meanwhile, no journal is left; info and knobs show what sysfs says; --cpus pins.
. "$(dirname "$0")/lib.sh"
t_need_root
export FSBENCH_STATE_DIR=$T_SCRATCH/state
t_mkfs_loop ext4 256
disk=$(basename "$T_DEV")
Q=/sys/block/$disk/queue
sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$Q/scheduler"; }
mnt_opts() { awk -v m="$T_MNT" '$5 == m { print $6 "," $NF }' /proc/self/mountinfo; }

old_sched=$(sched) old_nr=$(cat "$Q/nr_requests") old_wc=$(cat "$Q/write_cache") old_ra=$(cat "$Q/read_ahead_kb")
# another scheduler than the active one, among those this kernel offers
new_sched=$(tr -d '[]' <"$Q/scheduler" | tr ' ' '\n' | grep -v -x -e "$old_sched" -e '' | grep -m1 -x -e mq-deadline -e bfq -e kyber -e none)
[ -n "$new_sched" ] || t_skip "$disk offers no scheduler but $old_sched"
new_nr=32; [ "$old_nr" = 32 ] && new_nr=64
if [ "$old_wc" = "write back" ]; then new_wc="write through"; else new_wc="write back"; fi
new_ra=$((old_ra + 64))

mkdir -p "$T_MNT/d"
"$FSBENCH" smallfile -d "$T_MNT/d" -s 4096 -n 10000000 -t 2 --runtime 3 --quiet --cpus 0 \
	--knob "scheduler=$new_sched" --knob "nr_requests=$new_nr" --knob "write_cache=$new_wc" \
	--knob "read_ahead_kb=$new_ra" --knob barrier=0 --json "$T_SCRATCH/r.json" &
pid=$!
# knobs are applied one after another: wait until the whole batch is in force (or 5 s)
applied() {
	[ "$(cat "$Q/read_ahead_kb")" = "$new_ra" ] && [ "$(sched)" = "$new_sched" ] &&
		[ "$(cat "$Q/nr_requests")" = "$new_nr" ] && [ "$(cat "$Q/write_cache")" = "$new_wc" ] &&
		case ,$(mnt_opts), in *,nobarrier,*) true ;; *) false ;; esac
}
for _ in $(seq 100); do
	applied && break
	sleep 0.05
done
t_expect_eq "scheduler during the run" "$new_sched" "$(sched)"
t_expect_eq "nr_requests during the run" "$new_nr" "$(cat "$Q/nr_requests")"
t_expect_eq "write_cache during the run" "$new_wc" "$(cat "$Q/write_cache")"
t_expect_eq "read_ahead_kb during the run" "$new_ra" "$(cat "$Q/read_ahead_kb")"
case ,$(mnt_opts), in *,nobarrier,*) t_ok "nobarrier in mountinfo during the run" ;;
*) t_fail "no nobarrier in mountinfo during the run: $(mnt_opts)" ;; esac
t_expect_eq "journals during the run" 1 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
wait "$pid"
t_expect_eq "exit status" 0 "$?"

t_expect_eq "scheduler after" "$old_sched" "$(sched)"
t_expect_eq "nr_requests after" "$old_nr" "$(cat "$Q/nr_requests")"
t_expect_eq "write_cache after" "$old_wc" "$(cat "$Q/write_cache")"
t_expect_eq "read_ahead_kb after" "$old_ra" "$(cat "$Q/read_ahead_kb")"
case ,$(mnt_opts), in *,nobarrier,*) t_fail "nobarrier left in mountinfo: $(mnt_opts)" ;;
*) t_ok "barriers back on: $(mnt_opts)" ;; esac
t_expect_eq "journals left" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"

j=$T_SCRATCH/r.json
t_expect_eq "applied scheduler" "$new_sched" "$(t_json "$j" '.runs[0].knobs.applied.scheduler')"
t_expect_eq "applied nr_requests" "$new_nr" "$(t_json "$j" '.runs[0].knobs.applied.nr_requests')"
t_expect_eq "applied write_cache" "$new_wc" "$(t_json "$j" '.runs[0].knobs.applied.write_cache')"
t_expect_eq "applied read_ahead_kb" "$new_ra" "$(t_json "$j" '.runs[0].knobs.applied.read_ahead_kb')"
t_expect_eq "applied barrier" 0 "$(t_json "$j" '.runs[0].knobs.applied.barrier')"
t_expect_eq "before nr_requests" "$old_nr" "$(t_json "$j" '.runs[0].knobs.before.nr_requests')"
t_expect_eq "after nr_requests" "$old_nr" "$(t_json "$j" '.runs[0].knobs.after.nr_requests')"
t_expect_eq "after scheduler" "$old_sched" "$(t_json "$j" '.runs[0].knobs.after.scheduler')"
t_expect_eq "write_cache touches" kernel "$(t_json "$j" '.runs[0].knobs.touched.write_cache')"
t_expect_eq "barrier touches" mount "$(t_json "$j" '.runs[0].knobs.touched.barrier')"
t_expect_eq "restored" true "$(t_json "$j" '.runs[0].knobs.restored')"
t_expect_eq "CPUs of the threads (--cpus 0)" "0 0" "$(t_json "$j" '[.runs[0].per_thread[].cpu] | map(tostring) | join(" ")')"
t_expect_eq "topology PUs" "$(nproc --all)" "$(t_json "$j" '.host.topology.pus')"
"$SRCDIR/tests/tools/validate-json" "$SRCDIR/report/schema/fsbench-result-2.schema.json" "$j" &&
	t_ok "result is valid" || t_fail "result does not validate"

# info and knobs read what sysfs says
"$FSBENCH" info "$T_MNT" --json >"$T_SCRATCH/info.json" || t_fail "info failed"
t_expect_eq "info disk" "$disk" "$(t_json "$T_SCRATCH/info.json" '.device.disk')"
t_expect_eq "info scheduler" "$(sched)" "$(t_json "$T_SCRATCH/info.json" '.knobs.scheduler')"
t_expect_eq "info read_ahead_kb" "$(cat "$Q/read_ahead_kb")" "$(t_json "$T_SCRATCH/info.json" '.knobs.read_ahead_kb')"
t_expect_eq "info logical block size" "$(cat "$Q/logical_block_size")" "$(t_json "$T_SCRATCH/info.json" '.device.logical_block_size')"
t_expect_eq "info fstype" ext4 "$(t_json "$T_SCRATCH/info.json" '.target.fstype')"
"$FSBENCH" info "$T_MNT" | grep -q "^whole disk *$disk " && t_ok "info text names the disk" || t_fail "info text lacks the disk"

# knobs --set is a lasting change: no journal, and the value stays
"$FSBENCH" knobs "$T_MNT" --set "read_ahead_kb=$new_ra" >/dev/null || t_fail "knobs --set failed"
t_expect_eq "knobs --set stays" "$new_ra" "$(cat "$Q/read_ahead_kb")"
t_expect_eq "journals after knobs --set" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
t_done
