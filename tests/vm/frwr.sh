#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fast-registration MRs, in the guest: the test module
# tests/kmod/eri_frwr_test.ko (built by scripts/build-modules.sh, installed by
# vm-run --modules) runs its checks in module init between eri0 (requester)
# and eri1 (responder) and fails to load unless all passed.  Its topology is
# fixed: eri0 in namespace eri_fr0 on veA (198.18.0.1/24), eri1 in eri_fr1 on
# veB (198.18.0.2/24), a veth between.  Ends by removing everything it made
# and unloading eri_sim and eri.
set -u
. "$(dirname "$0")/lib.sh"

A=198.18.0.1
B=198.18.0.2
NS0=eri_fr0
NS1=eri_fr1

gid_of() { printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ }; }
has_gid() { cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null | grep -qx "$2"; }

check "modprobe eri_sim" modprobe eri_sim
ip netns add "$NS0"
ip netns add "$NS1"
ip link add veA netns "$NS0" type veth peer name veB netns "$NS1"
ip -n "$NS0" link set lo up
ip -n "$NS1" link set lo up
ip -n "$NS0" addr add "$A/24" dev veA
ip -n "$NS1" addr add "$B/24" dev veB
ip -n "$NS0" link set veA up
ip -n "$NS1" link set veB up
check "ping $B from $A" ip netns exec "$NS0" ping -c 1 -W 5 "$B"

check "rdma link add eri0" ip netns exec "$NS0" rdma link add eri0 type eri netdev veA
check "rdma link add eri1" ip netns exec "$NS1" rdma link add eri1 type eri netdev veB
check "eri0 gets the GID of $A" wait_for 10 has_gid eri0 "$(gid_of $A)"
check "eri1 gets the GID of $B" wait_for 10 has_gid eri1 "$(gid_of $B)"

if [ "$T_FAIL" -eq 0 ]; then
	s0=$SECONDS
	timeout 240 modprobe eri_frwr_test > /tmp/fr.out 2>&1
	rc=$?
	secs=$((SECONDS - s0))
	# The module's lines: it loads once per boot.
	dmesg | sed 's/^\[[ 0-9.]*\] //' | grep '^eri_frwr_test: ' > /tmp/fr.log
	sed 's/^eri_frwr_test: /#   /' /tmp/fr.log
	sed 's/^/#   modprobe: /' /tmp/fr.out
	check "modprobe eri_frwr_test: every check passed (exit $rc, ${secs} s)" test "$rc" = 0
	nok=$(grep -c '^eri_frwr_test: ok - ' /tmp/fr.log)
	check "... it reported $nok checks, none failed" \
		sh -c "test $nok -ge 40 && ! grep -q '^eri_frwr_test: not ok' /tmp/fr.log"
	# init failed: nothing to remove.
	if [ "$rc" = 0 ]; then
		check "rmmod eri_frwr_test" rmmod eri_frwr_test
	fi
fi

check "delete eri0" ip netns exec "$NS0" rdma link delete eri0
check "delete eri1" ip netns exec "$NS1" rdma link delete eri1
check "devices are gone" wait_for 10 sh -c "! test -e /sys/class/infiniband/eri0 && ! test -e /sys/class/infiniband/eri1"
ip netns del "$NS0"
ip netns del "$NS1"
check "rmmod eri_sim" rmmod eri_sim
check "rmmod eri" rmmod eri
finish
