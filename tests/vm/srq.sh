#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Shared receive queues, in the guest: ibv_srq_pingpong between eri0 and
# eri1 (two namespaces, one veth) with 4 and 16 QPs on one SRQ, polling and
# with events, several sizes, buffers checked, and a receive depth of 5
# that the pingpong refills all the time; ib_send_bw and ib_send_lat with
# --use-srq; the SRQ in `rdma resource show srq`; then tests/verbs/eri_srq_test.c: the
# SRQ limit event (one-shot, re-armed, at arm time), resizing refused, a
# destroy with QPs attached refused, a QP (that took nothing) to ERR raising
# IBV_EVENT_QP_LAST_WQE_REACHED, every wr_id once over several QPs, and a
# UD QP on an SRQ.
# make check runs it on 6.12 only: it tests the device's own transport,
# which does not differ between kernels.
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
src=$(dirname "$0")/../verbs/eri_srq_test.c
bin=$(mktemp -d)/eri_srq_test

dmesg -C
check "build eri_srq_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" "$src" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
pair_up eri_srq
ibv_devinfo -v -d "$D0" 2>&1 | grep -E 'max_srq' | sed 's/^/#   /'
check "$D0 reports max_srq > 0" \
	sh -c "ibv_devinfo -v -d $D0 | grep -Eq 'max_srq:[[:space:]]+[1-9]'"

port=18700
run_pp() {
	local name=$1
	shift
	port=$((port + 1))
	server_client_port "ibv_srq_pingpong $name" "$port" \
		ibv_srq_pingpong -d "$D1" -g "$G1" -p "$port" "$@" -- \
		ibv_srq_pingpong -d "$D0" -g "$G0" -p "$port" "$@" "$B"
}
run_pp "-q 4 -s 4096 -n 200 -c" -q 4 -s 4096 -n 200 -c
run_pp "-q 16 -r 500 -s 4096 -n 100 -c" -q 16 -r 500 -s 4096 -n 100 -c
run_pp "-q 16 -s 1 -n 200 -c -e (CQ events)" -q 16 -s 1 -n 200 -c -e
run_pp "-q 4 -s 65536 -n 50 -c -e" -q 4 -s 65536 -n 50 -c -e
run_pp "-q 4 -r 5 -s 1024 -n 500 -c (SRQ of 8, refilled)" \
	-q 4 -r 5 -s 1024 -n 500 -c

# perftest on an SRQ.
for tool in "ib_send_bw --use-srq -q 4 -n 500" "ib_send_lat --use-srq -n 200"; do
	port=$((port + 1))
	# shellcheck disable=SC2086
	server_client_port "$tool" "$port" \
		$tool -d "$D1" -x "$G1" -F -p "$port" -- \
		$tool -d "$D0" -x "$G0" -F -p "$port" "$B"
done

# The SRQ in `rdma resource show srq -dd` while a pingpong runs (long
# enough to outlast the look, ended once it is done); the driver's
# attributes (srqn, depth, qps) from Linux 6.5 on.
port=$((port + 1))
in1 timeout 60 ibv_srq_pingpong -d "$D1" -g "$G1" -q 4 -n 1000000 -p "$port" > /tmp/res-srv.out 2>&1 &
rsrv=$!
sleep 1
in0 timeout 60 ibv_srq_pingpong -d "$D0" -g "$G0" -q 4 -n 1000000 -p "$port" "$B" > /tmp/res-cli.out 2>&1 &
rcli=$!
case $(uname -r) in
6.1.*) srq_listed() { res=$(in1 rdma resource show srq -dd 2>&1); grep -q "$D1" <<<"$res"; } ;;
*) srq_listed() { res=$(in1 rdma resource show srq -dd 2>&1); grep -q "$D1" <<<"$res" &&
	grep -q 'drv_depth [1-9]' <<<"$res" && grep -q 'drv_qps 4' <<<"$res"; } ;;
esac
res=
wait_for 30 srq_listed
echo "$res" | sed 's/^/#   /'
case $(uname -r) in
6.1.*) check "rdma resource show srq lists an SRQ of $D1" srq_listed ;;
*) check "rdma resource show srq -dd: $D1's SRQ, its depth and its 4 QPs" srq_listed ;;
esac
# $! is timeout's own pid (ip netns exec execs it): killing it ends the
# pingpong too.
kill "$rcli" "$rsrv" 2>/dev/null
wait "$rcli" "$rsrv" 2>/dev/null

# The C test: one process, both devices (shared rdma netns mode).
check "eri_srq_test (TAP below)" sh -c "'$bin' $D0 $G0 $D1 $G1 > /tmp/srq_test.out 2>&1"
sed 's/^/#   /' /tmp/srq_test.out

echo "# rdma statistic show:"
in0 rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   ns0: /'
in1 rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   ns1: /'
if dmesg | grep -i "eri" | grep -qiv "out-of-tree\|verification failed"; then
	dmesg | grep -i "eri" | sed 's/^/#   dmesg: /' | tail -n 20
fi
pair_down
finish
