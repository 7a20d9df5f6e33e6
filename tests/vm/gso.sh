#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Super-packets (Documentation/infiniband/eri.rst, "Super-packets"), in the
# guest, between eri0 and eri1 on the two ends of a veth pair, every
# message checked (ibv_rc_pingpong -c, 64 KiB SENDs):
#   - by default eri0 hands its stack several packets per buffer
#     (tx_pkts / tx_skbs) and eri1 takes them whole (rx_skbs), packets of
#     1344 bytes (Documentation/infiniband/eri.rst, "Segment size"): 49 a
#     message, not the path MTU's 64;
#   - the veth without UDP segmentation offload: the stack cuts eri0's
#     super-packets (skb_segment() through their frag_list) and eri1 gets
#     single datagrams;
#   - the veth without frag_list support: the same, the other way round;
#   - a veth with gso_max_segs 1: eri0 sends single datagrams;
#   - a 9000-byte link: 4096-byte packets, fewer per super-packet.
#
#   tests/vm/gso.sh [inflight]
#
# inflight (what make check runs on the debug kernel): processes killed,
# their QPs destroyed and regions deregistered, while their super-packets
# (which reference the regions' pages) wait in a netem queue that holds
# them for 20 s; the kernel (KASAN, kmemleak) must stay clean when the
# queue lets them go.
# make check runs it on 6.12 (rc.sh moves super-packets on every kernel);
# the debug kernel runs its inflight part.
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

mode=${1:-all}
pair_up eri_gso
port=18700

# ctr DEV NAME: counter NAME of device DEV (0: eri0, 1: eri1).
ctr() {
	local v
	if [ "$1" = 0 ]; then
		v=$(in0 rdma statistic show link "$D0/1")
	else
		v=$(in1 rdma statistic show link "$D1/1")
	fi
	tr -s ' ' '\n' <<<"$v" | awk -v k="$2" 'p { print; exit } $0 == k { p = 1 }'
}

# pingpong NAME [ARGS...]: ibv_rc_pingpong of 64 KiB, 40 exchanges, every
# buffer checked; sets TXP/TXS (eri0's packets and buffers sent) and
# RXP/RXS (eri1's received) to what the run added.
pingpong() {
	local name=$1 txp txs rxp rxs
	shift
	port=$((port + 1))
	txp=$(ctr 0 tx_pkts) txs=$(ctr 0 tx_skbs)
	rxp=$(ctr 1 rx_pkts) rxs=$(ctr 1 rx_skbs)
	server_client_port "$name" "$port" \
		ibv_rc_pingpong -d "$D1" -g "$G1" -s 65536 -n 40 -c -p "$port" "$@" -- \
		ibv_rc_pingpong -d "$D0" -g "$G0" -s 65536 -n 40 -c -p "$port" "$@" "$B"
	TXP=$(($(ctr 0 tx_pkts) - txp)) TXS=$(($(ctr 0 tx_skbs) - txs))
	RXP=$(($(ctr 1 rx_pkts) - rxp)) RXS=$(($(ctr 1 rx_skbs) - rxs))
	echo "#   eri0 sent $TXP packets in $TXS buffers, eri1 received $RXP in $RXS"
}

# skbs_above N: eri0 sent more than N + 8 buffers.
skbs_above() { [ "$(ctr 0 tx_skbs)" -gt $(($1 + 8)) ]; }
# mtu4096: eri0's active MTU is 4096.
mtu4096() { in0 ibv_devinfo -d "$D0" | grep -q 'active_mtu:.*4096'; }
# queued: buffers in netem's queue on veA.
queued() {
	in0 tc -s qdisc show dev veA |
		sed -n 's/.*backlog [^ ]* \([0-9]*\)p.*/\1/p' | head -n1
}
has_queued() { [ "$(queued)" -gt 0 ]; }
drained() { [ "$(queued)" = 0 ]; }
# qbytes: bytes netem on veA has sent, and bytes it holds.
qbytes() {
	in0 tc -s -j qdisc show dev veA | python3 -c '
import json, sys
q = json.load(sys.stdin)[0]
print(q["bytes"], q["backlog"])'
}
# sent_past N: netem on veA has sent more than N bytes.
sent_past() { local s b; read -r s b < <(qbytes); [ "$s" -ge "$1" ]; }
# gone TOOL: no process TOOL is left.
gone() { ! pgrep -x "$1" >/dev/null; }

# more PKTS SKBS: at least 4 packets per buffer.
more() { [ "$2" -gt 0 ] && [ "$1" -ge $((4 * $2)) ]; }
same() { [ "$1" -eq "$2" ] && [ "$1" -gt 0 ]; }

if [ "$mode" = all ]; then
	pingpong "64 KiB SENDs, checked"
	check "eri0 sends super-packets (>= 4 packets per buffer)" more "$TXP" "$TXS"
	check "eri1 takes them whole (>= 4 packets per buffer)" more "$RXP" "$RXS"
	# Segments of 1344 bytes once eri1's first ACK says it takes them: 49
	# packets a message, not the path MTU's 64 (and eri0's ACKs).
	check "eri0 cuts 64 KiB into 1344-byte segments ($TXP packets for 40)" \
		test "$TXP" -ge $((40 * 49)) -a "$TXP" -lt $((40 * 64))

	check "ethtool turns veA's UDP segmentation offload off" \
		in0 ethtool -K veA tx-udp-segmentation off
	pingpong "64 KiB SENDs through software segmentation, checked"
	check "eri0 still hands over super-packets" more "$TXP" "$TXS"
	check "eri1 gets them cut into datagrams" same "$RXP" "$RXS"
	in0 ethtool -K veA tx-udp-segmentation on >/dev/null

	check "ethtool turns veA's frag_list support off" \
		in0 ethtool -K veA tx-scatter-gather-fraglist off
	pingpong "64 KiB SENDs over a link without frag_list support, checked"
	check "eri0 still hands over super-packets (frag_list)" more "$TXP" "$TXS"
	check "eri1 gets them in smaller buffers (the stack split the frag_list)" \
		test "$RXS" -gt "$TXS"
	in0 ethtool -K veA tx-scatter-gather-fraglist on >/dev/null

	in0 ip link set veA gso_max_segs 1
	pingpong "64 KiB SENDs over a link with gso_max_segs 1, checked"
	check "eri0 sends single datagrams (tx_pkts == tx_skbs)" same "$TXP" "$TXS"
	in0 ip link set veA gso_max_segs 65535

	in0 ip link set veA mtu 9000
	in1 ip link set veB mtu 9000
	check "active MTU 4096 at link MTU 9000" wait_for 10 mtu4096
	pingpong "64 KiB SENDs of 4096-byte packets, checked" -m 4096
	# 16 packets a message (64 at MTU 1024), and the ACKs of eri1's.
	check "eri0 sends 4096-byte packets" \
		test "$TXP" -ge $((16 * 40)) -a "$TXP" -lt $((24 * 40))
	check "eri0 sends super-packets of 4096-byte packets" \
		test "$TXS" -gt 0 -a "$TXP" -ge $((2 * TXS))
	in0 ip link set veA mtu 1500
	in1 ip link set veB mtu 1500
fi

if [ "$mode" = all ] || [ "$mode" = inflight ]; then
	# Fixed neighbours: the queue holds ERI's packets, not a neighbour
	# resolution whose probes the queue holds too.
	neigh_pin
	for tool in ib_write_bw ib_send_bw; do
		port=$((port + 1))
		in1 timeout -s KILL 60 "$tool" -d "$D1" -x "$G1" -s 1048576 \
			-n 5000 -p "$port" >/dev/null 2>&1 &
		spid=$!
		wait_for 30 listening "$port"
		sent=$(ctr 0 tx_skbs)
		in0 timeout -s KILL 60 "$tool" -d "$D0" -x "$G0" -s 1048576 \
			-n 5000 -p "$port" "$B" >/dev/null 2>&1 &
		cpid=$!
		# Running: then 20 s on the way out of eri0 (the data, none
		# back), and the process killed with its super-packets in
		# netem's queue.
		check "$tool runs" wait_for 60 skbs_above "$sent"
		in0 tc qdisc add dev veA root netem delay 20s limit 100000
		check "$tool's packets wait in the queue" wait_for 60 has_queued
		pkill -KILL -x "$tool"
		wait "$cpid" "$spid" 2>/dev/null
		check "$tool killed" wait_for 30 gone "$tool"
		qlen=$(queued)
		read -r qsent qheld < <(qbytes)
		echo "#   $tool gone, $qlen packets of its in the queue ($qheld bytes)"
		check "$tool gone with its packets still queued" \
			test "${qlen:-0}" -gt 0
		# The queue lets them go, to QPs that are gone: every byte it
		# held then has left (netem keeps them in order).  Whatever
		# else joined the queue since (the connection's TCP, the
		# neighbour's probes) may still wait.
		check "the queue let them go" \
			wait_for 60 sent_past $((qsent + qheld - 1))
		if ! drained; then
			echo "#   still queued after that:"
			in0 tc -s qdisc show dev veA | sed 's/^/#     /'
			in0 ip neigh show dev veA | sed 's/^/#     /'
			in0 ss -tan | sed 's/^/#     /'
			in0 ip -s neigh show | sed 's/^/#     /'
		fi
		in0 tc qdisc del dev veA root
	done
	pingpong "64 KiB SENDs after that, checked"
fi

echo "# rdma statistic show:"
in0 rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   ns0: /'
in1 rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   ns1: /'
pair_down
finish
