#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of `make demo` (run through scripts/vm-run with --modules and
# --rdma-core): two network namespaces joined by a veth pair (198.18.0.1/24
# and .2/24), eri0 and eri1 on its ends, `rdma link show`,
# `ibv_devinfo -v -d eri0`, then ibv_rc_pingpong, ib_write_bw and
# ib_read_lat from one namespace to the other, and the device counters.
# make check runs it on 6.1 only (`make demo` shows it on any kernel).
# check-flavours: 6.1
set -euo pipefail

. "$(dirname "$0")/lib.sh"	# gid_index

fail() { echo "demo: FAIL: $*" >&2; exit 1; }
[ "${ERI_IN_VM:-}" = 1 ] || fail "run me in the VM: scripts/vm-run tests/vm/demo-guest.sh"

ns0=eridemo0 ns1=eridemo1
cleanup() {
	ip netns exec "$ns0" rdma link delete eri0 2>/dev/null || true
	ip netns exec "$ns1" rdma link delete eri1 2>/dev/null || true
	ip netns del "$ns0" 2>/dev/null || true
	ip netns del "$ns1" 2>/dev/null || true
}
trap cleanup EXIT

echo "demo: kernel $(uname -r), rdma-core ${ERI_RDMA_CORE:-(system)}"
ip netns add "$ns0"
ip netns add "$ns1"
ip link add eriveth0 netns "$ns0" type veth peer name eriveth1 netns "$ns1"
ip -n "$ns0" addr add 198.18.0.1/24 dev eriveth0
ip -n "$ns1" addr add 198.18.0.2/24 dev eriveth1
for ns in "$ns0" "$ns1"; do
	ip -n "$ns" link set lo up
done
ip -n "$ns0" link set eriveth0 up
ip -n "$ns1" link set eriveth1 up

modprobe eri_sim || fail "modprobe eri_sim (were the modules passed with --modules?)"
modprobe eri || fail "modprobe eri"
echo "demo: loaded: $(lsmod | awk '$1 ~ /^eri/ { printf "%s ", $1 }')"

ip netns exec "$ns0" rdma link add eri0 type eri netdev eriveth0 ||
	fail "rdma link add eri0 type eri netdev eriveth0"
ip netns exec "$ns1" rdma link add eri1 type eri netdev eriveth1 ||
	fail "rdma link add eri1 type eri netdev eriveth1"
echo
echo "\$ ip netns exec $ns0 rdma link show"
ip netns exec "$ns0" rdma link show
echo
echo "\$ ibv_devinfo -v -d eri0"
ip netns exec "$ns0" ibv_devinfo -v -d eri0 || fail "ibv_devinfo -v -d eri0"

for i in $(seq 50); do
	g0=$(gid_index eri0 198.18.0.1) && g1=$(gid_index eri1 198.18.0.2) && break
	sleep 0.1
done
[ -n "${g0:-}" ] && [ -n "${g1:-}" ] || fail "no RoCEv2 GIDs for 198.18.0.1/2"

# Server in one namespace, client in the other; each under a timeout.
run_pair() {
	echo
	echo "\$ ip netns exec $ns1 $* -d eri1 $gflag $g1 &"
	echo "\$ ip netns exec $ns0 $* -d eri0 $gflag $g0 198.18.0.2"
	ip netns exec "$ns1" timeout 60 "$@" -d eri1 "$gflag" "$g1" > /tmp/demo-srv.out 2>&1 &
	local srv=$! i
	# Both tools listen on TCP port 18515 for the client: wait for it
	# (a loaded host may take seconds to start the server).
	for i in $(seq 300); do
		ip netns exec "$ns1" ss -Hltn "sport = :18515" | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$ns0" timeout 60 "$@" -d eri0 "$gflag" "$g0" 198.18.0.2 ||
		server_fail "$srv" "$1 client"
	wait "$srv" || server_fail "" "$1 server"
}
# server_fail PID WHAT: the server's output (after it ended), then fail.
server_fail() {
	[ -z "$1" ] || wait "$1"
	echo "--- server output:"
	cat /tmp/demo-srv.out
	ip netns exec "$ns0" rdma statistic show link eri0/1
	fail "$2"
}
gflag=-g run_pair ibv_rc_pingpong -s 4096 -n 100
# -F: under TCG perftest's CPU clock calibration sometimes fails (r^2 of
# its fit below 0.9) and without -F the client then exits 1 after a good run.
gflag=-x run_pair ib_write_bw -s 65536 -n 500 -F
gflag=-x run_pair ib_read_lat -s 64 -n 500 -F
echo
echo "\$ ip netns exec $ns0 rdma statistic show link eri0/1"
ip netns exec "$ns0" rdma statistic show link eri0/1
echo
echo "demo: OK"
