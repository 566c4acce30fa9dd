#!/bin/bash
# `fsbench restore` treats the journal as untrusted input (issue 11): each attack below is
# a hand-written journal of a dead run on two loop devices of this test's own, and each
# must change nothing it does not name by identity. Also: the state directory and the
# journal must be root's and not writable by others.
. "$(dirname "$0")/lib.sh"
t_need_root
export FSBENCH_STATE_DIR=$T_SCRATCH/state
mkdir -m 0700 "$FSBENCH_STATE_DIR"
t_mkfs_loop ext4 64
mnt_a=$T_MNT disk_a=$(basename "$T_DEV")
t_mkfs_loop ext4 64
disk_b=$(basename "$T_DEV")
QA=/sys/block/$disk_a/queue QB=/sys/block/$disk_b/queue
dev_a=$(cat "/sys/block/$disk_a/dev") dev_b=$(cat "/sys/block/$disk_b/dev")
seq_a=$(cat "/sys/block/$disk_a/diskseq" 2>/dev/null || echo)
seq_b=$(cat "/sys/block/$disk_b/diskseq" 2>/dev/null || echo)
[ -n "$seq_a" ] || t_skip "this kernel has no diskseq"
ra_b=$(cat "$QB/read_ahead_kb") ms_a=$(cat "$QA/max_sectors_kb")
new_ra=$((ra_b + 64))

dead_pid=$(sh -c 'echo $$')
# journal FILE ENTRY...: a journal of a process that has died, one entry a line
journal() {
	local f=$FSBENCH_STATE_DIR/$1
	shift
	printf '{"journal":"fsbench-journal/1","pid":%d,"start":1}\n' "$dead_pid" >"$f"
	printf '%s\n' "$@" >>"$f"
	chmod 0600 "$f"
}
restore() { "$FSBENCH" restore "$@" >"$T_SCRATCH/out" 2>&1; }
out() { cat "$T_SCRATCH/out"; }
says() { grep -q -e "$1" "$T_SCRATCH/out" && t_ok "restore says: $1" || t_fail "restore said: $(out)"; }

# 1. the identity names loop A, the path loop B: the write goes to A's own file, never B's
journal journal-1-0.jsonl "{\"knob\":\"read_ahead_kb\",\"kind\":\"file\",\"disk\":\"$disk_a\",\"dev\":\"$dev_a\",\"diskseq\":$seq_a,\"path\":\"$QB/read_ahead_kb\",\"value\":\"$new_ra\"}"
restore
t_expect_eq "identity A, path B: exit status" 0 "$?"
t_expect_eq "B's read_ahead_kb untouched" "$ra_b" "$(cat "$QB/read_ahead_kb")"
t_expect_eq "A's read_ahead_kb is what the entry said" "$new_ra" "$(cat "$QA/read_ahead_kb")"

# 2. no identity at all: refused, the journal stays, nothing written
journal journal-2-0.jsonl "{\"knob\":\"read_ahead_kb\",\"kind\":\"file\",\"disk\":\"$disk_b\",\"path\":\"$QB/read_ahead_kb\",\"value\":\"$new_ra\"}"
restore
t_expect_eq "no identity: exit status" 1 "$?"
says "names no device"
t_expect_eq "B's read_ahead_kb untouched" "$ra_b" "$(cat "$QB/read_ahead_kb")"
t_expect_eq "the refused journal stays" 1 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"
restore --discard
t_expect_eq "--discard drops it" 0 "$(ls "$FSBENCH_STATE_DIR" | wc -l)"

# identity of B and disk name of A: the identity decides, the name is only words
journal journal-3-0.jsonl "{\"knob\":\"read_ahead_kb\",\"kind\":\"file\",\"disk\":\"$disk_a\",\"dev\":\"$dev_b\",\"path\":\"$QA/read_ahead_kb\",\"value\":\"$new_ra\"}"
restore
t_expect_eq "B's major:minor without its diskseq: exit status" 1 "$?"
says "diskseq"
t_expect_eq "B's read_ahead_kb untouched" "$ra_b" "$(cat "$QB/read_ahead_kb")"
restore --discard

# 3. the knob name decides the file: "scheduler" never reaches max_sectors_kb
journal journal-4-0.jsonl "{\"knob\":\"scheduler\",\"kind\":\"file\",\"dev\":\"$dev_a\",\"diskseq\":$seq_a,\"path\":\"$QA/max_sectors_kb\",\"value\":\"64\"}"
restore
t_expect_eq "scheduler entry with max_sectors_kb's path: exit status" 1 "$?"
t_expect_eq "A's max_sectors_kb untouched" "$ms_a" "$(cat "$QA/max_sectors_kb")"
restore --discard

# 4. only the vm knobs fsbench sets
oc=$(cat /proc/sys/vm/overcommit_memory)
journal journal-5-0.jsonl '{"knob":"overcommit_memory","kind":"file","path":"/proc/sys/vm/overcommit_memory","value":"1"}'
restore
t_expect_eq "a vm knob fsbench does not set: exit status" 1 "$?"
says "not a knob fsbench sets"
t_expect_eq "overcommit_memory untouched" "$oc" "$(cat /proc/sys/vm/overcommit_memory)"
restore --discard

# 5. a mount entry restores the barrier and nothing else: its "option" never reaches remount
mount -o remount,barrier=0 "$mnt_a" || t_die "remounting $mnt_a barrier=0"
case $(awk -v m="$mnt_a" '$5 == m {print $NF}' /proc/self/mountinfo) in
*barrier=0* | *nobarrier*) t_ok "barrier off before the restore" ;; *) t_fail "barrier=0 not in force" ;; esac
mdev=$(awk -v m="$mnt_a" '$5 == m {print $3}' /proc/self/mountinfo)
journal journal-6-0.jsonl "{\"knob\":\"barrier\",\"kind\":\"mount\",\"value\":\"1\",\"mountpoint\":\"$mnt_a\",\"fstype\":\"ext4\",\"mnt_dev\":\"$mdev\",\"option\":\"ro,nosuid,noexec\"}"
restore
t_expect_eq "mount entry with a forged option: exit status" 0 "$?"
opts=$(awk -v m="$mnt_a" '$5 == m {print $6 "," $NF}' /proc/self/mountinfo)
case ,$opts, in *,ro,* | *nosuid* | *noexec*) t_fail "the forged option reached remount: $opts" ;;
*) t_ok "still rw, suid, exec: $opts" ;; esac
case $opts in *barrier=0* | *nobarrier*) t_fail "barrier not restored: $opts" ;; *) t_ok "barrier back on" ;; esac

# 6. a state directory or journal others may write is refused before anything is read
journal journal-7-0.jsonl "{\"knob\":\"read_ahead_kb\",\"kind\":\"file\",\"dev\":\"$dev_b\",\"diskseq\":$seq_b,\"value\":\"$new_ra\"}"
chmod 0777 "$FSBENCH_STATE_DIR"
restore
t_expect_eq "world-writable state directory: exit status" 1 "$?"
says "refusing state directory .*mode 0777"
t_expect_eq "B's read_ahead_kb untouched" "$ra_b" "$(cat "$QB/read_ahead_kb")"
chmod 0700 "$FSBENCH_STATE_DIR"
chown nobody "$FSBENCH_STATE_DIR/journal-7-0.jsonl"
restore
t_expect_eq "a journal owned by nobody: exit status" 1 "$?"
says "refusing journal journal-7-0.jsonl: it is owned by uid 65534"
t_expect_eq "B's read_ahead_kb untouched" "$ra_b" "$(cat "$QB/read_ahead_kb")"
chown root "$FSBENCH_STATE_DIR/journal-7-0.jsonl"
chmod 0666 "$FSBENCH_STATE_DIR/journal-7-0.jsonl"
restore
t_expect_eq "a world-writable journal: exit status" 1 "$?"
says "mode 0666"
t_expect_eq "B's read_ahead_kb untouched" "$ra_b" "$(cat "$QB/read_ahead_kb")"
mv "$FSBENCH_STATE_DIR/journal-7-0.jsonl" "$T_SCRATCH/elsewhere.jsonl"
chmod 0600 "$T_SCRATCH/elsewhere.jsonl"
ln -s "$T_SCRATCH/elsewhere.jsonl" "$FSBENCH_STATE_DIR/journal-7-0.jsonl"
restore
t_expect_eq "a journal that is a symlink: exit status" 1 "$?"
says "symlink"
t_expect_eq "B's read_ahead_kb untouched" "$ra_b" "$(cat "$QB/read_ahead_kb")"
rm "$FSBENCH_STATE_DIR/journal-7-0.jsonl"
# and a run will not write its journal there either
chmod 0777 "$FSBENCH_STATE_DIR"
out=$("$FSBENCH" knobs "$mnt_a" --set read_ahead_kb=128 2>&1)
t_expect_eq "knobs --set with a world-writable state directory: exit status" 1 "$?"
case $out in *"refusing state directory"*"nothing was changed"*) t_ok "knobs --set refuses it" ;;
*) t_fail "knobs --set said: $out" ;; esac
t_expect_eq "A's read_ahead_kb untouched by the refused --set" "$new_ra" "$(cat "$QA/read_ahead_kb")"
chmod 0700 "$FSBENCH_STATE_DIR"
t_done
