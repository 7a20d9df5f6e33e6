#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# two_instances.sh: two guests, as two cloud instances, each with its own
# kernel and a virtio-net NIC, joined by a QEMU datagram network on the
# host's loopback (no veth, no shared kernel): tests/pair/instance.sh runs
# in both, the first as the server of each step, the second as the client.
# Run on the host; two VMs at once (each 2 vCPUs).
#
#   tests/pair/two_instances.sh [options] OUTDIR
#     --server FLAVOUR=MODULES  kernel flavour of the server instance and the
#                               directory of ERI's modules built for it
#                               (default 6.1-cloud=build/<its release>)
#     --client FLAVOUR=MODULES  the same for the client (default 6.12=...)
#     --rdma-core PREFIX        rdma-core with liberi (vm-run --rdma-core)
#     --perftest DIR            perftest's bin directory, for the guests
#     --timeout SEC             each guest's time limit (default 900)
#
# Prints each instance's checks (TAP lines, prefixed with its role) and what
# it measured, then "# two instances: passed" or "failed".  Exit status 0
# only when both guests ran their script to the end with every check
# passing and a clean kernel log (vm-run's own checks).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pair/host_lib.sh"

while [ $# -gt 1 ]; do
	pair_option "$1" "$2" && { shift 2; continue; }
	case $1 in
	*)           echo "two_instances.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
[ $# -eq 1 ] || { sed -n '3,21s/^# \{0,1\}//p' "$0" >&2; exit 2; }
out=$1
pair_defaults

# Two UDP ports of the loopback nobody uses now: each guest's end of the
# datagram network.
read -r port_s port_c < <(free_ports 2)

mkdir -p "$out"
addr_s=198.18.5.1 addr_c=198.18.5.2
# instance ROLE FLAVOUR=MODULES NETDEV MAC SELF PEER: one guest, in the
# background; its vm-run output goes to OUT/ROLE.log.
instance() {
	local role=$1 fl=${2%%=*} mods=${2#*=}
	"$top/scripts/vm-run" --kernel "$fl" --timeout "$timeout" --out "$out/$role" \
		--modules "$mods" --rdma-core "$rdma_core" --netdev "$3" --mac "$4" \
		--env "ERI_ROLE=$role" --env "ERI_SELF=$5" --env "ERI_PEER=$6" \
		--env "ERI_PERFTEST=$perftest" \
		"$top/tests/pair/instance.sh" > "$out/$role.log" 2>&1
}
instance server "$server" "$(dgram "$port_s" "$port_c")" 52:54:00:e7:05:01 "$addr_s" "$addr_c" &
spid=$!
instance client "$client" "$(dgram "$port_c" "$port_s")" 52:54:00:e7:05:02 "$addr_c" "$addr_s" &
cpid=$!
rc=0
wait "$spid" || rc=1
wait "$cpid" || rc=1
for role in server client; do
	spec=$server
	[ "$role" = client ] && spec=$client
	echo "# $role instance: kernel flavour ${spec%%=*}"
	sed "s/^\(not \)\{0,1\}ok - /&[$role] /" "$out/$role/stdout.txt" 2>/dev/null || true
	grep -E '^vm-run: ' "$out/$role.log" | sed 's/^/# /'
done
if [ "$rc" = 0 ]; then
	echo "# two instances: passed"
else
	echo "# two instances: failed"
fi
exit "$rc"
