#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A latency budget (docs/design/latency.md), in the guest: a 2-byte RC
# SEND ping-pong (ib_send_lat) on ERI and on rdma_rxe over the same veth
# pair (both ends in the initial namespace, routed through the veth as
# tests/vm/eri_pair.sh's veth_up_local does), each run once untraced and
# once traced, cut into stages by tests/bench/latency_budget.py:
#
#   scripts/vm-run --kernel 6.1 --modules DIR --rdma-core PREFIX \
#           tests/bench/latency_budget.sh [ITERATIONS]
#
# ERI is traced with its eri_sim tracepoints, rdma_rxe with the function
# tracer on its stage functions; both with the mono clock.  Tracing adds
# its own cost to every stage: compare the stages, and the untraced runs
# for the totals.  The two busy-polling ends run on CPUs of their own
# (taskset): sharing one, each waits for the other's time slice.
set -u
. "$(dirname "$0")/../vm/lib.sh"
. "$(dirname "$0")/../vm/eri_pair.sh"

n=${1:-2000}
budget=$(dirname "$0")/latency_budget.py
T=/sys/kernel/tracing
NS0='' NS1=''
port=18600

check "modprobe eri_sim" modprobe eri_sim
check "modprobe rdma_rxe" modprobe rdma_rxe
veth_up_local
for t in eri rxe; do
	check "rdma link add ${t}0" rdma link add "${t}0" type "$t" netdev veA
	check "rdma link add ${t}1" rdma link add "${t}1" type "$t" netdev veB
done
mountpoint -q "$T" || mount -t tracefs nodev "$T"
echo mono > "$T/trace_clock"
echo 16384 > "$T/buffer_size_kb"

# lat DEV0 DEV1 LABEL: ib_send_lat -s 2 between DEV1 (server) and DEV0;
# prints perftest's summary row.
lat() {
	local g0 g1
	g0=$(gid_index "$1" "$A") g1=$(gid_index "$2" "$B")
	port=$((port + 1))
	timeout 120 taskset -c 1 ib_send_lat -d "$2" -x "$g1" -F -s 2 -n "$n" \
		-p "$port" > /tmp/lat.s 2>&1 &
	wait_for 20 listening "$port"
	timeout 120 taskset -c 0 ib_send_lat -d "$1" -x "$g0" -F -s 2 -n "$n" \
		-p "$port" "$B" > /tmp/lat.c 2>&1
	wait
	awk -v l="$3" '$1 == 2 { print "# " l ": t_min " $3 ", t_typical " $5 \
		", t_avg " $6 ", p99 " $8 " us" }' /tmp/lat.c > /tmp/lat.sum
	test -s /tmp/lat.sum
}

# run DEV0 DEV1 LABEL: lat as a check, its summary after.
run() {
	check "$3" lat "$@"
	cat /tmp/lat.sum
}

for t in eri rxe; do
	wait_for 10 gid_index "${t}0" "$A"
	wait_for 10 gid_index "${t}1" "$B"
	run "${t}0" "${t}1" "$t untraced"
done

echo > "$T/trace"
echo 1 > "$T/events/eri_sim/enable"
run eri0 eri1 "eri traced"
echo 0 > "$T/events/eri_sim/enable"
out=${ERI_OUT:-/tmp}
cp "$T/trace" "$out/eri.trace"
echo "# ERI stages (eri_sim tracepoints):"
python3 "$budget" eri "$out/eri.trace" | sed 's/^/#   /'

fns="rxe_post_send rxe_requester rxe_xmit_packet rxe_udp_encap_recv rxe_responder rxe_cq_post"
for f in $fns; do
	check "function tracer can trace $f" grep -q "^$f\b" "$T/available_filter_functions"
done
echo "$fns" | tr ' ' '\n' > "$T/set_ftrace_filter"
echo > "$T/trace"
echo function > "$T/current_tracer"
run rxe0 rxe1 "rxe traced"
echo 0 > "$T/tracing_on"
cp "$T/trace" "$out/rxe.trace"
echo nop > "$T/current_tracer"
echo > "$T/set_ftrace_filter"
echo 1 > "$T/tracing_on"
echo "# rdma_rxe stages (function tracer):"
python3 "$budget" rxe "$out/rxe.trace" | sed 's/^/#   /'

for t in eri rxe; do
	rdma link delete "${t}0"
	rdma link delete "${t}1"
done
finish
