#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# demo.sh (make demo): set up, build the modules for Debian's 6.1 kernel and
# rdma-core with our provider, boot a VM, create eri0 and eri1 in two network
# namespaces joined by a veth pair, show them, and run ibv_rc_pingpong,
# ib_write_bw and ib_read_lat between them (tests/vm/demo-guest.sh).
#
# Environment: KFLAVOUR (default 6.1), ERI_CACHE.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
export ERI_CACHE
flavour=${KFLAVOUR:-6.1}
logs=$top/build/logs
mkdir -p "$logs"

step() { echo "demo: $*" >&2; }
die() { echo "demo: $*" >&2; exit 1; }

step "setup (log: $logs/demo-setup.log)"
scripts/setup.sh > "$logs/demo-setup.log" 2>&1 ||
	{ tail -n 20 "$logs/demo-setup.log" >&2; die "setup failed"; }

ver=$(scripts/kernel.sh version "$flavour")
step "building the modules for $ver (log: $logs/demo-modules.log)"
scripts/build-modules.sh "/lib/modules/$ver/build" "build/$ver" > "$logs/demo-modules.log" 2>&1 ||
	{ tail -n 30 "$logs/demo-modules.log" >&2; die "module build failed"; }

step "building rdma-core (log: $logs/demo-rdma-core.log; a few minutes the first time)"
prefix=$(scripts/rdma-core.sh 2> "$logs/demo-rdma-core.log" | tail -n1) ||
	{ tail -n 30 "$logs/demo-rdma-core.log" >&2; die "rdma-core build failed"; }
[ -d "$prefix" ] || die "scripts/rdma-core.sh gave no prefix (got '$prefix')"

step "booting $ver"
exec scripts/vm-run --kernel "$flavour" --timeout 300 --out "$logs/demo" \
	--modules "build/$ver" --rdma-core "$prefix" tests/vm/demo-guest.sh
