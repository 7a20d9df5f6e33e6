#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Connections at scale (issue 20, item 6), in the guest: eri0 and eri1 in
# two namespaces on one veth.  tests/verbs/eri_scale_test.c, built here:
# 10,000 RC QPs created by one process and taken to RTS, connected to
# 10,000 QPs of a peer process (QP numbers exchanged over TCP), one SEND
# on each checked; then 1,000 rdma_cm connections between two processes,
# each index arriving once, all disconnected.  The times and the memory
# per QP are printed as figures; they are not checks (TCG).  Afterwards
# the devices hold no RC QP.
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
bin=$(mktemp -d)/eri_scale_test
nqp=${ERI_SCALE_QPS:-10000}
ncm=${ERI_SCALE_CM:-1000}
T=600

check "build eri_scale_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" \
	"$(dirname "$0")/../verbs/eri_scale_test.c" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs -lrdmacm
check "modprobe rdma_ucm" modprobe rdma_ucm
dmesg -C
pair_up eri_scale
neigh_pin

# pair NAME SERVER-ARGS -- CLIENT-ARGS: eri_scale_test on both ends; every
# line of both is shown (the figures are comments).
pair() {
	local name=$1 srv=() spid crc src
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	in1 timeout "$T" "$bin" "${srv[@]}" > /tmp/scale-srv.out 2>&1 &
	spid=$!
	sleep 3		# the rdma_cm server listens before its client connects
	in0 timeout "$T" "$bin" "$@" > /tmp/scale-cli.out 2>&1
	crc=$?
	wait "$spid"
	src=$?
	sed 's/^/#   server: /' /tmp/scale-srv.out
	sed 's/^/#   client: /' /tmp/scale-cli.out
	check "$name (client exit $crc, server exit $src)" \
		[ "$crc" = 0 ] && [ "$src" = 0 ]
}

pair "$nqp RC QPs each side, to RTS, a SEND on each" \
	qps -s "$B" -d "$D1" -g "$G1" -n "$nqp" -p 18700 -- \
	qps -c "$B" -d "$D0" -g "$G0" -n "$nqp" -p 18700
pair "$ncm rdma_cm connections" \
	cm -s "$B" -n "$ncm" -p 18701 -- \
	cm -c "$B" -n "$ncm" -p 18701

rc_qps() { rdma resource show qp link "$1/1" 2>/dev/null | grep -c 'type RC'; }
no_rc() { [ "$(rc_qps "$D0")" = 0 ] && [ "$(rc_qps "$D1")" = 0 ]; }
check "no RC QP left on $D0 and $D1" wait_for 30 no_rc
check "dmesg has no warning" sh -c '! dmesg | grep -E "WARNING|BUG|Call Trace"'
pair_down
finish
