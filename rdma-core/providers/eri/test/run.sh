#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Builds and runs liberi's standalone data path test against the rdma-core
# tree that scripts/rdma-core.sh built, and checks that eri_hw.h defines
# every field, flag and enum value exactly as include/linux/eri/ does.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
base=${ERI_CACHE:-/var/cache/eri}/rdma-core/56.1
build=$base/build

# 1. eri_hw.h against the kernel headers: each ERI_ define and enum value
# of ours must read the same there (whitespace aside).  An enumerator is
# "NAME = value,"; "NAME == ..." in a static_assert is not one.
defs() {
	sed -n -E 's/^#define[[:space:]]+(ERI_[A-Z0-9_]+)[[:space:]]+([^/]*[^/[:space:]]).*/\1 \2/p;
		   s/^[[:space:]]+(ERI_[A-Z0-9_]+)[[:space:]]*=[[:space:]]*([^=,[:space:]][^,]*),.*/\1 \2/p' "$@" |
		sort
}
kernel=$(defs "$top/include/linux/eri/eri_io_defs.h" "$top/include/linux/eri/eri_ring.h")
bad=0
while read -r name val; do
	case $name in
	ERI_WQE_MAX_LENGTH|ERI_CQE_SHIFT) continue ;;	# ours alone
	esac
	kval=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print }' <<<"$kernel")
	if [ "$kval" != "$val" ]; then
		echo "eri_hw.h: $name is '$val', the kernel's '$kval'" >&2
		bad=1
	fi
done < <(defs "$here/../eri_hw.h")
[ $bad = 0 ] || exit 1
echo "eri_hw.h matches include/linux/eri"

# 2. The data path test.
[ -f "$build/include/kernel-abi/eri-abi.h" ] ||
	{ echo "run scripts/rdma-core.sh first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# eri.c is not compiled in; eri_cq.c, eri_qp.c and eri_srq.c are, by the
# test.
gcc -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter \
	-Werror -I"$build/include" \
	-o "$out/eri_datapath_test" "$here/eri_datapath_test.c" \
	-L"$build/lib" -Wl,-rpath,"$build/lib" -libverbs -lpthread
"$out/eri_datapath_test"
