#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of `make demo` (run through scripts/vm-run with --modules and
# --rdma-core): a veth in a fresh network namespace with 198.18.0.1/24, the
# eri_sim and eri modules, eri0 on the veth, `rdma link show` and
# `ibv_devinfo -v -d eri0`.
set -euo pipefail

fail() { echo "demo: FAIL: $*" >&2; exit 1; }
[ "${ERI_IN_VM:-}" = 1 ] || fail "run me in the VM: scripts/vm-run tests/vm/demo-guest.sh"

ns=eridemo
cleanup() {
	ip netns exec "$ns" rdma link delete eri0 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT

echo "demo: kernel $(uname -r), rdma-core ${ERI_RDMA_CORE:-(system)}"
ip netns add "$ns"
ip link add eriveth0 netns "$ns" type veth peer name eriveth1 netns "$ns"
ip -n "$ns" addr add 198.18.0.1/24 dev eriveth0
ip -n "$ns" link set lo up
ip -n "$ns" link set eriveth0 up
ip -n "$ns" link set eriveth1 up

modprobe eri_sim || fail "modprobe eri_sim (were the modules passed with --modules?)"
modprobe eri || fail "modprobe eri"
echo "demo: loaded: $(lsmod | awk '$1 ~ /^eri/ { printf "%s ", $1 }')"

ip netns exec "$ns" rdma link add eri0 type eri netdev eriveth0 ||
	fail "rdma link add eri0 type eri netdev eriveth0"
echo
echo "\$ rdma link show"
ip netns exec "$ns" rdma link show
echo
echo "\$ ibv_devinfo -v -d eri0"
ip netns exec "$ns" ibv_devinfo -v -d eri0 || fail "ibv_devinfo -v -d eri0"
echo
echo "demo: OK"
