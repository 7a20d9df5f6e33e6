#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# First light, in the guest: eri and eri_sim load, "rdma link add" makes a
# device that ibv_devinfo shows with the device's own attributes, GIDs follow
# the netdev's addresses, port state and MTU follow the link, bad input fails
# cleanly, and create/delete cycles and unload leave nothing behind.
set -u
. "$(dirname "$0")/lib.sh"

NS=eri_fl
dev_attr() { ibv_devinfo -v -d "$1" | awk -v k="$2:" '$1 == k { print $2; exit }'; }
port_state() { ibv_devinfo -d "$1" | awk '$1 == "state:" { print $2; exit }'; }
has_gid() { cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null | grep -qx "$2"; }
no_gid() { ! has_gid "$@"; }
aux_count() { ls /sys/bus/auxiliary/devices 2>/dev/null | grep -c '^eri_sim\.' ; }
in_ns() { ip netns exec "$NS" "$@"; }

modprobe eri_sim
check "modprobe eri_sim loads eri_sim" test -d /sys/module/eri_sim
check "eri is loaded with it (softdep)" test -d /sys/module/eri

ip netns add "$NS"
ip link add veA netns "$NS" type veth peer name veB
ip link set veB up
in_ns ip link set lo up
in_ns ip link set veA up
in_ns ip addr add 198.18.0.1/24 dev veA

check "rdma link add eri0 in a namespace" in_ns rdma link add eri0 type eri netdev veA
# The netdev's name shows where the netdev lives: in the namespace.
check "rdma link show lists eri0 on veA" sh -c "ip netns exec $NS rdma link show | grep -q 'link eri0/1 .*netdev veA'"
check "ibv_devices lists eri0" sh -c "ibv_devices | grep -qw eri0"
ibv_devinfo -v -d eri0 | tee /tmp/devinfo.txt | sed 's/^/#   /'
check "transport is InfiniBand" grep -q "transport:.*InfiniBand" /tmp/devinfo.txt
check "link_layer is Ethernet" grep -q "link_layer:.*Ethernet" /tmp/devinfo.txt
check "port becomes PORT_ACTIVE" wait_for 5 sh -c "ibv_devinfo -d eri0 | grep -q PORT_ACTIVE"
# The device's capabilities, as eri_sim reports them through QUERY_DEVICE.
check "max_qp from the device" test "$(dev_attr eri0 max_qp)" = 16384
check "max_cq from the device" test "$(dev_attr eri0 max_cq)" = 16384
check "max_mr from the device" test "$(dev_attr eri0 max_mr)" = 65536
check "max_qp_wr from the device" test "$(dev_attr eri0 max_qp_wr)" = 16384
check "max_sge from the device" test "$(dev_attr eri0 max_sge)" = 6
check "max_cqe from the device" test "$(dev_attr eri0 max_cqe)" = 4194304
check "fw_ver from the device" test "$(dev_attr eri0 fw_ver)" = 1.0.0
check "ucontext and PD work (ibv_devinfo opened the device)" grep -q "max_pd:.*16384" /tmp/devinfo.txt

# GIDs follow the netdev's addresses.
check "IPv4 GID appears" wait_for 5 has_gid eri0 0000:0000:0000:0000:0000:ffff:c612:0001
in_ns ip addr add 198.18.0.9/24 dev veA
check "added IPv4 address gets a GID" wait_for 5 has_gid eri0 0000:0000:0000:0000:0000:ffff:c612:0009
in_ns ip addr del 198.18.0.9/24 dev veA
check "removed IPv4 address loses its GID" wait_for 5 no_gid eri0 0000:0000:0000:0000:0000:ffff:c612:0009
in_ns ip -6 addr add fd00:e21::5/64 dev veA nodad
check "added IPv6 address gets a GID" wait_for 5 has_gid eri0 fd00:0e21:0000:0000:0000:0000:0000:0005
in_ns ip -6 addr del fd00:e21::5/64 dev veA
check "removed IPv6 address loses its GID" wait_for 5 no_gid eri0 fd00:0e21:0000:0000:0000:0000:0000:0005

# Link state and MTU follow the netdev; a port change is an IB event.
stdbuf -oL ibv_asyncwatch -d eri0 >/tmp/async.txt 2>&1 &
watch_pid=$!
check "ibv_asyncwatch is listening" wait_for 20 grep -q "async event FD" /tmp/async.txt
in_ns ip link set veA down
check "link down gives PORT_DOWN" wait_for 5 sh -c "test \"\$(ibv_devinfo -d eri0 | awk '\$1 == \"state:\" { print \$2 }')\" = PORT_DOWN"
check "link down raises IBV_EVENT_PORT_ERR" wait_for 5 grep -q IBV_EVENT_PORT_ERR /tmp/async.txt
in_ns ip link set veA up
check "link up gives PORT_ACTIVE" wait_for 5 sh -c "ibv_devinfo -d eri0 | grep -q PORT_ACTIVE"
check "link up raises IBV_EVENT_PORT_ACTIVE" wait_for 5 grep -q IBV_EVENT_PORT_ACTIVE /tmp/async.txt
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
sed 's/^/#   /' /tmp/async.txt
for m in "1500 1024" "2200 2048" "9000 4096" "700 512"; do
	set -- $m
	in_ns ip link set veA mtu "$1"
	check "netdev MTU $1 gives active_mtu $2" wait_for 5 sh -c "ibv_devinfo -d eri0 | grep -q 'active_mtu:.*$2 '"
done
in_ns ip link set veA mtu 1500

# Bad input: a clear error and nothing left behind.
before=$(aux_count)
check_fails "unknown netdev is refused" in_ns rdma link add eri1 type eri netdev nosuchdev
check_fails "netdev that already has an ERI is refused" in_ns rdma link add eri1 type eri netdev veA
check_fails "taken name is refused" rdma link add eri0 type eri netdev veB
check_fails "loopback is refused" in_ns rdma link add eri1 type eri netdev lo
check "refusals leave no device behind" test "$(aux_count)" = "$before"
check "refusals leave no IB device behind" test "$(ls /sys/class/infiniband | grep -c '^eri')" = 1

check "rdma link delete eri0" rdma link delete eri0
check "eri0 is gone" wait_for 5 sh -c "! test -e /sys/class/infiniband/eri0"
check "its device is gone from the bus" wait_for 5 sh -c "test \$(ls /sys/bus/auxiliary/devices | grep -c '^eri_sim\.') = 0"

# 50 create/delete cycles.
fails=0
for i in $(seq 50); do
	in_ns rdma link add eri0 type eri netdev veA || fails=$((fails + 1))
	rdma link delete eri0 || fails=$((fails + 1))
done
check "50 create/delete cycles" test "$fails" = 0

# Unregistering the netdev removes the device.
in_ns rdma link add eri0 type eri netdev veA
check "device exists before its netdev goes" test -e /sys/class/infiniband/eri0
in_ns ip link del veA
check "deleting the netdev removes the device" wait_for 10 sh -c "! test -e /sys/class/infiniband/eri0 && test \$(ls /sys/bus/auxiliary/devices | grep -c '^eri_sim\.') = 0"

# A device left in place goes away with the module.
ip link add veC type veth peer name veD
ip link set veC up
check "device on a second veth" rdma link add eri5 type eri netdev veC
check "eri refcount is 0 with no users" test "$(cat /sys/module/eri/refcnt)" = 0
check "rmmod eri_sim with a device present" rmmod eri_sim
check "its device is gone" sh -c "! test -e /sys/class/infiniband/eri5"
check "rmmod eri" rmmod eri
check "modules are unloaded" sh -c "! test -d /sys/module/eri && ! test -d /sys/module/eri_sim"
ip link del veC
ip netns del "$NS"
finish
