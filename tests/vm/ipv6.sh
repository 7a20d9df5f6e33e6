#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ERI over IPv6, in the guest: eri0 and eri1 (two namespaces, one veth)
# get IPv6 addresses from 2001:2::/48 (RFC 5180's benchmarking prefix,
# nodad so that they are usable at once) beside their IPv4 ones; ib_core
# lists them (and the link-local ones) as RoCEv2 GIDs.  Over them:
# ibv_rc_pingpong (global and link-local), ibv_srq_pingpong (4 QPs on one
# SRQ) and ibv_ud_pingpong with the IPv6 GID (-g, buffers checked), rping
# -V, ucmatose and perftest -R at the IPv6 addresses (rdma_cm, its MADs
# over the GSI QPs), perftest with the IPv6 GID (-x).  Each run must have
# crossed the veth as UDP over IPv6 and not over IPv4: the receiving
# namespace's Udp6InDatagrams grows by at least the messages sent (the
# device's UDP socket counts what it takes), its UDP/IPv4 count not at all.  The out-of-band TCP exchange
# of the pingpongs and perftest stays on IPv4: only the RDMA traffic is the
# test's.  A path whose GIDs are of two families is refused (AH, QP);
# IPv4 still works beside IPv6.  perftest -R at IPv6 addresses runs with
# Debian trixie's perftest (ERI_PERFTEST), as Debian 12's cannot.
# make check runs it on 6.1 only (Debian 12's kernel; on 6.12 by hand).
# check-flavours: 6.1
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

A6=2001:2::1
B6=2001:2::2

check "modprobe rdma_ucm" modprobe rdma_ucm
pair_up eri_v6
check "IPv6 address $A6 on veA" in0 ip -6 addr add "$A6/64" dev veA nodad
check "IPv6 address $B6 on veB" in1 ip -6 addr add "$B6/64" dev veB nodad
check "ping $B6 from $A6" in0 ping -6 -c 2 -W 5 "$B6"
check "$D0 gets the RoCEv2 GID of $A6" wait_for 10 gid_index "$D0" "$A6"
check "$D1 gets the RoCEv2 GID of $B6" wait_for 10 gid_index "$D1" "$B6"
H0=$(gid_index "$D0" "$A6") || H0=
H1=$(gid_index "$D1" "$B6") || H1=
# ll_index DEV: prints the index of DEV's link-local RoCEv2 GID.
ll_index() {
	local f i
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/}
		grep -q '^fe80:' "$f" 2>/dev/null || continue
		[ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$i")" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}
check "$D0 lists a link-local RoCEv2 GID too" wait_for 10 ll_index "$D0"
check "$D1 lists a link-local RoCEv2 GID too" wait_for 10 ll_index "$D1"
L0=$(ll_index "$D0") || L0=
L1=$(ll_index "$D1") || L1=
echo "# GIDs of $D0: IPv4 $G0, IPv6 $H0, link-local $L0"
in0 ibv_devinfo -v -d "$D0" 2>&1 | grep -E 'active_mtu|GID\[' | sed 's/^/#   /'
if [ -z "$H0" ] || [ -z "$H1" ]; then
	pair_down
	finish
	exit 1
fi

# UDP datagrams the namespace of eri1 took, over IPv6 and over IPv4.
udp6_in() { in1 awk '$1 == "Udp6InDatagrams" { print $2 }' /proc/net/snmp6; }
udp4_in() { in1 awk '$1 == "Udp:" && $2 != "InDatagrams" { print $2 }' /proc/net/snmp; }

# over_ipv6 MIN CMD...: CMD (a server_client, which counts itself), and eri1's
# namespace took at least MIN datagrams over IPv6 and none over IPv4.
over_ipv6() {
	local min=$1 u6 u4
	shift
	u6=$(udp6_in)
	u4=$(udp4_in)
	"$@"
	u6=$(($(udp6_in) - u6))
	u4=$(($(udp4_in) - u4))
	check "... over IPv6: $u6 UDP/IPv6 datagrams in (>= $min), $u4 UDP/IPv4" \
		test "$u6" -ge "$min" -a "$u4" = 0
}

port=18700
# ------------------------------------------------------------ verbs, RC and UD
for size in 4096 1 65536; do
	port=$((port + 1))
	over_ipv6 100 server_client_port \
		"ibv_rc_pingpong -g IPv6 -s $size, 100 iterations, checked" "$port" \
		ibv_rc_pingpong -d "$D1" -g "$H1" -s "$size" -n 100 -c -p "$port" -- \
		ibv_rc_pingpong -d "$D0" -g "$H0" -s "$size" -n 100 -c -p "$port" "$B"
done
port=$((port + 1))
over_ipv6 100 server_client_port \
	"ibv_rc_pingpong -g IPv6 -e (CQ events) -s 1000, 100 iterations, checked" "$port" \
	ibv_rc_pingpong -d "$D1" -g "$H1" -s 1000 -n 100 -c -e -p "$port" -- \
	ibv_rc_pingpong -d "$D0" -g "$H0" -s 1000 -n 100 -c -e -p "$port" "$B"
port=$((port + 1))
over_ipv6 100 server_client_port \
	"ibv_rc_pingpong -g link-local IPv6 -s 4096, 100 iterations, checked" "$port" \
	ibv_rc_pingpong -d "$D1" -g "$L1" -s 4096 -n 100 -c -p "$port" -- \
	ibv_rc_pingpong -d "$D0" -g "$L0" -s 4096 -n 100 -c -p "$port" "$B"
port=$((port + 1))
over_ipv6 200 server_client_port \
	"ibv_srq_pingpong -g IPv6 -q 4 -s 4096, 200 iterations, checked" "$port" \
	ibv_srq_pingpong -d "$D1" -g "$H1" -q 4 -s 4096 -n 200 -c -p "$port" -- \
	ibv_srq_pingpong -d "$D0" -g "$H0" -q 4 -s 4096 -n 200 -c -p "$port" "$B"
for size in 1024 0; do
	port=$((port + 1))
	over_ipv6 200 server_client \
		"ibv_ud_pingpong -g IPv6 -s $size, 200 iterations, checked" \
		ibv_ud_pingpong -d "$D1" -g "$H1" -s "$size" -n 200 -c -p "$port" -- \
		ibv_ud_pingpong -d "$D0" -g "$H0" -s "$size" -n 200 -c -p "$port" "$B"
done
port=$((port + 1))
check_fails "ibv_ud_pingpong -g IPv6 refuses 2048 bytes at MTU 1500 (active MTU 1024)" \
	in0 timeout 20 ibv_ud_pingpong -d "$D0" -g "$H0" -s 2048 -n 1 -p "$port" "$B"

# A path from an IPv6 GID to an IPv4 one.  The server, which learns the
# client's IPv6 GID first, builds its path from its IPv4 GID to it: its AH
# (UD) or its QP's RTR (RC) is refused, and the client, left without an
# answer, fails too.  Neither waits for its timeout.
mixed() {
	local tool=$1 msg=$2 srv crc src
	port=$((port + 1))
	in1 timeout 30 "$tool" -d "$D1" -g "$G1" -n 5 -p "$port" >/tmp/srv.out 2>&1 &
	srv=$!
	wait_for 30 listening "$port" || sleep 2
	in0 timeout 30 "$tool" -d "$D0" -g "$H0" -n 5 -p "$port" "$B" >/tmp/cli.out 2>&1
	crc=$?
	wait "$srv"
	src=$?
	sed 's/^/#   server: /' /tmp/srv.out | tail -n 3
	sed 's/^/#   client: /' /tmp/cli.out | tail -n 2
	[ "$crc" != 0 ] && [ "$crc" != 124 ] && [ "$src" != 0 ] &&
		[ "$src" != 124 ] && grep -q "$msg" /tmp/srv.out
}
check "ibv_ud_pingpong, IPv4 GID to IPv6 GID: the AH is refused" \
	mixed ibv_ud_pingpong "Failed to create AH"
check "ibv_rc_pingpong, IPv4 GID to IPv6 GID: RTR is refused" \
	mixed ibv_rc_pingpong "Failed to modify QP to RTR"

# ------------------------------------------------------------------ rdma_cm
over_ipv6 20 server_client "rping -a $B6 -C 10 -V (verified)" \
	rping -s -a "$B6" -C 10 -V -- \
	rping -c -a "$B6" -C 10 -V
over_ipv6 200 server_client "rping -a $B6 -C 100 -S 4000 -V (verified)" \
	rping -s -a "$B6" -C 100 -S 4000 -V -- \
	rping -c -a "$B6" -C 100 -S 4000 -V
over_ipv6 20 server_client "ucmatose at $B6, 4 connections, 20 messages each" \
	ucmatose -b "$B6" -c 4 -C 20 -- \
	ucmatose -s "$B6" -c 4 -C 20

# ----------------------------------------------------------------- perftest
for t in ib_write_bw ib_read_bw ib_send_bw ib_send_lat ib_write_lat; do
	port=$((port + 1))
	over_ipv6 200 server_client_port "$t -x IPv6 -n 200" "$port" \
		"$t" -d "$D1" -x "$H1" -n 200 -F -p "$port" -- \
		"$t" -d "$D0" -x "$H0" -n 200 -F -p "$port" "$B"
done
# perftest -R (rdma_cm) at the server's IPv6 address.  Debian 12's perftest
# resolves -R addresses as IPv4 only; Debian trixie's (scripts/perftest.sh,
# which make check builds and hands over as ERI_PERFTEST, its bin
# directory) takes --ipv6-addr.
if [ -n "${ERI_PERFTEST:-}" ]; then
	for t in ib_send_lat ib_write_bw ib_read_lat; do
		port=$((port + 1))
		over_ipv6 200 server_client "$t -R --ipv6-addr at $B6 (perftest 25.01)" \
			"$ERI_PERFTEST/$t" -R --ipv6-addr -d "$D1" -n 200 -F -p "$port" -- \
			"$ERI_PERFTEST/$t" -R --ipv6-addr -d "$D0" -n 200 -F -p "$port" "$B6"
	done
else
	echo "ok - perftest -R at $B6 # SKIP no ERI_PERFTEST (scripts/perftest.sh; vm-run --env)"
fi

# ------------------------------------------------- IPv4 beside IPv6, after it
port=$((port + 1))
server_client_port "ibv_rc_pingpong -g IPv4 -s 4096 still works, checked" "$port" \
	ibv_rc_pingpong -d "$D1" -g "$G1" -s 4096 -n 100 -c -p "$port" -- \
	ibv_rc_pingpong -d "$D0" -g "$G0" -s 4096 -n 100 -c -p "$port" "$B"
server_client "rping -a $B -C 10 -V still works (verified)" \
	rping -s -a "$B" -C 10 -V -- \
	rping -c -a "$B" -C 10 -V

echo "# rdma statistic show:"
in0 rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   ns0: /'
in1 rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   ns1: /'
pair_down
finish
