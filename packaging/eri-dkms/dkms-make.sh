#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# dkms-make.sh KDIR: eri.ko and eri_sim.ko for the kernel whose build tree
# is KDIR, in the directory this script is in (dkms's build directory): the
# sources adapted to that kernel by the compat layer, as
# scripts/build-modules.sh adapts them (compat/eri-compat.sh: files it must
# edit are edited in place, its header is force-included through
# drivers/infiniband/Kbuild), then Kbuild.  dkms.conf's MAKE[0].
set -euo pipefail
kdir=$1
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
for f in drivers/infiniband/hw/eri/*.[ch] drivers/infiniband/sw/eri_sim/*.[ch]; do
	bash compat/eri-compat.sh source "$kdir" "$f" > "$f.compat"
	if cmp -s "$f" "$f.compat"; then rm -f "$f.compat"; else mv "$f.compat" "$f"; fi
done
cat > drivers/infiniband/Kbuild <<KB
subdir-ccflags-y += $(bash compat/eri-compat.sh cflags "$kdir")
obj-m += hw/eri/ sw/eri_sim/
KB
exec make -C "$kdir" M="$here" ERI_ROOT="$here" \
	CONFIG_INFINIBAND_ERI=m CONFIG_INFINIBAND_ERI_SIM=m modules
