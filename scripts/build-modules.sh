#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# build-modules.sh KDIR OUTDIR [kbuild args...]
#
# Builds eri.ko and eri_sim.ko out of tree against the kernel build tree KDIR,
# and the kernel verbs test module tests/kmod/eri_kverbs_test.ko (loaded by
# tests/vm/kverbs.sh).
# Kbuild builds in the directory it is given, so OUTDIR is a shadow tree of
# symbolic links to the sources: one per kernel, built side by side.
# The sources are written for Linux 6.12; the compat layer (compat/, see
# compat/eri-compat.sh) adapts them to older kernels: its header is
# force-included into every file, and a file it must edit for KDIR's kernel
# is a copy instead of a link.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1 out=$2
shift 2
[ -d "$kdir" ] || { echo "build-modules: no kernel build tree at $kdir (run make setup)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
for d in drivers/infiniband/hw/eri drivers/infiniband/sw/eri_sim tests/kmod; do
	mkdir -p "$out/$d"
	# Drop links to files that no longer exist, link the current ones.
	find "$out/$d" -maxdepth 1 -type l ! -exec test -e {} \; -delete
	for f in "$top/$d"/*.[ch] "$top/$d"/Makefile; do
		[ -e "$f" ] || continue
		"$top/compat/eri-compat.sh" place "$kdir" "$f" \
			"$out/$d/$(basename "$f")"
	done
	# Drop copies of files that no longer exist.
	for f in "$out/$d"/*.[ch]; do
		[ -L "$f" ] || [ ! -e "$f" ] || [ -e "$top/$d/$(basename "$f")" ] ||
			[[ $f == *.mod.c ]] || rm -f "$f"
	done
done
# The compat layer is the drivers'; the test modules are written for both
# kernels as they are.
"$top/compat/eri-compat.sh" kbuild "$kdir" > "$out/drivers/infiniband/Kbuild"
cat > "$out/Kbuild" <<KB
obj-m += drivers/infiniband/ tests/kmod/
KB
exec make -C "$kdir" M="$out" ERI_ROOT="$top" \
	CONFIG_INFINIBAND_ERI=m CONFIG_INFINIBAND_ERI_SIM=m "$@" modules
