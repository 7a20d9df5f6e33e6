#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma_cm over ERI, in the guest: the connection manager's MADs travel over
# the GSI QPs of eri0 and eri1 (two namespaces, one veth).  rping with data
# verification, ucmatose, perftest with -R (latency and bandwidth); a client
# killed with traffic in flight (the server sees the disconnect and the
# device is left with no RC QP); a peer that vanishes (every packet from it
# dropped) under ib_write_bw is reported by the client within a minute.
# make check runs it on 6.12 only (6.1's rdma_cm is covered by rc.sh's perftest
# -R and rping there).
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

check "modprobe rdma_ucm" modprobe rdma_ucm
pair_up eri_cm

server_client "rping -C 10 -V (verified)" \
	rping -s -a "$B" -C 10 -V -- \
	rping -c -a "$B" -C 10 -V
server_client "rping -C 200 -S 4000 -V (verified)" \
	rping -s -a "$B" -C 200 -S 4000 -V -- \
	rping -c -a "$B" -C 200 -S 4000 -V
server_client "ucmatose, 4 connections, 20 messages each" \
	ucmatose -c 4 -C 20 -- \
	ucmatose -s "$B" -c 4 -C 20
server_client "ib_send_lat -R -n 200" \
	ib_send_lat -R -d "$D1" -n 200 -F -p 18601 -- \
	ib_send_lat -R -d "$D0" -n 200 -F -p 18601 "$B"
server_client "ib_write_bw -R -n 200" \
	ib_write_bw -R -d "$D1" -n 200 -F -p 18602 -- \
	ib_write_bw -R -d "$D0" -n 200 -F -p 18602 "$B"

rc_qps() { rdma resource show qp link "$1/1" 2>/dev/null | grep -c 'type RC'; }

tx_pkts() { in0 rdma statistic show link "$D0/1" | grep -o 'tx_pkts [0-9]*' | cut -d' ' -f2; }
busy() { [ "$(rc_qps "$D0")" -gt 0 ] && [ "$(tx_pkts)" -gt $((tx0 + 1000)) ]; }

# A client killed with traffic in flight: its QP and connection go with the
# process; the server learns of it (DREQ, or its own QP failing) and exits.
in1 timeout "$T" rping -s -a "$B" -C 0 -S 16000 > /tmp/srv.out 2>&1 &
spid=$!
sleep 2
tx0=$(tx_pkts)
# ip netns exec execs rping: $! is rping itself.
ip netns exec "$NS0" rping -c -a "$B" -C 0 -S 16000 > /tmp/cli.out 2>&1 &
cpid=$!
check "rping under way (RC QP on $D0, > 1000 packets sent)" wait_for 30 busy
kill -9 "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
srv_gone() { ! kill -0 "$spid" 2>/dev/null; }
check "server exits within 60 s of the client's death" wait_for 60 srv_gone
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
sed 's/^/#   server: /' /tmp/srv.out | tail -n 3
no_rc() { [ "$(rc_qps "$D0")" = 0 ] && [ "$(rc_qps "$D1")" = 0 ]; }
check "no RC QP left on $D0 and $D1" wait_for 30 no_rc

# A peer that vanishes while the client writes to it: every packet of the
# server is dropped from then on, so the client's writes go unacknowledged
# until its retries run out (rdma_cm's timeout, perftest's retry count 7).
# ip netns exec execs timeout: $! is timeout, ib_write_bw its child.
ip netns exec "$NS1" timeout "$T" ib_write_bw -R -d "$D1" -D 100 -F -p 18603 > /tmp/srv.out 2>&1 &
spid=$!
sleep 2
tx0=$(tx_pkts)
in0 timeout "$T" ib_write_bw -R -d "$D0" -D 100 -F -p 18603 "$B" > /tmp/cli.out 2>&1 &
cpid=$!
check "ib_write_bw -R -D 100 under way" wait_for 30 busy
s0=$SECONDS
in1 tc qdisc add dev veB root netem loss 100%
cli_gone() { ! kill -0 "$cpid" 2>/dev/null; }
check "client gives up within 60 s of the peer vanishing" wait_for 60 cli_gone
wait "$cpid"
crc=$?
echo "# client exit $crc after $((SECONDS - s0)) s:"
grep -i 'error\|fail\|status' /tmp/cli.out | sed 's/^/#   client: /' | tail -n 3
check "... and reports the failure (exit $crc, not a timeout)" test "$crc" != 0 -a "$crc" != 124
check "... a completion with RETRY_EXC_ERR (status 12)" grep -qi 'status.*12\|retry' /tmp/cli.out
in1 tc qdisc del dev veB root
# The server waits, rightly, for a client that is gone (it has nothing
# outstanding to time out): end it, timeout's child.
pkill -9 -P "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check "no RC QP left on $D0 and $D1 afterwards" wait_for 60 no_rc
rdma resource show qp 2>&1 | grep -v 'type GSI' | sed 's/^/#   /'

echo "# rdma statistic show:"
in0 rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   ns0: /'
in1 rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   ns1: /'
pair_down
finish
