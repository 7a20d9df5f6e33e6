#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# UD queue pairs and address handles, in the guest: ibv_ud_pingpong between
# eri0 and eri1 (two namespaces, one veth) with its buffers checked, polling
# and with events, at the MTU of a 1500-byte link and of a 9000-byte one;
# ib_mad brings up each device's GSI QP without complaint.
# make check runs it on 6.1 and 6.12 (6.1-cloud is 6.1 with fewer drivers).
# check-flavours: 6.1 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

dmesg -C
check "modprobe ib_umad" modprobe ib_umad
pair_up eri_ud
ibv_devinfo -v -d "$D0" 2>&1 | grep -E 'max_ah|active_mtu|link_layer|GID\[' | sed 's/^/#   /'

# ib_mad made QP1 on each device: it says so when it cannot.
has_umad() { grep -qx "$1" /sys/class/infiniband_mad/umad*/ibdev; }
check "ib_umad has a port of $D0" has_umad "$D0"
check "ib_mad created QP1 on both devices (no error in dmesg)" \
	sh -c '! dmesg | grep -q "Couldn.t create ib_mad QP1"'

port=18600
for size in 1024 256 0; do
	port=$((port + 1))
	server_client "ibv_ud_pingpong -s $size, 200 iterations, checked" \
		ibv_ud_pingpong -d "$D1" -g "$G1" -s "$size" -n 200 -c -p "$port" -- \
		ibv_ud_pingpong -d "$D0" -g "$G0" -s "$size" -n 200 -c -p "$port" "$B"
done
port=$((port + 1))
server_client "ibv_ud_pingpong -e (CQ events) -s 512, 100 iterations, checked" \
	ibv_ud_pingpong -d "$D1" -g "$G1" -s 512 -n 100 -c -e -p "$port" -- \
	ibv_ud_pingpong -d "$D0" -g "$G0" -s 512 -n 100 -c -e -p "$port" "$B"
port=$((port + 1))
check_fails "ibv_ud_pingpong refuses 2048 bytes at MTU 1500 (active MTU 1024)" \
	in0 timeout 20 ibv_ud_pingpong -d "$D0" -g "$G0" -s 2048 -n 1 -p "$port" "$B"

# A 9000-byte link: the active MTU becomes 4096.
in0 ip link set veA mtu 9000
in1 ip link set veB mtu 9000
check "active MTU 4096 on $D0 and $D1 at link MTU 9000" \
	wait_for 10 sh -c "ibv_devinfo -d $D0 | grep -q 'active_mtu:.*4096' && ibv_devinfo -d $D1 | grep -q 'active_mtu:.*4096'"
port=$((port + 1))
server_client "ibv_ud_pingpong -s 4096 at MTU 9000, 200 iterations, checked" \
	ibv_ud_pingpong -d "$D1" -g "$G1" -s 4096 -n 200 -c -p "$port" -- \
	ibv_ud_pingpong -d "$D0" -g "$G0" -s 4096 -n 200 -c -p "$port" "$B"

echo "# rdma statistic show:"
in0 rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   ns0: /'
in1 rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   ns1: /'
if dmesg | grep -i "eri\|mad" | grep -qiv "out-of-tree\|verification failed"; then
	dmesg | grep -i "eri\|mad" | sed 's/^/#   dmesg: /' | tail -n 20
fi
pair_down
finish
