#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest-side smoke test of the VM harness (run it through scripts/vm-run):
# kernel release, modules passed with --modules, two network namespaces
# joined by a veth pair, ping across, rdma_rxe (where the kernel has it) and
# `rdma link show`.
set -euo pipefail

fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
[ "${ERI_IN_VM:-}" = 1 ] || fail "run me in the VM: scripts/vm-run tests/vm/smoke.sh"

kver=$(uname -r)
echo "smoke: kernel $kver"
echo "smoke: rdma-core prefix: ${ERI_RDMA_CORE:-none}; rdma is $(command -v rdma || echo missing)"

upd=/lib/modules/$kver/updates/eri
if compgen -G "/eri-out/modules/*.ko" >/dev/null; then
	for ko in /eri-out/modules/*.ko; do
		[ -f "$upd/$(basename "$ko")" ] || fail "$(basename "$ko") not installed in $upd"
		m=$(basename "$ko" .ko)
		modinfo "$m" >/dev/null || fail "modinfo cannot find $m after depmod"
	done
	echo "smoke: modules in $upd: $(cd "$upd" && echo *.ko)"
else
	echo "smoke: no modules passed"
fi

ns1=smoke1 ns2=smoke2
cleanup() {
	ip netns del "$ns1" 2>/dev/null || true
	ip netns del "$ns2" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$ns1"
ip netns add "$ns2"
ip link add veth1 netns "$ns1" type veth peer name veth2 netns "$ns2"
ip -n "$ns1" addr add 198.18.0.1/24 dev veth1
ip -n "$ns2" addr add 198.18.0.2/24 dev veth2
for ns in "$ns1" "$ns2"; do
	ip -n "$ns" link set lo up
done
ip -n "$ns1" link set veth1 up
ip -n "$ns2" link set veth2 up
ip netns exec "$ns1" ping -c 3 -i 0.2 -W 2 198.18.0.2 || fail "ping across the veth pair"
ip netns exec "$ns2" ping -c 1 -W 2 198.18.0.1 >/dev/null || fail "ping back across the veth pair"
echo "smoke: ping 198.18.0.1 <-> 198.18.0.2 across namespaces OK"

if modinfo rdma_rxe >/dev/null 2>&1; then
	modprobe rdma_rxe
	# On 6.1 rdma_rxe only works in the initial namespace: give it its own veth.
	ip link add rxev0 type veth peer name rxev1
	ip addr add 198.19.0.1/24 dev rxev0
	ip link set rxev0 up
	ip link set rxev1 up
	rdma link add rxe0 type rxe netdev rxev0
	echo "smoke: rdma_rxe loaded, rxe0 on rxev0"
else
	echo "smoke: no rdma_rxe for $kver (expected on the cloud flavour)"
	modprobe ib_core 2>/dev/null || true
	modprobe ib_uverbs 2>/dev/null || true
fi
echo "smoke: rdma link show:"
rdma link show
if [ -e /sys/class/infiniband/rxe0 ]; then
	rdma link show | grep -q rxe0 || fail "rxe0 not listed by rdma link show"
	rdma link delete rxe0
fi
echo "smoke: OK"
