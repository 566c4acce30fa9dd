#!/bin/bash
# issue 22 item 1: fsbench dbench on a real filesystem (a loop ext4): each client replays
# the loadfile in its own clients/clientN, the per-operation counts are exactly the
# loadfile's times the clients, the files are where the load puts them, cleanup leaves -D
# empty (and --skip-cleanup does not), and nothing outside -D is touched.
. "$(dirname "$0")/lib.sh"

LOAD=$SRCDIR/tests/fixtures/dbench/every-op.load
t_mkfs_loop ext4 256
D=$T_MNT/work
mkdir "$D"
echo sentinel >"$T_MNT/outside"
mkdir "$T_SCRATCH/cwd"
snapshot() { (cd "$T_MNT" && find . -path ./work -prune -o -printf '%p %s %T@ %m\n' | sort); }
before=$(snapshot)

# per client and pass, from every-op.load: REPEAT 4 counts four WriteX
declare -A per=([nb_deltree]=1 [nb_mkdir]=3 [nb_ntcreatex]=4 [nb_close]=3 [nb_writex]=6
	[nb_query_file_information]=1 [nb_set_file_information]=1 [nb_lockx]=1 [nb_unlockx]=1
	[nb_flush]=1 [nb_readx]=2 [nb_query_path_information]=2 [nb_find_first]=1
	[nb_query_fs_information]=1 [nb_rename]=1 [nb_unlink]=2 [nb_rmdir]=1)
# the same, by the names dbench's table prints
declare -A dbname=([nb_deltree]=Deltree [nb_mkdir]=Mkdir [nb_ntcreatex]=NTCreateX
	[nb_close]=Close [nb_writex]=WriteX [nb_query_file_information]=QUERY_FILE_INFORMATION
	[nb_set_file_information]=SET_FILE_INFORMATION [nb_lockx]=LockX [nb_unlockx]=UnlockX
	[nb_flush]=Flush [nb_readx]=ReadX [nb_query_path_information]=QUERY_PATH_INFORMATION
	[nb_find_first]=FIND_FIRST [nb_query_fs_information]=QUERY_FS_INFORMATION
	[nb_rename]=Rename [nb_unlink]=Unlink [nb_rmdir]=Rmdir)

check_counts() { # WHAT CLIENTS JSON OUT
	local op want
	for op in "${!per[@]}"; do
		want=$((per[$op] * $2))
		t_expect_eq "$1: $op count (json)" "$want" "$(t_json "$3" ".runs[0].ops.$op.count")"
		t_expect_eq "$1: ${dbname[$op]} count (table)" "$want" \
			"$(awk -v n="${dbname[$op]}" '$1 == n && NF == 4 {print $2}' "$4")"
	done
	t_expect_eq "$1: operations in the json" 17 "$(t_json "$3" '.runs[0].ops | length')"
	# WriteX 4 x 64 KiB + 4 KiB + 1000 and ReadX 64 KiB + 4 KiB per client
	t_expect_eq "$1: bytes" $(((4 * 65536 + 4096 + 1000 + 65536 + 4096) * $2)) \
		"$(t_json "$3" '.runs[0].summary.bytes')"
	t_expect_eq "$1: passes" "$2" "$(t_json "$3" '.runs[0].summary.loadfile_passes')"
	t_expect_eq "$1: complete" true "$(t_json "$3" '.runs[0].summary.complete')"
}

# --skip-cleanup: the tree the load leaves, per client, and nothing else
(cd "$T_SCRATCH/cwd" && "$FSBENCH" dbench 3 -D "$D" -c "$LOAD" --run-once --warmup 0 \
	--skip-cleanup --json "$T_SCRATCH/keep.json" >"$T_SCRATCH/keep.out" 2>&1)
t_expect_eq "--skip-cleanup run: exit" 0 "$?"
check_counts "3 clients" 3 "$T_SCRATCH/keep.json" "$T_SCRATCH/keep.out"
t_expect_eq "files left by the load" \
	"./clients ./clients/client0 ./clients/client0/sub ./clients/client0/sub/keep.doc ./clients/client1 ./clients/client1/sub ./clients/client1/sub/keep.doc ./clients/client2 ./clients/client2/sub ./clients/client2/sub/keep.doc" \
	"$(cd "$D" && find . -mindepth 1 | sort | tr '\n' ' ' | sed 's/ $//')"
t_expect_eq "keep.doc size (WriteX 1000 bytes)" 1000 "$(stat -c %s "$D/clients/client1/sub/keep.doc")"

# with cleanup (the default), over what the last run left (dbench's first line, Deltree,
# clears each client's directory): -D empty afterwards
(cd "$T_SCRATCH/cwd" && "$FSBENCH" dbench 3 -D "$D" -c "$LOAD" --run-once --warmup 0 \
	--json "$T_SCRATCH/clean.json" >"$T_SCRATCH/clean.out" 2>&1)
t_expect_eq "cleanup run: exit" 0 "$?"
check_counts "3 clients again" 3 "$T_SCRATCH/clean.json" "$T_SCRATCH/clean.out"
t_expect_eq "-D after cleanup" "" "$(ls -A "$D")"

# the operand may follow the flags or lead them, as LKP writes it; -t and the flags that
# change the calls (-s -S -F -x) run on the same load, bound by time
(cd "$T_SCRATCH/cwd" && "$FSBENCH" dbench -D "$D" -c "$LOAD" -t 1 --warmup 0 -s -S -F -x 2 \
	--json "$T_SCRATCH/sync.json" >"$T_SCRATCH/sync.out" 2>&1)
t_expect_eq "-s -S -F -x run: exit" 0 "$?"
grep -q '^Throughput [0-9.e+]* MB/sec (sync open) (sync dirs)  2 clients  2 procs  max_latency=[0-9.]* ms$' \
	"$T_SCRATCH/sync.out" || t_fail "-s -S: Throughput line: $(grep Throughput "$T_SCRATCH/sync.out")"
passes=$(t_json "$T_SCRATCH/sync.json" '.runs[0].summary.loadfile_passes')
writes=$(t_json "$T_SCRATCH/sync.json" '.runs[0].ops.nb_writex.count')
# a pass cut by the time limit stops mid-way: whole passes bound the count from both sides
[ "$writes" -ge $((6 * passes)) ] && [ "$writes" -le $((6 * (passes + 2))) ] ||
	t_fail "-t 1: $writes WriteX for $passes whole passes of 2 clients"
t_expect_eq "-D after the timed run" "" "$(ls -A "$D")"

t_expect_eq "outside -D: untouched" "$before" "$(snapshot)"
t_expect_eq "the working directory: untouched" "" "$(ls -A "$T_SCRATCH/cwd")"
t_done
