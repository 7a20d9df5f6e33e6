#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Builds and runs liberi's standalone data path test against the rdma-core
# tree that scripts/rdma-core.sh built, with the device formats of
# include/linux/eri/ (which the build copies into the provider).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
base=${ERI_CACHE:-/var/cache/eri}/rdma-core/56.1
build=$base/build

# The test, built against that tree.
[ -f "$build/include/kernel-abi/eri-abi.h" ] ||
	{ echo "run scripts/rdma-core.sh first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# eri.c is not compiled in; eri_cq.c, eri_qp.c and eri_srq.c are, by the
# test.
gcc -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter \
	-Werror -I"$build/include" -I"$top/include/linux/eri" \
	-o "$out/eri_datapath_test" "$here/eri_datapath_test.c" \
	-L"$build/lib" -Wl,-rpath,"$build/lib" -libverbs -lpthread
"$out/eri_datapath_test"
