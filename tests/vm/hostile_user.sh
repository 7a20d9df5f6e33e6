#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Hostile processes, in the guest: three tests/verbs/eri_scribble_test.c
# processes on eri0 scribble random bytes over every writable mapping of the
# device (rings, WQEs, producer indexes, doorbell records, SRQs) and fork
# children (which inherit none of those mappings), while they create, use
# and destroy QPs, CQs, SRQs and MRs:
#   1. for 20 s: each process ends by itself having run its rounds, and
#      eri0 and eri1 then still move data (ibv_rc_pingpong -c);
#   2. eri0 is deleted under them: each ends within 15 s by itself.
# vm-run fails the run on any oops, WARNING, KASAN or lockdep report in the
# kernel log.  make check runs it on the debug kernel only, where KASAN,
# lockdep and kmemleak watch what it provokes (before ERI kept its mappings
# out of forked children, lockdep caught ib_uverbs' fork/removal lock
# inversion there: docs/design/uverbs-removal-lockdep.md).
# check-flavours: none
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
bin=$(mktemp -d)/eri_scribble_test
check "build eri_scribble_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" \
	"$(dirname "$0")/../verbs/eri_scribble_test.c" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs

pair_up eri_scribble

# start SECONDS: three scribblers on eri0; sets PIDS.
start() {
	local i
	PIDS=()
	for i in 1 2 3; do
		in0 timeout 300 "$bin" "$D0" "$G0" "$1" > "/tmp/scribble$i.out" 2>&1 &
		PIDS+=($!)
	done
}

# all_end SECONDS: every scribbler ends within SECONDS; sets STATUSES.
ended() { ! kill -0 "$1" 2>/dev/null; }
all_ended() {
	local p
	for p in "${PIDS[@]}"; do ended "$p" || return 1; done
}
all_end() {
	local p
	check "the scribblers end within $1 s" wait_for "$1" all_ended
	STATUSES=()
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p"
		STATUSES+=($?)
	done
	echo "# exit statuses: ${STATUSES[*]}"
	cat /tmp/scribble[123].out | sed 's/^/#   /'
}

# 1. Scribbling for 20 s.
start 20
all_end 60
check "each scribbler ran its rounds and ended with 0" \
	test "${STATUSES[*]}" = "0 0 0"
check "no scribbler ran no round" sh -c '! grep -q "^# 0 rounds" /tmp/scribble[123].out'
server_client_port "ibv_rc_pingpong -c between eri0 and eri1 afterwards" 18861 \
	ibv_rc_pingpong -d "$D1" -g "$G1" -p 18861 -n 200 -c -- \
	ibv_rc_pingpong -d "$D0" -g "$G0" -p 18861 -n 200 -c "$B"

# 2. The device deleted under them.
start 120
sleep 5
check "rdma link delete $D0 under the scribblers" in0 timeout 60 rdma link delete "$D0"
all_end 15
# saw_gone: every scribbler exited 3 (the device went) or 1 (it went
# before the first round).
saw_gone() {
	local s
	for s in "${STATUSES[@]}"; do [ "$s" = 3 ] || [ "$s" = 1 ] || return 1; done
}
check "each scribbler saw its device go" saw_gone

check "delete $D1" in1 rdma link delete "$D1"
ip netns del "$NS0" 2>/dev/null
ip netns del "$NS1" 2>/dev/null
check "rmmod eri_sim" rmmod eri_sim
check "rmmod eri" rmmod eri
finish
