#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A hostile network, in the guest: datagrams to eri1's UDP port from the
# namespace of eri0 (tests/vm/eri_spray.py), while the devices work.
#   1. 300 datagrams to the GSI QP with its Q_Key that are no MAD (another
#      base version, a subnet management class, 200 bytes): the device
#      drops them and counts them in mad_drops, ib_mad never sees them (no
#      line in the kernel log), and the connection manager still works
#      (an rdma_cm ping-pong, rping with verification, afterwards);
#   2. random bytes, short and truncated headers, other wire versions,
#      random opcodes, flags and keys, spoofed ACKs, NAKs, READ and atomic
#      responses, to the live QPs and to others, all the while
#      ibv_rc_pingpong moves 5000 4 KiB messages with buffer validation
#      (-c): it completes, and rx_drops counts what was dropped.
# vm-run fails the run on any WARNING, BUG, KASAN or lockdep report in the
# kernel log.  make check runs it on the debug kernel only, where KASAN
# watches every placement it provokes.
# check-flavours: none
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

: "${ERI_RDMA_CORE:?run through vm-run --rdma-core}"
spray=$(dirname "$0")/eri_spray.py

pair_up eri_hostile
dmesg -C

# 1. Non-MADs to QP1.
m0=$(hwstat mad_drops)
d0=$(hwstat rx_drops)
in0 python3 "$spray" mad "$B" 300
# at_least NAME N: the hw counter NAME of both devices is N or more.
at_least() { [ "$(hwstat "$1")" -ge "$2" ]; }
check "300 non-MADs to QP1 counted in mad_drops" wait_for 10 at_least mad_drops $((m0 + 300))
echo "# mad_drops $m0 -> $(hwstat mad_drops), rx_drops $d0 -> $(hwstat rx_drops)"
check "ib_mad logged nothing about them" sh -c "! dmesg | grep -i mad"
server_client "rping -v through the connection manager afterwards" \
	rping -s -a "$B" -C 10 -v -- rping -c -a "$B" -C 10 -v

# 2. A flood during a byte-checked transfer.  The sprayer starts first (Python
# starts slowly under TCG) and waits on a FIFO for the live QPN and PSNs.
rm -f /tmp/spray.fifo
mkfifo /tmp/spray.fifo
# (ip netns exec execs python: $! is the sprayer's pid.)
ip netns exec "$NS0" python3 "$spray" flood "$B" 240 - < /tmp/spray.fifo > /tmp/spray.out &
fpid=$!
exec 3> /tmp/spray.fifo
# (Line-buffered: the addresses are read while it runs.)
in1 timeout 240 stdbuf -oL ibv_rc_pingpong -d "$D1" -g "$G1" -p 18851 -s 4096 -n 5000 -c > /tmp/hs.out 2>&1 &
spid=$!
wait_for 30 listening 18851
in0 timeout 240 ibv_rc_pingpong -d "$D0" -g "$G0" -p 18851 -s 4096 -n 5000 -c "$B" > /tmp/hc.out 2>&1 &
cpid=$!
wait_for 30 grep -q "remote address" /tmp/hs.out
# "local address: ... QPN 0x000011, PSN 0x1b2c3d, ...": eri1's QP, what it
# sends, and what it expects.
qpn=$(sed -n 's/.*local address.*QPN \(0x[0-9a-f]*\).*/\1/p' /tmp/hs.out)
lpsn=$(sed -n 's/.*local address.*PSN \(0x[0-9a-f]*\).*/\1/p' /tmp/hs.out)
rpsn=$(sed -n 's/.*remote address.*PSN \(0x[0-9a-f]*\).*/\1/p' /tmp/hs.out)
check "the server's QPN and PSNs ($qpn $lpsn $rpsn)" test -n "$qpn" -a -n "$lpsn" -a -n "$rpsn"
d0=$(hwstat rx_drops)
echo "${qpn:-0x11}:${lpsn:-0}:${rpsn:-0}" >&3
exec 3>&-
check "ibv_rc_pingpong -c under the flood: the server completes" wait "$spid"
check "ibv_rc_pingpong -c under the flood: the client completes" wait "$cpid"
kill "$fpid" 2>/dev/null
wait "$fpid"
cat /tmp/spray.out
in1 nstat -az Udp* 2>/dev/null | sed 's/^/#   eri1 namespace: /'
tail -n 2 /tmp/hs.out | sed 's/^/#   server: /'
tail -n 2 /tmp/hc.out | sed 's/^/#   client: /'
d1=$(hwstat rx_drops)
echo "# rx_drops $d0 -> $d1"
check "rx_drops counts the flood" test "$d1" -gt "$d0"

pair_down
finish
