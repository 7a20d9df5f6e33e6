#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Doorbells amortised (Documentation/infiniband/eri.rst, "Polling a drained
# queue"), in the guest: eri0 and eri1 in two namespaces on one veth.  Over
# a veth every message's ACK is back before the producer posts again, so
# without the device polling its drained send queue each 64-byte write
# would cost a kick (a system call).  A streaming ib_write_bw must make at
# most one kick per ten messages, with the device's looks finding the
# rest; a ping-pong (ib_send_lat), whose every post answers the peer, must
# never make the device poll: a kick per message, as before.
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

dmesg -C
pair_up eri_kicks

# stat0 NAME: the hw counter NAME of eri0 (the client's device).
stat0() {
	in0 rdma statistic show link "$D0/1" | tr -s ' ' '\n' |
		awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'
}

n=20000
k0=$(stat0 sq_kicks) p0=$(stat0 sq_polls)
server_client_port "ib_write_bw 64 B, $n messages" 18650 \
	ib_write_bw -d "$D1" -x "$G1" -F -s 64 -n "$n" -p 18650 -- \
	ib_write_bw -d "$D0" -x "$G0" -F -s 64 -n "$n" -p 18650 "$B"
k=$(($(stat0 sq_kicks) - k0)) p=$(($(stat0 sq_polls) - p0))
echo "# ib_write_bw 64 B: $n messages, $k kicks, $p looks that found work"
grep -E '^ *64 ' /tmp/cli.out | sed 's/^/#   /'
check "at most one kick per ten streamed 64-byte writes ($k for $n)" \
	test "$k" -le $((n / 10))
check "the device's looks at the drained queue found the writes ($p)" \
	test "$p" -gt 0

n=2000
k0=$(stat0 sq_kicks) p0=$(hwstat sq_polls)
server_client_port "ib_send_lat 2 B, $n exchanges" 18651 \
	ib_send_lat -d "$D1" -x "$G1" -F -s 2 -n "$n" -p 18651 -- \
	ib_send_lat -d "$D0" -x "$G0" -F -s 2 -n "$n" -p 18651 "$B"
k=$(($(stat0 sq_kicks) - k0)) p=$(($(hwstat sq_polls) - p0))
echo "# ib_send_lat 2 B: $n exchanges, $k kicks by the client, $p looks that found work"
grep -E '^ *2 ' /tmp/cli.out | sed 's/^/#   /'
# A post that finds the previous message not yet acknowledged needs no kick:
# the device takes it when the ACK comes.  On a loaded host the peer's
# answer now and then overtakes that ACK (1891 kicks for 2000 on a slow
# machine); the looks below are what must never replace the kicks.
check "a ping-pong kicks for nearly every message ($k for $n)" \
	test "$k" -ge $((n - n / 10))
check "and never makes either device poll ($p)" test "$p" -eq 0

if dmesg | grep -i "eri" | grep -qiv "out-of-tree\|verification failed"; then
	dmesg | grep -i "eri" | sed 's/^/#   dmesg: /' | tail -n 20
fi
pair_down
finish
